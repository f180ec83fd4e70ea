//! Per-architecture and per-device numbers, as the model uses them.
//!
//! These are plain, owned Rust values. Plugins deliver them through the C ABI
//! (`warpsight-plugin`); [`crate::plugin_host`] validates and converts them into these types and
//! collects them in a [`Registry`]. The model never sees the C types.
//!
//! Units: bytes, Hz, bytes/s, FLOP/s, cycles. `f64::NAN` marks a number the plugin does not know.

pub mod registry;

pub use registry::{Provenance, Registry};

/// A compute capability, e.g. 8.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputeCapability {
    /// Major part.
    pub major: u32,
    /// Minor part.
    pub minor: u32,
}

impl ComputeCapability {
    /// Makes a compute capability.
    pub const fn new(major: u32, minor: u32) -> Self {
        ComputeCapability { major, minor }
    }

    /// Parses `"8.0"`, `"9.0"`, `"12.0"`, also `"80"`/`"sm_80"`/`"sm_120"` style.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let text = text.strip_prefix("sm_").unwrap_or(text);
        if let Some((major, minor)) = text.split_once('.') {
            return Some(ComputeCapability::new(major.parse().ok()?, minor.parse().ok()?));
        }
        if text.len() >= 2 && text.chars().all(|c| c.is_ascii_digit()) {
            let (major, minor) = text.split_at(text.len() - 1);
            return Some(ComputeCapability::new(major.parse().ok()?, minor.parse().ok()?));
        }
        None
    }
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How registers are allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterAllocation {
    /// Per warp (every CC from 3.x on).
    Warp,
    /// Per block (CC 1.x–2.x; kept for completeness).
    Block,
}

/// Latencies in SM cycles by class. NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latencies {
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
    /// Shared-memory load latency.
    pub shared: f64,
    /// L1 hit load latency.
    pub l1_hit: f64,
    /// L2 hit load latency.
    pub l2_hit: f64,
    /// DRAM (L2 miss) load latency.
    pub dram: f64,
}

/// Throughput per SM per cycle, in thread-level results (lanes) per clock, by instruction class.
/// Tensor rates are dense FLOP per clock per SM. NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throughput {
    /// FP32 add/mul/fma results per clock per SM.
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
    /// FLOP per warp-level tensor instruction (as counted by `sm__inst_executed_pipe_tensor`),
    /// for the architecture's common FP16 MMA shape.
    pub flop_per_tensor_inst: f64,
    /// L1/shared bandwidth, bytes per clock per SM.
    pub l1_bytes_per_clk: f64,
}

/// Issue rates of the functional pipes, in warp instructions per SM per cycle (the unit of ncu's
/// `sm__inst_executed_pipe_*` counters). NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeRates {
    /// FP32 FFMA/FADD/FMUL and IMAD (`fma`).
    pub fma: f64,
    /// FP16x2 HFMA2/HADD2/HMUL2 (`fma_type_fp16`).
    pub fma_fp16: f64,
    /// FP64 (`fp64`).
    pub fp64: f64,
    /// INT32 and FP32 compare/min/max (`alu`).
    pub alu: f64,
    /// Transcendentals and conversions (`xu`).
    pub xu: f64,
    /// Loads, stores, shuffles (`lsu`).
    pub lsu: f64,
    /// Address divergence unit (`adu`).
    pub adu: f64,
    /// Convergence and branch unit (`cbu`).
    pub cbu: f64,
    /// Uniform datapath (`uniform`).
    pub uniform: f64,
    /// Interpolation (`ipa`).
    pub ipa: f64,
    /// Texture (`tex`).
    pub tex: f64,
    /// Tensor memory accelerator (`tma`).
    pub tma: f64,
    /// `mma.sync` HMMA (`tensor_op_hmma`).
    pub tensor_hmma: f64,
    /// `mma.sync` IMMA (`tensor_op_imma`).
    pub tensor_imma: f64,
    /// DMMA (`tensor_op_dmma`).
    pub tensor_dmma: f64,
    /// wgmma, per warp instruction, when the ops counters are missing (`tensor_op_gmma`).
    pub tensor_gmma: f64,
}

/// Everything the model needs to know about one compute capability.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchSpec {
    /// Compute capability.
    pub cc: ComputeCapability,
    /// Human name, e.g. "Ampere GA100".
    pub name: String,
    /// Threads per warp (32).
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
    /// Max registers per thread accepted.
    pub max_regs_per_thread: u32,
    /// Register allocation unit size (registers), 256.
    pub reg_alloc_unit: u32,
    /// Register allocation granularity.
    pub reg_alloc_granularity: RegisterAllocation,
    /// Sub-partitions per SM (warp allocation granularity): 4, or 2 on CC 6.0.
    pub sub_partitions: u32,
    /// Shared memory per SM, bytes: the largest carveout.
    pub smem_per_sm: u32,
    /// Default max shared memory per block, bytes (48 KiB).
    pub smem_per_block_default: u32,
    /// Opt-in max shared memory per block, bytes.
    pub smem_per_block_optin: u32,
    /// Shared-memory allocation unit, bytes.
    pub smem_alloc_unit: u32,
    /// Shared memory reserved per block by the system, bytes (1024 on CC >= 8.0).
    pub smem_reserved_per_block: u32,
    /// Allowed SM shared-memory capacities (carveouts), bytes, ascending. For fixed-size
    /// architectures this is one value equal to `smem_per_sm`.
    pub carveouts: Vec<u32>,
    /// Barrier multiplier `k` (named barriers available = k × max blocks); 0 when the barrier
    /// limit does not apply (CC < 9.0).
    pub barrier_multiplier: u32,
    /// Virtual resources per SM (CUDA 13 header; 0 = no limit).
    pub virtual_resources_per_sm: u32,
    /// Whether partitioned global caching exists on this CC.
    pub partitioned_gc_supported: bool,
    /// Warp schedulers per SM.
    pub warp_schedulers_per_sm: u32,
    /// Instructions issued per scheduler per clock (1; dual issue counts 2).
    pub issue_per_scheduler_per_clk: u32,
    /// Latencies by class, cycles.
    pub latencies: Latencies,
    /// Throughputs by class, per SM per clock.
    pub throughput: Throughput,
    /// Functional pipe issue rates, warp instructions per SM per cycle.
    pub pipes: PipeRates,
    /// L1TEX data-stage wavefronts per SM per cycle (shared and global accesses share them).
    pub l1_wavefronts_per_clk: f64,
}

/// Peak rates of a device, FLOP/s (dense). NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeakFlops {
    /// FP64 (vector / CUDA cores).
    pub fp64: f64,
    /// FP32 (CUDA cores).
    pub fp32: f64,
    /// FP16 (non-tensor).
    pub fp16: f64,
    /// FP64 tensor.
    pub fp64_tensor: f64,
    /// TF32 tensor.
    pub tf32_tensor: f64,
    /// FP16 / BF16 tensor with FP32 accumulate.
    pub fp16_tensor: f64,
    /// FP8 tensor.
    pub fp8_tensor: f64,
    /// INT8 tensor (OP/s).
    pub int8_tensor: f64,
}

/// One GPU product.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceSpec {
    /// Name as profilers print it, e.g. "NVIDIA A100-SXM4-40GB"; matching is done on a normalised form.
    pub name: String,
    /// Other names the device is printed under (e.g. "A100 SXM4 40GB", "NVIDIA A100 80GB PCIe").
    pub aliases: Vec<String>,
    /// Compute capability.
    pub cc: ComputeCapability,
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
    /// Peak FLOP/s per precision.
    pub peak: PeakFlops,
    /// Fraction of the DRAM peak a copy reaches (0–1].
    pub dram_achievable_fraction: f64,
    /// DRAM load latency on this product, SM cycles.
    pub dram_latency_cycles: f64,
    /// Achievable L2 bandwidth, bytes/s (NaN when unknown).
    pub l2_achievable_bandwidth: f64,
    /// L2 slices (0 when unknown).
    pub l2_slices: u32,
    /// Clock the tensor peaks correspond to, Hz.
    pub tensor_clock_hz: f64,
}
