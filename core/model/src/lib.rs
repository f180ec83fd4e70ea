//! warpsight-model: the per-architecture numbers and the model engine.
//!
//! The engine computes occupancy, Little's law, roofline, waves and the predicted time, each in
//! its own module and each expressed as polars expressions over the whole launch frame; the
//! numbers come from a [`arch::Registry`] that plugins fill (the `warpsight-plugin-host` crate
//! loads them; this crate loads nothing and does the math only). `docs/model.md` gives the
//! equations and their sources.
//!
//! # Public API
//!
//! What the `warpsight` binary, `warpsight-report` and a future Python package use:
//!
//! - [`evaluate`]: the main entry point. Per launch it resolves the device and architecture whose
//!   numbers to use, runs the stages in order (occupancy → waves → roofline → Little's law →
//!   predicted time) and returns the launch frame with every column of [`columns`] added;
//!   [`evaluate_each_launch`] is its reference path;
//! - [`ModelConfig`] (with [`CarveoutPolicy`] and [`SmClock`]): how to evaluate, including
//!   cross-device prediction; [`ModelError`]: why the model could not run;
//! - [`Evaluation`] (with [`EvaluationOptions`] and [`EvaluationCache`]): the model run once per
//!   distinct model input, for callers that need only some columns or rows;
//! - [`evaluate_occupancy`] / [`occupancy_columns`]: the fast path adding only the occupancy and
//!   waves columns; [`calculate`] ([`LaunchConfig`] → [`OccupancyResult`], [`Limiter`]): the
//!   occupancy of one configuration;
//! - [`arch`]: the architecture and device specs and their [`arch::Registry`];
//! - [`columns`]: the names of the model's output columns; [`count_unmodelled`] and
//!   [`target_support::causes`] explain the launches left unmodelled;
//! - [`roofline::hierarchical_ceilings`] (the roofline chart's ceilings), [`time`] (the fitted
//!   constants and the per-pipe SASS columns), [`row_chunks`] and [`number_distinct_rows`]:
//!   helpers of the report and the benchmarks.
//!
//! # Example
//!
//! Evaluating an H100 capture shipped in `traces/` with the shipped plugins (the binary gets its
//! registry from `warpsight_plugin_host::load_registry`):
//!
//! ```
//! use std::path::Path;
//! use polars::prelude::*;
//! use warpsight_ingest::{ReadConfig, read_path};
//! use warpsight_model::{ModelConfig, columns, evaluate};
//!
//! let path = Path::new(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../traces/h100-80gb-hbm3/sgemm.ncu-raw.csv"
//! ));
//! let trace = read_path(path, &ReadConfig::default())?;
//! let registry = warpsight_test_support::registry();
//! let modelled = evaluate(trace.launches.lazy(), &registry, &ModelConfig::default())?.collect()?;
//! let occupancy = modelled.column(columns::THEORETICAL_OCCUPANCY)?.f64()?;
//! assert!(occupancy.get(0).is_some_and(|o| o > 0.0 && o <= 1.0));
//! let predicted = modelled.column(columns::PREDICTED_NS)?.f64()?;
//! assert!(predicted.get(0).is_some_and(|ns| ns > 0.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod arch;
pub(crate) mod clock;
pub mod columns;
mod distinct;
mod empty_columns;
pub mod evaluation;
mod evaluation_cache;
pub(crate) mod littles_law;
pub mod occupancy;
pub(crate) mod occupancy_table;
pub(crate) mod params;
mod plan_schema;
pub(crate) mod predicted_time;
pub(crate) mod resolve;
pub mod roofline;
pub mod row_chunks;
pub mod target_support;
mod text;
pub mod time;
pub(crate) mod waves;

use polars::prelude::*;

use crate::arch::{ArchSpec, ComputeCapability, DeviceSpec, Registry};
use crate::empty_columns::EmptyColumns;

pub use clock::SmClock;
pub use distinct::number_rows as number_distinct_rows;
pub use evaluation::{Evaluation, EvaluationOptions};
pub use evaluation_cache::EvaluationCache;
pub use occupancy::{LaunchConfig, Limiter, OccupancyResult, calculate};
pub use occupancy_table::{evaluate_occupancy, occupancy_columns};
pub use row_chunks::PARALLEL_MIN_ROWS;

/// Why the model could not run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The device asked for (`--device`, `--on`) is not provided by any loaded plugin.
    #[error("no loaded plugin provides the device `{name}`")]
    UnknownDevice {
        /// The name asked for.
        name: String,
        /// The devices that are known, for the hint.
        known: Vec<String>,
    },
    /// No loaded plugin provides the compute capability needed.
    #[error("no loaded plugin provides compute capability {cc}{}", device.as_ref().map(|d| format!(" (needed by `{d}`)")).unwrap_or_default())]
    UnknownArch {
        /// The compute capability.
        cc: ComputeCapability,
        /// The device that needed it, if any.
        device: Option<String>,
    },
    /// An error from polars while building or running the model's expressions.
    #[error("the model's table computation failed")]
    Polars(#[from] PolarsError),
}

impl warpsight_ingest::Hint for ModelError {
    /// An unknown device's hint lists the known devices (or says that none is: no architecture
    /// plugin was loaded).
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            ModelError::UnknownDevice { known, .. } if known.is_empty() => {
                Some("no device is known: load the architecture plugins with --plugin-dir".into())
            }
            ModelError::UnknownDevice { known, .. } => Some(
                format!(
                    "known devices: {} (see `warpsight devices`)",
                    known.join(", ")
                )
                .into(),
            ),
            _ => None,
        }
    }
}

/// Which SM shared-memory capacity (carveout) the occupancy calculation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CarveoutPolicy {
    /// The export's Shared Memory Configuration Size when it has one, else the maximum carveout
    /// (the header's default, an upper bound on the shared-memory block limit).
    #[default]
    ExportOrMaximum,
    /// Always the maximum carveout, ignoring the export (what Nsight Compute before ≈2023 used for
    /// its "Block Limit Shared Mem"; see docs/model.md).
    Maximum,
}

/// How to evaluate the model.
#[derive(Debug, Clone, Default)]
pub struct ModelConfig {
    /// Evaluate every launch with this device's parameters instead of its own (cross-device
    /// prediction). Matched like [`Registry::device`].
    pub device_override: Option<String>,
    /// The carveout policy for the shared-memory limit.
    pub carveout: CarveoutPolicy,
    /// Which SM clock each launch is modelled at (`--sm-clock`; docs/model.md §6, "Clock").
    pub sm_clock: SmClock,
    /// Outputs of inputs already evaluated, shared by the evaluations that use this configuration
    /// (the parts of one export); `None` evaluates every input. Never changes a result.
    pub cache: Option<std::sync::Arc<EvaluationCache>>,
}

/// Internal row-index column used to join the source-device prediction in cross-device runs.
const ROW: &str = "__row";
/// Internal column: the prediction for the launch's own device in cross-device runs.
const SOURCE_PREDICTED: &str = "__source_predicted_ns";

/// Adds every column of [`columns`] to the launch table.
///
/// Device resolution, per launch: `config.device_override` if given; else the launch's
/// `device_name` matched in the registry; else the registry device with the launch's compute
/// capability and SM count; else only the architecture of the launch's compute capability (device
/// ceilings then come from the launch row where it has them). Launches that cannot be modelled get
/// nulls and a reason in [`columns::MODEL_REASON`]. Fails only when the override device (or its
/// architecture) is unknown, or on a polars error.
///
/// The model runs once per distinct model input ([`Evaluation`]) and its columns are gathered
/// onto every launch; callers that need only some columns, or a few rows, use [`Evaluation`]
/// directly. The input is collected when this is called.
pub fn evaluate(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<LazyFrame, ModelError> {
    Ok(Evaluation::new(launches, registry, config)?
        .per_launch()?
        .lazy())
}

/// The reference path of [`evaluate`]: every stage after occupancy runs on every launch (the
/// resolution and occupancy still once per launch configuration). It gives the same values as
/// [`evaluate`]; the tests compare the two, and [`Evaluation`] reads the model's column names and
/// order from it.
pub fn evaluate_each_launch(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<LazyFrame, ModelError> {
    plan_schema::with_shared_arenas(|| evaluate_each_launch_planned(launches, registry, config))
}

/// [`evaluate_each_launch`], its plan's schemas resolved in shared arenas.
fn evaluate_each_launch_planned(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<LazyFrame, ModelError> {
    let mut launches = warpsight_ingest::launch_table::conform(launches)?;
    let extra_barriers = barrier_count_expr(&mut launches)?;
    let bytes_per_request = littles_law::bytes_per_request_expr(&mut launches)?;
    let launches = launches.with_column(bytes_per_request.alias(littles_law::BYTES_PER_REQUEST));
    let Some(name) = &config.device_override else {
        let resolved =
            occupancy_table::resolved_occupancy(launches, registry, config, extra_barriers, None)?;
        return finish(run_stages(resolved, registry, &EmptyColumns::none())?);
    };
    let (device, arch) = override_target(registry, name)?;
    let indexed = launches.with_row_index(ROW, None);
    let source = run_stages(
        occupancy_table::resolved_occupancy(
            indexed.clone(),
            registry,
            config,
            extra_barriers.clone(),
            None,
        )?,
        registry,
        &EmptyColumns::none(),
    )?
    .select(
        [col(ROW), col(columns::PREDICTED_NS).alias(SOURCE_PREDICTED)]
            .into_iter()
            .chain(time::cross_device::source_capability_columns())
            .collect::<Vec<_>>(),
    );
    let target = run_stages(
        occupancy_table::resolved_occupancy(
            indexed,
            registry,
            config,
            extra_barriers,
            Some((device, arch)),
        )?,
        registry,
        &EmptyColumns::none(),
    )?;
    let joined = target.join(
        source,
        [col(ROW)],
        [col(ROW)],
        JoinArgs {
            maintain_order: MaintainOrderJoin::Left,
            ..JoinArgs::new(JoinType::Left)
        },
    );
    finish(predicted_time::scale_to_measured(joined)?)
}

/// The device named by `--device`/`--on` and its architecture, or why there is none.
fn override_target<'r>(
    registry: &'r Registry,
    name: &str,
) -> Result<(&'r DeviceSpec, &'r ArchSpec), ModelError> {
    let device = registry
        .device(name)
        .ok_or_else(|| ModelError::UnknownDevice {
            name: name.to_string(),
            known: registry
                .devices
                .iter()
                .map(|(d, _)| d.name.clone())
                .collect(),
        })?;
    let arch = registry
        .arch(device.cc)
        .ok_or_else(|| ModelError::UnknownArch {
            cc: device.cc,
            device: Some(device.name.clone()),
        })?;
    Ok((device, arch))
}

/// The barrier count per block: the raw page's `launch__barrier_count` when the reader kept it
/// (0 means no named barrier is used, so no barrier limit), else 1 (the header's default).
fn barrier_count_expr(frame: &mut LazyFrame) -> PolarsResult<Expr> {
    let schema = crate::plan_schema::schema_of(frame)?;
    for name in [
        "launch__barrier_count",
        "launch_barrier_count",
        "barrier_count",
    ] {
        if schema.contains(name) {
            return Ok(col(name).cast(DataType::Int64).fill_null(lit(1i64)));
        }
    }
    Ok(lit(1i64))
}

/// Runs the stages after occupancy on a frame that has the parameter and occupancy columns
/// ([`occupancy_table::resolved_occupancy`]: resolution and occupancy once per distinct launch
/// configuration). The `empty` input columns (null on every row) are planned as absent.
fn run_stages(
    frame: LazyFrame,
    registry: &Registry,
    empty: &EmptyColumns,
) -> PolarsResult<LazyFrame> {
    let frame = time::sass_pipes::add_columns(frame, registry)?;
    let frame = waves::add_columns(frame);
    let frame = roofline::add_columns(frame, empty)?;
    let frame = littles_law::add_columns(frame)?;
    predicted_time::add_columns(frame, empty)
}

/// Names the model device, explains unmodelled rows and drops every internal column.
fn finish(frame: LazyFrame) -> Result<LazyFrame, ModelError> {
    finish_keeping(frame, &[])
}

/// [`finish`], keeping the internal columns named in `keep`.
fn finish_keeping(frame: LazyFrame, keep: &[&str]) -> Result<LazyFrame, ModelError> {
    let mut frame = frame
        .with_columns([
            col(params::DEV_NAME).alias(columns::MODEL_DEVICE),
            resolve::model_reason_case().alias(resolve::REASON_CASE),
        ])
        .with_columns([resolve::model_reason().alias(columns::MODEL_REASON)]);
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    let keep: Vec<Expr> = schema
        .iter_names()
        .filter(|name| !name.starts_with("__") || keep.contains(&name.as_str()))
        .map(|name| col(name.clone()))
        .collect();
    Ok(frame.select(keep))
}

/// Number of launches the model could not evaluate at all (non-null [`columns::MODEL_REASON`]
/// and no occupancy), for the "counted, never dropped silently" report.
pub fn count_unmodelled(frame: &DataFrame) -> PolarsResult<usize> {
    let reasons = frame.column(columns::MODEL_REASON)?;
    let occupancy = frame.column(columns::THEORETICAL_OCCUPANCY)?;
    let reasons = reasons.is_not_null();
    let missing = occupancy.is_null();
    Ok((&reasons & &missing).sum().unwrap_or(0) as usize)
}

/// The shipped plugins' registry for this crate's unit tests, from `warpsight-test-support` (which
/// builds the plugins and loads them through `warpsight-plugin-host`). That crate links the
/// library build of this crate, whose `Registry` is another type than this test build's; the specs
/// themselves are `warpsight_plugin` types, shared by both, so only the provenance is rebuilt.
#[cfg(test)]
pub(crate) fn test_registry() -> arch::Registry {
    let shipped = warpsight_test_support::plugins::registry();
    let provenance = |plugin: String, file: std::path::PathBuf| arch::Provenance { plugin, file };
    arch::Registry {
        archs: shipped
            .archs
            .into_iter()
            .map(|(spec, from)| (spec, provenance(from.plugin, from.file)))
            .collect(),
        devices: shipped
            .devices
            .into_iter()
            .map(|(spec, from)| (spec, provenance(from.plugin, from.file)))
            .collect(),
    }
}
