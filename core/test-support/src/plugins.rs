//! The shipped architecture plugins, built by cargo and loaded through the real host the way the
//! binary loads them, and the deliberately broken plugins of `plugins/fault-test`.
//!
//! The plugin packages are listed in one place only: the workspace members of the root
//! `Cargo.toml`. A member under `plugins/` is a shipped plugin when its library name follows the
//! discovery convention (`warpsight_plugin_<family>`, see
//! [`warpsight_plugin_host::PLUGIN_STEM_PREFIX`]); the ABI crate (`warpsight_plugin`) and the
//! test-only `warpsight_fault_test` are not. [`plugin_packages`] reads that list at run time, so
//! adding a GPU generation means adding its crate to the root `Cargo.toml` and nothing here.
//!
//! The first use of the plugins in a process ([`plugin_dir`] and everything built on it) runs
//! `cargo build -p <each plugin>` in the running test's profile and target directory, so the
//! shared libraries in `target/<profile>/deps/` are fresh whichever packages were tested
//! (`cargo test -p warpsight-model` included); when nothing changed this costs about a second.
//! The libraries are loaded from that `deps/` directory, where cargo always writes the fresh
//! build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use warpsight_model::arch::{ArchSpec, ComputeCapability, Registry};
use warpsight_plugin_host::{LoadReport, PLUGIN_STEM_PREFIX, PluginConfig, load_registry};

use crate::paths::workspace_root;

/// The cargo package names of the shipped plugin crates, in the order of the root `Cargo.toml`'s
/// workspace members (oldest family first), read once per process (see the module docs).
pub fn plugin_packages() -> Result<&'static [String], String> {
    static PACKAGES: OnceLock<Result<Vec<String>, String>> = OnceLock::new();
    PACKAGES
        .get_or_init(|| plugin_packages_in(&workspace_root()))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// The shipped plugin packages of the workspace whose root is `root`: its members under
/// `plugins/` whose library name starts with [`PLUGIN_STEM_PREFIX`].
pub fn plugin_packages_in(root: &Path) -> Result<Vec<String>, String> {
    let read = |path: PathBuf| {
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let manifest = read(root.join("Cargo.toml"))?;
    let mut packages = Vec::new();
    for member in workspace_members(&manifest) {
        if !member.starts_with("plugins/") {
            continue;
        }
        let crate_manifest = read(root.join(&member).join("Cargo.toml"))?;
        let package = toml_string(&crate_manifest, "package", "name")
            .ok_or(format!("{member}/Cargo.toml has no package name"))?;
        let library = toml_string(&crate_manifest, "lib", "name")
            .unwrap_or_else(|| package.replace('-', "_"));
        if library.starts_with(PLUGIN_STEM_PREFIX) {
            packages.push(package);
        }
    }
    Ok(packages)
}

/// The `members` of a manifest's `[workspace]` table, in order (a plain array of strings, as in
/// the root `Cargo.toml`).
fn workspace_members(manifest: &str) -> Vec<String> {
    let Some(array) = toml_value(manifest, "workspace", "members") else {
        return Vec::new();
    };
    array
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// A string value `key = "…"` of a manifest's `[table]`.
fn toml_string(manifest: &str, table: &str, key: &str) -> Option<String> {
    let value = toml_value(manifest, table, key)?;
    let value = value.trim();
    Some(value.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// The text after `key =` in a manifest's `[table]`, comments left out; an array is followed to
/// its closing `]` across lines. Enough for the workspace's own manifests, not a TOML parser.
fn toml_value(manifest: &str, table: &str, key: &str) -> Option<String> {
    let header = format!("[{table}]");
    let mut in_table = false;
    let mut lines = manifest
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim());
    while let Some(line) = lines.next() {
        if line.starts_with('[') {
            in_table = line == header;
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        if !in_table || name.trim() != key {
            continue;
        }
        let mut value = value.trim().to_string();
        if value.starts_with('[') {
            while !value.contains(']') {
                value.push_str(lines.next()?);
            }
        }
        return Some(value);
    }
    None
}

/// The directory of the running test or benchmark executable (`target/<profile>/deps/`). A
/// doctest runs from a temporary directory instead: it gets the `deps/` directory of the
/// workspace's target directory (as `cargo metadata` names it) in the profile this crate was
/// built in.
fn exe_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        let dir = exe.parent().map(PathBuf::from).unwrap_or_default();
        if dir.file_name().is_some_and(|name| name == "deps") {
            return dir;
        }
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        target_dir().join(profile).join("deps")
    })
    .clone()
}

/// The workspace's target directory: `cargo metadata`'s `target_directory`, else `target/` in
/// the workspace root.
fn target_dir() -> PathBuf {
    const KEY: &str = "\"target_directory\":\"";
    let metadata = Command::new(env!("CARGO"))
        .current_dir(workspace_root())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output();
    metadata
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| {
            let text = String::from_utf8(output.stdout).ok()?;
            let start = text.find(KEY)? + KEY.len();
            let end = start + text[start..].find('"')?;
            Some(PathBuf::from(&text[start..end]))
        })
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// The profile directory the running test or benchmark was built in (`target/debug`,
/// `target/release`, or under `CARGO_TARGET_DIR`): the parent of the executable's `deps/`
/// directory.
pub fn profile_dir() -> PathBuf {
    let mut dir = exe_dir();
    if dir.file_name().is_some_and(|name| name == "deps") {
        dir.pop();
    }
    dir
}

/// Runs `cargo build` for `packages` with extra arguments, from the workspace root, in the
/// profile and target directory of the running test (so `cargo test --release` builds release
/// libraries beside its executables).
pub fn cargo_build(packages: &[&str], extra: &[&str]) -> Result<(), String> {
    let profile = profile_dir();
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(workspace_root())
        .arg("build")
        .arg("--quiet");
    match profile.file_name().and_then(|name| name.to_str()) {
        Some("debug") | None => {}
        Some("release") => {
            command.arg("--release");
        }
        Some(other) => {
            command.args(["--profile", other]);
        }
    }
    if let Some(target_dir) = profile.parent() {
        command.arg("--target-dir").arg(target_dir);
    }
    for package in packages {
        command.arg("-p").arg(package);
    }
    command.args(extra);
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo build` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Builds the shipped plugins, once per process.
fn build_plugins() -> &'static Result<(), String> {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let packages: Vec<&str> = plugin_packages()?.iter().map(String::as_str).collect();
        cargo_build(&packages, &[])
    })
}

/// Where the freshly built plugin libraries are: the test executable's own directory
/// (`target/<profile>/deps/`). The first call builds them (see the module docs).
///
/// # Panics
/// When the plugins cannot be built: no test that uses them could pass.
pub fn plugin_dir() -> PathBuf {
    if let Err(error) = build_plugins() {
        panic!("cannot build the workspace plugins: {error}");
    }
    exe_dir()
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
            for package in plugin_packages()? {
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

/// Every variant of the deliberately broken plugin `warpsight-fault-test`: its cargo feature
/// (`None`: no feature) and a short name.
pub const FAULT_VARIANTS: &[(Option<&str>, &str)] = &[
    (None, "missing_entry"),
    (Some("wrong-major"), "wrong_major"),
    (Some("wrong-magic"), "wrong_magic"),
    (Some("entry-panic"), "entry_panic"),
    (Some("rules-panic"), "rules_panic"),
    (Some("rules-ok"), "rules_ok"),
    (Some("rules-unknown-launch"), "rules_unknown_launch"),
    (Some("zero-sms"), "zero_sms"),
    (Some("carveouts-descending"), "carveouts_descending"),
    (Some("warps-exceed-threads"), "warps_exceed_threads"),
    (Some("duplicate-cc"), "duplicate_cc"),
    (Some("bad-sass-pipe"), "bad_sass_pipe"),
    (Some("abi-minor-0"), "abi_minor_0"),
    (Some("abi-minor-2"), "abi_minor_2"),
];

/// Builds every fault variant once per process (each is one cargo feature of
/// `warpsight-fault-test`, built one at a time) and copies each into its own directory under a
/// name that follows the plugin naming convention. Returns variant name → directory.
pub fn fault_dirs() -> Result<&'static std::collections::HashMap<&'static str, PathBuf>, String> {
    type Dirs = std::collections::HashMap<&'static str, PathBuf>;
    static DIRS: OnceLock<Result<Dirs, String>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let built = profile_dir().join(format!(
            "{}warpsight_fault_test.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        ));
        let mut dirs = Dirs::new();
        for (feature, name) in FAULT_VARIANTS {
            let extra: Vec<&str> = feature.map(|f| vec!["--features", f]).unwrap_or_default();
            cargo_build(&["warpsight-fault-test"], &extra)?;
            let dir = profile_dir().join("fault-test").join(name);
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let dest = dir.join(format!(
                "{}warpsight_plugin_fault_{name}.{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_EXTENSION
            ));
            // Unlink first: replacing a library in place could corrupt a process that maps it.
            let _ = std::fs::remove_file(&dest);
            std::fs::copy(&built, &dest).map_err(|e| format!("copy {}: {e}", built.display()))?;
            dirs.insert(*name, dir);
        }
        Ok(dirs)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The single library file in a fault variant's directory.
pub fn fault_file(name: &str) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let dir = fault_dirs()?
        .get(name)
        .ok_or(format!("no variant {name}"))?
        .clone();
    let file = std::fs::read_dir(&dir)?
        .next()
        .ok_or("empty variant dir")??
        .path();
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_manifest_lists_the_shipped_plugins() -> Result<(), String> {
        let packages = plugin_packages()?;
        assert_eq!(
            packages.first().map(String::as_str),
            Some("warpsight-plugin-maxwell")
        );
        assert!(
            packages.iter().any(|p| p == "warpsight-plugin-hopper"),
            "{packages:?}"
        );
        assert!(
            packages.iter().all(|p| p.starts_with("warpsight-plugin-")),
            "neither the ABI crate nor the fault-test crate: {packages:?}"
        );
        Ok(())
    }

    #[test]
    fn members_and_library_names_are_read_from_the_manifests() -> Result<(), String> {
        let root = tempfile::tempdir().map_err(|e| e.to_string())?;
        let write = |path: &str, text: &str| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap_or(root.path()))
                .and_then(|()| std::fs::write(&path, text))
                .map_err(|e| e.to_string())
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\n    \"core/x\", # a comment\n    \"plugins/abi\",\n    \"plugins/new\", \"plugins/fault\",\n]\n[workspace.package]\nname = \"no\"\n",
        )?;
        write(
            "plugins/abi/Cargo.toml",
            "[package]\nname = \"warpsight-plugin\"\n",
        )?;
        write(
            "plugins/new/Cargo.toml",
            "[package]\nname = \"warpsight-plugin-new\"\n[lib]\nname = \"warpsight_plugin_new\"\n",
        )?;
        write(
            "plugins/fault/Cargo.toml",
            "[package]\nname = \"warpsight-fault\"\n[lib]\nname = \"warpsight_fault\"\n",
        )?;
        assert_eq!(
            plugin_packages_in(root.path())?,
            vec!["warpsight-plugin-new".to_string()]
        );
        Ok(())
    }
}
