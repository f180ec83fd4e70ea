//! warpsight architecture plugin for NVIDIA maxwell (being filled in).

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData { name: "maxwell", version: env!("CARGO_PKG_VERSION"), archs: vec![], devices: vec![], rules: None }
}

warpsight_plugin::export_plugin!(plugin);
