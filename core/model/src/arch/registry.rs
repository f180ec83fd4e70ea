//! The registry of loaded architectures and devices, with where each came from.
//!
//! Plain data with the lookup API the model uses; `warpsight-plugin-host` fills it from the loaded
//! plugins (and owns the rule for two plugins claiming the same CC or device).

use std::path::PathBuf;

use super::{ArchSpec, ComputeCapability, DeviceSpec};

/// Where a spec came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The plugin's name.
    pub plugin: String,
    /// The plugin's file.
    pub file: PathBuf,
}

/// All architectures and devices known to this run.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Architectures with their provenance, sorted by CC.
    pub archs: Vec<(ArchSpec, Provenance)>,
    /// Devices with their provenance, sorted by name.
    pub devices: Vec<(DeviceSpec, Provenance)>,
}

impl Registry {
    /// The architecture for a compute capability.
    pub fn arch(&self, cc: ComputeCapability) -> Option<&ArchSpec> {
        self.archs.iter().map(|(a, _)| a).find(|a| a.cc == cc)
    }

    /// The device whose name or alias matches `name` (case- and punctuation-insensitive).
    pub fn device(&self, name: &str) -> Option<&DeviceSpec> {
        let wanted = normalize_device_name(name);
        self.devices.iter().map(|(d, _)| d).find(|d| {
            normalize_device_name(&d.name) == wanted
                || d.aliases.iter().any(|a| normalize_device_name(a) == wanted)
        })
    }
}

/// Lower-cases, drops a leading "NVIDIA " and every non-alphanumeric character, so that
/// "NVIDIA A100-SXM4-40GB", "a100 sxm4 40gb" and "A100_SXM4_40GB" compare equal.
pub fn normalize_device_name(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let lower = lower.strip_prefix("nvidia ").unwrap_or(&lower);
    lower
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect()
}
