//! Discovery, loading and validation of architecture plugins (cdylibs speaking the C ABI of the
//! `warpsight-plugin` crate), and the host side of their rules hook.
//!
//! - [`discover`]: where plugins are searched for and the file naming convention;
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
pub mod errors;
pub mod load;
pub mod merge;
pub mod rules_hook;
#[doc(hidden)]
pub mod test_support;
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

#[cfg(test)]
mod tests {
    use super::test_support::workspace_plugins;
    use crate::arch::ComputeCapability;

    #[test]
    fn workspace_plugins_load_without_rejections() -> Result<(), Box<dyn std::error::Error>> {
        let (registry, report) = workspace_plugins()?;
        assert!(report.rejected.is_empty(), "rejected: {:?}", report.rejected);
        assert!(report.overridden.is_empty(), "overridden: {:?}", report.overridden);
        // ARCHS.csv 8.0: 2048 threads, 32 blocks, 167936 B of shared memory per SM.
        let a100 = registry.arch(ComputeCapability::new(8, 0)).ok_or("no 8.0")?;
        assert_eq!(
            (a100.max_threads_per_sm, a100.max_blocks_per_sm, a100.smem_per_sm),
            (2048, 32, 167936)
        );
        // DEVICES.csv H100 SXM5: 132 SMs, 3350 GB/s.
        let h100 = registry.device("H100 SXM5 80GB").ok_or("no H100")?;
        assert_eq!(h100.sm_count, 132);
        assert_eq!(h100.dram_bandwidth, 3.35e12);
        Ok(())
    }
}
