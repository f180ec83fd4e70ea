//! The warpsight plugin C ABI, and a small SDK for writing plugins in Rust.
//!
//! A plugin is a `cdylib` that exports one symbol, [`ENTRY_SYMBOL`] (`warpsight_plugin_v1`), of
//! type [`EntryFn`]. It returns a `'static` [`PluginTable`]: magic, ABI version and struct size
//! first, then the plugin's name and version, arrays of [`ArchDesc`] (one per compute capability)
//! and [`DeviceDesc`] (one per GPU product), and an optional rules hook ([`RulesFn`]) that receives
//! a batch of launches through the Arrow C Data Interface ([`ArrowArray`], [`ArrowSchema`]) and
//! returns [`Findings`] that the host hands back to the plugin's [`FreeFindingsFn`].
//!
//! Plugins written in Rust fill a [`PluginData`] with the plain spec types of [`spec`] ([`ArchSpec`],
//! [`DeviceSpec`]; the host's model uses the same types) and call [`export_plugin!`], which generates the
//! exports and wraps each of them in `std::panic::catch_unwind`: errors and panics become a
//! [`Status`] plus a message written into the host's [`ErrorBuffer`]; nothing unwinds across the
//! boundary.
//!
//! # Safety rules
//! - Every pointer in the table, descriptors and strings stays valid as long as the library is
//!   loaded; the table is immutable after the entry symbol returned.
//! - Strings are UTF-8, pointer plus length ([`Str`]), owned by the plugin.
//! - The batch passed to the rules hook is borrowed for the call only.
//! - Findings are owned by the plugin until the host passes them to `free_findings`, exactly once.
//! - No export unwinds; a panic is reported as [`STATUS_PANIC`].
//!
//! # Versioning policy
//! The entry symbol's name carries the ABI major version. A **minor** bump ([`ABI_MINOR`]) may only
//! append fields at the end of structs and add optional hooks (nullable function pointers appended
//! to [`PluginTable`]); the host reads `struct_size`, `arch_desc_size` and `device_desc_size` to know
//! which fields exist, and treats missing trailing fields as absent. Anything else (removing,
//! reordering or retyping a field, changing a function signature or a unit) is a **major** bump
//! with a new symbol name (`warpsight_plugin_v2`), so an old host never misreads a new plugin.

pub mod arrow_c;
#[cfg(feature = "arrow")]
pub mod arrow_interop;
pub mod batch;
pub mod export;
pub mod sdk;
pub mod spec;
pub mod types;

pub use arrow_c::{ArrowArray, ArrowSchema};
pub use batch::{BatchError, LaunchBatch};
pub use sdk::{
    FindingData, PluginData, RulesImpl, Severity, UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PEAK,
    UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, arch_desc, device_desc, gb_per_s, kib, mhz, mib, names,
    opcode_pipes, tflops,
};
pub use spec::{
    ArchSpec, ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, Latencies, MmaRates,
    PeakFlops, Pipe, PipeRates, RegisterAllocation, Throughput, sass_opcode_key,
};
pub use types::*;
