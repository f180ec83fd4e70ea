//! Where the tests find the repository's files and the third-party exports beside the checkout.
//!
//! These are the paths of the dependency-free `warpsight-test-corpus` crate, re-exported so that
//! every test crate names them one way: [`traces_dir`] for the project's own exports, and
//! [`shared_traces`] / [`shared_reference`], which return `None` (and record the skip, reported
//! once when the test binary exits) where `../shared` is not beside the checkout.

pub use warpsight_test_corpus::{
    REQUIRE_SHARED, shared_dir, shared_reference, shared_traces, traces_dir, workspace_root,
};
