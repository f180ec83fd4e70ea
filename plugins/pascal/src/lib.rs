//! warpsight architecture plugin for NVIDIA Pascal: CC 6.0 (GP100), 6.1 (GP10x), 6.2 (GP10B).
//! The data lives in `archs` and `devices`; this file only exports it.

mod archs;
mod devices;
mod sass_pipes;

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData {
        name: "pascal",
        version: env!("CARGO_PKG_VERSION"),
        archs: archs::archs(),
        devices: devices::devices(),
        rules: None,
    }
}

warpsight_plugin::export_plugin!(plugin);
