//! warpsight architecture plugin for NVIDIA Ampere: CC 8.0 (GA100), 8.6 (GA10x), 8.7 (GA10B).
//! The data lives in `archs` and `devices`; this file only exports it.

mod archs;
mod devices;
mod sass_pipes;

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData {
        name: "ampere",
        version: env!("CARGO_PKG_VERSION"),
        archs: archs::archs(),
        devices: devices::devices(),
        rules: None,
    }
}

warpsight_plugin::export_plugin!(plugin);
