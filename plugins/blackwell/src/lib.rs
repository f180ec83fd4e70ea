//! warpsight architecture plugin for NVIDIA Blackwell: CC 10.0 (GB100), 10.3 (Blackwell Ultra), 12.0 (GB20x), 12.1 (GB10).
//! The data lives in `archs` and `devices`; this file only exports it.

mod archs;
mod devices;
mod sass_pipes;

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData {
        name: "blackwell",
        version: env!("CARGO_PKG_VERSION"),
        archs: archs::archs(),
        devices: devices::devices(),
        rules: None,
    }
}

warpsight_plugin::export_plugin!(plugin);
