//! The architecture plugins for a call: the `plugin_dirs=` given, then `WARPSIGHT_PLUGIN_PATH`,
//! then the package's own directory and its `plugins/` folder (where the wheel bundles the
//! shipped plugins), in the order and with the duplicate rule of `warpsight_plugin_host`.

use std::path::PathBuf;

use warpsight_model::arch::Registry;
use warpsight_plugin_host::{self as plugin_host, LoadReport, PluginConfig, RulesHook};

/// Where to look for plugins: the caller's directories and the package directory.
#[derive(Debug, Clone, Default)]
pub(crate) struct PluginSearch {
    /// `plugin_dirs=`, searched first.
    pub(crate) dirs: Vec<PathBuf>,
    /// The package's directory (the extension's), searched last with its `plugins/`.
    pub(crate) package_dir: Option<PathBuf>,
}

impl PluginSearch {
    /// The plugin host's configuration: the package directory takes the place the binary's own
    /// directory has on the command line.
    fn config(&self) -> PluginConfig {
        PluginConfig {
            plugin_dirs: self.dirs.clone(),
            env_path: std::env::var_os(plugin_host::PLUGIN_PATH_ENV),
            exe_dir: self.package_dir.clone(),
        }
    }

    /// Loads the plugins: the registry, the plugins' rules hooks and the load report.
    pub(crate) fn load(&self) -> (Registry, Vec<RulesHook>, LoadReport) {
        let (registry, report) = plugin_host::load_registry(&self.config());
        let hooks = report
            .loaded
            .iter()
            .filter_map(|p| p.rules.clone())
            .collect();
        (registry, hooks, report)
    }
}
