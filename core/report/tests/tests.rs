//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the analysis (what-if, sweeps, pipeline) with the shipped plugins' data.

mod pipeline;
mod sweep;
mod what_if;
