//! Test support (hidden from the docs): makes sure the workspace's plugin cdylibs are built and
//! loads them, so that tests of any module can get a real [`Registry`].
//!
//! The plugins are built with `cargo build -p <each plugin crate>` (the same cargo that builds the
//! tests, `env!("CARGO")`) when a library is missing or older than a plugin source file, once per
//! test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::SystemTime;

use super::errors::PluginError;
use super::{LoadReport, PluginConfig, load_registry};
use crate::arch::Registry;

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

/// The workspace root (the parent of the `core/` crate).
pub fn workspace_root() -> PathBuf {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    core.parent().unwrap_or(core).to_path_buf()
}

/// The cargo target directory: `CARGO_TARGET_DIR`, or `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        _ => workspace_root().join("target"),
    }
}

/// The profile directory the tests were built in: `debug`, or `release` for `--release` tests.
pub fn profile_dir() -> PathBuf {
    target_dir().join(if cfg!(debug_assertions) { "debug" } else { "release" })
}

/// The file a plugin package builds to in [`profile_dir`].
pub fn plugin_file(package: &str) -> PathBuf {
    let stem = package.replace('-', "_");
    profile_dir().join(format!(
        "{}{stem}.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    ))
}

/// The newest modification time of any `.rs`/`Cargo.toml` file under `dir`.
fn newest_source(dir: &Path) -> Option<SystemTime> {
    let mut newest: Option<SystemTime> = None;
    for entry in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
        let path = entry.path();
        let time = if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            newest_source(&path)
        } else if path.extension().is_some_and(|e| e == "rs") || path.file_name().is_some_and(|n| n == "Cargo.toml") {
            entry.metadata().ok().and_then(|m| m.modified().ok())
        } else {
            None
        };
        newest = newest.max(time);
    }
    newest
}

/// Whether some plugin library is missing or older than the plugin sources.
fn plugins_stale() -> bool {
    let sources = newest_source(&workspace_root().join("plugins"));
    PLUGIN_PACKAGES.iter().any(
        |package| match std::fs::metadata(plugin_file(package)).and_then(|m| m.modified()) {
            Ok(built) => sources.is_some_and(|s| s > built),
            Err(_) => true,
        },
    )
}

/// Runs `cargo build` for `packages` (with `--release` when the tests are optimised) and extra
/// arguments, from the workspace root.
pub fn cargo_build(packages: &[&str], extra: &[&str]) -> Result<(), PluginError> {
    let mut command = Command::new(env!("CARGO"));
    command.current_dir(workspace_root()).arg("build").arg("--quiet");
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    for package in packages {
        command.arg("-p").arg(package);
    }
    command.args(extra);
    let output = command.output().map_err(|e| PluginError::Build {
        dir: target_dir(),
        message: format!("cannot run cargo: {e}"),
    })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(PluginError::Build {
            dir: target_dir(),
            message: format!("`cargo build` failed: {}", String::from_utf8_lossy(&output.stderr)),
        })
    }
}

/// Builds the workspace plugins if needed (once per process) and returns their directory.
pub fn ensure_plugins_built() -> Result<PathBuf, PluginError> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if plugins_stale() {
                cargo_build(PLUGIN_PACKAGES, &[]).map_err(|e| e.to_string())?;
            }
            Ok(profile_dir())
        })
        .clone()
        .map_err(|message| PluginError::Build {
            dir: target_dir(),
            message,
        })
}

/// The workspace plugins, loaded from the profile directory only (no environment, no executable
/// directory), with the load report.
pub fn workspace_plugins() -> Result<(Registry, LoadReport), PluginError> {
    let dir = ensure_plugins_built()?;
    Ok(load_registry(&PluginConfig::only_dirs(&[dir])))
}

/// The registry of the workspace plugins.
pub fn workspace_registry() -> Result<Registry, PluginError> {
    workspace_plugins().map(|(registry, _)| registry)
}
