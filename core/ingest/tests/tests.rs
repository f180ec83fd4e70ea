//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the readers against real exports in `../shared/traces` and the fixtures, and the kit captures' two ncu pages against each other.

mod kit_pages;
mod ncu_corpus;
mod nsys_corpus;
