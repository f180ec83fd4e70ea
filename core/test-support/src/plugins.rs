//! The shipped architecture plugins, loaded through the real host the way the binary loads them.
//!
//! This crate depends on every shipped plugin crate (`crate-type = ["cdylib", "rlib"]`), so cargo
//! builds their shared libraries into `target/<profile>/deps/` before any test or benchmark that
//! uses this crate runs. Nothing here runs cargo. The libraries are loaded from that `deps/`
//! directory, where cargo always writes the fresh build: the copies one level up are only
//! refreshed by `cargo build`, so after `cargo test` alone they can be stale.

use std::path::PathBuf;
use std::sync::OnceLock;

use warpsight_model::arch::{ArchSpec, ComputeCapability, Registry};
use warpsight_model::plugin_host::{LoadReport, PluginConfig, load_registry};

/// The cargo package names of the shipped plugin crates, oldest family first.
pub const PLUGIN_PACKAGES: &[&str] = &[
    "warpsight-plugin-maxwell",
    "warpsight-plugin-pascal",
    "warpsight-plugin-volta",
    "warpsight-plugin-turing",
    "warpsight-plugin-ampere",
    "warpsight-plugin-ada",
    "warpsight-plugin-hopper",
    "warpsight-plugin-blackwell",
];

/// The profile directory the running test or benchmark was built in (`target/debug`,
/// `target/release`, or under `CARGO_TARGET_DIR`): the parent of the executable's `deps/`
/// directory.
pub fn profile_dir() -> PathBuf {
    let mut dir = plugin_dir();
    if dir.file_name().is_some_and(|name| name == "deps") {
        dir.pop();
    }
    dir
}

/// Where the freshly built plugin libraries are: the test executable's own directory
/// (`target/<profile>/deps/`).
pub fn plugin_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    exe.parent().map(PathBuf::from).unwrap_or_default()
}

/// The profile directory with the fresh plugin libraries copied into it, once per process: the
/// directory the `warpsight` binary searches by itself (its own), so that a test that runs the
/// binary sees exactly one, current copy of each plugin. A stale copy is unlinked before the new
/// one is written, so that a process still mapping the old file is not disturbed.
pub fn binary_plugin_dir() -> Result<PathBuf, String> {
    static SYNCED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    SYNCED
        .get_or_init(|| {
            let target = profile_dir();
            for package in PLUGIN_PACKAGES {
                let fresh = plugin_file(package);
                let Some(name) = fresh.file_name() else {
                    continue;
                };
                let copy = target.join(name);
                let same = match (std::fs::read(&fresh), std::fs::read(&copy)) {
                    (Ok(a), Ok(b)) => a == b,
                    (Err(e), _) => return Err(format!("{}: {e}", fresh.display())),
                    _ => false,
                };
                if !same {
                    let _ = std::fs::remove_file(&copy);
                    std::fs::copy(&fresh, &copy).map_err(|e| format!("{}: {e}", copy.display()))?;
                }
            }
            Ok(target)
        })
        .clone()
}

/// The file a plugin package builds to in [`plugin_dir`].
pub fn plugin_file(package: &str) -> PathBuf {
    let stem = package.replace('-', "_");
    plugin_dir().join(format!(
        "{}{stem}.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    ))
}

/// The shipped plugins, loaded from [`plugin_dir`] only (no environment, no other directory),
/// with the load report.
pub fn workspace_plugins() -> (Registry, LoadReport) {
    load_registry(&PluginConfig::only_dirs(&[plugin_dir()]))
}

/// The registry of the shipped plugins, loaded once per test process.
pub fn registry() -> Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| workspace_plugins().0).clone()
}

/// The architecture the shipped plugins give for a compute capability.
pub fn arch(major: u32, minor: u32) -> Option<ArchSpec> {
    registry()
        .arch(ComputeCapability::new(major, minor))
        .cloned()
}
