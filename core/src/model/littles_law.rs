//! Latency hiding by Little's law (parallelism needed = latency × throughput).
//!
//! ALU: warps needed per SM = FP32 latency (cycles) × issue rate per SM (schedulers × instructions
//! per scheduler per clock): 4L on most CCs, 2L on 6.0, 8L on 3.x. With instruction-level
//! parallelism ILP the need divides by ILP. ILP is estimated from the counters by Little's law per
//! warp: a warp that issues r instructions per cycle with latency L keeps r·L instructions in
//! flight, so ILP ≈ (IPC per SM / achieved active warps) × L, clamped to [1, 4]; without the
//! counters (`inst_executed`, `sm_cycles_elapsed`, `achieved_occupancy`) ILP = 1.
//!
//! Memory: bytes in flight needed per SM = DRAM latency (cycles / SM clock) × DRAM bandwidth / SMs;
//! provided = active warps × [`BYTES_PER_WARP_REQUEST`] × ILP (one coalesced 4-byte-per-thread
//! request per warp and independent instruction in flight; the launch table has no load-instruction
//! count to refine it).
//!
//! The latency-hiding ratio is taken on the side the roofline says binds (memory levels → memory
//! ratio, compute → ALU ratio; the smaller of the two when unknown), capped at 1; the launch is
//! latency-bound when it is below 1.

use polars::prelude::*;

use super::columns as out;
use super::params as p;
use super::resolve::{SM_CLOCK, SM_COUNT};
use crate::launch_table::col as lt;

/// Bytes one warp has in flight per outstanding load: 32 threads × 4 bytes, fully coalesced.
pub const BYTES_PER_WARP_REQUEST: f64 = 128.0;
/// Upper clamp of the ILP estimate.
pub const MAX_ILP: f64 = 4.0;

/// ALU parallelism provided / needed (internal; uncapped).
pub const ALU_RATIO: &str = "__l_alu_ratio";
/// Memory parallelism provided / needed (internal; uncapped).
pub const MEMORY_RATIO: &str = "__l_memory_ratio";

fn null_f64() -> Expr {
    lit(NULL).cast(DataType::Float64)
}

/// Adds the Little's-law columns of [`super::columns`].
pub fn add_columns(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let f = |name: &str| col(name).cast(DataType::Float64);
    let ipc_per_sm = f(lt::INST_EXECUTED) / (f(SM_COUNT) * f(lt::SM_CYCLES_ELAPSED));
    let achieved_warps = f(lt::ACHIEVED_OCCUPANCY) * f(p::MAX_WARPS);
    let ilp_raw = ipc_per_sm / achieved_warps * f(p::LAT_FP32);
    let ilp = when(ilp_raw.clone().is_finite().fill_null(lit(false)))
        .then(ilp_raw.clip(lit(1.0), lit(MAX_ILP)))
        .when(col(p::ARCH_FOUND).is_null())
        .then(null_f64())
        .otherwise(lit(1.0));
    let frame = frame.with_columns([
        (f(p::LAT_FP32) * f(p::SCHEDULERS) * f(p::ISSUE_PER_SCHEDULER)).alias(out::WARPS_NEEDED_ALU),
        ilp.alias(out::ILP_ESTIMATE),
        (f(p::LAT_DRAM) / f(SM_CLOCK) * f(p::DEV_DRAM_BW) / f(SM_COUNT))
            .alias(out::BYTES_IN_FLIGHT_NEEDED),
    ]);
    let frame = frame.with_columns([
        (col(out::WARPS_NEEDED_ALU) / col(out::ILP_ESTIMATE)).alias(out::WARPS_NEEDED_ALU_ILP),
        (f(out::ACTIVE_WARPS) * lit(BYTES_PER_WARP_REQUEST) * col(out::ILP_ESTIMATE))
            .alias(out::BYTES_IN_FLIGHT_PROVIDED),
    ]);
    let frame = frame.with_columns([
        when(col(out::WARPS_NEEDED_ALU_ILP).gt(lit(0.0)))
            .then(f(out::ACTIVE_WARPS) / col(out::WARPS_NEEDED_ALU_ILP))
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
        .otherwise(polars::lazy::dsl::min_horizontal([col(ALU_RATIO), col(MEMORY_RATIO)])?);
    let frame = frame.with_columns([ratio.clip_max(lit(1.0)).alias(out::LATENCY_HIDING)]);
    Ok(frame.with_columns([col(out::LATENCY_HIDING).lt(lit(1.0)).alias(out::LATENCY_BOUND)]))
}
