//! Opens one plugin file, calls its entry symbol and copies its data out: the header (magic, ABI
//! major, struct sizes) is checked before anything else in the table is read, then descriptors are
//! converted ([`crate::convert`]) and validated ([`crate::validate`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libloading::Library;
use warpsight_plugin::{
    ABI_MAJOR, ARCH_DESC_SIZE_MINOR_0, DEVICE_DESC_SIZE_MINOR_0, ENTRY_SYMBOL, ENTRY_SYMBOL_NUL,
    EntryFn, MAGIC, PluginTable, STATUS_OK, STATUS_PANIC,
};

use crate::convert::{Layout, MAX_ENTRIES, arch_spec, copy_str, device_spec};
use crate::error_buffer::HostErrorBuffer;
use crate::errors::PluginError;
use crate::rules_hook::RulesHook;
use crate::validate::validate;
use warpsight_model::arch::{ArchSpec, DeviceSpec};

/// A plugin that loaded and passed validation. The library stays loaded as long as this value
/// (or a clone of its hook) lives.
#[derive(Debug, Clone)]
pub struct LoadedPlugin {
    /// The plugin's name, e.g. "ampere".
    pub name: String,
    /// The plugin's version.
    pub version: String,
    /// The ABI minor version the plugin was built with.
    pub abi_minor: u32,
    /// The file it was loaded from.
    pub file: PathBuf,
    /// Its architectures.
    pub archs: Vec<ArchSpec>,
    /// Its devices.
    pub devices: Vec<DeviceSpec>,
    /// Its rules hook, when it has one.
    pub rules: Option<RulesHook>,
    /// The library, kept loaded.
    _library: Arc<Library>,
}

/// Reads the descriptor array at `base` with the plugin's stride. Each element's first
/// `min(stride, size_of::<T>())` bytes are copied; the rest of the `T` stays zero (an older plugin's
/// descriptor is shorter: the conversion gives the missing fields their defaults).
///
/// # Safety
/// `base` is valid for `count` elements of `stride` bytes each, and all-zero bytes are a valid `T`
/// (true of the descriptors: integers, floats, raw pointers).
unsafe fn read_strided<T: Copy>(
    base: *const T,
    count: usize,
    stride: usize,
    what: &str,
) -> Result<Vec<T>, PluginError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if base.is_null() {
        return Err(PluginError::Malformed(format!(
            "{what} is a null pointer with {count} entries"
        )));
    }
    if count > MAX_ENTRIES {
        return Err(PluginError::Malformed(format!(
            "{what} has an implausible {count} entries"
        )));
    }
    let bytes = base.cast::<u8>();
    let len = stride.min(std::mem::size_of::<T>());
    Ok((0..count)
        .map(|i| {
            let mut value = std::mem::MaybeUninit::<T>::zeroed();
            // SAFETY: by the caller's guarantee element `i` lies at `i * stride` and is valid for
            // `stride` ≥ `len` bytes; the destination is a distinct local of `size_of::<T>()` ≥ `len`
            // bytes; the remaining bytes stay zero, which the caller guarantees is a valid `T`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.add(i * stride),
                    value.as_mut_ptr().cast::<u8>(),
                    len,
                );
                value.assume_init()
            }
        })
        .collect())
}

/// The loader's error with its cause: libloading prints `dlopen failed` and keeps the system's
/// reason (`dlerror`) as the error's source.
fn loader_message(error: &libloading::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}

/// Loads and validates the plugin in `path`.
pub fn load_plugin(path: &Path) -> Result<LoadedPlugin, PluginError> {
    crate::file_check::check_library_file(path)?;
    // SAFETY: opening a library runs its initialisers. Plugin files are code the user chose to put
    // in a plugin directory; that trust is documented in docs/plugins.md. The file was checked to
    // be a complete shared library, so the loader maps no page past its end.
    let library =
        unsafe { Library::new(path) }.map_err(|e| PluginError::Open(loader_message(&e)))?;
    // SAFETY: the symbol's type is the ABI's `EntryFn`, as the ABI major in its name promises.
    let entry: EntryFn = unsafe { library.get::<EntryFn>(ENTRY_SYMBOL_NUL) }
        .map(|symbol| *symbol)
        .map_err(|e| PluginError::MissingEntry {
            symbol: ENTRY_SYMBOL,
            detail: loader_message(&e),
        })?;
    let mut error = HostErrorBuffer::new();
    let mut table: *const PluginTable = std::ptr::null();
    // SAFETY: both out-pointers are valid for writes; the plugin catches its panics.
    let status = unsafe { entry(&mut table, &mut error.raw) };
    if status == STATUS_PANIC {
        return Err(PluginError::EntryPanicked {
            message: error.message(),
        });
    }
    if status != STATUS_OK {
        return Err(PluginError::EntryFailed {
            status,
            message: error.message(),
        });
    }
    if table.is_null() {
        return Err(PluginError::NullTable);
    }
    // SAFETY: the table is valid at least for its first field (every ABI version starts with the
    // magic); nothing else is read until the magic matched.
    let magic = unsafe { std::ptr::addr_of!((*table).magic).read_unaligned() };
    if magic != MAGIC {
        return Err(PluginError::WrongMagic {
            found: magic,
            expected: MAGIC,
        });
    }
    // SAFETY: the magic matched, so the fixed header (magic, versions, size) is present.
    let (abi_major, abi_minor, struct_size) = unsafe {
        (
            std::ptr::addr_of!((*table).abi_major).read_unaligned(),
            std::ptr::addr_of!((*table).abi_minor).read_unaligned(),
            std::ptr::addr_of!((*table).struct_size).read_unaligned(),
        )
    };
    if abi_major != ABI_MAJOR {
        return Err(PluginError::AbiMajor {
            found: abi_major,
            expected: ABI_MAJOR,
        });
    }
    let needed = std::mem::size_of::<PluginTable>();
    if struct_size < needed {
        return Err(PluginError::StructTooSmall {
            what: "the plugin table",
            found: struct_size,
            needed,
        });
    }
    // SAFETY: the header says the table holds at least every field this host knows.
    let table = unsafe { table.read_unaligned() };
    // Descriptors may be shorter than this host's (a plugin built against an older minor) but
    // never shorter than minor 0's.
    if table.arch_desc_size < ARCH_DESC_SIZE_MINOR_0 {
        return Err(PluginError::StructTooSmall {
            what: "an arch descriptor",
            found: table.arch_desc_size,
            needed: ARCH_DESC_SIZE_MINOR_0,
        });
    }
    if table.device_desc_size < DEVICE_DESC_SIZE_MINOR_0 {
        return Err(PluginError::StructTooSmall {
            what: "a device descriptor",
            found: table.device_desc_size,
            needed: DEVICE_DESC_SIZE_MINOR_0,
        });
    }
    let layout = Layout {
        abi_minor,
        arch_desc_size: table.arch_desc_size,
        device_desc_size: table.device_desc_size,
    };
    // SAFETY: the table's strings point into the library, which is loaded.
    let name = unsafe { copy_str(table.name, || "the plugin name".to_string()) }?;
    // SAFETY: as above.
    let version = unsafe { copy_str(table.version, || "the plugin version".to_string()) }?;
    if name.is_empty() {
        return Err(PluginError::Malformed(
            "the plugin name is empty".to_string(),
        ));
    }
    // SAFETY: the plugin promises `arch_count` descriptors of `arch_desc_size` bytes at `archs`;
    // an all-zero `ArchDesc` is valid (integers, floats, raw pointers).
    let arch_descs =
        unsafe { read_strided(table.archs, table.arch_count, table.arch_desc_size, "archs") }?;
    // SAFETY: as above for devices; an all-zero `DeviceDesc` is valid too.
    let device_descs = unsafe {
        read_strided(
            table.devices,
            table.device_count,
            table.device_desc_size,
            "devices",
        )
    }?;
    let archs = arch_descs
        .iter()
        .enumerate()
        // SAFETY: descriptor pointers point into the loaded library.
        .map(|(i, d)| unsafe { arch_spec(d, &layout, i) })
        .collect::<Result<Vec<_>, _>>()?;
    let devices = device_descs
        .iter()
        .enumerate()
        // SAFETY: as above.
        .map(|(i, d)| unsafe { device_spec(d, &layout, &archs, i) })
        .collect::<Result<Vec<_>, _>>()?;
    validate(&archs, &devices)?;
    let library = Arc::new(library);
    let rules = match (table.rules, table.free_findings) {
        (Some(rules), Some(free)) => Some(RulesHook::new(
            name.clone(),
            Arc::clone(&library),
            rules,
            free,
        )),
        (None, _) => None,
        (Some(_), None) => {
            return Err(PluginError::Malformed(
                "the table has a rules hook but no free_findings".to_string(),
            ));
        }
    };
    Ok(LoadedPlugin {
        name,
        version,
        abi_minor,
        file: path.to_path_buf(),
        archs,
        devices,
        rules,
        _library: library,
    })
}
