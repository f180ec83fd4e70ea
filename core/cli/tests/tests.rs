//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the `warpsight` binary end to end: accuracy on the captures, one export analysed in parts, CLI snapshots, the CLI contract (bad invocations), plugin loading and faults, the Hopper plugin against ncu's peaks, and the real-GPU captures.

mod accuracy;
mod analysis_parts;
mod captured_traces;
mod cli_contract;
mod cli_snapshots;
mod environment_inputs;
mod hopper_peaks;
mod ingest_batches;
mod ncu_inputs;
mod plugins;
