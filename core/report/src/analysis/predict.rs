//! `predict`: the same launches evaluated on another device (the model's cross-device mode), with
//! the predicted time and the speedup per kernel and in total.
//!
//! The model does the physics (occupancy with the target's limits; FLOP and bytes carried over;
//! the target's SM count, clocks, bandwidths and peaks; a launch with a measured time is scaled as
//! measured × predicted_target / predicted_source). Here the launches are grouped per kernel name
//! and compared with the measured time, or with the model's prediction on the launch's own device
//! where no time was measured.

use polars::prelude::*;

use super::error::AnalysisError;
use super::frame_access::Cells;
use super::load::Loaded;
use warpsight_ingest::launch_table::col as lt;
use warpsight_model::arch::Registry;
use warpsight_model::{self, Evaluation, ModelConfig, columns as mc};

/// Output columns of the predict table.
pub mod predict_col {
    /// Kernel display name.
    pub const KERNEL: &str = "kernel";
    /// Number of launches.
    pub const LAUNCHES: &str = "launches";
    /// Device the launches were modelled on first (their own).
    pub const SOURCE_DEVICE: &str = "source_device";
    /// The target device.
    pub const TARGET_DEVICE: &str = "target_device";
    /// Measured total time on the source device, ns.
    pub const MEASURED_NS: &str = "measured_total_ns";
    /// Predicted total time on the source device, ns.
    pub const SOURCE_PREDICTED_NS: &str = "source_predicted_total_ns";
    /// Predicted total time on the target device, ns.
    pub const TARGET_PREDICTED_NS: &str = "target_predicted_total_ns";
    /// Baseline (measured, else source prediction) / target prediction.
    pub const SPEEDUP: &str = "speedup";
    /// Mean theoretical occupancy on the source, 0–1.
    pub const SOURCE_OCCUPANCY: &str = "source_occupancy";
    /// Mean theoretical occupancy on the target, 0–1.
    pub const TARGET_OCCUPANCY: &str = "target_occupancy";
    /// Limiter on the target (first launch).
    pub const TARGET_LIMITER: &str = "target_limiter";
    /// Bound on the target (first launch).
    pub const TARGET_BOUND: &str = "target_bound";
    /// Full kernel name.
    pub const KERNEL_NAME: &str = "kernel_name";
}

use predict_col as pc;

/// The assumptions behind a cross-device prediction, printed with its table.
pub const ASSUMPTIONS: &[&str] = &[
    "the same launches (grid, block, registers, shared memory) run unchanged on the target",
    "occupancy is recomputed with the target's limits; FLOP and bytes per launch are carried over",
    "the target's SM count, SM clock, DRAM/L2 bandwidth and peak FLOP/s are used (boost clock, dense peaks)",
    "a launch with a measured time is predicted as measured × predicted_target / predicted_source",
    "speedup = measured time (or the model's prediction on the source when none was measured) / predicted target time",
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
    /// Launches without a prediction on the target.
    pub unpredicted: usize,
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
    /// Launches without a prediction on the target.
    unpredicted: usize,
}

/// Internal partial columns: the sums and counts of the occupancies.
const SOURCE_OCCUPANCY_SUM: &str = "__source_occupancy_sum";
const SOURCE_OCCUPANCY_COUNT: &str = "__source_occupancy_count";
const TARGET_OCCUPANCY_SUM: &str = "__target_occupancy_sum";
const TARGET_OCCUPANCY_COUNT: &str = "__target_occupancy_count";

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
    let joined = DataFrame::new(on_target.height(), selected)?.lazy();
    let sum = super::groups::null_aware_sum;
    let per_kernel = joined
        .clone()
        .with_column(col(lt::DURATION_NS).cast(DataType::Float64))
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
            col(mc::BOUND).first().alias(pc::TARGET_BOUND),
        ])
        .collect()?;
    let unpredicted = joined
        .filter(col(mc::PREDICTED_NS).is_null())
        .select([len().alias("n")])
        .collect()?;
    let unpredicted = Cells::new(&unpredicted).i64("n", 0).unwrap_or(0).max(0) as usize;
    Ok(PredictionPart {
        per_kernel,
        unpredicted,
    })
}

/// The prediction of several inputs from their parts: per kernel name, the sums added and the
/// mean occupancies weighted by their launch counts.
pub fn combine(
    parts: Vec<PredictionPart>,
    registry: &Registry,
    target: &str,
) -> Result<Prediction, AnalysisError> {
    let unpredicted = parts.iter().map(|p| p.unpredicted).sum();
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
            col(pc::TARGET_BOUND).first(),
        ])
        .with_column(
            (coalesce(&[col(pc::MEASURED_NS), col(pc::SOURCE_PREDICTED_NS)])
                / col(pc::TARGET_PREDICTED_NS))
            .alias(pc::SPEEDUP),
        )
        // The full name breaks ties between kernels of one short name (unique per row here).
        .sort_by_exprs(
            [
                coalesce(&[col(pc::MEASURED_NS), col(pc::SOURCE_PREDICTED_NS)]),
                col(pc::KERNEL),
                col(lt::KERNEL_NAME),
            ],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false, false])
                .with_nulls_last(true)
                .with_maintain_order(true),
        )
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
        ])
        .collect()?;
    let target_device = registry
        .device(target)
        .map_or_else(|| target.to_string(), |d| d.name.clone());
    Ok(Prediction {
        target_device,
        totals: totals(&per_kernel)?,
        per_kernel,
        unpredicted,
    })
}

/// Sums the baseline and target times over kernels that have both.
pub fn totals(per_kernel: &DataFrame) -> PolarsResult<PredictTotals> {
    let baseline = coalesce(&[col(pc::MEASURED_NS), col(pc::SOURCE_PREDICTED_NS)]);
    let sums = per_kernel
        .clone()
        .lazy()
        .filter(
            baseline
                .clone()
                .is_not_null()
                .and(col(pc::TARGET_PREDICTED_NS).is_not_null()),
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
}
