//! Discovery, loading and validation of architecture plugins (cdylibs speaking the C ABI of the
//! `warpsight-plugin` crate), and the host side of their rules hook.
//!
//! - [`discover`]: where plugins are searched for and the file naming convention;
//! - `file_check`: a plugin file must be a complete shared library before `dlopen`;
//! - [`load`]: opening one file, checking its header, copying its data out;
//! - [`convert`]: C descriptors to [`crate::arch`] types;
//! - [`validate`]: checks on every number;
//! - [`merge`]: the registry and the rule for duplicates;
//! - [`rules_hook`]: calling a plugin's rules on a frame of launches;
//! - [`errors`]: why a plugin was rejected.
//!
//! [`load_registry`] does it all: a bad plugin is rejected with its reason and never stops the
//! others.

pub mod convert;
pub mod discover;
pub mod error_buffer;
pub mod errors;
mod file_check;
pub mod load;
pub mod merge;
pub mod rules_hook;
pub mod validate;

use std::path::PathBuf;

pub use discover::{PLUGIN_PATH_ENV, PluginConfig};
pub use errors::{PluginError, ValueProblem};
pub use load::{LoadedPlugin, load_plugin};
pub use merge::Overridden;
pub use rules_hook::{FindingSeverity, PluginFinding, RulesHook};

use crate::arch::Registry;

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
