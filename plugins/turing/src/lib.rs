//! warpsight architecture plugin for NVIDIA turing (being filled in).

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData { name: "turing", version: env!("CARGO_PKG_VERSION"), archs: vec![], devices: vec![], rules: None }
}

warpsight_plugin::export_plugin!(plugin);
