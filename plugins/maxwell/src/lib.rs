//! warpsight architecture plugin for NVIDIA Maxwell: CC 5.0 (GM107/GM108), 5.2 (GM20x), 5.3 (GM20B).
//! The data lives in `archs` and `devices`; this file only exports it.

mod archs;
mod devices;
mod sass_pipes;

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData {
        name: "maxwell",
        version: env!("CARGO_PKG_VERSION"),
        archs: archs::archs(),
        devices: devices::devices(),
        rules: None,
    }
}

warpsight_plugin::export_plugin!(plugin);
