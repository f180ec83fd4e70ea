//! Test support for warpsight's crates (`publish = false`, a dev-dependency only): synthetic
//! exports written from the documented formats, the shipped plugins loaded through the real host,
//! and the paths of the repository and of `../shared`.
//!
//! Nothing here is compiled into the `warpsight` binary or the library crates.

pub mod fixtures;
pub mod paths;
pub mod plugins;
pub mod synthetic_ncu;
pub mod synthetic_nsys;

pub use plugins::{arch, registry, workspace_plugins};
