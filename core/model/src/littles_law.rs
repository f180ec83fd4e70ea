//! Latency hiding by Little's law (parallelism needed = latency × throughput).
//!
//! ALU: warps needed per SM = FP32 latency (cycles) × issue rate per SM (schedulers × instructions
//! per scheduler per clock): 4L on most CCs, 2L on 6.0, 8L on 3.x. With instruction-level
//! parallelism ILP the need divides by ILP. ILP is estimated from the counters by Little's law per
//! warp: a warp that issues r instructions per cycle with latency L keeps r·L instructions in
//! flight, so ILP ≈ (IPC per SM / achieved active warps) × L, clamped to [1, 4]; without the
//! counters (`warp_inst_executed`, `sm_cycles_elapsed`, `achieved_occupancy`) ILP = 1.
//!
//! Memory: bytes in flight needed per SM = DRAM latency (cycles / SM clock) × DRAM bandwidth / SMs;
//! provided = resident warps × bytes per warp request × ILP (resident warps = the active warps,
//! or ceil(grid blocks / SMs) × warps per block when the grid is smaller than one wave). Bytes per
//! warp request = global-load sectors × 32 / global-load requests when the export has those raw
//! counters, else 128 (one coalesced 4-byte-per-thread request).
//!
//! The latency-hiding ratio is taken on the side the roofline says binds (memory levels → memory
//! ratio, compute → ALU ratio; the smaller of the two when unknown), capped at 1; the launch is
//! latency-bound when it is below 1.

use polars::prelude::*;

use super::columns as out;
use super::params as p;
use super::resolve::{CLOCK_SCALE, SM_CLOCK, SM_COUNT};
use warpsight_ingest::launch_table::column_names as lt;

/// Bytes one warp has in flight per outstanding load: 32 threads × 4 bytes, fully coalesced.
pub(crate) const BYTES_PER_WARP_REQUEST: f64 = 128.0;
/// Raw ncu metric: global-load requests (one per warp-level load instruction).
pub(crate) const LOAD_REQUESTS_METRIC: &str = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
/// Raw ncu metric: 32-byte sectors those requests touched.
pub(crate) const LOAD_SECTORS_METRIC: &str = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
/// Internal column: bytes one warp-level global load brings in.
pub(crate) const BYTES_PER_REQUEST: &str = "__l_bytes_per_request";

/// Bytes per warp-level global load: `sectors × 32 / requests` when the export kept both raw
/// counters (ncu raw page, `--set full`), else [`BYTES_PER_WARP_REQUEST`].
pub(crate) fn bytes_per_request_expr(frame: &mut LazyFrame) -> PolarsResult<Expr> {
    let schema = crate::plan_schema::schema_of(frame)?;
    if schema.contains(LOAD_REQUESTS_METRIC) && schema.contains(LOAD_SECTORS_METRIC) {
        let requests = col(LOAD_REQUESTS_METRIC).cast(DataType::Float64);
        let sectors = col(LOAD_SECTORS_METRIC).cast(DataType::Float64);
        return Ok(when(requests.clone().gt(lit(0.0)))
            .then(sectors * lit(32.0) / requests)
            .otherwise(lit(BYTES_PER_WARP_REQUEST)));
    }
    Ok(lit(BYTES_PER_WARP_REQUEST))
}

/// Upper clamp of the ILP estimate.
pub(crate) const MAX_ILP: f64 = 4.0;

/// ALU parallelism provided / needed (internal; uncapped).
pub(crate) const ALU_RATIO: &str = "__l_alu_ratio";
/// Warps resident per SM: the active warps, or fewer when the grid is smaller than one wave
/// (internal).
pub(crate) const RESIDENT_WARPS: &str = "__l_resident_warps";
/// Memory parallelism provided / needed (internal; uncapped).
pub(crate) const MEMORY_RATIO: &str = "__l_memory_ratio";

fn null_f64() -> Expr {
    lit(NULL).cast(DataType::Float64)
}

/// Adds the Little's-law columns of [`super::columns`].
pub(crate) fn add_columns(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let f = |name: &str| col(name).cast(DataType::Float64);
    let ipc_per_sm = f(lt::INST_EXECUTED) / (f(SM_COUNT) * f(lt::SM_CYCLES_ELAPSED));
    let achieved_warps = f(lt::ACHIEVED_OCCUPANCY) * f(p::MAX_WARPS);
    let ilp_raw = ipc_per_sm / achieved_warps * f(p::LAT_FP32);
    let ilp = when(ilp_raw.clone().is_finite().fill_null(lit(false)))
        .then(ilp_raw.clip(lit(1.0), lit(MAX_ILP)))
        .when(col(p::ARCH_FOUND).is_null())
        .then(null_f64())
        .otherwise(lit(1.0));
    // A grid smaller than one wave leaves fewer warps per SM than the occupancy allows.
    let blocks_per_sm = (f(out::GRID_BLOCKS) / f(SM_COUNT)).ceil();
    let resident = when(col(out::WAVES).lt(lit(1.0)))
        .then(polars::lazy::dsl::min_horizontal([
            f(out::ACTIVE_WARPS),
            blocks_per_sm * f(out::WARPS_PER_BLOCK),
        ])?)
        .otherwise(f(out::ACTIVE_WARPS));
    let frame = frame.with_columns([
        resident.alias(RESIDENT_WARPS),
        (f(p::LAT_FP32) * f(p::SCHEDULERS) * f(p::ISSUE_PER_SCHEDULER))
            .alias(out::WARPS_NEEDED_ALU),
        ilp.alias(out::ILP_ESTIMATE),
        (f(p::LAT_DRAM) * f(CLOCK_SCALE) / f(SM_CLOCK) * f(p::DEV_DRAM_BW) / f(SM_COUNT))
            .alias(out::BYTES_IN_FLIGHT_NEEDED),
    ]);
    let frame = frame.with_columns([
        (col(out::WARPS_NEEDED_ALU) / col(out::ILP_ESTIMATE)).alias(out::WARPS_NEEDED_ALU_ILP),
        (col(RESIDENT_WARPS) * col(BYTES_PER_REQUEST) * col(out::ILP_ESTIMATE))
            .alias(out::BYTES_IN_FLIGHT_PROVIDED),
    ]);
    let frame = frame.with_columns([
        when(col(out::WARPS_NEEDED_ALU_ILP).gt(lit(0.0)))
            .then(col(RESIDENT_WARPS) / col(out::WARPS_NEEDED_ALU_ILP))
            .otherwise(null_f64())
            .alias(ALU_RATIO),
        when(col(out::BYTES_IN_FLIGHT_NEEDED).gt(lit(0.0)))
            .then(col(out::BYTES_IN_FLIGHT_PROVIDED) / col(out::BYTES_IN_FLIGHT_NEEDED))
            .otherwise(null_f64())
            .alias(MEMORY_RATIO),
    ]);
    let memory_side = col(out::BINDING_CEILING)
        .eq(lit("dram"))
        .or(col(out::BINDING_CEILING).eq(lit("l2")))
        .or(col(out::BINDING_CEILING).eq(lit("l1")));
    let compute_side = col(out::BINDING_CEILING).is_not_null();
    let ratio = when(memory_side.fill_null(lit(false)))
        .then(col(MEMORY_RATIO))
        .when(compute_side)
        .then(col(ALU_RATIO))
        .otherwise(polars::lazy::dsl::min_horizontal([
            col(ALU_RATIO),
            col(MEMORY_RATIO),
        ])?);
    let frame = frame.with_columns([ratio.clip_max(lit(1.0)).alias(out::LATENCY_HIDING)]);
    Ok(frame.with_columns([col(out::LATENCY_HIDING)
        .lt(lit(1.0))
        .alias(out::LATENCY_BOUND)]))
}
