//! Maxwell GPU products. `../shared/reference/DEVICES.csv` has no Maxwell row and no other
//! source was checked, so this plugin provides architectures only; pass device numbers explicitly
//! or add a row here with its source.

use warpsight_plugin::DeviceSpec;

/// All Maxwell devices (none yet).
pub fn devices() -> Vec<DeviceSpec> {
    Vec::new()
}
