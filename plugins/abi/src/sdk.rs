//! The plugin author's side: plain Rust values ([`PluginData`], [`ArchData`], [`DeviceData`]) that a
//! family crate fills with numbers, unit helpers, and [`build_table`] that turns them into the
//! `'static` C table the entry symbol returns. A plugin crate is then mostly data.

use crate::batch::LaunchBatch;
use crate::types::{
    ABI_MAJOR, ABI_MINOR, ArchDesc, DeviceDesc, LatencyDesc, MAGIC, PeakDesc, PluginTable, REG_ALLOC_BLOCK,
    REG_ALLOC_WARP, SEVERITY_INFO, SEVERITY_SEVERE, SEVERITY_WARNING, Str, ThroughputDesc,
};

/// A compute capability as (major, minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cc(pub u32, pub u32);

/// How registers are allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegAlloc {
    /// Per warp (CC 3.x and later).
    Warp,
    /// Per block (CC 1.x–2.x).
    Block,
}

/// One compute capability, as a plugin author writes it. Field meanings and units are those of
/// [`ArchDesc`].
#[derive(Debug, Clone, Copy)]
pub struct ArchData {
    /// Compute capability.
    pub cc: Cc,
    /// Human name.
    pub name: &'static str,
    /// Threads per warp.
    pub threads_per_warp: u32,
    /// Max resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Max resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Max resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Max threads per block.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// Max registers per block.
    pub max_regs_per_block: u32,
    /// Max registers per thread.
    pub max_regs_per_thread: u32,
    /// Register allocation unit, registers.
    pub reg_alloc_unit: u32,
    /// Register allocation granularity.
    pub reg_alloc_granularity: RegAlloc,
    /// Sub-partitions per SM.
    pub sub_partitions: u32,
    /// Shared memory per SM (largest carveout), bytes.
    pub smem_per_sm: u32,
    /// Default max shared memory per block, bytes.
    pub smem_per_block_default: u32,
    /// Opt-in max shared memory per block, bytes.
    pub smem_per_block_optin: u32,
    /// Shared-memory allocation unit, bytes.
    pub smem_alloc_unit: u32,
    /// Shared memory reserved per block, bytes.
    pub smem_reserved_per_block: u32,
    /// Carveouts, bytes, ascending.
    pub carveouts: &'static [u32],
    /// Barrier multiplier (0 when the limit does not apply).
    pub barrier_multiplier: u32,
    /// Virtual resources per SM (0 = no limit).
    pub virtual_resources_per_sm: u32,
    /// Whether partitioned global caching exists.
    pub partitioned_gc_supported: bool,
    /// Warp schedulers per SM.
    pub warp_schedulers_per_sm: u32,
    /// Instructions issued per scheduler per clock.
    pub issue_per_scheduler_per_clk: u32,
    /// Latencies, SM cycles.
    pub latencies: LatencyDesc,
    /// Throughputs per SM per clock.
    pub throughput: ThroughputDesc,
}

/// One GPU product, as a plugin author writes it. Units are those of [`DeviceDesc`].
#[derive(Debug, Clone, Copy)]
pub struct DeviceData {
    /// Name as profilers print it.
    pub name: &'static str,
    /// Other names.
    pub aliases: &'static [&'static str],
    /// Compute capability.
    pub cc: Cc,
    /// Number of SMs.
    pub sm_count: u32,
    /// SM boost clock, Hz.
    pub sm_clock_hz: f64,
    /// Memory clock, Hz (NaN when unknown).
    pub mem_clock_hz: f64,
    /// DRAM bandwidth, bytes/s.
    pub dram_bandwidth: f64,
    /// L2 size, bytes.
    pub l2_bytes: u64,
    /// L2 bandwidth, bytes/s (NaN when unknown).
    pub l2_bandwidth: f64,
    /// Peak rates.
    pub peak: PeakDesc,
}

/// Severity of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Information.
    Info,
    /// A likely performance problem.
    Warning,
    /// The launch is dominated by the problem.
    Severe,
}

impl Severity {
    /// The ABI code of this severity.
    pub const fn code(self) -> u32 {
        match self {
            Severity::Info => SEVERITY_INFO,
            Severity::Warning => SEVERITY_WARNING,
            Severity::Severe => SEVERITY_SEVERE,
        }
    }
}

/// One finding of a plugin's rules function.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingData {
    /// The launch's `launch_id`.
    pub launch_id: i64,
    /// Stable rule identifier.
    pub rule_id: String,
    /// Severity.
    pub severity: Severity,
    /// Message.
    pub message: String,
}

/// A plugin's rules function: reads a batch of launches, returns findings or an error message.
pub type RulesImpl = fn(&LaunchBatch<'_>) -> Result<Vec<FindingData>, String>;

/// Everything a plugin provides.
#[derive(Debug, Clone)]
pub struct PluginData {
    /// Plugin name, e.g. "ampere".
    pub name: &'static str,
    /// Plugin version, usually `env!("CARGO_PKG_VERSION")`.
    pub version: &'static str,
    /// Architectures.
    pub archs: Vec<ArchData>,
    /// Devices.
    pub devices: Vec<DeviceData>,
    /// Optional rules function.
    pub rules: Option<RulesImpl>,
}

/// Latencies that are all unknown, to be overridden field by field.
pub const UNKNOWN_LATENCIES: LatencyDesc = LatencyDesc {
    fp32: f64::NAN,
    int32: f64::NAN,
    fp64: f64::NAN,
    sfu: f64::NAN,
    tensor: f64::NAN,
    shared: f64::NAN,
    l1_hit: f64::NAN,
    l2_hit: f64::NAN,
    dram: f64::NAN,
};

/// Throughputs that are all unknown, to be overridden field by field.
pub const UNKNOWN_THROUGHPUT: ThroughputDesc = ThroughputDesc {
    fp32: f64::NAN,
    fp64: f64::NAN,
    fp16: f64::NAN,
    int32: f64::NAN,
    sfu: f64::NAN,
    tensor_fp16_flop: f64::NAN,
    tensor_bf16_flop: f64::NAN,
    tensor_tf32_flop: f64::NAN,
    tensor_fp8_flop: f64::NAN,
    tensor_int8_op: f64::NAN,
    tensor_fp64_flop: f64::NAN,
    flop_per_tensor_inst: f64::NAN,
    l1_bytes_per_clk: f64::NAN,
};

/// Peak rates that are all unknown, to be overridden field by field.
pub const UNKNOWN_PEAK: PeakDesc = PeakDesc {
    fp64: f64::NAN,
    fp32: f64::NAN,
    fp16: f64::NAN,
    fp64_tensor: f64::NAN,
    tf32_tensor: f64::NAN,
    fp16_tensor: f64::NAN,
    fp8_tensor: f64::NAN,
    int8_tensor: f64::NAN,
};

/// KiB to bytes.
pub const fn kib(n: u32) -> u32 {
    n * 1024
}

/// MiB to bytes.
pub const fn mib(n: u64) -> u64 {
    n * 1024 * 1024
}

/// MHz to Hz.
pub const fn mhz(n: f64) -> f64 {
    n * 1e6
}

/// GB/s (decimal, as datasheets print it) to bytes/s.
pub const fn gb_per_s(n: f64) -> f64 {
    n * 1e9
}

/// TFLOP/s (decimal) to FLOP/s.
pub const fn tflops(n: f64) -> f64 {
    n * 1e12
}

/// Leaks a value so that it lives as long as the library (the table is built once per process).
fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// Converts one [`ArchData`] to its C descriptor; the carveout slice is `'static` already.
fn arch_desc(arch: &ArchData) -> ArchDesc {
    ArchDesc {
        cc_major: arch.cc.0,
        cc_minor: arch.cc.1,
        name: Str::from_static(arch.name),
        threads_per_warp: arch.threads_per_warp,
        max_warps_per_sm: arch.max_warps_per_sm,
        max_threads_per_sm: arch.max_threads_per_sm,
        max_blocks_per_sm: arch.max_blocks_per_sm,
        max_threads_per_block: arch.max_threads_per_block,
        regs_per_sm: arch.regs_per_sm,
        max_regs_per_block: arch.max_regs_per_block,
        max_regs_per_thread: arch.max_regs_per_thread,
        reg_alloc_unit: arch.reg_alloc_unit,
        reg_alloc_granularity: match arch.reg_alloc_granularity {
            RegAlloc::Warp => REG_ALLOC_WARP,
            RegAlloc::Block => REG_ALLOC_BLOCK,
        },
        sub_partitions: arch.sub_partitions,
        smem_per_sm: arch.smem_per_sm,
        smem_per_block_default: arch.smem_per_block_default,
        smem_per_block_optin: arch.smem_per_block_optin,
        smem_alloc_unit: arch.smem_alloc_unit,
        smem_reserved_per_block: arch.smem_reserved_per_block,
        carveouts: arch.carveouts.as_ptr(),
        carveout_count: arch.carveouts.len(),
        barrier_multiplier: arch.barrier_multiplier,
        virtual_resources_per_sm: arch.virtual_resources_per_sm,
        partitioned_gc_supported: u32::from(arch.partitioned_gc_supported),
        warp_schedulers_per_sm: arch.warp_schedulers_per_sm,
        issue_per_scheduler_per_clk: arch.issue_per_scheduler_per_clk,
        latencies: arch.latencies,
        throughput: arch.throughput,
    }
}

/// Converts one [`DeviceData`] to its C descriptor, leaking the alias array.
fn device_desc(device: &DeviceData) -> DeviceDesc {
    let aliases: &'static [Str] = Box::leak(
        device
            .aliases
            .iter()
            .map(|a| Str::from_static(a))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    DeviceDesc {
        name: Str::from_static(device.name),
        aliases: aliases.as_ptr(),
        alias_count: aliases.len(),
        cc_major: device.cc.0,
        cc_minor: device.cc.1,
        sm_count: device.sm_count,
        sm_clock_hz: device.sm_clock_hz,
        mem_clock_hz: device.mem_clock_hz,
        dram_bandwidth: device.dram_bandwidth,
        l2_bytes: device.l2_bytes,
        l2_bandwidth: device.l2_bandwidth,
        peak: device.peak,
    }
}

/// Builds the `'static` C table for `data`. `rules` and `free_findings` are the exported hook
/// functions (set by [`crate::export_plugin!`]); they are only put in the table when `data.rules`
/// is set. The table and everything it points at are leaked on purpose: they must live as long as
/// the library, and the entry symbol builds them once per process.
pub fn build_table(
    data: &PluginData,
    rules: crate::types::RulesFn,
    free_findings: crate::types::FreeFindingsFn,
) -> &'static PluginTable {
    let archs: &'static [ArchDesc] = Box::leak(data.archs.iter().map(arch_desc).collect::<Vec<_>>().into_boxed_slice());
    let devices: &'static [DeviceDesc] = Box::leak(
        data.devices
            .iter()
            .map(device_desc)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    leak(PluginTable {
        magic: MAGIC,
        abi_major: ABI_MAJOR,
        abi_minor: ABI_MINOR,
        struct_size: std::mem::size_of::<PluginTable>(),
        name: Str::from_static(data.name),
        version: Str::from_static(data.version),
        arch_desc_size: std::mem::size_of::<ArchDesc>(),
        archs: archs.as_ptr(),
        arch_count: archs.len(),
        device_desc_size: std::mem::size_of::<DeviceDesc>(),
        devices: devices.as_ptr(),
        device_count: devices.len(),
        rules: data.rules.map(|_| rules),
        free_findings: data.rules.map(|_| free_findings),
    })
}
