//! cargo-fuzz target: any byte string given to `decode` and to the streaming `LaunchStream`
//! must give `Ok` or `Err`, never a panic, an abort or an out-of-memory.
//!
//! Run (nightly): `cargo +nightly fuzz run decode <corpus> <seeds> -- -max_len=262144`, with
//! `<seeds>` a folder holding (links to) small reports such as `copy_basic.ncu-rep`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpsight_ncu_rep::{LaunchStream, decode};

fuzz_target!(|data: &[u8]| {
    let _ = decode(data);
    if let Ok(stream) = LaunchStream::new(data) {
        for item in stream {
            if item.is_err() {
                break;
            }
        }
    }
});
