//! The predicted duration of each launch, its bottleneck and their coarse class, from the time
//! model ([`super::time`]).
//!
//! - [`out::PREDICTED_NS`]: launch overhead + the smooth maximum of the throughput and latency
//!   times (docs/model.md, "Time model"); null for launches without instruction counters (ncu's
//!   default set, nsys traces), whose reason is given in [`out::MODEL_REASON`];
//! - [`out::BOTTLENECK`] / [`out::BOTTLENECK_DETAIL`]: the resource that sets the time;
//! - [`out::BOUND`]: its class for rules and charts (`compute`, `memory-dram`, `memory-l2`,
//!   `memory-l1`, `latency`, `launch-overhead`, or `unknown` without counters);
//! - [`out::PREDICTION_ERROR`]: (predicted − measured) / measured on the device the launch ran on.
//!   The measured duration is read only here, after the prediction, never as an input to it.
//!
//! On another device (`--on`, `--device`) a launch that cannot run there ([`out::NOT_LAUNCHABLE`]:
//! the occupancy stage's reasons, then the instruction families and launch features the target
//! lacks, [`super::target_support`]) gets no time, no bottleneck and no scaling of its measured
//! time: a speedup of a launch that cannot run would be an invention.

use polars::prelude::*;

use super::SOURCE_PREDICTED;
use super::columns as out;
use super::empty_columns::EmptyColumns;
use super::resolve::IS_OVERRIDE;
use super::time::{self, FittedConstants, bottleneck};
use warpsight_ingest::launch_table::column_names as lt;

fn null_f64() -> Expr {
    lit(NULL).cast(DataType::Float64)
}

/// Adds [`out::PREDICTED_NS`], [`out::BOTTLENECK`], [`out::BOTTLENECK_DETAIL`],
/// [`out::THROUGHPUT_TIME_NS`], [`out::LATENCY_TIME_NS`], [`out::BOUND`],
/// [`out::PREDICTION_ERROR`] and [`out::PREDICTION_METHOD`].
/// The `empty` input columns (null on every row) are planned as absent.
pub(crate) fn add_columns(frame: LazyFrame, empty: &EmptyColumns) -> PolarsResult<LazyFrame> {
    let frame = super::target_support::add_columns(frame)?;
    let frame = time::add_columns(frame, &FittedConstants::default(), empty)?;
    let cannot_run = cannot_run_on_target();
    let null_unless_runs = |name: &str, dtype: DataType| {
        when(cannot_run.clone())
            .then(lit(NULL).cast(dtype))
            .otherwise(col(name))
            .alias(name)
    };
    let frame = frame.with_columns([
        null_unless_runs(out::PREDICTED_NS, DataType::Float64),
        null_unless_runs(out::THROUGHPUT_TIME_NS, DataType::Float64),
        null_unless_runs(out::LATENCY_TIME_NS, DataType::Float64),
        null_unless_runs(out::BOTTLENECK, DataType::String),
        null_unless_runs(out::BOTTLENECK_DETAIL, DataType::String),
    ]);
    Ok(frame.with_columns([
        bottleneck::class(col(out::BOTTLENECK)).alias(out::BOUND),
        prediction_error(
            col(out::PREDICTED_NS),
            col(lt::DURATION_NS),
            col(IS_OVERRIDE),
        )
        .alias(out::PREDICTION_ERROR),
        when(col(out::PREDICTED_NS).is_not_null())
            .then(lit("model"))
            .otherwise(lit(NULL).cast(DataType::String))
            .alias(out::PREDICTION_METHOD),
    ]))
}

/// True where the launch is modelled on another device and cannot run there (the reason is in
/// [`out::NOT_LAUNCHABLE`]).
pub(crate) fn cannot_run_on_target() -> Expr {
    col(IS_OVERRIDE)
        .fill_null(lit(false))
        .and(col(out::NOT_LAUNCHABLE).is_not_null())
}

/// (predicted − measured) / measured on the launch's own device (`is_override` false) when the
/// launch has a measured duration; null otherwise.
pub(crate) fn prediction_error(predicted: Expr, measured: Expr, is_override: Expr) -> Expr {
    when(is_override.not().and(measured.clone().gt(lit(0.0))))
        .then((predicted - measured.clone()) / measured)
        .otherwise(null_f64())
}

/// The launch overhead of the time model in ns (the launch overhead the SOL scaling keeps).
pub(crate) fn launch_overhead_ns() -> f64 {
    FittedConstants::default().launch_overhead_s * 1e9
}

/// The cross-device prediction and its method from the target's prediction, the source's
/// prediction, the SOL factor and the measured duration ([`scale_to_measured`]).
pub(crate) fn scaled_prediction(
    target: Expr,
    source: Expr,
    sol_factor: Expr,
    method: Expr,
    measured: Expr,
) -> [Expr; 2] {
    let scalable = measured
        .clone()
        .gt(lit(0.0))
        .and(source.clone().gt(lit(0.0)))
        .and(target.clone().is_not_null());
    let sol = time::cross_device::sol_scaled(sol_factor, measured.clone(), launch_overhead_ns());
    let by_sol = source.clone().is_null().and(sol.clone().is_not_null());
    [
        when(scalable.clone())
            .then(measured * target.clone() / source)
            .when(by_sol.clone())
            .then(sol)
            .otherwise(target)
            .alias(out::PREDICTED_NS),
        when(scalable)
            .then(lit("measured-scaled"))
            .when(by_sol)
            .then(lit("speed-of-light-scaled"))
            .otherwise(method)
            .alias(out::PREDICTION_METHOD),
    ]
}

/// Cross-device runs: where the launch has a measured duration and both the source- and the
/// target-device predictions exist, the prediction becomes measured × target / source (the model's
/// error on the source device is assumed to carry over to the target, docs/model-v2/SPEC.md §5.1).
/// Launches without counters but with a measured duration and a Speed-of-Light breakdown are
/// scaled by it instead ([`time::cross_device`]).
pub(crate) fn scale_to_measured(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let mut frame = frame;
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    Ok(frame.with_columns(scaled_prediction(
        col(out::PREDICTED_NS),
        col(SOURCE_PREDICTED),
        time::cross_device::sol_factor(schema, &EmptyColumns::none()),
        col(out::PREDICTION_METHOD),
        col(lt::DURATION_NS),
    )))
}
