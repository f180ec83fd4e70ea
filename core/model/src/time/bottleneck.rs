//! Which resource sets the predicted time, named as a performance engineer would name it
//! (docs/model-v2/SPEC.md §3.5), with a one-line detail carrying the number behind the name.
//!
//! In this order: `launch_overhead` when the fixed cost exceeds the kernel's own time; `occupancy`
//! or `latency` when latency, not throughput, dominates (occupancy when fewer warps are resident
//! than the SM holds); otherwise the largest throughput term. An `issue`-bound launch is named after
//! the pipe whose instructions fill the issue slots (≥ 85 % of them); the FMA pipe is `fp16` when
//! half or more of its instructions are FP16x2; L1/LSU-bound launches are `shared` (more shared than
//! global wavefronts; bank conflicts when ≥ 2 wavefronts per shared instruction),
//! `uncoalesced_global` (more than 8 sectors per global request) or `l1`.

use polars::prelude::*;

use super::inputs::{self as i, Inputs};
use super::latency::T_LATENCY;
use super::throughput::{BLOCKS_PER_SM, T_THROUGHPUT, TOP, WARPS_PER_BLOCK, term};
use crate::columns as out;
use crate::params as p;
use warpsight_ingest::launch_table::col as lt;

/// The smooth maximum of the throughput and latency times, seconds.
pub const T_CORE: &str = "__tm_t_core";
const SECTORS_PER_REQUEST: &str = "__tm_sectors_per_request";
const TOP_RESOLVED: &str = "__tm_top_resolved";

/// The pipes an issue-bound launch may be named after.
const ISSUE_PIPES: &[&str] = &[
    "fma",
    "fp64",
    "alu",
    "xu",
    "tensor_hmma",
    "tensor_gmma",
    "tensor_imma",
    "tensor_dmma",
];

/// A number as text with `decimals` decimals (whole numbers without a decimal point).
fn text(value: Expr, decimals: u32) -> Expr {
    let rounded = value.round(decimals, RoundMode::HalfToEven);
    if decimals == 0 {
        rounded.cast(DataType::Int64).cast(DataType::String)
    } else {
        rounded.cast(DataType::String)
    }
}

/// Adds [`out::BOTTLENECK`] and [`out::BOTTLENECK_DETAIL`]; needs [`T_CORE`] and the terms.
pub fn add_columns(
    frame: LazyFrame,
    inputs: &Inputs,
    launch_overhead_s: f64,
) -> PolarsResult<LazyFrame> {
    let sectors = inputs.sum(i::GLOBAL_SECTORS);
    let requests = inputs.sum(i::GLOBAL_REQUESTS);
    let l1_bytes = inputs.or_zero(lt::L1_BYTES);
    let lsu = inputs.pipe("lsu");
    let spr = when(
        sectors
            .clone()
            .gt(lit(0.0))
            .and(requests.clone().gt(lit(0.0))),
    )
    .then(sectors / requests)
    .when(l1_bytes.clone().gt(lit(0.0)).and(lsu.clone().gt(lit(0.0))))
    .then(l1_bytes / lit(32.0) / lsu)
    .otherwise(lit(NULL).cast(DataType::Float64));
    let largest_pipe = polars::lazy::dsl::max_horizontal(
        ISSUE_PIPES.iter().map(|r| col(term(r))).collect::<Vec<_>>(),
    )?;
    let mut busiest = lit(NULL).cast(DataType::String);
    for resource in ISSUE_PIPES.iter().rev() {
        busiest = when(col(term(resource)).eq(largest_pipe.clone()))
            .then(lit(*resource))
            .otherwise(busiest);
    }
    let resolved = when(col(TOP).eq(lit("issue")))
        .then(
            when(largest_pipe.gt_eq(lit(0.85) * col(term("issue"))))
                .then(busiest)
                .otherwise(lit("issue")),
        )
        .otherwise(col(TOP));
    let frame = frame.with_columns([spr.alias(SECTORS_PER_REQUEST), resolved.alias(TOP_RESOLVED)]);
    let shared = inputs.or_zero(i::SHARED_WAVEFRONTS);
    let global = inputs.sum(i::GLOBAL_WAVEFRONTS).fill_null(lit(0.0));
    let shared_inst = inputs.sum(i::SHARED_INST).fill_null(lit(0.0));
    let per_shared = when(shared_inst.clone().gt(lit(0.0)))
        .then(shared.clone() / shared_inst)
        .otherwise(lit(NULL).cast(DataType::Float64));
    let resident_warps = col(BLOCKS_PER_SM) * col(WARPS_PER_BLOCK);
    let t_lat = || col(T_LATENCY).fill_null(lit(0.0));
    let top = || col(TOP_RESOLVED);
    let uncoalesced = || col(SECTORS_PER_REQUEST).gt(lit(8.0));
    let name = when(lit(launch_overhead_s).gt_eq(col(T_CORE)))
        .then(lit("launch_overhead"))
        .when(col(T_THROUGHPUT).lt(lit(0.75) * t_lat()))
        .then(
            when(
                resident_warps
                    .clone()
                    .lt(col(p::MAX_WARPS).cast(DataType::Float64)),
            )
            .then(lit("occupancy"))
            .otherwise(lit("latency")),
        )
        .when(top().eq(lit("fma")))
        .then(
            when(
                inputs
                    .pipe("fma_type_fp16")
                    .gt_eq(lit(0.5) * inputs.pipe("fma")),
            )
            .then(lit("fp16"))
            .otherwise(lit("fma")),
        )
        .when(top().eq(lit("l1")).or(top().eq(lit("lsu"))))
        .then(
            when(shared.clone().gt(global))
                .then(lit("shared"))
                .when(uncoalesced())
                .then(lit("uncoalesced_global"))
                .otherwise(lit("l1")),
        )
        .when(top().eq(lit("l2_requests")))
        .then(
            when(uncoalesced())
                .then(lit("uncoalesced_global"))
                .otherwise(lit("l2_requests")),
        )
        .otherwise(top());
    let frame = frame.with_columns([name.alias(out::BOTTLENECK)]);
    let b = || col(out::BOTTLENECK);
    let limiter = col(out::LIMITER).fill_null(lit("unknown"));
    let detail = when(b().eq(lit("launch_overhead")))
        .then(crate::text::concat([
            lit("launch overhead exceeds the kernel's own time of "),
            text(col(T_CORE) * lit(1e6), 2),
            lit(" µs"),
        ]))
        .when(b().eq(lit("occupancy")))
        .then(crate::text::concat([
            lit("latency not hidden: "),
            text(resident_warps, 0),
            lit(" warps per SM (limited by "),
            limiter.clone(),
            lit(")"),
        ]))
        .when(b().eq(lit("latency")))
        .then(lit(
            "latency not hidden at full occupancy (few waves or a long dependent chain)",
        ))
        .when(
            b().eq(lit("shared"))
                .and(per_shared.clone().gt_eq(lit(2.0))),
        )
        .then(crate::text::concat([
            lit("shared-memory bank conflicts: "),
            text(per_shared, 1),
            lit(" wavefronts per shared instruction"),
        ]))
        .when(b().eq(lit("shared")))
        .then(lit("shared-memory wavefronts"))
        .when(b().eq(lit("uncoalesced_global")))
        .then(crate::text::concat([
            lit("uncoalesced global access: "),
            text(col(SECTORS_PER_REQUEST), 1),
            lit(" sectors per request"),
        ]))
        .when(b().eq(lit("blocks")))
        .then(crate::text::concat([
            lit("block launch rate: "),
            text(col(BLOCKS_PER_SM), 0),
            lit(" resident blocks per SM (limited by "),
            limiter,
            lit(")"),
        ]))
        .when(b().eq(lit("l1")))
        .then(lit("L1/LSU: load/store instructions and wavefronts"))
        .when(b().eq(lit("dram")))
        .then(lit("DRAM bandwidth"))
        .when(b().eq(lit("l2")))
        .then(lit("L2 bandwidth (L1 to L2 bytes)"))
        .when(b().eq(lit("l2_requests")))
        .then(lit("L2 tag lookups"))
        .when(b().eq(lit("issue")))
        .then(lit("instruction issue"))
        .when(b().eq(lit("fp16")))
        .then(lit("FP16x2 instructions on the FMA pipe"))
        .when(b().eq(lit("fma")))
        .then(lit("FP32 FMA pipe"))
        .otherwise(crate::text::concat([b(), lit(" pipe")]));
    Ok(frame.with_columns([detail.alias(out::BOTTLENECK_DETAIL)]))
}

/// The coarse class of a bottleneck, as the rules and charts group them: `compute`,
/// `memory-dram`, `memory-l2`, `memory-l1`, `latency` or `launch-overhead`.
pub fn class(bottleneck: Expr) -> Expr {
    let is = |names: &[&str]| {
        names
            .iter()
            .map(|n| bottleneck.clone().eq(lit(*n)))
            .reduce(|a, b| a.or(b))
            .unwrap_or(lit(false))
    };
    when(bottleneck.clone().is_null())
        .then(lit("unknown"))
        .when(is(&["launch_overhead"]))
        .then(lit("launch-overhead"))
        .when(is(&["occupancy", "latency", "blocks"]))
        .then(lit("latency"))
        .when(is(&["dram"]))
        .then(lit("memory-dram"))
        .when(is(&["l2", "l2_requests"]))
        .then(lit("memory-l2"))
        .when(is(&["l1", "lsu", "shared", "uncoalesced_global"]))
        .then(lit("memory-l1"))
        .otherwise(lit("compute"))
}
