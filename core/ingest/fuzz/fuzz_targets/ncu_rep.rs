//! cargo-fuzz target: any bytes read as the Nsight Compute report (`.ncu-rep`, read by the ingest
//! reader on top of the decoder that `core/ncu-rep/fuzz` fuzzes alone) must give `Ok` or `Err`,
//! never a panic, an abort, a hang or an out-of-memory.
//!
//! Run (nightly, from `core/ingest`): `cargo +nightly fuzz run ncu_rep <corpus> <seeds>`,
//! with the seeds made by `fuzz/seeds.sh` (see docs/reliability.md).

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpsight_ingest::Format;

fuzz_target!(|data: &[u8]| {
    warpsight_ingest_fuzz::read_as(data, Format::NcuRep, "report.ncu-rep");
});
