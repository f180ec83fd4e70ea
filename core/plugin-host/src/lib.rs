//! warpsight-plugin-host: discovery, checking, loading and validation of architecture plugins
//! (cdylibs speaking the C ABI of the `warpsight-plugin` crate), and the host side of their rules
//! hook. It turns plugin files into the model's plain-Rust [`Registry`] (the type lives in
//! `warpsight-model`, which loads nothing itself) and holds every `unsafe` block of the host: the
//! `dlopen`, the calls through the ABI and the copies out of plugin memory.
//!
//! # Public API
//!
//! What the `warpsight` binary, `warpsight-report` and a future Python package use:
//!
//! - [`load_registry`]: searches the directories a [`PluginConfig`] leads to, loads every plugin
//!   file found and returns the [`Registry`] with a [`LoadReport`]. A bad plugin is rejected with
//!   its reason and never stops the others.
//! - [`PluginConfig`]: where to search: [`PluginConfig::from_environment`] (a normal run:
//!   `--plugin-dir`s, then [`PLUGIN_PATH_ENV`], then the executable's directory and its
//!   `plugins/`), [`PluginConfig::only_dirs`] (exactly these directories),
//!   [`PluginConfig::search_dirs`] (the resulting order). A plugin file is the platform's library
//!   prefix and suffix around [`PLUGIN_STEM_PREFIX`]`<family>` (`libwarpsight_plugin_ampere.so`).
//! - [`LoadReport`]: the directories searched, the [`LoadedPlugin`]s (name, version, ABI minor,
//!   file, specs, rules hook), the [`Rejected`] files and the [`Overridden`] duplicates.
//! - [`load_plugin`]: loads and validates one file, without merging.
//! - [`PluginError`] (with [`ValueProblem`] for impossible numbers): why a file was rejected or a
//!   hook call failed, in words a user can act on.
//! - [`RulesHook`]: a plugin's rules, run on a polars frame of launches with [`RulesHook::run`],
//!   returning checked [`PluginFinding`]s with a [`FindingSeverity`].
//! - [`Registry`]: `warpsight_model::arch::Registry`, re-exported: what the model evaluates with.
//!
//! # Example
//!
//! Loading from one directory and printing what loaded (here an empty directory, so nothing is
//! loaded and nothing rejected; the binary passes `PluginConfig::from_environment(&plugin_dirs)`):
//!
//! ```
//! use warpsight_plugin_host::{PluginConfig, load_registry};
//!
//! let dir = tempfile::tempdir()?;
//! let (registry, report) = load_registry(&PluginConfig::only_dirs(&[dir.path().to_path_buf()]));
//! for plugin in &report.loaded {
//!     println!(
//!         "{} {} from {}: {} archs, {} devices",
//!         plugin.name,
//!         plugin.version,
//!         plugin.file.display(),
//!         plugin.archs.len(),
//!         plugin.devices.len()
//!     );
//! }
//! for rejected in &report.rejected {
//!     println!("rejected: {rejected}");
//! }
//! assert_eq!(report.searched, vec![dir.path().to_path_buf()]);
//! assert!(report.loaded.is_empty() && report.rejected.is_empty());
//! assert!(registry.archs.is_empty() && registry.device("NVIDIA H100 80GB HBM3").is_none());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Modules (private)
//!
//! - `discover`: where plugins are searched for and the file naming convention;
//! - `file_check`: a plugin file must be a complete shared library before `dlopen`;
//! - `load`: opening one file, checking its header, copying its data out;
//! - `convert`: C descriptors to the spec types of `warpsight_model::arch`;
//! - `validate`: checks on every number;
//! - `merge`: the registry and the rule for duplicates;
//! - `rules_hook`: calling a plugin's rules on a frame of launches;
//! - `error_buffer`: the buffer a plugin writes its error message into;
//! - `errors`: why a plugin was rejected.
//!
//! Plugins catch their own panics at the ABI boundary (`warpsight_plugin::export`); the host is
//! built with `panic = "unwind"` like the rest of the workspace.

mod convert;
mod discover;
mod error_buffer;
mod errors;
mod file_check;
mod load;
mod merge;
mod rules_hook;
mod validate;

use std::path::PathBuf;

pub use discover::{PLUGIN_PATH_ENV, PLUGIN_STEM_PREFIX, PluginConfig};
pub use errors::{PluginError, ValueProblem};
pub use load::{LoadedPlugin, load_plugin};
pub use merge::Overridden;
pub use rules_hook::{FindingSeverity, PluginFinding, RulesHook};

pub use warpsight_model::arch::Registry;

/// A plugin file that was not loaded, and why.
#[derive(Debug)]
pub struct Rejected {
    /// The file.
    pub file: PathBuf,
    /// The reason.
    pub error: PluginError,
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.error)
    }
}

/// What loading found: the directories searched, the plugins loaded (in search order), the files
/// rejected and the duplicate entries ignored.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Directories searched, in order.
    pub searched: Vec<PathBuf>,
    /// Plugins loaded, in search order.
    pub loaded: Vec<LoadedPlugin>,
    /// Files rejected, with the reason.
    pub rejected: Vec<Rejected>,
    /// Entries ignored because an earlier plugin provided the same CC or device.
    pub overridden: Vec<Overridden>,
}

/// Loads every plugin `config` leads to and builds the registry. Rejections and duplicates are
/// logged as warnings and returned in the report.
pub fn load_registry(config: &PluginConfig) -> (Registry, LoadReport) {
    let searched = config.search_dirs();
    let mut report = LoadReport {
        searched: searched.clone(),
        ..LoadReport::default()
    };
    for file in discover::plugin_files(&searched) {
        match load_plugin(&file) {
            Ok(plugin) => {
                tracing::debug!(
                    "loaded plugin {} {} from {} ({} archs, {} devices)",
                    plugin.name,
                    plugin.version,
                    file.display(),
                    plugin.archs.len(),
                    plugin.devices.len()
                );
                report.loaded.push(plugin);
            }
            Err(error) => {
                let rejected = Rejected { file, error };
                tracing::warn!("plugin rejected: {rejected}");
                report.rejected.push(rejected);
            }
        }
    }
    let (registry, overridden) = merge::merge(&report.loaded);
    for o in &overridden {
        tracing::warn!(
            "{} from {} ignored: already provided by {}",
            o.item,
            o.ignored.display(),
            o.kept.display()
        );
    }
    report.overridden = overridden;
    (registry, report)
}
