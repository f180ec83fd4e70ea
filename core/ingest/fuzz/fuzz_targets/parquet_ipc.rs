//! cargo-fuzz target: any bytes read as a Parquet or Arrow IPC file (warpsight's own launch table
//! or a single nsys table, told apart by detection as for any input) must give `Ok` or `Err`, never
//! a panic, an abort, a hang or an out-of-memory.
//!
//! A panic inside polars' readers unwinds to `read_path`'s `catch_unwind` as in the binary (and is
//! logged with its place, see `let_polars_panics_unwind` in `src/lib.rs`); any other panic, an
//! abort or a signal is a crash.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A panic inside polars' Parquet / IPC readers is caught by `read_path` as in the binary;
    // any other panic is a crash (see `let_polars_panics_unwind`).
    warpsight_ingest_fuzz::let_polars_panics_unwind();
    // The extension is only a fallback of detection; the magic bytes decide.
    let name = if data.starts_with(b"ARROW1") { "table.arrow" } else { "table.parquet" };
    warpsight_ingest_fuzz::read_detected(data, name);
});
