//! The one integration-test binary of this crate (ripgrep's `tests/tests.rs` pattern): the host
//! against real plugin files. The shipped plugins load without rejections; deliberately broken
//! plugins (`plugins/fault-test`, one cargo feature per fault, built by `warpsight-test-support`)
//! are each rejected with their own error while the good plugins stay loaded; truncated and
//! foreign libraries are refused before or by `dlopen`; older ABI minors get their defaults; the
//! first plugin found wins a duplicate; the rules hook round-trips a frame and its faults are
//! reported.

mod loading;
mod rules_hook;

/// What every test returns.
type TestResult = Result<(), Box<dyn std::error::Error>>;
