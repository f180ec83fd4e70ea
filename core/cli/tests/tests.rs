//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the `warpsight` binary end to end: CLI snapshots, plugin loading and faults, and the real-GPU captures.

mod captured_traces;
mod cli_snapshots;
mod plugins;
