//! Per-architecture and per-device numbers, as the model uses them.
//!
//! The spec types ([`ArchSpec`], [`DeviceSpec`] and their parts) are defined once, in the plugin
//! ABI crate (`warpsight_plugin::spec`), and re-exported here: plugin authors fill the same types
//! that the model reads. Plugins deliver them through the C ABI; the `warpsight-plugin-host` crate
//! converts the C descriptors back into these types, validates them and collects them in a
//! [`Registry`]. The model never sees the C types.
//!
//! Units: bytes, Hz, bytes/s, FLOP/s, cycles. `f64::NAN` marks a number the plugin does not know.

pub mod registry;

pub use registry::{Provenance, Registry};
pub use warpsight_plugin::spec::{
    ArchSpec, ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec, Latencies, MmaRates,
    PeakFlops, Pipe, PipeRates, RegisterAllocation, Throughput, sass_opcode_key,
};
