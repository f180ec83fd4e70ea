//! cargo-fuzz target: any bytes read as the `nsys stats --report cuda_gpu_kern_sum` CSV must give
//! `Ok` or `Err`, never a panic, an abort, a hang or an out-of-memory.
//!
//! Run (nightly, from `core/ingest`): `cargo +nightly fuzz run nsys_kern_sum <corpus> <seeds>`,
//! with the seeds made by `fuzz/seeds.sh` (see docs/reliability.md).

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpsight_ingest::Format;

fuzz_target!(|data: &[u8]| {
    warpsight_ingest_fuzz::read_as(data, Format::NsysKernSum, "kern_sum.csv");
});
