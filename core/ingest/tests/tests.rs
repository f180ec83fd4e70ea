//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the readers against real exports in `../shared/traces`, the `.ncu-rep` reports in `traces/ncu-rep`, the fixtures, and the kit captures' two ncu pages against each other.

mod environment;
mod hostile;
mod kit_pages;
mod mutants;
mod ncu_corpus;
mod ncu_rep;
mod nsys_corpus;
mod sass_opcodes;
