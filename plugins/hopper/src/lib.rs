//! warpsight architecture plugin for NVIDIA Hopper: CC 9.0 (GH100: H100, H200, H800, GH200).
//! The data lives in `archs` and `devices`; this file only exports it.

mod archs;
mod devices;
mod sass_pipes;

use warpsight_plugin::PluginData;

/// Everything this plugin provides.
fn plugin() -> PluginData {
    PluginData {
        name: "hopper",
        version: env!("CARGO_PKG_VERSION"),
        archs: archs::archs(),
        devices: devices::devices(),
        rules: None,
    }
}

warpsight_plugin::export_plugin!(plugin);
