//! `accuracy`: the model's predicted time compared with measured time, per launch, per kernel and
//! per device, for `warpsight accuracy`.
//!
//! Two modes:
//! - **same device**: each launch is modelled on the GPU it ran on (the model never reads the
//!   measured time then) and its `predicted_ns` is compared with its own `duration_ns`;
//! - **cross device**: the launches of the inputs are predicted on a target device (measured ×
//!   model(target) / model(source), the model's cross-device mode) and compared with the measured
//!   durations of the same launches captured on the target (the `--against` inputs).
//!
//! Cross-device matching (`match_launches`): input files are paired with `--against` files of
//! the same file name (e.g. `h100/sgemm.ncu-raw.csv` with `h200/sgemm.ncu-raw.csv`); files left
//! over on both sides are then paired in command-line order. Within a file pair, the k-th launch of
//! a kernel name (full name) on one side is matched with the k-th launch of that name on the other
//! side ("in order per kernel name"; not a longest common subsequence, which would cost the product
//! of the two lengths in memory on large exports). Launches without a partner are listed in the
//! unmatched table and counted in the summary, never dropped silently.
//!
//! Statistics (`ErrorStats`): the absolute relative error |predicted − measured| / measured per
//! launch; per device its median (mean of the two middle values for an even count), its 90th
//! percentile by nearest rank (the ⌈0.9·n⌉-th smallest), its worst value and the number of
//! launches within 20 %. Per kernel (kernel name and launch configuration), the error of the
//! summed times. Launches without a prediction or a measurement are counted with their reason.

use polars::prelude::*;

use super::error::AnalysisError;
use super::load::Loaded;
use warpsight_ingest::launch_table::column_names as lt;

mod matching;
mod tables;

pub(crate) use matching::{distinct_strings, match_launches};
pub(crate) use tables::{per_kernel, summary};
use warpsight_model::arch::Registry;
use warpsight_model::{self, ModelConfig, columns as mc};

/// Output columns of the accuracy tables.
pub mod accuracy_col {
    /// Input export path.
    pub(crate) const FILE: &str = "file";
    /// Kernel display name: the short name, else the full name.
    pub(crate) const KERNEL: &str = "kernel";
    /// Full kernel name.
    pub(crate) const KERNEL_NAME: &str = "kernel_name";
    /// The device the prediction is for (and the measurement comes from).
    pub const DEVICE: &str = "device";
    /// Cross-device: the device the input launches ran on.
    pub(crate) const SOURCE_DEVICE: &str = "source_device";
    /// The compute capability of the device the prediction is for (`major.minor`; summary).
    pub(crate) const CC: &str = "cc";
    /// Its major part (per launch).
    pub(crate) const CC_MAJOR: &str = "cc_major";
    /// Its minor part (per launch).
    pub(crate) const CC_MINOR: &str = "cc_minor";
    /// Where the SM clock of the prediction came from (the model's `model_sm_clock_source`); in the
    /// summary, each source with its launch count when they differ.
    pub(crate) const CLOCK_SOURCE: &str = "clock_source";
    /// Cross-device: the `--against` export the measurement comes from.
    pub(crate) const MEASURED_FILE: &str = "measured_file";
    /// Cross-device: the launch id of the measurement in [`MEASURED_FILE`].
    pub(crate) const MEASURED_LAUNCH_ID: &str = "measured_launch_id";
    /// Cross-device: the measured time on the source device, ns.
    pub(crate) const SOURCE_MEASURED_NS: &str = "source_measured_ns";
    /// Measured time on [`DEVICE`], ns.
    pub(crate) const MEASURED_NS: &str = "measured_ns";
    /// Predicted time on [`DEVICE`], ns.
    pub(crate) const PREDICTED_NS: &str = "predicted_ns";
    /// |predicted − measured| / measured (0–1 and above); null without both times.
    pub(crate) const ABS_ERROR: &str = "abs_error";
    /// Why a launch has no error: the model's reason, no counters, or no measured time.
    pub(crate) const REASON: &str = "model_reason";
    /// Number of launches.
    pub(crate) const LAUNCHES: &str = "launches";
    /// Launches with both a prediction and a measurement.
    pub(crate) const COMPARED: &str = "compared";
    /// Launches without a prediction or without a measurement.
    pub const UNPREDICTED: &str = "unpredicted";
    /// Per kernel: summed measured time of the compared launches, ns.
    pub(crate) const MEASURED_TOTAL_NS: &str = "measured_total_ns";
    /// Per kernel: summed predicted time of the compared launches, ns.
    pub(crate) const PREDICTED_TOTAL_NS: &str = "predicted_total_ns";
    /// Summary: median absolute error per launch.
    pub(crate) const MEDIAN_ERROR: &str = "median_abs_error";
    /// Summary: 90th percentile (nearest rank) of the absolute error per launch.
    pub(crate) const P90_ERROR: &str = "p90_abs_error";
    /// Summary: the worst absolute error per launch.
    pub(crate) const WORST_ERROR: &str = "worst_abs_error";
    /// Summary: the kernel of the worst launch.
    pub(crate) const WORST_KERNEL: &str = "worst_kernel";
    /// Summary: launches within 20 % of the measurement.
    pub(crate) const WITHIN_20: &str = "within_20pct";
    /// Summary: the reasons of the unpredicted launches with their counts.
    pub const UNPREDICTED_REASONS: &str = "unpredicted_reasons";
    /// Summary (cross-device): launches without a partner, both sides together.
    pub(crate) const UNMATCHED: &str = "unmatched";
    /// Unmatched table: `input` or `against`.
    pub(crate) const SIDE: &str = "side";
    /// Unmatched table: the launch id in [`FILE`].
    pub(crate) const LAUNCH_ID: &str = "launch_id";
}

use accuracy_col as ac;

/// The launch-configuration columns kept with each launch (and grouped on per kernel).
const CONFIG: &[&str] = &[
    lt::GRID_X,
    lt::GRID_Y,
    lt::GRID_Z,
    lt::BLOCK_X,
    lt::BLOCK_Y,
    lt::BLOCK_Z,
    lt::REGISTERS_PER_THREAD,
    lt::STATIC_SMEM_BYTES,
    lt::DYNAMIC_SMEM_BYTES,
];

/// Internal: the file-pair id of a launch (cross-device).
const PAIR: &str = "__pair";
/// Internal: the launch's rank among the launches of its kernel name in its file pair.
const OCCURRENCE: &str = "__occurrence";

/// A launch is "within" the tolerance when its absolute error is at most this.
pub(crate) const WITHIN: f64 = 0.20;

/// The statistics of a set of absolute errors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ErrorStats {
    /// Number of errors.
    pub(crate) count: usize,
    /// Median (mean of the two middle values for an even count).
    pub(crate) median: f64,
    /// 90th percentile by nearest rank: the ⌈0.9·n⌉-th smallest value.
    pub(crate) p90: f64,
    /// Largest value.
    pub(crate) worst: f64,
    /// Values at most [`WITHIN`].
    pub(crate) within_20: usize,
}

impl ErrorStats {
    /// The statistics of `errors` (non-finite values are ignored); `None` when none is left.
    pub(crate) fn of(errors: &[f64]) -> Option<ErrorStats> {
        let mut values: Vec<f64> = errors.iter().copied().filter(|e| e.is_finite()).collect();
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
        Some(ErrorStats {
            count: n,
            median,
            p90: values[rank - 1],
            worst: values[n - 1],
            within_20: values.iter().filter(|e| **e <= WITHIN).count(),
        })
    }
}

/// The result of an accuracy run.
#[derive(Debug, Clone)]
pub struct Accuracy {
    /// One row per compared (or uncomparable) launch, in input order.
    pub per_launch: DataFrame,
    /// One row per device, kernel name and launch configuration, most measured time first.
    pub per_kernel: DataFrame,
    /// One row per device.
    pub summary: DataFrame,
    /// Cross-device only: the launches without a partner (`side`, `file`, `launch_id`, `kernel`).
    pub unmatched: Option<DataFrame>,
    /// Remarks for the user (e.g. the `--against` launches ran on another device than the target).
    pub notes: Vec<String>,
}

/// Same-device accuracy: every launch modelled on the device it ran on.
pub fn same_device(
    loaded: &Loaded,
    registry: &Registry,
    base: &ModelConfig,
) -> Result<Accuracy, AnalysisError> {
    let config = ModelConfig {
        device_override: None,
        ..base.clone()
    };
    let evaluated = warpsight_model::evaluate(loaded.launches.clone().lazy(), registry, &config)?;
    let mut columns = launch_columns();
    columns.extend([
        coalesce(&[col(mc::MODEL_DEVICE), col(lt::DEVICE_NAME)]).alias(ac::DEVICE),
        col(lt::DURATION_NS)
            .cast(DataType::Float64)
            .alias(ac::MEASURED_NS),
    ]);
    columns.extend(prediction_columns([col(lt::CC_MAJOR), col(lt::CC_MINOR)]));
    let per_launch = with_errors(evaluated.select(columns)).collect()?;
    finish(per_launch, None, Vec::new())
}

/// Cross-device accuracy: the launches of `loaded` predicted on `target` and compared with the
/// measured launches of `against` (matched as the module documentation says). `source` names the
/// device the input launches ran on where the export does not say.
pub fn cross_device(
    loaded: &Loaded,
    against: &Loaded,
    registry: &Registry,
    target: &str,
    source: Option<&str>,
    base: &ModelConfig,
) -> Result<Accuracy, AnalysisError> {
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
    let config = ModelConfig {
        device_override: Some(target.to_string()),
        ..base.clone()
    };
    let mut columns = launch_columns();
    columns.extend([
        col(mc::MODEL_DEVICE).alias(ac::DEVICE),
        col(lt::DEVICE_NAME).alias(ac::SOURCE_DEVICE),
        col(lt::DURATION_NS)
            .cast(DataType::Float64)
            .alias(ac::SOURCE_MEASURED_NS),
    ]);
    let cc = registry.device(target).map(|device| device.cc);
    let part = |value: Option<u32>| value.map_or(lit(NULL), |v| lit(i64::from(v)));
    columns.extend(prediction_columns([
        part(cc.map(|cc| cc.major)),
        part(cc.map(|cc| cc.minor)),
    ]));
    let predicted = warpsight_model::evaluate(launches, registry, &config)?
        .select(columns)
        .collect()?;
    let measured = warpsight_ingest::launch_table::conform(against.launches.clone().lazy())?
        .select([
            col(lt::SOURCE_FILE).alias(ac::MEASURED_FILE),
            col(lt::LAUNCH_ID).alias(ac::MEASURED_LAUNCH_ID),
            col(lt::KERNEL_NAME),
            coalesce(&[col(lt::KERNEL_SHORT_NAME), col(lt::KERNEL_NAME)]).alias(ac::KERNEL),
            col(lt::DEVICE_NAME).alias("__measured_device"),
            col(lt::DURATION_NS)
                .cast(DataType::Float64)
                .alias(ac::MEASURED_NS),
        ])
        .collect()?;
    let matched = match_launches(&predicted, ac::FILE, &measured, ac::MEASURED_FILE)?;
    let target_name = registry
        .device(target)
        .map_or_else(|| target.to_string(), |d| d.name.clone());
    let mut notes = Vec::new();
    let other_devices = distinct_strings(&matched.matched, "__measured_device")?
        .into_iter()
        .filter(|d| *d != target_name)
        .collect::<Vec<_>>();
    if !other_devices.is_empty() {
        notes.push(format!(
            "the --against launches ran on {}, not on the target {target_name}",
            other_devices.join(", ")
        ));
    }
    let per_launch = with_errors(matched.matched.lazy().drop(cols(["__measured_device"])))
        .select(cross_launch_order())
        .collect()?;
    finish(per_launch, Some(matched.unmatched), notes)
}

/// The columns taken from the modelled launch frame in both modes.
fn launch_columns() -> Vec<Expr> {
    let mut columns = vec![
        col(lt::SOURCE_FILE).alias(ac::FILE),
        col(lt::LAUNCH_ID),
        coalesce(&[col(lt::KERNEL_SHORT_NAME), col(lt::KERNEL_NAME)]).alias(ac::KERNEL),
        col(lt::KERNEL_NAME),
    ];
    columns.extend(CONFIG.iter().map(|name| col(*name)));
    columns.push(col(mc::SMEM_PER_BLOCK));
    columns
}

/// The model's columns kept with each launch.
/// The model's columns kept with each launch; `cc` is the compute capability of the device the
/// prediction is for.
fn prediction_columns(cc: [Expr; 2]) -> [Expr; 7] {
    let [major, minor] = cc;
    [
        major.cast(DataType::Int64).alias(ac::CC_MAJOR),
        minor.cast(DataType::Int64).alias(ac::CC_MINOR),
        col(mc::MODEL_SM_CLOCK_SOURCE).alias(ac::CLOCK_SOURCE),
        col(mc::PREDICTED_NS).alias(ac::PREDICTED_NS),
        col(mc::BOTTLENECK),
        col(mc::BOTTLENECK_DETAIL),
        col(mc::MODEL_REASON).alias(ac::REASON),
    ]
}

/// The per-launch column order of the cross-device table.
fn cross_launch_order() -> Vec<Expr> {
    let mut order = vec![
        col(ac::FILE),
        col(lt::LAUNCH_ID),
        col(ac::MEASURED_FILE),
        col(ac::MEASURED_LAUNCH_ID),
        col(ac::KERNEL),
        col(ac::KERNEL_NAME),
        col(ac::SOURCE_DEVICE),
        col(ac::DEVICE),
    ];
    order.extend(CONFIG.iter().map(|name| col(*name)));
    order.extend([
        col(mc::SMEM_PER_BLOCK),
        col(ac::SOURCE_MEASURED_NS),
        col(ac::MEASURED_NS),
        col(ac::PREDICTED_NS),
        col(ac::ABS_ERROR),
        col(mc::BOTTLENECK),
        col(mc::BOTTLENECK_DETAIL),
        col(ac::REASON),
    ]);
    order
}

/// Adds [`ac::ABS_ERROR`] and fills [`ac::REASON`] for every launch without one: the model's
/// reason, else missing counters, else a missing measurement.
fn with_errors(frame: LazyFrame) -> LazyFrame {
    let measured_ok = col(ac::MEASURED_NS).gt(lit(0.0)).fill_null(lit(false));
    let predicted_ok = col(ac::PREDICTED_NS).is_not_null();
    let error = ((col(ac::PREDICTED_NS) - col(ac::MEASURED_NS)) / col(ac::MEASURED_NS)).abs();
    let reason = when(predicted_ok.clone().and(measured_ok.clone()))
        .then(lit(NULL).cast(DataType::String))
        .otherwise(coalesce(&[
            col(ac::REASON),
            when(predicted_ok.clone().not())
                .then(lit(
                    "no prediction: the export lacks the instruction count or the memory \
                     byte counts (ncu's default set, a details page, the memory sections alone, \
                     or an nsys trace; capture the raw page or a report with `ncu --set full`)",
                ))
                .otherwise(lit("no measured duration")),
        ]));
    frame.with_columns([
        when(predicted_ok.and(measured_ok))
            .then(error)
            .otherwise(lit(NULL).cast(DataType::Float64))
            .alias(ac::ABS_ERROR),
        reason.alias(ac::REASON),
    ])
}

/// Builds the per-kernel, summary and unmatched tables around the per-launch table.
fn finish(
    per_launch: DataFrame,
    unmatched: Option<DataFrame>,
    notes: Vec<String>,
) -> Result<Accuracy, AnalysisError> {
    let unmatched_count = unmatched.as_ref().map(DataFrame::height);
    Ok(Accuracy {
        per_kernel: per_kernel(&per_launch)?,
        summary: summary(&per_launch, unmatched_count)?,
        per_launch,
        unmatched,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::matching::pair_files;
    use super::*;
    use crate::analysis::frame_access::Cells;

    #[test]
    fn statistics_of_an_odd_count() {
        // Sorted: 0.01 0.05 0.10 0.30 0.50; median 0.10; ⌈0.9·5⌉ = 5th value 0.50.
        let stats = ErrorStats::of(&[0.30, 0.01, 0.50, 0.10, 0.05]).expect("five errors");
        assert_eq!(stats.count, 5);
        assert_eq!(stats.median, 0.10);
        assert_eq!(stats.p90, 0.50);
        assert_eq!(stats.worst, 0.50);
        assert_eq!(stats.within_20, 3);
    }

    #[test]
    fn statistics_of_an_even_count_and_the_nearest_rank() {
        // Twelve values 0.0, 0.1, …, 1.1 given in reverse: the median is the mean of the 6th and
        // 7th smallest (0.5 and 0.6); ⌈0.9·12⌉ = 11, so the p90 is the 11th smallest, 1.0.
        let errors: Vec<f64> = (0..12).map(|i| f64::from(i) / 10.0).rev().collect();
        let stats = ErrorStats::of(&errors).expect("twelve errors");
        assert!((stats.median - 0.55).abs() < 1e-12);
        assert_eq!(stats.p90, 1.0);
        assert_eq!(stats.worst, 1.1);
        // 0.0, 0.1 and 0.2 are within 20 %.
        assert_eq!(stats.within_20, 3);
        assert_eq!(ErrorStats::of(&[f64::NAN]), None);
        assert_eq!(
            ErrorStats::of(&[0.25]).map(|s| (s.median, s.p90)),
            Some((0.25, 0.25))
        );
    }

    /// Four launches on one device: errors 10 %, 50 %, 30 % and one without counters.
    fn launches() -> PolarsResult<DataFrame> {
        let frame = df!(
            ac::FILE => ["a.csv"; 4],
            lt::LAUNCH_ID => [1i64, 2, 3, 4],
            ac::KERNEL => ["k", "k", "m", "n"],
            ac::KERNEL_NAME => ["k()", "k()", "m()", "n()"],
            ac::DEVICE => ["H100"; 4],
            lt::GRID_X => [10i64, 10, 4, 4],
            lt::BLOCK_X => [128i64, 128, 64, 64],
            ac::MEASURED_NS => [100.0f64, 300.0, 1000.0, 50.0],
            ac::PREDICTED_NS => [Some(110.0f64), Some(150.0), Some(700.0), None],
            mc::BOTTLENECK => [Some("dram"), Some("fma"), Some("l1"), None],
            mc::BOTTLENECK_DETAIL => [Some("a"), Some("b"), Some("c"), None],
            ac::REASON => [None::<&str>, None, None, None],
        )?;
        let frame = warpsight_ingest::launch_table::conform(frame.lazy())?
            .with_column(lit(NULL).cast(DataType::Float64).alias(mc::SMEM_PER_BLOCK));
        with_errors(frame).collect()
    }

    #[test]
    fn per_launch_errors_and_reasons() -> PolarsResult<()> {
        let frame = launches()?;
        let errors: Vec<Option<f64>> = frame.column(ac::ABS_ERROR)?.f64()?.iter().collect();
        let rounded: Vec<Option<f64>> = errors
            .iter()
            .map(|e| e.map(|e| (e * 1e9).round() / 1e9))
            .collect();
        assert_eq!(rounded, [Some(0.1), Some(0.5), Some(0.3), None]);
        let reasons = frame.column(ac::REASON)?.str()?;
        assert_eq!(reasons.get(0), None);
        assert!(
            reasons
                .get(3)
                .is_some_and(|r| r.starts_with("no prediction"))
        );
        Ok(())
    }

    #[test]
    fn summary_counts_every_launch() -> PolarsResult<()> {
        let table = summary(&launches()?, None)?;
        assert_eq!(table.height(), 1);
        let mut cells = Cells::new(&table);
        assert_eq!(cells.i64(ac::LAUNCHES, 0), Some(4));
        assert_eq!(cells.i64(ac::COMPARED, 0), Some(3));
        assert_eq!(cells.i64(ac::UNPREDICTED, 0), Some(1));
        // Errors 0.1, 0.3, 0.5: median 0.3, ⌈0.9·3⌉ = 3rd value 0.5.
        assert!((cells.f64(ac::MEDIAN_ERROR, 0).unwrap_or(0.0) - 0.3).abs() < 1e-9);
        assert!((cells.f64(ac::P90_ERROR, 0).unwrap_or(0.0) - 0.5).abs() < 1e-9);
        assert_eq!(cells.str(ac::WORST_KERNEL, 0).as_deref(), Some("k"));
        assert_eq!(cells.i64(ac::WITHIN_20, 0), Some(1));
        assert!(
            cells
                .str(ac::UNPREDICTED_REASONS, 0)
                .is_some_and(|r| r.ends_with("(1)"))
        );
        assert!(!table.schema().contains(ac::UNMATCHED));
        Ok(())
    }

    #[test]
    fn per_kernel_errors_are_of_the_sums() -> PolarsResult<()> {
        let table = per_kernel(&launches()?)?;
        let kernels: Vec<Option<&str>> = table.column(ac::KERNEL)?.str()?.iter().collect();
        // m: 1000 ns measured; k: 400 ns; n has no compared launch and sorts last.
        assert_eq!(kernels, [Some("m"), Some("k"), Some("n")]);
        let mut cells = Cells::new(&table);
        assert_eq!(cells.f64(ac::MEASURED_TOTAL_NS, 1), Some(400.0));
        assert_eq!(cells.f64(ac::PREDICTED_TOTAL_NS, 1), Some(260.0));
        // |260 − 400| / 400 = 0.35.
        assert!((cells.f64(ac::ABS_ERROR, 1).unwrap_or(0.0) - 0.35).abs() < 1e-9);
        // The bottleneck of k's longest launch (300 ns).
        assert_eq!(cells.str(mc::BOTTLENECK, 1).as_deref(), Some("fma"));
        assert_eq!(cells.i64(ac::UNPREDICTED, 2), Some(1));
        assert_eq!(cells.f64(ac::MEASURED_TOTAL_NS, 2), None);
        Ok(())
    }

    #[test]
    fn launches_match_by_file_name_and_order_per_kernel_name() -> PolarsResult<()> {
        let predicted = df!(
            ac::FILE => ["h100/a.csv", "h100/a.csv", "h100/a.csv", "h100/b.csv"],
            lt::LAUNCH_ID => [1i64, 2, 3, 1],
            ac::KERNEL => ["x", "y", "x", "z"],
            ac::KERNEL_NAME => ["x()", "y()", "x()", "z()"],
            ac::PREDICTED_NS => [10.0f64, 20.0, 30.0, 40.0],
        )?;
        // The other GPU's a.csv has y before both x launches and one x launch more; b.csv is
        // listed first and pairs by name, not by position.
        let measured = df!(
            ac::MEASURED_FILE => ["h200/b.csv", "h200/a.csv", "h200/a.csv", "h200/a.csv", "h200/a.csv"],
            ac::MEASURED_LAUNCH_ID => [7i64, 1, 2, 3, 4],
            ac::KERNEL => ["z", "y", "x", "x", "x"],
            ac::KERNEL_NAME => ["z()", "y()", "x()", "x()", "x()"],
            ac::MEASURED_NS => [41.0f64, 21.0, 11.0, 31.0, 99.0],
        )?;
        let result = match_launches(&predicted, ac::FILE, &measured, ac::MEASURED_FILE)?;
        let matched = &result.matched;
        assert_eq!(matched.height(), 4);
        let pairs: Vec<(Option<i64>, Option<f64>)> = matched
            .column(lt::LAUNCH_ID)?
            .i64()?
            .iter()
            .zip(matched.column(ac::MEASURED_NS)?.f64()?.iter())
            .collect();
        // x #1 ↔ 11, y ↔ 21, x #2 ↔ 31, z ↔ 41 (input order kept).
        assert_eq!(
            pairs,
            [
                (Some(1), Some(11.0)),
                (Some(2), Some(21.0)),
                (Some(3), Some(31.0)),
                (Some(1), Some(41.0))
            ]
        );
        let unmatched = &result.unmatched;
        assert_eq!(unmatched.height(), 1);
        let mut cells = Cells::new(unmatched);
        assert_eq!(cells.str(ac::SIDE, 0).as_deref(), Some("against"));
        assert_eq!(cells.i64(ac::LAUNCH_ID, 0), Some(4));
        assert_eq!(cells.str(ac::KERNEL, 0).as_deref(), Some("x"));
        Ok(())
    }

    #[test]
    fn leftover_files_pair_in_order() {
        let left = vec!["a/one.csv".to_string(), "a/two.csv".to_string()];
        let right = vec!["b/two.csv".to_string(), "b/other.csv".to_string()];
        let (l, r) = pair_files(&left, &right);
        assert_eq!(l["a/two.csv"], r["b/two.csv"]);
        assert_eq!(l["a/one.csv"], r["b/other.csv"]);
    }
}
