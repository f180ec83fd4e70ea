//! Per-architecture and per-device parameter frames: the registry's numbers as small polars frames
//! (one row per compute capability, one row per device name or alias) that the model joins onto the
//! launch frame, so that every equation is a column-wise expression over all launches at once.
//!
//! The parameter columns are internal: their names start with `__` and [`super::evaluate`] drops
//! them before returning. Integer quantities are `Int64`, rates and latencies `Float64`; a number
//! the plugin does not know (`NaN` in the specs) becomes null.

use polars::prelude::*;

use crate::arch::registry::normalize_device_name;
use crate::arch::{ArchSpec, DeviceSpec, Registry};

/// Largest number of carveout sizes an architecture may list (the longest real list has 11).
pub(crate) const MAX_CARVEOUTS: usize = 16;

/// Compute capability major of the architecture the row is modelled with.
pub(crate) const CC_MAJOR: &str = "__p_cc_major";
/// Compute capability minor of the architecture the row is modelled with.
pub(crate) const CC_MINOR: &str = "__p_cc_minor";
/// Threads per warp.
pub(crate) const WARP_SIZE: &str = "__p_warp_size";
/// Max resident warps per SM.
pub(crate) const MAX_WARPS: &str = "__p_max_warps";
/// Max threads per block.
pub(crate) const MAX_THREADS_PER_BLOCK: &str = "__p_max_threads_per_block";
/// Max resident blocks per SM.
pub(crate) const MAX_BLOCKS: &str = "__p_max_blocks";
/// 32-bit registers per SM.
pub(crate) const REGS_PER_SM: &str = "__p_regs_per_sm";
/// Max registers per block.
pub(crate) const MAX_REGS_PER_BLOCK: &str = "__p_max_regs_per_block";
/// Max registers per thread accepted.
pub(crate) const MAX_REGS_PER_THREAD: &str = "__p_max_regs_per_thread";
/// Register allocation unit (registers).
pub(crate) const REG_UNIT: &str = "__p_reg_unit";
/// Sub-partitions per SM (warp allocation granularity).
pub(crate) const SUB_PARTITIONS: &str = "__p_sub_partitions";
/// Shared memory per SM (largest carveout), bytes.
pub(crate) const SMEM_PER_SM: &str = "__p_smem_per_sm";
/// Default per-block shared-memory limit, bytes.
pub(crate) const SMEM_DEFAULT: &str = "__p_smem_default";
/// Opt-in per-block shared-memory limit, bytes.
pub(crate) const SMEM_OPTIN: &str = "__p_smem_optin";
/// Shared-memory allocation unit, bytes.
pub(crate) const SMEM_UNIT: &str = "__p_smem_unit";
/// Shared memory reserved per block, bytes.
pub(crate) const SMEM_RESERVED: &str = "__p_smem_reserved";
/// Barrier multiplier `k` (0 when the barrier limit does not apply).
pub(crate) const BARRIER_MULTIPLIER: &str = "__p_barrier_multiplier";
/// Warp schedulers per SM.
pub(crate) const SCHEDULERS: &str = "__p_schedulers";
/// Instructions issued per scheduler per clock.
pub(crate) const ISSUE_PER_SCHEDULER: &str = "__p_issue_per_scheduler";
/// FP32 dependent-issue latency, cycles.
pub(crate) const LAT_FP32: &str = "__p_lat_fp32";
/// DRAM load latency, cycles.
pub(crate) const LAT_DRAM: &str = "__p_lat_dram";
/// FLOP per warp-level tensor instruction.
pub(crate) const FLOP_PER_TENSOR_INST: &str = "__p_flop_per_tensor_inst";
/// L1/shared bandwidth, bytes per clock per SM.
pub(crate) const L1_BYTES_PER_CLK: &str = "__p_l1_bytes_per_clk";
/// Reads one number of an architecture.
pub(crate) type ArchNumber = fn(&ArchSpec) -> f64;
/// Reads one number of a device.
pub(crate) type DeviceNumber = fn(&DeviceSpec) -> f64;

/// The per-architecture numbers of the time model (`docs/model.md` §time), as (column, getter)
/// pairs: pipe rates in warp instructions per SM per cycle, wgmma-path tensor FLOP per SM per
/// tensor clock, L1 wavefronts per SM per cycle, and latencies in cycles.
pub(crate) const ARCH_TIME_FLOATS: &[(&str, ArchNumber)] = &[
    (PIPE_FMA, |a| a.pipes.fma),
    (PIPE_FMA_FP16, |a| a.pipes.fma_fp16),
    (PIPE_FP64, |a| a.pipes.fp64),
    (PIPE_ALU, |a| a.pipes.alu),
    (PIPE_XU, |a| a.pipes.xu),
    (PIPE_LSU, |a| a.pipes.lsu),
    (PIPE_ADU, |a| a.pipes.adu),
    (PIPE_CBU, |a| a.pipes.cbu),
    (PIPE_UNIFORM, |a| a.pipes.uniform),
    (PIPE_IPA, |a| a.pipes.ipa),
    (PIPE_TEX, |a| a.pipes.tex),
    (PIPE_TMA, |a| a.pipes.tma),
    (PIPE_HMMA, |a| a.pipes.tensor_hmma),
    (PIPE_IMMA, |a| a.pipes.tensor_imma),
    (PIPE_DMMA, |a| a.pipes.tensor_dmma),
    (PIPE_GMMA, |a| a.pipes.tensor_gmma),
    (GMMA_FP16_FLOP, |a| a.throughput.tensor_fp16_flop),
    (GMMA_BF16_FLOP, |a| a.throughput.tensor_bf16_flop),
    (GMMA_TF32_FLOP, |a| a.throughput.tensor_tf32_flop),
    (GMMA_FP8_FLOP, |a| a.throughput.tensor_fp8_flop),
    (GMMA_INT8_OP, |a| a.throughput.tensor_int8_op),
    (GMMA_FP64_FLOP, |a| a.throughput.tensor_fp64_flop),
    (L1_WAVEFRONTS_PER_CLK, |a| a.l1_wavefronts_per_clk),
    (MMA_FP16_FLOP, |a| a.mma.fp16_flop),
    (MMA_BF16_FLOP, |a| a.mma.bf16_flop),
    (MMA_TF32_FLOP, |a| a.mma.tf32_flop),
    (MMA_FP8_FLOP, |a| a.mma.fp8_flop),
    (MMA_INT8_OP, |a| a.mma.int8_op),
    (MMA_FP64_FLOP, |a| a.mma.fp64_flop),
    (MMA_HMMA_MIN_CYCLES, |a| a.mma.hmma_min_cycles),
    (MMA_IMMA_MIN_CYCLES, |a| a.mma.imma_min_cycles),
    (MMA_DMMA_MIN_CYCLES, |a| a.mma.dmma_min_cycles),
    (LAT_FP64, |a| a.latencies.fp64),
    (LAT_L1, |a| a.latencies.l1_hit),
    (LAT_L2, |a| a.latencies.l2_hit),
];

/// Pipe rate columns (warp instructions per SM per cycle), one per ncu pipe.
pub(crate) const PIPE_FMA: &str = "__p_pipe_fma";
/// FP16x2 pipe rate.
pub(crate) const PIPE_FMA_FP16: &str = "__p_pipe_fma_fp16";
/// FP64 pipe rate.
pub(crate) const PIPE_FP64: &str = "__p_pipe_fp64";
/// ALU pipe rate.
pub(crate) const PIPE_ALU: &str = "__p_pipe_alu";
/// XU pipe rate.
pub(crate) const PIPE_XU: &str = "__p_pipe_xu";
/// LSU pipe rate.
pub(crate) const PIPE_LSU: &str = "__p_pipe_lsu";
/// ADU pipe rate.
pub(crate) const PIPE_ADU: &str = "__p_pipe_adu";
/// CBU pipe rate.
pub(crate) const PIPE_CBU: &str = "__p_pipe_cbu";
/// Uniform pipe rate.
pub(crate) const PIPE_UNIFORM: &str = "__p_pipe_uniform";
/// IPA pipe rate.
pub(crate) const PIPE_IPA: &str = "__p_pipe_ipa";
/// TEX pipe rate.
pub(crate) const PIPE_TEX: &str = "__p_pipe_tex";
/// TMA pipe rate.
pub(crate) const PIPE_TMA: &str = "__p_pipe_tma";
/// HMMA pipe rate.
pub(crate) const PIPE_HMMA: &str = "__p_pipe_hmma";
/// IMMA pipe rate.
pub(crate) const PIPE_IMMA: &str = "__p_pipe_imma";
/// DMMA pipe rate.
pub(crate) const PIPE_DMMA: &str = "__p_pipe_dmma";
/// wgmma per-instruction fallback rate.
pub(crate) const PIPE_GMMA: &str = "__p_pipe_gmma";
/// wgmma FP16 dense FLOP per SM per tensor clock.
pub(crate) const GMMA_FP16_FLOP: &str = "__p_gmma_fp16";
/// wgmma BF16 dense FLOP per SM per tensor clock.
pub(crate) const GMMA_BF16_FLOP: &str = "__p_gmma_bf16";
/// wgmma TF32 dense FLOP per SM per tensor clock.
pub(crate) const GMMA_TF32_FLOP: &str = "__p_gmma_tf32";
/// wgmma FP8 dense FLOP per SM per tensor clock.
pub(crate) const GMMA_FP8_FLOP: &str = "__p_gmma_fp8";
/// wgmma INT8 dense OP per SM per tensor clock.
pub(crate) const GMMA_INT8_OP: &str = "__p_gmma_int8";
/// FP64 tensor FLOP per SM per tensor clock.
pub(crate) const GMMA_FP64_FLOP: &str = "__p_gmma_fp64";
/// mma.sync HMMA FP16 dense FLOP per SM per cycle.
pub(crate) const MMA_FP16_FLOP: &str = "__p_mma_fp16";
/// mma.sync HMMA BF16 dense FLOP per SM per cycle.
pub(crate) const MMA_BF16_FLOP: &str = "__p_mma_bf16";
/// mma.sync HMMA TF32 dense FLOP per SM per cycle.
pub(crate) const MMA_TF32_FLOP: &str = "__p_mma_tf32";
/// mma.sync HMMA FP8 dense FLOP per SM per cycle.
pub(crate) const MMA_FP8_FLOP: &str = "__p_mma_fp8";
/// mma.sync IMMA INT8 dense OP per SM per cycle.
pub(crate) const MMA_INT8_OP: &str = "__p_mma_int8";
/// mma.sync DMMA FP64 FLOP per SM per cycle.
pub(crate) const MMA_FP64_FLOP: &str = "__p_mma_fp64";
/// Fewest SM cycles per HMMA warp instruction.
pub(crate) const MMA_HMMA_MIN_CYCLES: &str = "__p_mma_hmma_min_cycles";
/// Fewest SM cycles per IMMA warp instruction.
pub(crate) const MMA_IMMA_MIN_CYCLES: &str = "__p_mma_imma_min_cycles";
/// Fewest SM cycles per DMMA warp instruction.
pub(crate) const MMA_DMMA_MIN_CYCLES: &str = "__p_mma_dmma_min_cycles";
/// L1TEX wavefronts per SM per cycle.
pub(crate) const L1_WAVEFRONTS_PER_CLK: &str = "__p_l1_wavefronts";
/// FP64 dependent-issue latency, cycles.
pub(crate) const LAT_FP64: &str = "__p_lat_fp64";
/// L1 hit latency, cycles.
pub(crate) const LAT_L1: &str = "__p_lat_l1";
/// L2 hit latency, cycles.
pub(crate) const LAT_L2: &str = "__p_lat_l2";

/// The per-device numbers of the time model, as (column, getter) pairs.
pub(crate) const DEVICE_TIME_FLOATS: &[(&str, DeviceNumber)] = &[
    (DEV_DRAM_FRACTION, |d| d.dram_achievable_fraction),
    (DEV_DRAM_LATENCY, |d| d.dram_latency_cycles),
    (DEV_L2_ACHIEVABLE, |d| d.l2_achievable_bandwidth),
    (DEV_L2_SLICES, |d| {
        if d.l2_slices == 0 {
            f64::NAN
        } else {
            f64::from(d.l2_slices)
        }
    }),
    (DEV_TENSOR_CLOCK, |d| d.tensor_clock_hz),
    (DEV_BASE_CLOCK, |d| d.base_clock_hz),
    (DEV_MEM_CLOCK, |d| d.mem_clock_hz),
];

/// Achievable fraction of the DRAM peak.
pub(crate) const DEV_DRAM_FRACTION: &str = "__d_dram_fraction";
/// DRAM latency of the product, cycles.
pub(crate) const DEV_DRAM_LATENCY: &str = "__d_dram_latency";
/// Achievable L2 bandwidth, bytes/s.
pub(crate) const DEV_L2_ACHIEVABLE: &str = "__d_l2_achievable";
/// L2 slices.
pub(crate) const DEV_L2_SLICES: &str = "__d_l2_slices";
/// Tensor clock, Hz.
pub(crate) const DEV_TENSOR_CLOCK: &str = "__d_tensor_clock";
/// SM base clock, Hz (ABI minor 3; null when unknown).
pub(crate) const DEV_BASE_CLOCK: &str = "__d_base_clock";
/// Memory clock, Hz (null when unknown).
pub(crate) const DEV_MEM_CLOCK: &str = "__d_mem_clock";

/// Marker column: non-null when an architecture was found for the row.
pub(crate) const ARCH_FOUND: &str = "__p_arch_found";

/// Name of the i-th carveout column (null beyond the architecture's list).
pub(crate) fn carveout(i: usize) -> String {
    format!("__p_carveout_{i}")
}

/// Device name the row is modelled with (becomes `model_device`).
pub(crate) const DEV_NAME: &str = "__d_name";
/// Device compute capability major.
pub(crate) const DEV_CC_MAJOR: &str = "__d_cc_major";
/// Device compute capability minor.
pub(crate) const DEV_CC_MINOR: &str = "__d_cc_minor";
/// Device SM count.
pub(crate) const DEV_SM_COUNT: &str = "__d_sm_count";
/// Device SM (boost) clock, Hz.
pub(crate) const DEV_SM_CLOCK: &str = "__d_sm_clock_hz";
/// Device DRAM bandwidth, bytes/s.
pub(crate) const DEV_DRAM_BW: &str = "__d_dram_bw";
/// Device L2 bandwidth, bytes/s.
pub(crate) const DEV_L2_BW: &str = "__d_l2_bw";
/// Peak FP64 FLOP/s.
pub(crate) const DEV_PEAK_FP64: &str = "__d_peak_fp64";
/// Peak FP32 FLOP/s.
pub(crate) const DEV_PEAK_FP32: &str = "__d_peak_fp32";
/// Peak FP16 (non-tensor) FLOP/s.
pub(crate) const DEV_PEAK_FP16: &str = "__d_peak_fp16";
/// Peak FP16/BF16 tensor FLOP/s (dense, FP32 accumulate).
pub(crate) const DEV_PEAK_TENSOR: &str = "__d_peak_tensor";
/// Join key of the device frame: the normalised name or alias.
pub(crate) const DEV_KEY: &str = "__d_key";

/// Converts a plugin number where `NaN` (or a non-finite value) means "unknown" into an option.
fn known(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

/// The per-architecture parameters of one spec, as `(column, value)` pairs of literal expressions.
/// Used for the one-row frames of [`super::occupancy::calculate`] and for device overrides.
pub(crate) fn arch_literals(arch: &ArchSpec) -> Vec<Expr> {
    let int = |name: &str, v: u32| lit(i64::from(v)).alias(name);
    let float = |name: &str, v: f64| match known(v) {
        Some(v) => lit(v).alias(name),
        None => lit(NULL).cast(DataType::Float64).alias(name),
    };
    let mut exprs = vec![
        int(CC_MAJOR, arch.cc.major),
        int(CC_MINOR, arch.cc.minor),
        int(WARP_SIZE, arch.threads_per_warp),
        int(MAX_WARPS, arch.max_warps_per_sm),
        int(MAX_THREADS_PER_BLOCK, arch.max_threads_per_block),
        int(MAX_BLOCKS, arch.max_blocks_per_sm),
        int(REGS_PER_SM, arch.regs_per_sm),
        int(MAX_REGS_PER_BLOCK, arch.max_regs_per_block),
        int(MAX_REGS_PER_THREAD, arch.max_regs_per_thread),
        int(REG_UNIT, arch.reg_alloc_unit),
        int(SUB_PARTITIONS, arch.sub_partitions),
        int(SMEM_PER_SM, arch.smem_per_sm),
        int(SMEM_DEFAULT, arch.smem_per_block_default),
        int(SMEM_OPTIN, arch.smem_per_block_optin),
        int(SMEM_UNIT, arch.smem_alloc_unit),
        int(SMEM_RESERVED, arch.smem_reserved_per_block),
        int(BARRIER_MULTIPLIER, arch.barrier_multiplier),
        int(SCHEDULERS, arch.warp_schedulers_per_sm),
        int(ISSUE_PER_SCHEDULER, arch.issue_per_scheduler_per_clk),
        float(LAT_FP32, arch.latencies.fp32),
        float(LAT_DRAM, arch.latencies.dram),
        float(FLOP_PER_TENSOR_INST, arch.throughput.flop_per_tensor_inst),
        float(L1_BYTES_PER_CLK, arch.throughput.l1_bytes_per_clk),
        lit(true).alias(ARCH_FOUND),
    ];
    for (name, get) in ARCH_TIME_FLOATS {
        exprs.push(float(name, get(arch)));
    }
    for i in 0..MAX_CARVEOUTS {
        let name = carveout(i);
        exprs.push(match arch.carveouts.get(i) {
            Some(bytes) => lit(i64::from(*bytes)).alias(name),
            None => lit(NULL).cast(DataType::Int64).alias(name),
        });
    }
    exprs
}

/// One row per architecture of the registry, keyed by [`CC_MAJOR`] / [`CC_MINOR`].
pub(crate) fn arch_frame(archs: &[&ArchSpec]) -> PolarsResult<DataFrame> {
    let ints = |name: &str, f: &dyn Fn(&ArchSpec) -> u32| -> Column {
        Column::new(
            name.into(),
            archs.iter().map(|a| i64::from(f(a))).collect::<Vec<i64>>(),
        )
    };
    let floats = |name: &str, f: &dyn Fn(&ArchSpec) -> f64| -> Column {
        Column::new(
            name.into(),
            archs
                .iter()
                .map(|a| known(f(a)))
                .collect::<Vec<Option<f64>>>(),
        )
    };
    let mut columns = vec![
        ints(CC_MAJOR, &|a| a.cc.major),
        ints(CC_MINOR, &|a| a.cc.minor),
        ints(WARP_SIZE, &|a| a.threads_per_warp),
        ints(MAX_WARPS, &|a| a.max_warps_per_sm),
        ints(MAX_THREADS_PER_BLOCK, &|a| a.max_threads_per_block),
        ints(MAX_BLOCKS, &|a| a.max_blocks_per_sm),
        ints(REGS_PER_SM, &|a| a.regs_per_sm),
        ints(MAX_REGS_PER_BLOCK, &|a| a.max_regs_per_block),
        ints(MAX_REGS_PER_THREAD, &|a| a.max_regs_per_thread),
        ints(REG_UNIT, &|a| a.reg_alloc_unit),
        ints(SUB_PARTITIONS, &|a| a.sub_partitions),
        ints(SMEM_PER_SM, &|a| a.smem_per_sm),
        ints(SMEM_DEFAULT, &|a| a.smem_per_block_default),
        ints(SMEM_OPTIN, &|a| a.smem_per_block_optin),
        ints(SMEM_UNIT, &|a| a.smem_alloc_unit),
        ints(SMEM_RESERVED, &|a| a.smem_reserved_per_block),
        ints(BARRIER_MULTIPLIER, &|a| a.barrier_multiplier),
        ints(SCHEDULERS, &|a| a.warp_schedulers_per_sm),
        ints(ISSUE_PER_SCHEDULER, &|a| a.issue_per_scheduler_per_clk),
        floats(LAT_FP32, &|a| a.latencies.fp32),
        floats(LAT_DRAM, &|a| a.latencies.dram),
        floats(FLOP_PER_TENSOR_INST, &|a| a.throughput.flop_per_tensor_inst),
        floats(L1_BYTES_PER_CLK, &|a| a.throughput.l1_bytes_per_clk),
        Column::new(ARCH_FOUND.into(), vec![true; archs.len()]),
    ];
    for (name, get) in ARCH_TIME_FLOATS {
        columns.push(floats(name, get));
    }
    for i in 0..MAX_CARVEOUTS {
        let values: Vec<Option<i64>> = archs
            .iter()
            .map(|a| a.carveouts.get(i).map(|b| i64::from(*b)))
            .collect();
        columns.push(Column::new(carveout(i).into(), values));
    }
    DataFrame::new_infer_height(columns)
}

/// The per-device parameters of one spec as literal expressions (for `--device` overrides).
pub(crate) fn device_literals(device: &DeviceSpec) -> Vec<Expr> {
    let float = |name: &str, v: f64| match known(v) {
        Some(v) => lit(v).alias(name),
        None => lit(NULL).cast(DataType::Float64).alias(name),
    };
    vec![
        lit(device.name.clone()).alias(DEV_NAME),
        lit(i64::from(device.cc.major)).alias(DEV_CC_MAJOR),
        lit(i64::from(device.cc.minor)).alias(DEV_CC_MINOR),
        lit(i64::from(device.sm_count)).alias(DEV_SM_COUNT),
        float(DEV_SM_CLOCK, device.sm_clock_hz),
        float(DEV_DRAM_BW, device.dram_bandwidth),
        float(DEV_L2_BW, device.l2_bandwidth),
        float(DEV_PEAK_FP64, device.peak.fp64),
        float(DEV_PEAK_FP32, device.peak.fp32),
        float(DEV_PEAK_FP16, device.peak.fp16),
        float(DEV_PEAK_TENSOR, device.peak.fp16_tensor),
    ]
    .into_iter()
    .chain(
        DEVICE_TIME_FLOATS
            .iter()
            .map(|(name, get)| float(name, get(device))),
    )
    .collect()
}

/// The float-valued device parameter columns.
pub(crate) fn device_float_columns() -> Vec<&'static str> {
    let mut names = vec![
        DEV_SM_CLOCK,
        DEV_DRAM_BW,
        DEV_L2_BW,
        DEV_PEAK_FP64,
        DEV_PEAK_FP32,
        DEV_PEAK_FP16,
        DEV_PEAK_TENSOR,
    ];
    names.extend(DEVICE_TIME_FLOATS.iter().map(|(name, _)| *name));
    names
}

/// Every device parameter column name (without the join key).
pub(crate) fn device_columns() -> Vec<&'static str> {
    let mut names = vec![DEV_NAME, DEV_CC_MAJOR, DEV_CC_MINOR, DEV_SM_COUNT];
    names.extend(device_float_columns());
    names
}

/// One row per (device, name-or-alias) with the normalised name in [`DEV_KEY`]; when two devices
/// share a normalised name the first in registry order wins, so the key is unique.
pub(crate) fn device_frame(registry: &Registry) -> PolarsResult<DataFrame> {
    let mut keys: Vec<String> = Vec::new();
    let mut rows: Vec<&DeviceSpec> = Vec::new();
    for (device, _) in &registry.devices {
        for name in std::iter::once(&device.name).chain(device.aliases.iter()) {
            let key = normalize_device_name(name);
            if !keys.contains(&key) {
                keys.push(key);
                rows.push(device);
            }
        }
    }
    device_rows_frame(keys, &rows)
}

/// One row per device that is the only one of the registry with its (compute capability, SM
/// count): the devices a launch can be identified as when its export names none. Devices sharing
/// both (H100 SXM and H200: CC 9.0, 132 SMs) are left out rather than guessed.
pub(crate) fn unique_config_device_frame(registry: &Registry) -> PolarsResult<DataFrame> {
    let devices: Vec<&DeviceSpec> = registry.devices.iter().map(|(d, _)| d).collect();
    let rows: Vec<&DeviceSpec> = devices
        .iter()
        .copied()
        .filter(|d| {
            devices
                .iter()
                .filter(|o| o.cc == d.cc && o.sm_count == d.sm_count)
                .count()
                == 1
        })
        .collect();
    let keys = rows
        .iter()
        .map(|d| normalize_device_name(&d.name))
        .collect();
    device_rows_frame(keys, &rows)
}

/// Width of the memory-clock buckets a launch's DRAM frequency is matched in, Hz: 200 MHz, wide
/// enough for the few-MHz difference between the measured DRAM frequency and the nominal memory
/// clock (2,614.5 vs 2,619 MHz on H100 80GB HBM3, 3,186 vs 3,201 MHz on H200) and narrow enough to
/// tell HBM generations apart.
pub(crate) const MEMORY_CLOCK_BUCKET_HZ: f64 = 200e6;

/// The memory-clock bucket of a clock in Hz (nearest multiple of [`MEMORY_CLOCK_BUCKET_HZ`]).
pub(crate) fn memory_clock_bucket(clock_hz: Expr) -> Expr {
    (clock_hz / lit(MEMORY_CLOCK_BUCKET_HZ))
        .round(0, RoundMode::HalfToEven)
        .cast(DataType::Int64)
}

/// Name of the memory-clock bucket column of [`unique_memory_clock_device_frame`].
pub(crate) const DEV_MEMORY_BUCKET: &str = "__d_memory_bucket";

/// One row per device that is the only one of the registry with its (compute capability, SM
/// count, memory-clock bucket): how a launch is identified when its export names no device and
/// several devices share its (CC, SM count), e.g. H100 SXM and H200, whose memory clocks differ.
pub(crate) fn unique_memory_clock_device_frame(registry: &Registry) -> PolarsResult<DataFrame> {
    let bucket = |d: &DeviceSpec| (d.mem_clock_hz / MEMORY_CLOCK_BUCKET_HZ).round() as i64;
    let devices: Vec<&DeviceSpec> = registry
        .devices
        .iter()
        .map(|(d, _)| d)
        .filter(|d| d.mem_clock_hz.is_finite() && d.mem_clock_hz > 0.0)
        .collect();
    let rows: Vec<&DeviceSpec> = devices
        .iter()
        .copied()
        .filter(|d| {
            devices
                .iter()
                .filter(|o| o.cc == d.cc && o.sm_count == d.sm_count && bucket(o) == bucket(d))
                .count()
                == 1
        })
        .collect();
    let keys = rows
        .iter()
        .map(|d| normalize_device_name(&d.name))
        .collect();
    let buckets: Vec<i64> = rows.iter().map(|d| bucket(d)).collect();
    let mut frame = device_rows_frame(keys, &rows)?;
    frame.with_column(Column::new(DEV_MEMORY_BUCKET.into(), buckets))?;
    Ok(frame)
}

/// The device frame for the given rows and join keys.
fn device_rows_frame(keys: Vec<String>, rows: &[&DeviceSpec]) -> PolarsResult<DataFrame> {
    let floats = |name: &str, f: &dyn Fn(&DeviceSpec) -> f64| -> Column {
        Column::new(
            name.into(),
            rows.iter()
                .map(|d| known(f(d)))
                .collect::<Vec<Option<f64>>>(),
        )
    };
    let ints = |name: &str, f: &dyn Fn(&DeviceSpec) -> u32| -> Column {
        Column::new(
            name.into(),
            rows.iter().map(|d| i64::from(f(d))).collect::<Vec<i64>>(),
        )
    };
    let columns = vec![
        Column::new(DEV_KEY.into(), keys),
        Column::new(
            DEV_NAME.into(),
            rows.iter().map(|d| d.name.clone()).collect::<Vec<String>>(),
        ),
        ints(DEV_CC_MAJOR, &|d| d.cc.major),
        ints(DEV_CC_MINOR, &|d| d.cc.minor),
        ints(DEV_SM_COUNT, &|d| d.sm_count),
        floats(DEV_SM_CLOCK, &|d| d.sm_clock_hz),
        floats(DEV_DRAM_BW, &|d| d.dram_bandwidth),
        floats(DEV_L2_BW, &|d| d.l2_bandwidth),
        floats(DEV_PEAK_FP64, &|d| d.peak.fp64),
        floats(DEV_PEAK_FP32, &|d| d.peak.fp32),
        floats(DEV_PEAK_FP16, &|d| d.peak.fp16),
        floats(DEV_PEAK_TENSOR, &|d| d.peak.fp16_tensor),
    ];
    let mut columns = columns;
    for (name, get) in DEVICE_TIME_FLOATS {
        columns.push(floats(name, get));
    }
    DataFrame::new_infer_height(columns)
}

/// The expression that normalises a device-name column the same way as
/// [`normalize_device_name`]: trimmed, lower-cased, without a leading `nvidia ` and without any
/// character that is not an ASCII letter or digit.
pub(crate) fn normalized_device_name(name: Expr) -> Expr {
    name.str()
        .strip_chars(lit(NULL))
        .str()
        .to_lowercase()
        .str()
        .replace(lit("^nvidia "), lit(""), false)
        .str()
        .replace_all(lit("[^a-z0-9]"), lit(""), false)
}

/// Compute capability major the row is modelled with (the target), before the architecture join.
pub(crate) const TARGET_CC_MAJOR: &str = "__t_cc_major";
/// Compute capability minor the row is modelled with (the target), before the architecture join.
pub(crate) const TARGET_CC_MINOR: &str = "__t_cc_minor";
