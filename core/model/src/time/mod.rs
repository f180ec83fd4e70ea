//! The time model (v2): the predicted duration of a launch on a given GPU and the resource that
//! sets it, from the launch's counts and configuration and the plugins' per-architecture and
//! per-device numbers. `docs/model.md` gives every equation with its source; the design and its
//! validation on real H100 and H200 captures are in `docs/model-v2/`.
//!
//! Per launch, column-wise over the whole frame:
//! - `throughput`: each resource's work on the busiest SM at its achievable rate (instruction
//!   issue, every functional pipe, tensor pipes by kind, LSU, L1 wavefronts, L2 bytes and
//!   requests, DRAM bytes, block dispatch); the largest sets the throughput time;
//! - `latency`: Little's law per SM: the dependent path of a warp times the waves, unless the
//!   launch moves data asynchronously (TMA, wgmma, `cp.async`);
//! - time = launch overhead + (throughput² + latency²)^½;
//! - `bottleneck`: the resource named.
//!
//! `inputs` lists every counter read. Nothing derived from the launch's measured time is read,
//! but the export's two clock readings (SM and DRAM frequency, `crate::clock`). [`fitted`] holds the
//! five constants fitted on the project's captures, with their cross-validation.

pub(crate) mod bottleneck;
pub(crate) mod cross_device;
pub mod fitted;
pub(crate) mod inputs;
pub(crate) mod latency;
pub mod sass_pipes;
pub(crate) mod throughput;

use polars::prelude::*;

pub(crate) use fitted::FittedConstants;

use crate::columns as out;
use crate::empty_columns::EmptyColumns;
use crate::resolve::SM_COUNT;
use inputs::Inputs;

/// Adds [`out::PREDICTED_NS`] (null without counters or without a known device),
/// [`out::BOTTLENECK`], [`out::BOTTLENECK_DETAIL`], [`out::THROUGHPUT_TIME_NS`] and
/// [`out::LATENCY_TIME_NS`]. Needs the occupancy and parameter columns.
/// The `empty` input columns (null on every row) are planned as absent.
pub(crate) fn add_columns(
    frame: LazyFrame,
    fitted: &FittedConstants,
    empty: &EmptyColumns,
) -> PolarsResult<LazyFrame> {
    let mut frame = frame;
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    let inputs = Inputs::planned_without(schema, empty.clone());
    if !inputs.has_any_counter_column()
        || !inputs.has_any_instruction_column()
        || !inputs.has_any_memory_column()
    {
        // An export without counters (an nsys trace of millions of launches), or without any
        // instruction count or without any memory count (ncu's default set, a details page):
        // `has_counters` below would be false on every launch, so no prediction, and nothing
        // computed (or planned) per launch.
        let null_f64 = || lit(NULL).cast(DataType::Float64);
        let null_str = || lit(NULL).cast(DataType::String);
        return Ok(frame.with_columns([
            null_f64().alias(out::PREDICTED_NS),
            null_str().alias(out::BOTTLENECK),
            null_str().alias(out::BOTTLENECK_DETAIL),
            null_f64().alias(out::THROUGHPUT_TIME_NS),
            null_f64().alias(out::LATENCY_TIME_NS),
        ]));
    }
    let frame = throughput::add_geometry(
        frame,
        &inputs,
        fitted,
        [
            col(SM_COUNT),
            col(out::ACTIVE_BLOCKS),
            col(out::GRID_BLOCKS),
            col(out::THREADS_PER_BLOCK),
        ],
    );
    let frame = throughput::add_terms(frame, &inputs, fitted)?;
    let frame = latency::add_columns(frame, &inputs, fitted);
    let a = || col(throughput::T_THROUGHPUT).fill_null(lit(0.0));
    let b = || col(latency::T_LATENCY).fill_null(lit(0.0));
    let m = || polars::lazy::dsl::max_horizontal([a(), b()]);
    let m = m()?;
    let exponent = fitted.blend_exponent;
    let core = when(m.clone().gt(lit(0.0)))
        .then(
            m.clone()
                * ((a() / m.clone()).pow(lit(exponent)) + (b() / m.clone()).pow(lit(exponent)))
                    .pow(lit(1.0 / exponent)),
        )
        .otherwise(lit(0.0));
    let frame = frame.with_columns([core.alias(bottleneck::T_CORE)]);
    // A prediction needs an instruction count (all instructions, or a pipe's) and a byte count
    // of some memory level (a launch without both, as in ncu's default set, a details page, an
    // export of the memory sections alone or an nsys trace, gets none: either alone gives a lower
    // bound, not a time) and the clock.
    let has_counters = inputs
        .any_counter()
        .and(inputs.any_instruction_count())
        .and(inputs.any_memory_count())
        .and(col(throughput::CLOCK).gt(lit(0.0)));
    let frame = bottleneck::add_columns(frame, &inputs, fitted.launch_overhead_s)?;
    let null_f64 = || lit(NULL).cast(DataType::Float64);
    Ok(frame.with_columns([
        when(has_counters.clone())
            .then((lit(fitted.launch_overhead_s) + col(bottleneck::T_CORE)) * lit(1e9))
            .otherwise(null_f64())
            .alias(out::PREDICTED_NS),
        when(has_counters.clone())
            .then(col(out::BOTTLENECK))
            .otherwise(lit(NULL).cast(DataType::String))
            .alias(out::BOTTLENECK),
        when(has_counters.clone())
            .then(col(out::BOTTLENECK_DETAIL))
            .otherwise(lit(NULL).cast(DataType::String))
            .alias(out::BOTTLENECK_DETAIL),
        when(has_counters.clone())
            .then(col(throughput::T_THROUGHPUT) * lit(1e9))
            .otherwise(null_f64())
            .alias(out::THROUGHPUT_TIME_NS),
        when(has_counters)
            .then(col(latency::T_LATENCY) * lit(1e9))
            .otherwise(null_f64())
            .alias(out::LATENCY_TIME_NS),
    ]))
}
