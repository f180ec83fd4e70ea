//! Assembles the [`Registry`] from the loaded plugins, in search order. When two plugins claim the
//! same compute capability or device (by normalised name), the one found first wins — `--plugin-dir`
//! before `WARPSIGHT_PLUGIN_PATH` before the executable's directory, and by file name within a
//! directory — and the other is recorded as [`Overridden`].

use std::collections::HashMap;
use std::path::PathBuf;

use crate::load::LoadedPlugin;
use warpsight_model::arch::registry::normalize_device_name;
use warpsight_model::arch::{Provenance, Registry};

/// A compute capability or device that a later plugin also provided and that was ignored there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overridden {
    /// "arch 8.0" or "device \"NVIDIA H200\"".
    pub item: String,
    /// The file whose entry is used.
    pub kept: PathBuf,
    /// The file whose entry is ignored.
    pub ignored: PathBuf,
}

/// Builds the registry from plugins given in search order, returning the duplicates it ignored.
pub(crate) fn merge(plugins: &[LoadedPlugin]) -> (Registry, Vec<Overridden>) {
    let mut registry = Registry::default();
    let mut overridden = Vec::new();
    let mut arch_owner: HashMap<_, PathBuf> = HashMap::new();
    let mut device_owner: HashMap<String, PathBuf> = HashMap::new();
    for plugin in plugins {
        let provenance = Provenance {
            plugin: plugin.name.clone(),
            file: plugin.file.clone(),
        };
        for arch in &plugin.archs {
            if let Some(kept) = arch_owner.get(&arch.cc) {
                overridden.push(Overridden {
                    item: format!("arch {}", arch.cc),
                    kept: kept.clone(),
                    ignored: plugin.file.clone(),
                });
                continue;
            }
            arch_owner.insert(arch.cc, plugin.file.clone());
            registry.archs.push((arch.clone(), provenance.clone()));
        }
        for device in &plugin.devices {
            let key = normalize_device_name(&device.name);
            if let Some(kept) = device_owner.get(&key) {
                overridden.push(Overridden {
                    item: format!("device {:?}", device.name),
                    kept: kept.clone(),
                    ignored: plugin.file.clone(),
                });
                continue;
            }
            device_owner.insert(key, plugin.file.clone());
            registry.devices.push((device.clone(), provenance.clone()));
        }
    }
    registry.archs.sort_by_key(|(a, _)| a.cc);
    registry
        .devices
        .sort_by(|(a, _), (b, _)| a.name.cmp(&b.name));
    (registry, overridden)
}
