//! The plugin author's side: plain Rust values ([`PluginData`] holding the [`ArchSpec`]s and
//! [`DeviceSpec`]s of [`crate::spec`]) that a family crate fills with numbers, unit helpers, and
//! [`build_table`] that turns them into the `'static` C table the entry symbol returns: the one
//! conversion from the spec types to the C descriptors. A plugin crate is then mostly data.

use crate::batch::LaunchBatch;
use crate::spec::{
    ArchSpec, DeviceSpec, Latencies, MmaRates, PeakFlops, Pipe, PipeRates, RegisterAllocation,
    Throughput,
};
use crate::types::{
    ABI_MAJOR, ABI_MINOR, ArchDesc, DeviceDesc, LatencyDesc, MAGIC, MmaRatesDesc, PeakDesc,
    PipeRatesDesc, PluginTable, REG_ALLOC_BLOCK, REG_ALLOC_WARP, SEVERITY_INFO, SEVERITY_SEVERE,
    SEVERITY_WARNING, SassPipeDesc, Str, ThroughputDesc,
};

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
    pub archs: Vec<ArchSpec>,
    /// Devices.
    pub devices: Vec<DeviceSpec>,
    /// Optional rules function.
    pub rules: Option<RulesImpl>,
}

/// Latencies that are all unknown, to be overridden field by field.
pub const UNKNOWN_LATENCIES: Latencies = Latencies::UNKNOWN;

/// Throughputs that are all unknown, to be overridden field by field.
pub const UNKNOWN_THROUGHPUT: Throughput = Throughput::UNKNOWN;

/// Pipe rates that are all unknown, to be overridden field by field.
pub const UNKNOWN_PIPES: PipeRates = PipeRates::UNKNOWN;

/// `mma.sync` tensor-path numbers that are all unknown (the model then uses the per-instruction
/// pipe rates), to be overridden field by field.
pub const UNKNOWN_MMA: MmaRates = MmaRates::UNKNOWN;

/// Peak rates that are all unknown, to be overridden field by field.
pub const UNKNOWN_PEAK: PeakFlops = PeakFlops::UNKNOWN;

/// Owned copies of a list of names (device aliases).
pub fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|name| (*name).to_string()).collect()
}

/// Owned copies of a SASS opcode → pipe table (for [`ArchSpec::sass_pipes`]), from a list such as
/// `&[("FFMA", Pipe::Fma), ("IADD3", Pipe::Alu)]`.
pub fn opcode_pipes(list: &[(&str, Pipe)]) -> Vec<(String, Pipe)> {
    list.iter()
        .map(|&(opcode, pipe)| (opcode.to_string(), pipe))
        .collect()
}

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

/// Leaks a string as a [`Str`] that lives as long as the library.
fn leak_str(text: &str) -> Str {
    let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
    Str::from_static(text)
}

/// The C form of [`Latencies`].
fn latency_desc(l: &Latencies) -> LatencyDesc {
    LatencyDesc {
        fp32: l.fp32,
        int32: l.int32,
        fp64: l.fp64,
        sfu: l.sfu,
        tensor: l.tensor,
        shared: l.shared,
        l1_hit: l.l1_hit,
        l2_hit: l.l2_hit,
        dram: l.dram,
    }
}

/// The C form of [`Throughput`].
fn throughput_desc(t: &Throughput) -> ThroughputDesc {
    ThroughputDesc {
        fp32: t.fp32,
        fp64: t.fp64,
        fp16: t.fp16,
        int32: t.int32,
        sfu: t.sfu,
        tensor_fp16_flop: t.tensor_fp16_flop,
        tensor_bf16_flop: t.tensor_bf16_flop,
        tensor_tf32_flop: t.tensor_tf32_flop,
        tensor_fp8_flop: t.tensor_fp8_flop,
        tensor_int8_op: t.tensor_int8_op,
        tensor_fp64_flop: t.tensor_fp64_flop,
        flop_per_tensor_inst: t.flop_per_tensor_inst,
        l1_bytes_per_clk: t.l1_bytes_per_clk,
    }
}

/// The C form of [`PipeRates`].
fn pipes_desc(p: &PipeRates) -> PipeRatesDesc {
    PipeRatesDesc {
        fma: p.fma,
        fma_fp16: p.fma_fp16,
        fp64: p.fp64,
        alu: p.alu,
        xu: p.xu,
        lsu: p.lsu,
        adu: p.adu,
        cbu: p.cbu,
        uniform: p.uniform,
        ipa: p.ipa,
        tex: p.tex,
        tma: p.tma,
        tensor_hmma: p.tensor_hmma,
        tensor_imma: p.tensor_imma,
        tensor_dmma: p.tensor_dmma,
        tensor_gmma: p.tensor_gmma,
    }
}

/// The C form of [`MmaRates`].
fn mma_desc(m: &MmaRates) -> MmaRatesDesc {
    MmaRatesDesc {
        fp16_flop: m.fp16_flop,
        bf16_flop: m.bf16_flop,
        tf32_flop: m.tf32_flop,
        fp8_flop: m.fp8_flop,
        int8_op: m.int8_op,
        fp64_flop: m.fp64_flop,
        hmma_min_cycles: m.hmma_min_cycles,
        imma_min_cycles: m.imma_min_cycles,
        dmma_min_cycles: m.dmma_min_cycles,
    }
}

/// The C form of [`PeakFlops`].
fn peak_desc(p: &PeakFlops) -> PeakDesc {
    PeakDesc {
        fp64: p.fp64,
        fp32: p.fp32,
        fp16: p.fp16,
        fp64_tensor: p.fp64_tensor,
        tf32_tensor: p.tf32_tensor,
        fp16_tensor: p.fp16_tensor,
        fp8_tensor: p.fp8_tensor,
        int8_tensor: p.int8_tensor,
    }
}

/// Converts one [`ArchSpec`] to its C descriptor, leaking the name, the carveout array and the
/// SASS opcode table (with its strings).
pub fn arch_desc(arch: &ArchSpec) -> ArchDesc {
    let carveouts: &'static [u32] = Box::leak(arch.carveouts.clone().into_boxed_slice());
    let sass_pipes: &'static [SassPipeDesc] = Box::leak(
        arch.sass_pipes
            .iter()
            .map(|(opcode, pipe)| SassPipeDesc {
                opcode: leak_str(opcode),
                pipe: pipe.code(),
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    ArchDesc {
        cc_major: arch.cc.major,
        cc_minor: arch.cc.minor,
        name: leak_str(&arch.name),
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
            RegisterAllocation::Warp => REG_ALLOC_WARP,
            RegisterAllocation::Block => REG_ALLOC_BLOCK,
        },
        sub_partitions: arch.sub_partitions,
        smem_per_sm: arch.smem_per_sm,
        smem_per_block_default: arch.smem_per_block_default,
        smem_per_block_optin: arch.smem_per_block_optin,
        smem_alloc_unit: arch.smem_alloc_unit,
        smem_reserved_per_block: arch.smem_reserved_per_block,
        carveouts: carveouts.as_ptr(),
        carveout_count: carveouts.len(),
        barrier_multiplier: arch.barrier_multiplier,
        virtual_resources_per_sm: arch.virtual_resources_per_sm,
        partitioned_gc_supported: u32::from(arch.partitioned_gc_supported),
        warp_schedulers_per_sm: arch.warp_schedulers_per_sm,
        issue_per_scheduler_per_clk: arch.issue_per_scheduler_per_clk,
        latencies: latency_desc(&arch.latencies),
        throughput: throughput_desc(&arch.throughput),
        pipes: pipes_desc(&arch.pipes),
        l1_wavefronts_per_clk: arch.l1_wavefronts_per_clk,
        mma: mma_desc(&arch.mma),
        sass_pipes: if sass_pipes.is_empty() {
            std::ptr::null()
        } else {
            sass_pipes.as_ptr()
        },
        sass_pipe_count: sass_pipes.len(),
    }
}

/// Converts one [`DeviceSpec`] to its C descriptor, leaking the strings and the alias array.
pub fn device_desc(device: &DeviceSpec) -> DeviceDesc {
    let aliases: &'static [Str] = Box::leak(
        device
            .aliases
            .iter()
            .map(|a| leak_str(a))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    DeviceDesc {
        name: leak_str(&device.name),
        aliases: aliases.as_ptr(),
        alias_count: aliases.len(),
        cc_major: device.cc.major,
        cc_minor: device.cc.minor,
        sm_count: device.sm_count,
        sm_clock_hz: device.sm_clock_hz,
        mem_clock_hz: device.mem_clock_hz,
        dram_bandwidth: device.dram_bandwidth,
        l2_bytes: device.l2_bytes,
        l2_bandwidth: device.l2_bandwidth,
        peak: peak_desc(&device.peak),
        dram_achievable_fraction: device.dram_achievable_fraction,
        dram_latency_cycles: device.dram_latency_cycles,
        l2_achievable_bandwidth: device.l2_achievable_bandwidth,
        tensor_clock_hz: device.tensor_clock_hz,
        l2_slices: device.l2_slices,
        base_clock_hz: device.base_clock_hz,
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
    let archs: &'static [ArchDesc] = Box::leak(
        data.archs
            .iter()
            .map(arch_desc)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
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
