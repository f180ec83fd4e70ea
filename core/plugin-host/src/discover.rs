//! Where plugins are searched for, in which order, and which files count as plugins.
//!
//! Search order (the first place that provides a compute capability or device wins):
//! 1. every `--plugin-dir`, in the order given;
//! 2. every entry of `WARPSIGHT_PLUGIN_PATH` (`:`-separated; `;` on Windows);
//! 3. the directory of the running executable, then a `plugins/` directory beside it.
//!
//! Within one directory, files are taken in byte order of their names. A plugin file is named
//! `libwarpsight_plugin_<family>.so` (Linux), `libwarpsight_plugin_<family>.dylib` (macOS) or
//! `warpsight_plugin_<family>.dll` (Windows): the platform's library prefix and suffix around
//! `warpsight_plugin_<family>`, which is what cargo names a `cdylib` whose library name is
//! `warpsight_plugin_<family>`. The ABI crate itself (`warpsight_plugin`, an rlib) never matches.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The name every plugin library starts with after the platform prefix (`lib` on Unix).
pub const PLUGIN_STEM_PREFIX: &str = "warpsight_plugin_";

/// The environment variable with extra plugin directories.
pub const PLUGIN_PATH_ENV: &str = "WARPSIGHT_PLUGIN_PATH";

/// Where to look for plugins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginConfig {
    /// Directories given with `--plugin-dir`, searched first.
    pub plugin_dirs: Vec<PathBuf>,
    /// The value of `WARPSIGHT_PLUGIN_PATH`, searched second (`None`: not consulted).
    pub env_path: Option<OsString>,
    /// The running executable's directory, searched last together with its `plugins/`
    /// subdirectory (`None`: not consulted).
    pub exe_dir: Option<PathBuf>,
}

impl PluginConfig {
    /// The configuration of a normal run: the given `--plugin-dir`s, `WARPSIGHT_PLUGIN_PATH` and the
    /// executable's directory.
    pub fn from_environment(plugin_dirs: &[PathBuf]) -> Self {
        PluginConfig {
            plugin_dirs: plugin_dirs.to_vec(),
            env_path: std::env::var_os(PLUGIN_PATH_ENV),
            exe_dir: std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(Path::to_path_buf)),
        }
    }

    /// Exactly these directories, nothing from the environment.
    pub fn only_dirs(plugin_dirs: &[PathBuf]) -> Self {
        PluginConfig {
            plugin_dirs: plugin_dirs.to_vec(),
            env_path: None,
            exe_dir: None,
        }
    }

    /// The directories to search, in order, without duplicates.
    pub fn search_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.plugin_dirs.clone();
        if let Some(env) = &self.env_path {
            dirs.extend(std::env::split_paths(env).filter(|p| !p.as_os_str().is_empty()));
        }
        if let Some(exe_dir) = &self.exe_dir {
            dirs.push(exe_dir.clone());
            dirs.push(exe_dir.join("plugins"));
        }
        let mut seen = std::collections::HashSet::new();
        dirs.retain(|d| seen.insert(d.canonicalize().unwrap_or_else(|_| d.clone())));
        dirs
    }
}

/// Whether a file name follows the plugin naming convention of this platform.
pub(crate) fn is_plugin_file_name(name: &str) -> bool {
    let prefix = format!("{}{}", std::env::consts::DLL_PREFIX, PLUGIN_STEM_PREFIX);
    let suffix = format!(".{}", std::env::consts::DLL_EXTENSION);
    name.len() > prefix.len() + suffix.len() && name.starts_with(&prefix) && name.ends_with(&suffix)
}

/// The plugin files in `dirs`, in search order (directory order, then file name), each file once
/// even when two directories lead to it. Missing or unreadable directories are skipped with a debug
/// log line: an absent `plugins/` folder is normal.
pub(crate) fn plugin_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for dir in dirs {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) => {
                tracing::debug!("plugin directory {} not searched: {err}", dir.display());
                continue;
            }
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_plugin_file_name)
            })
            .collect();
        found.sort();
        for file in found {
            if seen.insert(file.canonicalize().unwrap_or_else(|_| file.clone())) {
                files.push(file);
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_convention_accepts_family_libraries_only() {
        let ext = std::env::consts::DLL_EXTENSION;
        let pre = std::env::consts::DLL_PREFIX;
        assert!(is_plugin_file_name(&format!(
            "{pre}warpsight_plugin_ampere.{ext}"
        )));
        assert!(!is_plugin_file_name(&format!("{pre}warpsight_plugin.rlib")));
        assert!(!is_plugin_file_name(&format!(
            "{pre}warpsight_plugin_.{ext}"
        )));
        assert!(!is_plugin_file_name(&format!(
            "{pre}warpsight_fault_test.{ext}"
        )));
        assert!(!is_plugin_file_name(&format!(
            "{pre}warpsight_plugin_ampere.d"
        )));
    }

    #[test]
    fn search_order_is_flags_then_env_then_exe_dir() {
        let config = PluginConfig {
            plugin_dirs: vec![PathBuf::from("/flag")],
            env_path: Some(
                std::env::join_paths(["/env1", "/env2"])
                    .map_err(|e| e.to_string())
                    .unwrap_or_default(),
            ),
            exe_dir: Some(PathBuf::from("/exe")),
        };
        let dirs: Vec<PathBuf> = ["/flag", "/env1", "/env2", "/exe", "/exe/plugins"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(config.search_dirs(), dirs);
    }
}
