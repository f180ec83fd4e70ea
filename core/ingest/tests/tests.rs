//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the readers against real exports in `../shared/traces` and the fixtures.

mod ncu_corpus;
mod nsys_corpus;
