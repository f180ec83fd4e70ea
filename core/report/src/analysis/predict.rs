//! `predict`: the same launches evaluated on another device (the model's cross-device mode), with
//! the predicted time and the speedup per kernel and in total.
//!
//! The model does the physics (occupancy with the target's limits; FLOP and bytes carried over;
//! the target's SM count, clocks, bandwidths and peaks; a launch with a measured time is scaled as
//! measured × predicted_target / predicted_source). Here the launches are grouped per kernel name
//! and compared with the measured time, or with the model's prediction on the launch's own device
//! where no time was measured.
//!
//! A launch that cannot run on the target (the model's `not_launchable`: a block over the target's
//! limits, or an instruction family or launch feature it lacks, such as wgmma, TMA or clusters on
//! a compute capability below 9.0) has no predicted time there. Its kernel gets no speedup and is
//! left out of the totals; the table marks it ([`predict_col::ON_TARGET`]) and
//! [`Prediction::not_launchable`] counts such launches, their share of the time and their causes.
//! [`Prediction::target_sm_clock`] is the SM clock the target was modelled at (`--sm-clock`).

use polars::prelude::*;

use super::error::AnalysisError;
use super::frame_access::Cells;
use super::load::Loaded;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::Registry;
use warpsight_model::{self, Evaluation, ModelConfig, columns as mc};

/// Output columns of the predict table.
pub mod predict_col {
    /// Kernel display name.
    pub const KERNEL: &str = "kernel";
    /// Number of launches.
    pub(crate) const LAUNCHES: &str = "launches";
    /// Device the launches were modelled on first (their own).
    pub(crate) const SOURCE_DEVICE: &str = "source_device";
    /// The target device.
    pub(crate) const TARGET_DEVICE: &str = "target_device";
    /// Measured total time on the source device, ns.
    pub const MEASURED_NS: &str = "measured_total_ns";
    /// Predicted total time on the source device, ns.
    pub const SOURCE_PREDICTED_NS: &str = "source_predicted_total_ns";
    /// Predicted total time on the target device, ns.
    pub(crate) const TARGET_PREDICTED_NS: &str = "target_predicted_total_ns";
    /// Baseline (measured, else source prediction) / target prediction.
    pub const SPEEDUP: &str = "speedup";
    /// Mean theoretical occupancy on the source, 0–1.
    pub(crate) const SOURCE_OCCUPANCY: &str = "source_occupancy";
    /// Mean theoretical occupancy on the target, 0–1.
    pub(crate) const TARGET_OCCUPANCY: &str = "target_occupancy";
    /// Limiter on the target (first launch).
    pub(crate) const TARGET_LIMITER: &str = "target_limiter";
    /// Bound on the target (first launch).
    pub(crate) const TARGET_BOUND: &str = "target_bound";
    /// Full kernel name.
    pub const KERNEL_NAME: &str = "kernel_name";
    /// Launches that cannot run on the target (the model's `not_launchable` is set).
    pub const NOT_LAUNCHABLE_LAUNCHES: &str = "not_launchable_launches";
    /// Why a launch of the kernel cannot run on the target (the first such launch's
    /// `not_launchable`); null when every launch can.
    pub const NOT_LAUNCHABLE: &str = "not_launchable";
    /// The mark the table shows instead of a speedup, e.g. `cannot run: shared memory per block,
    /// wgmma` or `2 of 5 launches cannot run: …`; null when every launch can run.
    pub const ON_TARGET: &str = "on_target";
}

use predict_col as pc;

/// The assumptions behind a cross-device prediction, printed with its table.
pub const ASSUMPTIONS: &[&str] = &[
    "the same launches (grid, block, registers, shared memory) run unchanged on the target",
    "occupancy is recomputed with the target's limits; FLOP and bytes per launch are carried over",
    "the target's SM count, SM clock (below), DRAM/L2 bandwidth and peak FLOP/s are used (dense peaks)",
    "a launch with a measured time is predicted as measured × predicted_target / predicted_source",
    "speedup = measured time (or the model's prediction on the source when none was measured) / predicted target time",
    "a launch that cannot run on the target (block limits, an instruction family or launch feature the target lacks) gets no time and no speedup",
];

/// The totals line of a prediction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PredictTotals {
    /// Baseline time (measured, else source prediction) over kernels with a target prediction, ns.
    pub baseline_ns: f64,
    /// Predicted target time over the same kernels, ns.
    pub target_ns: f64,
    /// baseline / target.
    pub speedup: f64,
    /// Kernels included in the totals.
    pub kernels: usize,
}

/// A cross-device prediction.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// The target device as the registry names it.
    pub target_device: String,
    /// One row per kernel (columns of [`predict_col`]), largest baseline time first.
    pub per_kernel: DataFrame,
    /// The totals.
    pub totals: PredictTotals,
    /// Launches without a prediction on the target that could run there (missing counters or
    /// architecture); those that cannot run are in [`Self::not_launchable`].
    pub unpredicted: usize,
    /// The launches that cannot run on the target.
    pub not_launchable: NotLaunchable,
    /// The SM clock the target was modelled at, where known.
    pub target_sm_clock: Option<TargetClock>,
}

/// The launches of a prediction that cannot run on the target.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NotLaunchable {
    /// How many.
    pub launches: usize,
    /// Their baseline time (measured, else the source prediction), ns.
    pub(crate) baseline_ns: f64,
    /// The baseline time of every launch, ns: the denominator of [`Self::share`].
    pub(crate) all_baseline_ns: f64,
    /// Each cause ([`warpsight_model::target_support::causes`]) with the launches it applies to,
    /// most launches first.
    pub(crate) causes: Vec<(String, usize)>,
    /// The reason of the kernel with the most baseline time among them: (kernel, reason).
    pub example: Option<(String, String)>,
}

impl NotLaunchable {
    /// Their share of the baseline time of all launches, 0–1 (NaN without any time).
    pub(crate) fn share(&self) -> f64 {
        if self.all_baseline_ns > 0.0 {
            self.baseline_ns / self.all_baseline_ns
        } else {
            f64::NAN
        }
    }

    /// The summary line, e.g. `3 launches (41.2 % of the time) cannot run on NVIDIA
    /// A100-SXM4-40GB: shared memory per block (3), wgmma (2); see the `not_launchable` column`;
    /// `None` when every launch can run.
    pub fn summary(&self, target: &str) -> Option<String> {
        if self.launches == 0 {
            return None;
        }
        let causes: Vec<String> = self
            .causes
            .iter()
            .map(|(cause, launches)| format!("{cause} ({launches})"))
            .collect();
        Some(format!(
            "{} launch{} ({} of the time) cannot run on {target}: {}; see the `not_launchable` column",
            self.launches,
            if self.launches == 1 { "" } else { "es" },
            crate::units::percent(self.share()),
            causes.join(", ")
        ))
    }
}

/// The SM clock the target was modelled at and where it came from (the model's
/// `model_sm_clock_hz` and `model_sm_clock_source`).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetClock {
    /// The clock, Hz.
    pub(crate) hz: f64,
    /// Its source, e.g. `boost (target device)`, `base (target device)`, `fixed (--sm-clock)`.
    pub(crate) source: String,
}

impl TargetClock {
    /// The assumption line, e.g. `target modelled at its boost clock 1.41 GHz (--sm-clock changes
    /// it)`.
    pub fn assumption(&self) -> String {
        let ghz = {
            let text = format!("{:.3}", self.hz / 1e9);
            let text = text.trim_end_matches('0').trim_end_matches('.').to_string();
            format!("{text} GHz")
        };
        let source = self.source.as_str();
        if source.starts_with("fixed") {
            format!("target modelled at {ghz}, the clock --sm-clock gives")
        } else if source.starts_with("boost") && source.contains("base clock is unknown") {
            format!(
                "target modelled at its boost clock {ghz}: its base clock is unknown (--sm-clock changes it)"
            )
        } else if source.starts_with("boost") {
            format!("target modelled at its boost clock {ghz} (--sm-clock changes it)")
        } else if source.starts_with("base") {
            format!("target modelled at its base clock {ghz} (--sm-clock changes it)")
        } else {
            format!("target modelled at {ghz} ({source}; --sm-clock changes it)")
        }
    }
}

/// Predicts every launch of `loaded` on `target`. `source` names the device the launches ran on
/// where the export does not say (e.g. an ncu page without device attributes).
pub fn predict(
    loaded: &Loaded,
    registry: &Registry,
    target: &str,
    source: Option<&str>,
    base: &ModelConfig,
) -> Result<Prediction, AnalysisError> {
    let part = predict_part(loaded, registry, target, source, base)?;
    combine(vec![part], registry, target)
}

/// The per-kernel sums of one input's prediction, to be combined with other inputs' by
/// [`combine`] (a batch predicted one file at a time, so that only one file's launches are held
/// at once).
#[derive(Debug, Clone)]
pub struct PredictionPart {
    /// Per kernel name: sums and counts.
    per_kernel: DataFrame,
    /// Launches without a prediction on the target that could run there.
    unpredicted: usize,
    /// Per distinct `not_launchable` reason: [`REASON`], [`REASON_LAUNCHES`],
    /// [`REASON_BASELINE`].
    reasons: DataFrame,
    /// The SM clock of the target, from the first launch that has one.
    clock: Option<TargetClock>,
}

/// Internal partial columns: the sums and counts of the occupancies.
const SOURCE_OCCUPANCY_SUM: &str = "__source_occupancy_sum";
const SOURCE_OCCUPANCY_COUNT: &str = "__source_occupancy_count";
const TARGET_OCCUPANCY_SUM: &str = "__target_occupancy_sum";
const TARGET_OCCUPANCY_COUNT: &str = "__target_occupancy_count";
/// Internal per-launch column: the baseline time (measured, else the source prediction), ns.
const BASELINE: &str = "__baseline";
/// Internal partial column: the baseline time of all launches.
const BASELINE_SUM: &str = "__baseline_sum";
/// Columns of [`PredictionPart::reasons`].
const REASON: &str = "reason";
const REASON_LAUNCHES: &str = "launches";
const REASON_BASELINE: &str = "baseline_ns";

/// Predicts the launches of `loaded` on `target` (see [`predict`]) and sums them per kernel.
pub fn predict_part(
    loaded: &Loaded,
    registry: &Registry,
    target: &str,
    source: Option<&str>,
    base: &ModelConfig,
) -> Result<PredictionPart, AnalysisError> {
    let own_config = ModelConfig {
        device_override: None,
        ..base.clone()
    };
    let target_config = ModelConfig {
        device_override: Some(target.to_string()),
        ..base.clone()
    };
    let mut launches = loaded.launches.clone().lazy();
    if let Some(source) = source {
        if registry.device(source).is_none() {
            return Err(AnalysisError::Model(
                warpsight_model::ModelError::UnknownDevice {
                    name: source.to_string(),
                    known: registry
                        .devices
                        .iter()
                        .map(|(d, _)| d.name.clone())
                        .collect(),
                },
            ));
        }
        launches = launches.with_column(
            coalesce(&[col(lt::DEVICE_NAME), lit(source.to_string())]).alias(lt::DEVICE_NAME),
        );
    }
    // Each device's model runs once per distinct model input; only the few columns the
    // prediction reads are gathered onto the launches, which both runs keep in the same order.
    let own = Evaluation::new(launches.clone(), registry, &own_config)?.per_launch_columns(&[
        mc::MODEL_DEVICE,
        mc::PREDICTED_NS,
        mc::THEORETICAL_OCCUPANCY,
    ])?;
    let target_columns = [
        mc::MODEL_DEVICE,
        mc::PREDICTED_NS,
        mc::THEORETICAL_OCCUPANCY,
        mc::LIMITER,
        mc::BOUND,
        mc::NOT_LAUNCHABLE,
        mc::MODEL_SM_CLOCK_HZ,
        mc::MODEL_SM_CLOCK_SOURCE,
    ];
    let on_target =
        Evaluation::new(launches, registry, &target_config)?.per_launch_columns(&target_columns)?;
    let source_columns = [
        own.column(mc::MODEL_DEVICE)?
            .clone()
            .with_name(pc::SOURCE_DEVICE.into()),
        own.column(mc::PREDICTED_NS)?
            .clone()
            .with_name("__source_predicted".into()),
        own.column(mc::THEORETICAL_OCCUPANCY)?
            .clone()
            .with_name("__source_occupancy".into()),
    ];
    let mut selected: Vec<Column> = [lt::KERNEL_NAME, lt::KERNEL_SHORT_NAME, lt::DURATION_NS]
        .iter()
        .map(|name| on_target.column(name).cloned())
        .collect::<PolarsResult<_>>()?;
    for name in target_columns {
        selected.push(on_target.column(name)?.clone());
    }
    selected.extend(source_columns);
    let clock = target_clock(&on_target)?;
    let cannot_run = || col(mc::NOT_LAUNCHABLE).is_not_null();
    let joined = DataFrame::new(on_target.height(), selected)?
        .lazy()
        .with_column(col(lt::DURATION_NS).cast(DataType::Float64))
        .with_column(coalesce(&[col(lt::DURATION_NS), col("__source_predicted")]).alias(BASELINE));
    let sum = super::groups::null_aware_sum;
    let per_kernel = joined
        .clone()
        .group_by_stable([col(lt::KERNEL_NAME)])
        .agg([
            coalesce(&[col(lt::KERNEL_SHORT_NAME), col(lt::KERNEL_NAME)])
                .first()
                .alias(pc::KERNEL),
            len().cast(DataType::Int64).alias(pc::LAUNCHES),
            col(pc::SOURCE_DEVICE).first(),
            col(mc::MODEL_DEVICE).first().alias(pc::TARGET_DEVICE),
            sum(lt::DURATION_NS).alias(pc::MEASURED_NS),
            sum("__source_predicted").alias(pc::SOURCE_PREDICTED_NS),
            sum(mc::PREDICTED_NS).alias(pc::TARGET_PREDICTED_NS),
            col("__source_occupancy").sum().alias(SOURCE_OCCUPANCY_SUM),
            col("__source_occupancy")
                .count()
                .cast(DataType::Int64)
                .alias(SOURCE_OCCUPANCY_COUNT),
            col(mc::THEORETICAL_OCCUPANCY)
                .sum()
                .alias(TARGET_OCCUPANCY_SUM),
            col(mc::THEORETICAL_OCCUPANCY)
                .count()
                .cast(DataType::Int64)
                .alias(TARGET_OCCUPANCY_COUNT),
            col(mc::LIMITER).first().alias(pc::TARGET_LIMITER),
            // The bound of a launch that can run (a launch that cannot has none).
            col(mc::BOUND)
                .filter(cannot_run().not())
                .first()
                .alias(pc::TARGET_BOUND),
            cannot_run()
                .sum()
                .cast(DataType::Int64)
                .alias(pc::NOT_LAUNCHABLE_LAUNCHES),
            col(mc::NOT_LAUNCHABLE)
                .drop_nulls()
                .first()
                .alias(pc::NOT_LAUNCHABLE),
            sum(BASELINE).alias(BASELINE_SUM),
        ])
        .collect()?;
    let unpredicted = joined
        .clone()
        .filter(col(mc::PREDICTED_NS).is_null().and(cannot_run().not()))
        .select([len().alias("n")])
        .collect()?;
    let unpredicted = Cells::new(&unpredicted).i64("n", 0).unwrap_or(0).max(0) as usize;
    let reasons = joined
        .filter(cannot_run())
        .group_by_stable([col(mc::NOT_LAUNCHABLE).alias(REASON)])
        .agg([
            len().cast(DataType::Int64).alias(REASON_LAUNCHES),
            col(BASELINE).sum().alias(REASON_BASELINE),
        ])
        .collect()?;
    Ok(PredictionPart {
        per_kernel,
        unpredicted,
        reasons,
        clock,
    })
}

/// The SM clock of the first launch of `on_target` that has one (every launch modelled on one
/// device has the same).
fn target_clock(on_target: &DataFrame) -> PolarsResult<Option<TargetClock>> {
    let hz = on_target
        .column(mc::MODEL_SM_CLOCK_HZ)?
        .cast(&DataType::Float64)?;
    let hz = hz.f64()?;
    let Some(row) = hz.first_non_null() else {
        return Ok(None);
    };
    let source = on_target.column(mc::MODEL_SM_CLOCK_SOURCE)?;
    Ok(hz.get(row).map(|hz| TargetClock {
        hz,
        source: source
            .str()
            .ok()
            .and_then(|s| s.get(row))
            .unwrap_or("")
            .to_string(),
    }))
}

/// The per-kernel rows of a prediction in [`combine`]'s order: baseline time (measured, else the
/// source prediction) descending, then the short name and the full name (unique per row), which
/// breaks ties between kernels of one short name. The rows of several partitions of kernels,
/// each combined on its own, are put in the single-process order with it.
pub fn in_table_order(rows: LazyFrame) -> LazyFrame {
    rows.sort_by_exprs(
        [
            coalesce(&[col(pc::MEASURED_NS), col(pc::SOURCE_PREDICTED_NS)]),
            col(pc::KERNEL),
            col(pc::KERNEL_NAME),
        ],
        SortMultipleOptions::default()
            .with_order_descending_multi([true, false, false])
            .with_nulls_last(true)
            .with_maintain_order(true),
    )
}

/// The prediction of several inputs from their parts: per kernel name, the sums added and the
/// mean occupancies weighted by their launch counts.
pub fn combine(
    parts: Vec<PredictionPart>,
    registry: &Registry,
    target: &str,
) -> Result<Prediction, AnalysisError> {
    let unpredicted = parts.iter().map(|p| p.unpredicted).sum();
    let target_sm_clock = parts.iter().find_map(|p| p.clock.clone());
    let reason_frames: Vec<DataFrame> = parts.iter().map(|p| p.reasons.clone()).collect();
    let frames: Vec<DataFrame> = parts.into_iter().map(|p| p.per_kernel).collect();
    let stacked = match frames.len() {
        0 => {
            return Err(AnalysisError::Polars(
                polars_err!(ComputeError: "nothing to predict"),
            ));
        }
        1 => frames.into_iter().next().unwrap_or_default(),
        _ => polars::functions::concat_df_diagonal(&frames)?,
    };
    let sum = super::groups::null_aware_sum;
    let mean = |total: &str, count: &str| {
        when(col(count).sum().gt(lit(0)))
            .then(col(total).sum() / col(count).sum().cast(DataType::Float64))
            .otherwise(lit(NULL).cast(DataType::Float64))
    };
    let per_kernel = stacked
        .lazy()
        .group_by_stable([col(lt::KERNEL_NAME)])
        .agg([
            col(pc::KERNEL).first(),
            col(pc::LAUNCHES).sum(),
            col(pc::SOURCE_DEVICE).first(),
            col(pc::TARGET_DEVICE).first(),
            sum(pc::MEASURED_NS),
            sum(pc::SOURCE_PREDICTED_NS),
            sum(pc::TARGET_PREDICTED_NS),
            mean(SOURCE_OCCUPANCY_SUM, SOURCE_OCCUPANCY_COUNT).alias(pc::SOURCE_OCCUPANCY),
            mean(TARGET_OCCUPANCY_SUM, TARGET_OCCUPANCY_COUNT).alias(pc::TARGET_OCCUPANCY),
            col(pc::TARGET_LIMITER).first(),
            col(pc::TARGET_BOUND).drop_nulls().first(),
            col(pc::NOT_LAUNCHABLE_LAUNCHES).sum(),
            col(pc::NOT_LAUNCHABLE).drop_nulls().first(),
            col(BASELINE_SUM).sum(),
        ])
        // No speedup for a kernel with a launch that cannot run on the target.
        .with_column(
            when(col(pc::NOT_LAUNCHABLE_LAUNCHES).gt(lit(0)))
                .then(lit(NULL).cast(DataType::Float64))
                .otherwise(
                    coalesce(&[col(pc::MEASURED_NS), col(pc::SOURCE_PREDICTED_NS)])
                        / col(pc::TARGET_PREDICTED_NS),
                )
                .alias(pc::SPEEDUP),
        );
    let per_kernel = in_table_order(per_kernel)
        .select([
            col(pc::KERNEL),
            col(pc::LAUNCHES),
            col(pc::SOURCE_DEVICE),
            col(pc::TARGET_DEVICE),
            col(pc::MEASURED_NS),
            col(pc::SOURCE_PREDICTED_NS),
            col(pc::TARGET_PREDICTED_NS),
            col(pc::SPEEDUP),
            col(pc::SOURCE_OCCUPANCY),
            col(pc::TARGET_OCCUPANCY),
            col(pc::TARGET_LIMITER),
            col(pc::TARGET_BOUND),
            col(lt::KERNEL_NAME).alias(pc::KERNEL_NAME),
            col(pc::NOT_LAUNCHABLE_LAUNCHES),
            col(pc::NOT_LAUNCHABLE),
            col(BASELINE_SUM),
        ])
        .collect()?;
    let mut not_launchable = not_launchable(&reason_frames)?;
    not_launchable.all_baseline_ns = float_sum(&per_kernel, BASELINE_SUM)?;
    let mut per_kernel = per_kernel.drop_many([BASELINE_SUM]);
    not_launchable.example = first_reason(&per_kernel)?;
    let mark = on_target_marks(&per_kernel)?;
    per_kernel.with_column(mark)?;
    let target_device = registry
        .device(target)
        .map_or_else(|| target.to_string(), |d| d.name.clone());
    Ok(Prediction {
        target_device,
        totals: totals(&per_kernel)?,
        per_kernel,
        unpredicted,
        not_launchable,
        target_sm_clock,
    })
}

/// The sum of a float column (0 when it has no value).
fn float_sum(frame: &DataFrame, name: &str) -> PolarsResult<f64> {
    Ok(frame
        .column(name)?
        .cast(&DataType::Float64)?
        .f64()?
        .sum()
        .unwrap_or(0.0))
}

/// The launches that cannot run, their time and causes, from the parts' distinct reasons.
fn not_launchable(frames: &[DataFrame]) -> PolarsResult<NotLaunchable> {
    let frames: Vec<&DataFrame> = frames.iter().filter(|f| f.height() > 0).collect();
    if frames.is_empty() {
        return Ok(NotLaunchable::default());
    }
    let stacked = frames
        .iter()
        .skip(1)
        .try_fold(frames[0].clone(), |all, f| all.vstack(f))?;
    let reasons = stacked
        .lazy()
        .group_by_stable([col(REASON)])
        .agg([col(REASON_LAUNCHES).sum(), col(REASON_BASELINE).sum()])
        .sort(
            [REASON_LAUNCHES],
            SortMultipleOptions::default()
                .with_order_descending(true)
                .with_maintain_order(true),
        )
        .collect()?;
    // A handful of distinct reasons: their causes are read one reason at a time.
    let texts = reasons.column(REASON)?.str()?.clone();
    let counts = reasons.column(REASON_LAUNCHES)?.cast(&DataType::Int64)?;
    let counts = counts.i64()?;
    let mut causes: Vec<(String, usize)> = Vec::new();
    for (text, count) in texts.iter().zip(counts.iter()) {
        let (Some(text), Some(count)) = (text, count) else {
            continue;
        };
        let count = usize::try_from(count).unwrap_or(0);
        for cause in warpsight_model::target_support::causes(text) {
            match causes.iter_mut().find(|(c, _)| *c == cause) {
                Some((_, n)) => *n += count,
                None => causes.push((cause, count)),
            }
        }
    }
    causes.sort_by_key(|(_, launches)| std::cmp::Reverse(*launches));
    let launches = counts.sum().unwrap_or(0).max(0);
    Ok(NotLaunchable {
        launches: usize::try_from(launches).unwrap_or(0),
        baseline_ns: float_sum(&reasons, REASON_BASELINE)?,
        all_baseline_ns: 0.0,
        causes,
        example: None,
    })
}

/// The kernel and reason of the first row of the (sorted) per-kernel table that cannot run.
fn first_reason(per_kernel: &DataFrame) -> PolarsResult<Option<(String, String)>> {
    let reasons = per_kernel.column(pc::NOT_LAUNCHABLE)?.str()?;
    let Some(row) = reasons.first_non_null() else {
        return Ok(None);
    };
    let kernel = per_kernel.column(pc::KERNEL)?.str()?.get(row).unwrap_or("");
    Ok(reasons
        .get(row)
        .map(|reason| (kernel.to_string(), reason.to_string())))
}

/// The [`pc::ON_TARGET`] column: `cannot run: <causes>` for a kernel none of whose launches can
/// run on the target, `k of n launches cannot run: <causes>` when some cannot, null otherwise.
fn on_target_marks(per_kernel: &DataFrame) -> PolarsResult<Column> {
    let reasons = per_kernel.column(pc::NOT_LAUNCHABLE)?.str()?;
    let launches = per_kernel.column(pc::LAUNCHES)?.cast(&DataType::Int64)?;
    let cannot = per_kernel
        .column(pc::NOT_LAUNCHABLE_LAUNCHES)?
        .cast(&DataType::Int64)?;
    let marks: StringChunked = reasons
        .iter()
        .zip(launches.i64()?.iter())
        .zip(cannot.i64()?.iter())
        .map(|((reason, launches), cannot)| {
            let (reason, cannot) = (reason?, cannot.filter(|n| *n > 0)?);
            let causes = warpsight_model::target_support::causes(reason).join(", ");
            Some(match launches {
                Some(all) if all > cannot => {
                    format!("{cannot} of {all} launches cannot run: {causes}")
                }
                _ => format!("cannot run: {causes}"),
            })
        })
        .collect();
    Ok(marks.with_name(pc::ON_TARGET.into()).into_column())
}

/// Sums the baseline and target times over kernels that have both.
/// A kernel with a launch that cannot run on the target ([`pc::NOT_LAUNCHABLE_LAUNCHES`] above 0)
/// is left out.
pub(crate) fn totals(per_kernel: &DataFrame) -> PolarsResult<PredictTotals> {
    let baseline = coalesce(&[col(pc::MEASURED_NS), col(pc::SOURCE_PREDICTED_NS)]);
    let runs = if per_kernel.schema().contains(pc::NOT_LAUNCHABLE_LAUNCHES) {
        col(pc::NOT_LAUNCHABLE_LAUNCHES)
            .fill_null(lit(0i64))
            .eq(lit(0i64))
    } else {
        lit(true)
    };
    let sums = per_kernel
        .clone()
        .lazy()
        .filter(
            baseline
                .clone()
                .is_not_null()
                .and(col(pc::TARGET_PREDICTED_NS).is_not_null())
                .and(runs),
        )
        .select([
            baseline.sum().alias("baseline"),
            col(pc::TARGET_PREDICTED_NS).sum().alias("target"),
            len().alias("kernels"),
        ])
        .collect()?;
    let mut cells = Cells::new(&sums);
    let baseline_ns = cells.f64("baseline", 0).unwrap_or(0.0);
    let target_ns = cells.f64("target", 0).unwrap_or(0.0);
    Ok(PredictTotals {
        baseline_ns,
        target_ns,
        speedup: if target_ns > 0.0 {
            baseline_ns / target_ns
        } else {
            f64::NAN
        },
        kernels: cells.i64("kernels", 0).unwrap_or(0).max(0) as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_use_only_kernels_with_both_times() -> PolarsResult<()> {
        let table = df!(
            pc::MEASURED_NS => [Some(1000.0f64), None, Some(50.0)],
            pc::SOURCE_PREDICTED_NS => [Some(900.0f64), Some(300.0), None],
            pc::TARGET_PREDICTED_NS => [Some(400.0f64), Some(100.0), None],
        )?;
        let totals = totals(&table)?;
        // Kernel 1: measured 1000 vs 400; kernel 2: no measurement, source prediction 300 vs 100;
        // kernel 3 has no target prediction and is left out.
        assert_eq!(totals.kernels, 2);
        assert_eq!(totals.baseline_ns, 1300.0);
        assert_eq!(totals.target_ns, 500.0);
        assert!((totals.speedup - 2.6).abs() < 1e-12);
        Ok(())
    }

    #[test]
    fn totals_leave_out_kernels_with_a_launch_that_cannot_run() -> PolarsResult<()> {
        let table = df!(
            pc::MEASURED_NS => [Some(1000.0f64), Some(300.0), Some(200.0)],
            pc::SOURCE_PREDICTED_NS => [Some(900.0f64), Some(300.0), Some(200.0)],
            pc::TARGET_PREDICTED_NS => [Some(400.0f64), None, Some(100.0)],
            pc::NOT_LAUNCHABLE_LAUNCHES => [Some(0i64), Some(2), Some(1)],
        )?;
        // Kernel 2 cannot run at all; kernel 3 has one launch that cannot run (its target time is
        // that of the others): both are left out.
        let totals = totals(&table)?;
        assert_eq!(totals.kernels, 1);
        assert_eq!(totals.baseline_ns, 1000.0);
        assert_eq!(totals.target_ns, 400.0);
        Ok(())
    }

    #[test]
    fn kernels_that_cannot_run_are_marked_with_their_causes() -> PolarsResult<()> {
        let reason = "not launchable on NVIDIA A100-SXM4-40GB: needs 226 KiB shared memory per \
                      block, the device allows 163 KiB; uses wgmma and TMA (compute capability ≥ \
                      9.0), the device has 8.0";
        let table = df!(
            pc::KERNEL => ["gemm", "partly", "copy"],
            pc::LAUNCHES => [2i64, 5, 3],
            pc::NOT_LAUNCHABLE_LAUNCHES => [2i64, 2, 0],
            pc::NOT_LAUNCHABLE => [Some(reason), Some("needs 2048 threads per block, the device allows 1024"), None],
        )?;
        let marks = on_target_marks(&table)?;
        let marks: Vec<Option<&str>> = marks.str()?.iter().collect();
        assert_eq!(
            marks,
            [
                Some("cannot run: shared memory per block, wgmma, TMA"),
                Some("2 of 5 launches cannot run: threads per block"),
                None
            ]
        );
        assert_eq!(
            first_reason(&table)?,
            Some(("gemm".to_string(), reason.to_string()))
        );
        Ok(())
    }

    #[test]
    fn launches_that_cannot_run_are_counted_with_their_share_and_causes() -> PolarsResult<()> {
        let part = |reasons: &[&str], launches: &[i64], baseline: &[f64]| {
            df!(
                REASON => reasons,
                REASON_LAUNCHES => launches,
                REASON_BASELINE => baseline,
            )
        };
        let wgmma = "not launchable on NVIDIA A100-SXM4-40GB: uses wgmma (compute capability ≥ \
                     9.0), the device has 8.0";
        let smem = "not launchable on NVIDIA A100-SXM4-40GB: needs 200 KiB shared memory per \
                    block, the device allows 163 KiB; uses wgmma (compute capability ≥ 9.0), the \
                    device has 8.0";
        let mut counted = not_launchable(&[
            part(&[wgmma], &[1], &[100.0])?,
            part(&[smem, wgmma], &[1, 1], &[200.0, 112.0])?,
            DataFrame::empty(),
        ])?;
        counted.all_baseline_ns = 1000.0;
        assert_eq!(counted.launches, 3);
        assert_eq!(counted.baseline_ns, 412.0);
        assert_eq!(
            counted.causes,
            [
                ("wgmma".to_string(), 3),
                ("shared memory per block".to_string(), 1)
            ]
        );
        assert_eq!(
            counted.summary("NVIDIA A100-SXM4-40GB").as_deref(),
            Some(
                "3 launches (41.2 % of the time) cannot run on NVIDIA A100-SXM4-40GB: wgmma (3), \
                 shared memory per block (1); see the `not_launchable` column"
            )
        );
        assert_eq!(NotLaunchable::default().summary("X"), None);
        Ok(())
    }

    #[test]
    fn the_target_clock_is_stated_with_its_source() {
        let clock = |hz: f64, source: &str| {
            TargetClock {
                hz,
                source: source.to_string(),
            }
            .assumption()
        };
        assert_eq!(
            clock(1.41e9, "boost (target device)"),
            "target modelled at its boost clock 1.41 GHz (--sm-clock changes it)"
        );
        assert_eq!(
            clock(1.755e9, "base (target device)"),
            "target modelled at its base clock 1.755 GHz (--sm-clock changes it)"
        );
        assert_eq!(
            clock(1.2e9, "fixed (--sm-clock)"),
            "target modelled at 1.2 GHz, the clock --sm-clock gives"
        );
        assert_eq!(
            clock(1.98e9, "boost (the target's base clock is unknown)"),
            "target modelled at its boost clock 1.98 GHz: its base clock is unknown (--sm-clock \
             changes it)"
        );
    }
}
