//! cargo-fuzz target: any bytes read as a Parquet or Arrow IPC file (warpsight's own launch table
//! or a single nsys table, told apart by detection as for any input) must give `Ok` or `Err`, never
//! a panic, an abort, a hang or an out-of-memory.
//!
//! A panic inside polars' readers is caught by `read_path` in the binary but is a crash here (see
//! `src/lib.rs`): run with `-fork=1 -ignore_crashes=1` to go on after one (docs/reliability.md).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The extension is only a fallback of detection; the magic bytes decide.
    let name = if data.starts_with(b"ARROW1") { "table.arrow" } else { "table.parquet" };
    warpsight_ingest_fuzz::read_detected(data, name);
});
