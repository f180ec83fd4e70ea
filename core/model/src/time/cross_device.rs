//! Cross-device prediction for exports without counters (ncu's default set, the most common
//! export): the launch's measured duration split by its Speed-of-Light breakdown, each busy share
//! scaled by the ratio of the source's to the target's capability (docs/model-v2/SPEC.md §5.2).
//!
//! ```text
//! u_dram = min(1, DRAM% / achievable fraction of the source),  u_l2 = L2%,  u_l1 = L1%,  u_sm = SM%
//! capability: DRAM = peak × achievable fraction; L2 = slices (same L2 clock on one family), or the
//!             achievable L2 bandwidth; L1 and SM = SMs × SM clock
//! core = measured − launch overhead
//! target = launch overhead + core × (1 − max u + max(u × capability_source / capability_target))
//! ```
//!
//! The bottleneck's busy share scales by the change of its capability; the rest of the time
//! (latency, idle) is kept. A launch that cannot run on the target (`not_launchable`, occupancy and
//! `crate::target_support`) gets no factor, so no time. Validated on the PyTorch transformer layers of `traces/pytorch-layers`
//! (H100 ↔ H200: median 1.4–1.6 %, p90 4.9–6.1 %, docs/model-v2/RESULTS.md).

use polars::prelude::*;

use super::inputs::Inputs;
use crate::arch::DEFAULT_DRAM_ACHIEVABLE_FRACTION;
use crate::empty_columns::EmptyColumns;
use crate::params as p;
use crate::resolve::SM_COUNT;

/// The Speed-of-Light utilisations by resource: the raw-page metric and the details-page label.
const SOL: &[(&str, &str, &str)] = &[
    (
        "dram",
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
        "GPU Speed Of Light Throughput/DRAM Throughput",
    ),
    (
        "l2",
        "lts__throughput.avg.pct_of_peak_sustained_elapsed",
        "GPU Speed Of Light Throughput/L2 Cache Throughput",
    ),
    (
        "l1",
        "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
        "GPU Speed Of Light Throughput/L1/TEX Cache Throughput",
    ),
    (
        "sm",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "GPU Speed Of Light Throughput/Compute (SM) Throughput",
    ),
];

/// Source-device capability columns carried from the source run.
pub(crate) const SOURCE_CAPABILITIES: &[&str] = &[
    "__s_cap_dram",
    "__s_cap_l2",
    "__s_cap_sm",
    "__s_dram_fraction",
];

/// The capabilities of the device a frame is modelled on, as expressions:
/// (DRAM achievable bandwidth, L2 capability, SMs × clock, DRAM achievable fraction).
pub(crate) fn capabilities() -> [Expr; 4] {
    let fraction = col(p::DEV_DRAM_FRACTION).fill_null(lit(DEFAULT_DRAM_ACHIEVABLE_FRACTION));
    [
        col(p::DEV_DRAM_BW) * fraction.clone(),
        col(p::DEV_L2_SLICES)
            .fill_null(col(p::DEV_L2_ACHIEVABLE))
            .fill_null(col(p::DEV_L2_BW)),
        col(SM_COUNT).cast(DataType::Float64) * col(p::DEV_SM_CLOCK),
        fraction,
    ]
}

/// The source's capability columns ([`SOURCE_CAPABILITIES`]) for the source run's `select`.
pub(crate) fn source_capability_columns() -> Vec<Expr> {
    capabilities()
        .into_iter()
        .zip(SOURCE_CAPABILITIES)
        .map(|(expr, name)| expr.alias(*name))
        .collect()
}

/// The Speed-of-Light factor of a launch on the target: `1 − max u + max(u × capability_source /
/// capability_target)`, the part of the launch's core time (measured − launch overhead) it keeps
/// on the target; null without a SOL breakdown. `frame` is the target run with the source's
/// capability columns. It depends on the launch's counters and devices only, so it is computed
/// once per distinct model input; [`sol_scaled`] applies it to a measured duration. Null where the
/// launch cannot run on the target (`not_launchable`).
/// The `empty` input columns (null on every row) are planned as absent.
pub(crate) fn sol_factor(schema: SchemaRef, empty: &EmptyColumns) -> Expr {
    let inputs = Inputs::planned_without(schema, empty.clone());
    let [dram_cap, l2_cap, sm_cap, _] = capabilities();
    let source = |i: usize| col(SOURCE_CAPABILITIES[i]);
    let utilisation = |name: &str| {
        SOL.iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, raw, label)| inputs.get(raw).fill_null(inputs.get(label)))
            .unwrap_or(lit(NULL).cast(DataType::Float64))
    };
    let clamp = |e: Expr| when(e.clone().gt(lit(1.0))).then(lit(1.0)).otherwise(e);
    let u_dram = clamp(utilisation("dram") / source(3));
    let u_l2 = utilisation("l2");
    let u_l1 = utilisation("l1");
    let u_sm = utilisation("sm");
    let any = u_dram.clone().is_not_null().or(u_sm.clone().is_not_null());
    let parts = [
        (u_dram, source(0) / dram_cap),
        (u_l2, source(1) / l2_cap),
        (u_l1, source(2) / sm_cap.clone()),
        (u_sm, source(2) / sm_cap),
    ];
    let busy = polars::lazy::dsl::max_horizontal(
        parts
            .iter()
            .map(|(u, _)| u.clone().fill_null(lit(0.0)))
            .collect::<Vec<_>>(),
    )
    .unwrap_or(lit(0.0));
    let scaled = polars::lazy::dsl::max_horizontal(
        parts
            .iter()
            .map(|(u, ratio)| (u.clone() * ratio.clone()).fill_null(lit(0.0)))
            .collect::<Vec<_>>(),
    )
    .unwrap_or(lit(0.0));
    when(any.and(crate::predicted_time::cannot_run_on_target().not()))
        .then(lit(1.0) - busy + scaled)
        .otherwise(lit(NULL).cast(DataType::Float64))
}

/// The Speed-of-Light prediction on the target for a launch with a measured duration and a SOL
/// factor ([`sol_factor`]): launch overhead + (measured − launch overhead) × factor; null
/// otherwise.
pub(crate) fn sol_scaled(factor: Expr, measured: Expr, launch_overhead_ns: f64) -> Expr {
    let core = measured.clone() - lit(launch_overhead_ns);
    let core = when(core.clone().gt(lit(0.0)))
        .then(core)
        .otherwise(lit(0.0));
    when(factor.clone().is_not_null().and(measured.gt(lit(0.0))))
        .then(lit(launch_overhead_ns) + core * factor)
        .otherwise(lit(NULL).cast(DataType::Float64))
}
