//! The stable columns of `warpsight analyze` (per launch and per kernel), as polars selections
//! over the analysed launch frame. `docs/report-columns.md` documents each name; keep the two in
//! step. Machine formats (csv, json, parquet) carry these raw, in base units.

use polars::prelude::*;

use super::findings::{FINDING_MESSAGES, FINDINGS};
use super::frame_access::has_column;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as mc;

/// Source export path.
pub const FILE: &str = "file";
/// Kernel display name: the short name, else the full name.
pub const KERNEL: &str = "kernel";
/// Full (demangled) kernel name.
pub const KERNEL_NAME: &str = "kernel_name";
/// Device the model used.
pub(crate) const DEVICE: &str = "device";
/// Theoretical minus achieved occupancy, 0–1.
pub(crate) const OCCUPANCY_GAP: &str = "occupancy_gap";
/// Warps per SM needed to hide latency (with ILP when estimated).
pub(crate) const WARPS_NEEDED: &str = "warps_needed";
/// Per kernel: number of launches.
pub const LAUNCHES: &str = "launches";
/// Per kernel: number of distinct launch configurations.
pub(crate) const CONFIGS: &str = "configs";
/// Per kernel: total measured time, ns.
pub const TOTAL_NS: &str = "total_ns";
/// Per kernel: mean measured time per launch, ns.
pub(crate) const MEAN_NS: &str = "mean_ns";
/// Per kernel: share of the GPU time of all kernels, 0–1.
pub const TIME_SHARE: &str = "time_share";
/// Per kernel: total predicted time, ns.
pub(crate) const PREDICTED_TOTAL_NS: &str = "predicted_total_ns";

/// The per-launch columns, in output order: (output name, source column).
pub(crate) const PER_LAUNCH: &[(&str, &str)] = &[
    (FILE, lt::SOURCE_FILE),
    (lt::LAUNCH_ID, lt::LAUNCH_ID),
    (KERNEL, KERNEL),
    (KERNEL_NAME, lt::KERNEL_NAME),
    (DEVICE, mc::MODEL_DEVICE),
    (lt::GRID_X, lt::GRID_X),
    (lt::GRID_Y, lt::GRID_Y),
    (lt::GRID_Z, lt::GRID_Z),
    (lt::BLOCK_X, lt::BLOCK_X),
    (lt::BLOCK_Y, lt::BLOCK_Y),
    (lt::BLOCK_Z, lt::BLOCK_Z),
    (lt::REGISTERS_PER_THREAD, lt::REGISTERS_PER_THREAD),
    (mc::SMEM_PER_BLOCK, mc::SMEM_PER_BLOCK),
    (mc::THEORETICAL_OCCUPANCY, mc::THEORETICAL_OCCUPANCY),
    (lt::NCU_THEORETICAL_OCCUPANCY, lt::NCU_THEORETICAL_OCCUPANCY),
    (mc::LIMITER, mc::LIMITER),
    (lt::ACHIEVED_OCCUPANCY, lt::ACHIEVED_OCCUPANCY),
    (OCCUPANCY_GAP, OCCUPANCY_GAP),
    (mc::ACTIVE_WARPS, mc::ACTIVE_WARPS),
    (WARPS_NEEDED, WARPS_NEEDED),
    (mc::LATENCY_HIDING, mc::LATENCY_HIDING),
    (mc::AI_DRAM, mc::AI_DRAM),
    (mc::AI_L2, mc::AI_L2),
    (mc::AI_L1, mc::AI_L1),
    (mc::BOUND, mc::BOUND),
    (mc::BOTTLENECK, mc::BOTTLENECK),
    (mc::BOTTLENECK_DETAIL, mc::BOTTLENECK_DETAIL),
    (mc::BINDING_CEILING, mc::BINDING_CEILING),
    (mc::PCT_OF_ROOF, mc::PCT_OF_ROOF),
    (mc::ACHIEVED_FLOPS, mc::ACHIEVED_FLOPS),
    (mc::WAVES, mc::WAVES),
    (mc::TAIL_EFFICIENCY, mc::TAIL_EFFICIENCY),
    (lt::DURATION_NS, lt::DURATION_NS),
    (mc::PREDICTED_NS, mc::PREDICTED_NS),
    (mc::PREDICTION_ERROR, mc::PREDICTION_ERROR),
    (mc::MODEL_SM_CLOCK_HZ, mc::MODEL_SM_CLOCK_HZ),
    (mc::MODEL_SM_CLOCK_SOURCE, mc::MODEL_SM_CLOCK_SOURCE),
    (mc::NOT_LAUNCHABLE, mc::NOT_LAUNCHABLE),
    (FINDINGS, FINDINGS),
    (FINDING_MESSAGES, FINDING_MESSAGES),
];

/// The per-kernel columns in output order; the per-launch figures come from the kernel's dominant
/// configuration (the one with the most total time).
pub(crate) const PER_KERNEL: &[&str] = &[
    KERNEL,
    LAUNCHES,
    TOTAL_NS,
    MEAN_NS,
    TIME_SHARE,
    PREDICTED_TOTAL_NS,
    CONFIGS,
    FILE,
    lt::LAUNCH_ID,
    KERNEL_NAME,
    DEVICE,
    lt::GRID_X,
    lt::GRID_Y,
    lt::GRID_Z,
    lt::BLOCK_X,
    lt::BLOCK_Y,
    lt::BLOCK_Z,
    lt::REGISTERS_PER_THREAD,
    mc::SMEM_PER_BLOCK,
    mc::THEORETICAL_OCCUPANCY,
    lt::NCU_THEORETICAL_OCCUPANCY,
    mc::LIMITER,
    lt::ACHIEVED_OCCUPANCY,
    OCCUPANCY_GAP,
    mc::ACTIVE_WARPS,
    WARPS_NEEDED,
    mc::LATENCY_HIDING,
    mc::AI_DRAM,
    mc::AI_L2,
    mc::AI_L1,
    mc::BOUND,
    mc::BOTTLENECK,
    mc::BOTTLENECK_DETAIL,
    mc::BINDING_CEILING,
    mc::PCT_OF_ROOF,
    mc::ACHIEVED_FLOPS,
    mc::WAVES,
    mc::TAIL_EFFICIENCY,
    lt::DURATION_NS,
    mc::PREDICTED_NS,
    mc::PREDICTION_ERROR,
    mc::MODEL_SM_CLOCK_HZ,
    mc::MODEL_SM_CLOCK_SOURCE,
    mc::NOT_LAUNCHABLE,
    FINDINGS,
    FINDING_MESSAGES,
];

/// Adds the derived per-launch columns (`kernel`, `occupancy_gap`, `warps_needed`) and any
/// missing model column as null, so that the selections never fail.
pub(crate) fn with_derived(frame: DataFrame) -> PolarsResult<DataFrame> {
    let mut lazy = frame.clone().lazy();
    let mut missing: Vec<Expr> = Vec::new();
    for (_, source) in PER_LAUNCH {
        let derived = matches!(*source, KERNEL | OCCUPANCY_GAP | WARPS_NEEDED);
        if !derived && !has_column(&frame, source) {
            missing.push(lit(NULL).cast(null_dtype(source)).alias(*source));
        }
    }
    for source in [
        lt::KERNEL_SHORT_NAME,
        mc::WARPS_NEEDED_ALU_ILP,
        mc::WARPS_NEEDED_ALU,
    ] {
        if !has_column(&frame, source) {
            missing.push(lit(NULL).cast(null_dtype(source)).alias(source));
        }
    }
    if !missing.is_empty() {
        lazy = lazy.with_columns(missing);
    }
    lazy.with_columns([
        coalesce(&[col(lt::KERNEL_SHORT_NAME), col(lt::KERNEL_NAME)]).alias(KERNEL),
        (col(mc::THEORETICAL_OCCUPANCY) - col(lt::ACHIEVED_OCCUPANCY)).alias(OCCUPANCY_GAP),
        coalesce(&[col(mc::WARPS_NEEDED_ALU_ILP), col(mc::WARPS_NEEDED_ALU)]).alias(WARPS_NEEDED),
    ])
    .collect()
}

/// The dtype a column gets when it is missing and added as nulls.
fn null_dtype(name: &str) -> DataType {
    match name {
        lt::SOURCE_FILE
        | lt::KERNEL_NAME
        | lt::KERNEL_SHORT_NAME
        | mc::MODEL_DEVICE
        | mc::LIMITER
        | mc::BOUND
        | mc::BOTTLENECK
        | mc::BOTTLENECK_DETAIL
        | mc::BINDING_CEILING
        | mc::NOT_LAUNCHABLE
        | FINDINGS
        | FINDING_MESSAGES => DataType::String,
        _ => DataType::Float64,
    }
}

/// The per-launch output frame (columns of `PER_LAUNCH`) from an analysed frame.
pub fn per_launch(frame: DataFrame) -> PolarsResult<DataFrame> {
    with_derived(frame)?
        .lazy()
        .select(
            PER_LAUNCH
                .iter()
                .map(|(name, source)| col(*source).alias(*name))
                .collect::<Vec<_>>(),
        )
        .collect()
}
