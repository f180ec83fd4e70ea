//! The `#[repr(C)]` types that cross the plugin boundary: the plugin table, the architecture and
//! device descriptors, findings, status codes and the error buffer.
//!
//! Every type here has a fixed C layout. Units are base units: bytes, hertz, bytes per second,
//! FLOP per second, SM clock cycles. `f64::NAN` marks a number the plugin does not know.
//! See the crate documentation for the versioning policy.

use std::ffi::c_void;

use crate::arrow_c::{ArrowArray, ArrowSchema};

/// The magic number at the start of every [`PluginTable`]: the ASCII bytes `WSPLUGIN` read as a
/// little-endian `u64`. A host that finds another value stops reading the table.
pub const MAGIC: u64 = u64::from_le_bytes(*b"WSPLUGIN");

/// The ABI major version. A change that is not an append (see the crate documentation) bumps it and
/// renames the entry symbol.
pub const ABI_MAJOR: u32 = 1;

/// The ABI minor version. Bumped when fields are appended to a struct or optional hooks are added.
///
/// - 0: the first release.
/// - 1: [`ArchDesc::pipes`] and [`ArchDesc::l1_wavefronts_per_clk`]; [`DeviceDesc`] from
///   `dram_achievable_fraction` on (the time model's constants).
/// - 2: [`ArchDesc::mma`] (the `mma.sync` tensor path's per-type peaks and minimum cycles).
/// - 3: [`ArchDesc::sass_pipes`] (which ncu pipe executes each SASS opcode) and
///   [`DeviceDesc::base_clock_hz`].
pub const ABI_MINOR: u32 = 3;

/// The name of the entry symbol, without and with the terminating NUL. It carries the ABI major.
pub const ENTRY_SYMBOL: &str = "warpsight_plugin_v1";

/// [`ENTRY_SYMBOL`] with its terminating NUL, as `dlsym`/`libloading` want it.
pub const ENTRY_SYMBOL_NUL: &[u8] = b"warpsight_plugin_v1\0";

/// The outcome of a call across the boundary.
pub type Status = i32;

/// The call succeeded; out-parameters are set.
pub const STATUS_OK: Status = 0;
/// The call failed with an error; the message is in the [`ErrorBuffer`].
pub const STATUS_ERROR: Status = 1;
/// The plugin panicked; the panic was caught and its message is in the [`ErrorBuffer`].
pub const STATUS_PANIC: Status = 2;
/// An argument was invalid (for example a null pointer); the message is in the [`ErrorBuffer`].
pub const STATUS_INVALID_ARGUMENT: Status = 3;

/// A UTF-8 string owned by the plugin: pointer and length in bytes, no terminating NUL needed.
/// Strings in the [`PluginTable`] live as long as the library is loaded.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Str {
    /// First byte; may be null only when `len` is 0.
    pub ptr: *const u8,
    /// Length in bytes.
    pub len: usize,
}

impl Str {
    /// The empty string.
    pub const EMPTY: Str = Str {
        ptr: std::ptr::null(),
        len: 0,
    };

    /// Points at a `'static` string.
    pub const fn from_static(text: &'static str) -> Str {
        Str {
            ptr: text.as_ptr(),
            len: text.len(),
        }
    }

    /// Reads the bytes.
    ///
    /// # Safety
    /// `ptr` must be valid for `len` bytes for the lifetime `'a` (or null with `len` 0).
    pub unsafe fn as_bytes<'a>(&self) -> &'a [u8] {
        if self.ptr.is_null() || self.len == 0 {
            return &[];
        }
        // SAFETY: the caller guarantees that `ptr` is valid for `len` bytes for `'a`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The buffer a host passes for error messages. The plugin writes at most `capacity` bytes of UTF-8
/// (cut at a character boundary) at `ptr` and sets `len`. The host owns the memory.
#[repr(C)]
#[derive(Debug)]
pub struct ErrorBuffer {
    /// Host-owned bytes.
    pub ptr: *mut u8,
    /// Number of bytes the host allocated at `ptr`.
    pub capacity: usize,
    /// Number of bytes the plugin wrote (0 before the call).
    pub len: usize,
}

/// How registers are allocated ([`ArchDesc::reg_alloc_granularity`]).
pub const REG_ALLOC_WARP: u32 = 0;
/// Registers allocated per block (CC 1.x–2.x only).
pub const REG_ALLOC_BLOCK: u32 = 1;

/// Latencies in SM cycles by instruction or memory class (NaN when unknown).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyDesc {
    /// Dependent-issue latency of FP32 FMA/ADD.
    pub fp32: f64,
    /// Dependent-issue latency of INT32 ADD.
    pub int32: f64,
    /// Dependent-issue latency of FP64 FMA.
    pub fp64: f64,
    /// Special-function unit latency.
    pub sfu: f64,
    /// Tensor (MMA) latency.
    pub tensor: f64,
    /// Shared-memory load-to-use latency.
    pub shared: f64,
    /// L1 hit load-to-use latency.
    pub l1_hit: f64,
    /// L2 hit load-to-use latency.
    pub l2_hit: f64,
    /// DRAM (L2 miss) load-to-use latency.
    pub dram: f64,
}

/// Throughput per SM per SM clock by class (NaN when unknown). Lanes are thread-level results.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThroughputDesc {
    /// FP32 results per clock per SM.
    pub fp32: f64,
    /// FP64 results per clock per SM.
    pub fp64: f64,
    /// FP16 (non-tensor) results per clock per SM.
    pub fp16: f64,
    /// INT32 results per clock per SM.
    pub int32: f64,
    /// SFU results per clock per SM.
    pub sfu: f64,
    /// Tensor FP16 (FP32 accumulate) dense FLOP per clock per SM.
    pub tensor_fp16_flop: f64,
    /// Tensor BF16 dense FLOP per clock per SM.
    pub tensor_bf16_flop: f64,
    /// Tensor TF32 dense FLOP per clock per SM.
    pub tensor_tf32_flop: f64,
    /// Tensor FP8 dense FLOP per clock per SM.
    pub tensor_fp8_flop: f64,
    /// Tensor INT8 dense OP per clock per SM.
    pub tensor_int8_op: f64,
    /// Tensor FP64 FLOP per clock per SM.
    pub tensor_fp64_flop: f64,
    /// FLOP per warp-level tensor instruction for the common FP16 MMA shape.
    pub flop_per_tensor_inst: f64,
    /// L1/shared bandwidth, bytes per clock per SM.
    pub l1_bytes_per_clk: f64,
}

/// Pipe issue rates, warp instructions per SM per cycle (NaN when unknown); appended in minor 1.
/// Field meanings are those of [`crate::spec::PipeRates`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeRatesDesc {
    /// FMA pipe (FP32 FFMA/FADD/FMUL, IMAD).
    pub fma: f64,
    /// ncu pipe `fma_type_fp16` (HFMA2/HADD2/HMUL2).
    pub fma_fp16: f64,
    /// FP64 pipe.
    pub fp64: f64,
    /// ALU pipe.
    pub alu: f64,
    /// XU pipe (MUFU, conversions).
    pub xu: f64,
    /// LSU pipe.
    pub lsu: f64,
    /// ADU pipe.
    pub adu: f64,
    /// CBU pipe.
    pub cbu: f64,
    /// Uniform datapath pipe.
    pub uniform: f64,
    /// IPA pipe.
    pub ipa: f64,
    /// TEX pipe.
    pub tex: f64,
    /// TMA pipe.
    pub tma: f64,
    /// Tensor pipe, HMMA instructions.
    pub tensor_hmma: f64,
    /// Tensor pipe, IMMA instructions.
    pub tensor_imma: f64,
    /// Tensor pipe, DMMA instructions.
    pub tensor_dmma: f64,
    /// Tensor pipe, wgmma instructions (per-instruction fallback).
    pub tensor_gmma: f64,
}

/// The `mma.sync` tensor path (NaN when unknown); appended in minor 2. Field meanings are those of
/// [`crate::spec::MmaRates`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MmaRatesDesc {
    /// HMMA, FP16 sources: dense FLOP per SM per cycle.
    pub fp16_flop: f64,
    /// HMMA, BF16 sources: dense FLOP per SM per cycle.
    pub bf16_flop: f64,
    /// HMMA, TF32 sources: dense FLOP per SM per cycle.
    pub tf32_flop: f64,
    /// HMMA, FP8 sources: dense FLOP per SM per cycle.
    pub fp8_flop: f64,
    /// IMMA, INT8 sources: dense OP per SM per cycle.
    pub int8_op: f64,
    /// DMMA: FLOP per SM per cycle.
    pub fp64_flop: f64,
    /// Fewest SM cycles per HMMA warp instruction.
    pub hmma_min_cycles: f64,
    /// Fewest SM cycles per IMMA warp instruction.
    pub imma_min_cycles: f64,
    /// Fewest SM cycles per DMMA warp instruction.
    pub dmma_min_cycles: f64,
}

/// The values of [`SassPipeDesc::pipe`]: the ncu pipes in the order of [`PipeRatesDesc`]'s fields
/// (and of [`crate::spec::Pipe`]). ncu counts the pipe's instructions in
/// `sm__inst_executed_pipe_<name>.sum`.
pub const PIPE_FMA: u32 = 0;
/// ncu pipe `fma_type_fp16`.
pub const PIPE_FMA_FP16: u32 = 1;
/// ncu pipe `fp64`.
pub const PIPE_FP64: u32 = 2;
/// ncu pipe `alu`.
pub const PIPE_ALU: u32 = 3;
/// ncu pipe `xu`.
pub const PIPE_XU: u32 = 4;
/// ncu pipe `lsu`.
pub const PIPE_LSU: u32 = 5;
/// ncu pipe `adu`.
pub const PIPE_ADU: u32 = 6;
/// ncu pipe `cbu`.
pub const PIPE_CBU: u32 = 7;
/// ncu pipe `uniform`.
pub const PIPE_UNIFORM: u32 = 8;
/// ncu pipe `ipa`.
pub const PIPE_IPA: u32 = 9;
/// ncu pipe `tex`.
pub const PIPE_TEX: u32 = 10;
/// ncu pipe `tma`.
pub const PIPE_TMA: u32 = 11;
/// ncu pipe `tensor_op_hmma`.
pub const PIPE_TENSOR_HMMA: u32 = 12;
/// ncu pipe `tensor_op_imma`.
pub const PIPE_TENSOR_IMMA: u32 = 13;
/// ncu pipe `tensor_op_dmma`.
pub const PIPE_TENSOR_DMMA: u32 = 14;
/// ncu pipe `tensor_op_gmma`.
pub const PIPE_TENSOR_GMMA: u32 = 15;
/// The number of pipe values; a [`SassPipeDesc::pipe`] at or above it is invalid.
pub const PIPE_COUNT: u32 = 16;

/// One entry of an architecture's SASS opcode → pipe table (appended in minor 3): the warp-level
/// instructions of this opcode that ncu counts in `sass__inst_executed_per_opcode` are counted in
/// `sm__inst_executed_pipe_<pipe>.sum`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SassPipeDesc {
    /// The opcode without modifiers, upper-case ASCII, e.g. "FFMA" (not "FFMA.FTZ").
    pub opcode: Str,
    /// One of the `PIPE_*` values ([`PIPE_FMA`] … [`PIPE_TENSOR_GMMA`]).
    pub pipe: u32,
}

/// Peak device rates, FLOP/s (dense; INT8 in OP/s). NaN when unknown.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeakDesc {
    /// FP64 on the CUDA cores.
    pub fp64: f64,
    /// FP32 on the CUDA cores.
    pub fp32: f64,
    /// FP16 (non-tensor).
    pub fp16: f64,
    /// FP64 tensor.
    pub fp64_tensor: f64,
    /// TF32 tensor.
    pub tf32_tensor: f64,
    /// FP16/BF16 tensor with FP32 accumulate.
    pub fp16_tensor: f64,
    /// FP8 tensor.
    pub fp8_tensor: f64,
    /// INT8 tensor, OP/s.
    pub int8_tensor: f64,
}

/// One compute capability: everything the occupancy calculation and the model need.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ArchDesc {
    /// Compute capability, major part.
    pub cc_major: u32,
    /// Compute capability, minor part.
    pub cc_minor: u32,
    /// Human name, e.g. "Ampere GA100".
    pub name: Str,
    /// Threads per warp (32).
    pub threads_per_warp: u32,
    /// Max resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Max resident threads per SM (= max warps × threads per warp).
    pub max_threads_per_sm: u32,
    /// Max resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Max threads per block.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// Max 32-bit registers per block.
    pub max_regs_per_block: u32,
    /// Max registers per thread.
    pub max_regs_per_thread: u32,
    /// Register allocation unit, registers (256).
    pub reg_alloc_unit: u32,
    /// [`REG_ALLOC_WARP`] or [`REG_ALLOC_BLOCK`].
    pub reg_alloc_granularity: u32,
    /// Sub-partitions per SM (warp allocation granularity), 1..=4.
    pub sub_partitions: u32,
    /// Shared memory per SM, bytes: the largest carveout.
    pub smem_per_sm: u32,
    /// Default max shared memory per block, bytes.
    pub smem_per_block_default: u32,
    /// Opt-in max shared memory per block, bytes.
    pub smem_per_block_optin: u32,
    /// Shared-memory allocation unit, bytes (a power of two).
    pub smem_alloc_unit: u32,
    /// Shared memory reserved by the system per block, bytes.
    pub smem_reserved_per_block: u32,
    /// Allowed SM shared-memory capacities (carveouts), bytes, ascending; the last equals
    /// `smem_per_sm`.
    pub carveouts: *const u32,
    /// Number of entries at `carveouts` (at least 1).
    pub carveout_count: usize,
    /// Barrier multiplier k (named barriers = k × max blocks); 0 when the limit does not apply.
    pub barrier_multiplier: u32,
    /// Virtual resources per SM; 0 = no limit.
    pub virtual_resources_per_sm: u32,
    /// 1 when partitioned global caching exists on this CC, else 0.
    pub partitioned_gc_supported: u32,
    /// Warp schedulers per SM.
    pub warp_schedulers_per_sm: u32,
    /// Instructions issued per scheduler per clock.
    pub issue_per_scheduler_per_clk: u32,
    /// Latencies by class.
    pub latencies: LatencyDesc,
    /// Throughputs by class.
    pub throughput: ThroughputDesc,
    // Minor 1 from here on: a minor-0 plugin's descriptor ends above
    // ([`ARCH_DESC_SIZE_MINOR_0`]).
    /// Pipe issue rates, warp instructions per SM per cycle.
    pub pipes: PipeRatesDesc,
    /// L1TEX data-stage wavefronts per SM per cycle (NaN when unknown).
    pub l1_wavefronts_per_clk: f64,
    // Minor 2 from here on: a minor-1 plugin's descriptor ends above
    // ([`ARCH_DESC_SIZE_MINOR_1`]).
    /// The `mma.sync` tensor path: per-type peaks and minimum cycles per instruction.
    pub mma: MmaRatesDesc,
    // Minor 3 from here on: a minor-2 plugin's descriptor ends above
    // ([`ARCH_DESC_SIZE_MINOR_2`]).
    /// The SASS opcode → ncu pipe table (null when `sass_pipe_count` is 0). Opcodes the table does
    /// not name count only in the total instructions.
    pub sass_pipes: *const SassPipeDesc,
    /// Number of entries at `sass_pipes` (0 = no table).
    pub sass_pipe_count: usize,
}

/// `size_of::<ArchDesc>()` in ABI minor 0: everything before [`ArchDesc::pipes`].
pub const ARCH_DESC_SIZE_MINOR_0: usize = std::mem::offset_of!(ArchDesc, pipes);

/// `size_of::<ArchDesc>()` in ABI minor 1: everything before [`ArchDesc::mma`].
pub const ARCH_DESC_SIZE_MINOR_1: usize = std::mem::offset_of!(ArchDesc, mma);

/// `size_of::<ArchDesc>()` in ABI minor 2: everything before [`ArchDesc::sass_pipes`].
pub const ARCH_DESC_SIZE_MINOR_2: usize = std::mem::offset_of!(ArchDesc, sass_pipes);

/// One GPU product.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DeviceDesc {
    /// Name as profilers print it, e.g. "NVIDIA A100-SXM4-40GB".
    pub name: Str,
    /// Other names of the same device.
    pub aliases: *const Str,
    /// Number of entries at `aliases`.
    pub alias_count: usize,
    /// Compute capability, major part.
    pub cc_major: u32,
    /// Compute capability, minor part.
    pub cc_minor: u32,
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
    // Minor 1 from here on: a minor-0 plugin's descriptor ends above
    // ([`DEVICE_DESC_SIZE_MINOR_0`]).
    /// Achievable fraction of `dram_bandwidth`, in (0, 1].
    pub dram_achievable_fraction: f64,
    /// Unloaded DRAM latency, SM cycles (NaN when unknown).
    pub dram_latency_cycles: f64,
    /// Achievable L2 bandwidth, bytes/s (NaN when unknown).
    pub l2_achievable_bandwidth: f64,
    /// The clock the tensor peaks are quoted at, Hz.
    pub tensor_clock_hz: f64,
    /// Number of L2 slices (0 when unknown).
    pub l2_slices: u32,
    // Minor 3 from here on: a minor-1 or minor-2 plugin's descriptor ends above, with the padding
    // after `l2_slices` ([`DEVICE_DESC_SIZE_MINOR_1`]).
    /// SM base clock, Hz (NaN when unknown): the clock ncu's `--clock-control base` (its
    /// default) locks the SM at; at most `sm_clock_hz`.
    pub base_clock_hz: f64,
}

/// `size_of::<DeviceDesc>()` in ABI minor 0: everything before
/// [`DeviceDesc::dram_achievable_fraction`].
pub const DEVICE_DESC_SIZE_MINOR_0: usize =
    std::mem::offset_of!(DeviceDesc, dram_achievable_fraction);

/// `size_of::<DeviceDesc>()` in ABI minors 1 and 2 (minor 2 changed only `ArchDesc`): everything
/// before [`DeviceDesc::base_clock_hz`], the trailing padding after `l2_slices` included.
pub const DEVICE_DESC_SIZE_MINOR_1: usize = std::mem::offset_of!(DeviceDesc, base_clock_hz);

/// Severity of a finding: information.
pub const SEVERITY_INFO: u32 = 0;
/// Severity of a finding: a warning (likely performance problem).
pub const SEVERITY_WARNING: u32 = 1;
/// Severity of a finding: severe (the launch is dominated by the problem).
pub const SEVERITY_SEVERE: u32 = 2;

/// One finding of a rules hook about one launch.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Finding {
    /// The `launch_id` of the launch the finding is about (a value of the batch's `launch_id` column).
    pub launch_id: i64,
    /// A short stable rule identifier, e.g. "ampere.smem_bank_conflicts".
    pub rule_id: Str,
    /// [`SEVERITY_INFO`], [`SEVERITY_WARNING`] or [`SEVERITY_SEVERE`].
    pub severity: u32,
    /// The human-readable message.
    pub message: Str,
}

/// The findings a rules hook returns: an array owned by the plugin until the host passes this
/// struct back to the plugin's [`FreeFindingsFn`].
#[repr(C)]
#[derive(Debug)]
pub struct Findings {
    /// First finding (null when `len` is 0).
    pub ptr: *const Finding,
    /// Number of findings.
    pub len: usize,
    /// Plugin-private pointer used by the free function.
    pub owner: *mut c_void,
}

impl Findings {
    /// No findings, nothing to free.
    pub const EMPTY: Findings = Findings {
        ptr: std::ptr::null(),
        len: 0,
        owner: std::ptr::null_mut(),
    };
}

/// The rules hook: reads a batch of launches (a struct array whose children are the launch-table
/// columns, through the Arrow C Data Interface) and writes findings to `out`.
///
/// Ownership: the array and schema stay owned by the host and are only borrowed for the call (the
/// plugin must neither release nor keep them). On [`STATUS_OK`] the plugin has set `*out`, which
/// the host later passes to the free function. On any other status `*out` is left empty and the
/// message is in `error`.
pub type RulesFn = unsafe extern "C" fn(
    array: *const ArrowArray,
    schema: *const ArrowSchema,
    out: *mut Findings,
    error: *mut ErrorBuffer,
) -> Status;

/// Frees findings returned by the same plugin's [`RulesFn`]. Never unwinds.
pub type FreeFindingsFn = unsafe extern "C" fn(findings: *mut Findings);

/// The table a plugin's entry symbol returns. Lives as long as the library is loaded.
///
/// The host reads `magic`, `abi_major`, `abi_minor` and `struct_size` first and nothing else
/// unless they are acceptable. Descriptor arrays are read with the strides `arch_desc_size` and
/// `device_desc_size`, so that a later minor version can append fields to the descriptors.
#[repr(C)]
#[derive(Debug)]
pub struct PluginTable {
    /// Always [`MAGIC`].
    pub magic: u64,
    /// [`ABI_MAJOR`] of the SDK the plugin was built with.
    pub abi_major: u32,
    /// [`ABI_MINOR`] of the SDK the plugin was built with.
    pub abi_minor: u32,
    /// `size_of::<PluginTable>()` in the plugin's SDK.
    pub struct_size: usize,
    /// The plugin's name, e.g. "ampere".
    pub name: Str,
    /// The plugin's version, e.g. "0.1.0".
    pub version: Str,
    /// `size_of::<ArchDesc>()` in the plugin's SDK: the stride of `archs`.
    pub arch_desc_size: usize,
    /// Architecture descriptors.
    pub archs: *const ArchDesc,
    /// Number of architecture descriptors.
    pub arch_count: usize,
    /// `size_of::<DeviceDesc>()` in the plugin's SDK: the stride of `devices`.
    pub device_desc_size: usize,
    /// Device descriptors.
    pub devices: *const DeviceDesc,
    /// Number of device descriptors.
    pub device_count: usize,
    /// Optional rules hook.
    pub rules: Option<RulesFn>,
    /// Frees what `rules` returned; present whenever `rules` is.
    pub free_findings: Option<FreeFindingsFn>,
}

/// The signature of the entry symbol [`ENTRY_SYMBOL`]: on [`STATUS_OK`] `*out` points at the
/// plugin's static table; otherwise the message is in `error`.
pub type EntryFn =
    unsafe extern "C" fn(out: *mut *const PluginTable, error: *mut ErrorBuffer) -> Status;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minor_0_sizes_are_the_old_struct_sizes() {
        // Minor 0 ended `ArchDesc` with the 13 f64 of `throughput` and `DeviceDesc` with the 8 f64
        // of `peak`, both 8-aligned, so the old size is where the first appended field starts.
        assert_eq!(
            ARCH_DESC_SIZE_MINOR_0,
            std::mem::offset_of!(ArchDesc, throughput) + std::mem::size_of::<ThroughputDesc>()
        );
        assert_eq!(
            DEVICE_DESC_SIZE_MINOR_0,
            std::mem::offset_of!(DeviceDesc, peak) + std::mem::size_of::<PeakDesc>()
        );
        assert!(ARCH_DESC_SIZE_MINOR_0 < std::mem::size_of::<ArchDesc>());
        // Minor 1 ended `ArchDesc` with the `f64` `l1_wavefronts_per_clk`, 8-aligned, so the
        // minor-1 size is where `mma` starts, and `mma` is the descriptor's tail.
        assert_eq!(
            ARCH_DESC_SIZE_MINOR_1,
            std::mem::offset_of!(ArchDesc, l1_wavefronts_per_clk) + std::mem::size_of::<f64>()
        );
        assert_eq!(
            ARCH_DESC_SIZE_MINOR_1 + std::mem::size_of::<MmaRatesDesc>(),
            ARCH_DESC_SIZE_MINOR_2
        );
        // Minor 2 ended `ArchDesc` with the 9 f64 of `mma`; minor 3 appends a pointer and a count.
        assert_eq!(
            ARCH_DESC_SIZE_MINOR_2
                + std::mem::size_of::<*const SassPipeDesc>()
                + std::mem::size_of::<usize>(),
            std::mem::size_of::<ArchDesc>()
        );
        assert!(DEVICE_DESC_SIZE_MINOR_0 < std::mem::size_of::<DeviceDesc>());
        // Minor 1 ended `DeviceDesc` with the `u32` `l2_slices` and 4 bytes of padding (the struct
        // is 8-aligned); `base_clock_hz` starts where that padding ended.
        assert_eq!(
            DEVICE_DESC_SIZE_MINOR_1,
            (std::mem::offset_of!(DeviceDesc, l2_slices) + 4).next_multiple_of(8)
        );
        assert_eq!(
            DEVICE_DESC_SIZE_MINOR_1 + std::mem::size_of::<f64>(),
            std::mem::size_of::<DeviceDesc>()
        );
        // An opcode entry is a string and a `u32`, padded to the pointer's alignment.
        assert_eq!(
            std::mem::size_of::<SassPipeDesc>(),
            std::mem::size_of::<Str>() + std::mem::align_of::<Str>()
        );
    }
}
