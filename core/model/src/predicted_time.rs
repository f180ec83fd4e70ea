//! The predicted duration of each launch and its bottleneck, from occupancy, waves, roofline and
//! Little's law.
//!
//! Per launch (all times in seconds, then ns):
//! - compute = Σ FLOP_p / peak_p (the time the mix takes at peak);
//! - memory per level = bytes / bandwidth (DRAM, L2, L1);
//! - latency terms when parallelism is short (Little's law ratio r < 1): compute / r_alu and
//!   DRAM / r_memory (the bandwidth Little's law allows is r × the peak);
//! - body = the largest term, stretched by the tail: × ceil(waves) / waves from one wave on; below
//!   one wave × SMs / min(SMs, grid blocks) (only that many SMs work);
//! - predicted = body + [`LAUNCH_OVERHEAD_NS`].
//!
//! `bound`: `launch-overhead` when the overhead exceeds the body, `tail` when the stretch is above 2
//! (the partial last wave, or a grid too small to fill the GPU, more than doubles the time), else
//! the largest term
//! (`compute`, `memory-dram`, `memory-l2`, `memory-l1`, `latency`); `unknown` without counters
//! (nsys traces): those launches get a null prediction but still have occupancy and waves.

use polars::prelude::*;

use super::SOURCE_PREDICTED;
use super::columns as out;
use super::littles_law::{ALU_RATIO, MEMORY_RATIO};
use super::params as p;
use super::resolve::{IS_OVERRIDE, SM_COUNT};
use super::roofline::{L1_BANDWIDTH, T_COMPUTE_PEAK};
use warpsight_ingest::launch_table::col as lt;

/// Fixed cost added to every predicted launch, ns. The shortest launches in the real corpus are
/// 1.92 µs (a one-block kernel on H200, MOEresearch ncu export, `gpu__time_duration.sum`) and
/// 4.2 µs (V100, XPlacer); 2 µs is the floor a kernel of negligible work shows on the GPU timeline.
pub const LAUNCH_OVERHEAD_NS: f64 = 2000.0;

const T_COMPUTE: &str = "__t_compute";
const T_DRAM: &str = "__t_dram";
const T_L2: &str = "__t_l2";
const T_L1: &str = "__t_l1";
const T_LATENCY: &str = "__t_latency";
const T_BODY: &str = "__t_body";
const STRETCH: &str = "__t_stretch";

fn null_f64() -> Expr {
    lit(NULL).cast(DataType::Float64)
}

fn seconds(bytes: Expr, bandwidth: Expr) -> Expr {
    when(bandwidth.clone().gt(lit(0.0)))
        .then(bytes / bandwidth)
        .otherwise(null_f64())
}

/// Adds [`out::PREDICTED_NS`], [`out::BOUND`], [`out::PREDICTION_ERROR`] and
/// [`out::PREDICTION_METHOD`].
pub fn add_columns(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let short = |ratio: &str| col(ratio).lt(lit(1.0)).and(col(ratio).gt(lit(0.0)));
    let frame = frame.with_columns([
        col(T_COMPUTE_PEAK).alias(T_COMPUTE),
        seconds(col(out::DRAM_BYTES), col(p::DEV_DRAM_BW)).alias(T_DRAM),
        seconds(col(lt::L2_BYTES), col(p::DEV_L2_BW)).alias(T_L2),
        seconds(col(lt::L1_BYTES), col(L1_BANDWIDTH)).alias(T_L1),
    ]);
    let alu_latency = when(short(ALU_RATIO))
        .then(col(T_COMPUTE) / col(ALU_RATIO))
        .otherwise(null_f64());
    let memory_latency = when(short(MEMORY_RATIO))
        .then(col(T_DRAM) / col(MEMORY_RATIO))
        .otherwise(null_f64());
    let frame =
        frame.with_columns([
            polars::lazy::dsl::max_horizontal([alu_latency, memory_latency])?.alias(T_LATENCY),
        ]);
    let terms = [T_COMPUTE, T_DRAM, T_L2, T_L1, T_LATENCY];
    let has_counters = col(out::FLOP_TOTAL)
        .is_not_null()
        .or(col(out::DRAM_BYTES).is_not_null());
    let frame = frame.with_columns([when(has_counters)
        .then(polars::lazy::dsl::max_horizontal(
            terms.iter().map(|t| col(*t)).collect::<Vec<_>>(),
        )?)
        .otherwise(null_f64())
        .alias(T_BODY)]);
    // The tail: whole waves cost a full wave each; a grid smaller than one wave runs on only
    // min(grid, SMs) SMs, so the machine-wide times stretch by SMs / SMs used.
    let sms = col(SM_COUNT).cast(DataType::Float64);
    let grid = col(out::GRID_BLOCKS).cast(DataType::Float64);
    let stretch = when(col(out::WAVES).gt_eq(lit(1.0)))
        .then(lit(1.0) / col(out::TAIL_EFFICIENCY))
        .otherwise(sms.clone() / polars::lazy::dsl::min_horizontal([sms, grid])?);
    let frame = frame.with_columns([stretch.alias(STRETCH)]);
    let body_ns = col(T_BODY) * lit(1e9) * col(STRETCH);
    let frame =
        frame.with_columns([(body_ns.clone() + lit(LAUNCH_OVERHEAD_NS)).alias(out::PREDICTED_NS)]);
    let largest = |t: &str| col(t).eq(col(T_BODY));
    let bound = when(col(out::PREDICTED_NS).is_null())
        .then(lit("unknown"))
        .when(lit(LAUNCH_OVERHEAD_NS).gt(body_ns))
        .then(lit("launch-overhead"))
        .when(col(STRETCH).gt(lit(2.0)))
        .then(lit("tail"))
        .when(largest(T_LATENCY))
        .then(lit("latency"))
        .when(largest(T_DRAM))
        .then(lit("memory-dram"))
        .when(largest(T_L2))
        .then(lit("memory-l2"))
        .when(largest(T_L1))
        .then(lit("memory-l1"))
        .otherwise(lit("compute"));
    let measured = col(lt::DURATION_NS);
    Ok(frame.with_columns([
        bound.alias(out::BOUND),
        when(col(IS_OVERRIDE).not().and(measured.clone().gt(lit(0.0))))
            .then((col(out::PREDICTED_NS) - measured.clone()) / measured)
            .otherwise(null_f64())
            .alias(out::PREDICTION_ERROR),
        when(col(out::PREDICTED_NS).is_not_null())
            .then(lit("model"))
            .otherwise(lit(NULL).cast(DataType::String))
            .alias(out::PREDICTION_METHOD),
    ]))
}

/// Cross-device runs: where the launch has a measured duration and both the source- and the
/// target-device predictions exist, the prediction becomes measured × target / source (the model's
/// error on the source device is assumed to carry over to the target).
pub fn scale_to_measured(frame: LazyFrame) -> LazyFrame {
    let measured = col(lt::DURATION_NS);
    let scalable = measured
        .clone()
        .gt(lit(0.0))
        .and(col(SOURCE_PREDICTED).gt(lit(0.0)))
        .and(col(out::PREDICTED_NS).is_not_null());
    frame.with_columns([
        when(scalable.clone())
            .then(measured * col(out::PREDICTED_NS) / col(SOURCE_PREDICTED))
            .otherwise(col(out::PREDICTED_NS))
            .alias(out::PREDICTED_NS),
        when(scalable)
            .then(lit("measured-scaled"))
            .otherwise(col(out::PREDICTION_METHOD))
            .alias(out::PREDICTION_METHOD),
    ])
}
