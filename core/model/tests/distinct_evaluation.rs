//! The model evaluated once per distinct model input (`model::Evaluation`, behind
//! `model::evaluate`) against the per-launch reference path (`model::evaluate_each_launch`): the
//! same columns in the same order with identical values, on the project's real H100 and H200
//! captures (raw and details pages), the PyTorch layers of `traces/pytorch-layers` (ncu's default
//! set, Speed-of-Light scaling across devices) and a generated Nsight Systems trace, on the
//! launches' own devices and across devices. Also: the columns left out of the key are not model
//! inputs, and an nsys trace collapses to a handful of distinct inputs.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::evaluation::{MEASURED, NOT_MODEL_INPUTS};
use warpsight_model::{
    Evaluation, EvaluationCache, EvaluationOptions, ModelConfig, evaluate, evaluate_each_launch,
};
use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Own devices, and each of the two captured GPUs as the target.
fn configs() -> Vec<(&'static str, ModelConfig)> {
    let on = |name: &str| ModelConfig {
        device_override: Some(name.to_string()),
        ..ModelConfig::default()
    };
    vec![
        ("own device", ModelConfig::default()),
        ("on H100", on("NVIDIA H100 80GB HBM3")),
        ("on H200", on("NVIDIA H200")),
    ]
}

/// Asserts that two frames have the same columns, in order, with identical values (nulls equal).
fn assert_identical(what: &str, fast: &DataFrame, reference: &DataFrame) {
    assert_eq!(
        fast.get_column_names(),
        reference.get_column_names(),
        "{what}: column names and order"
    );
    assert_eq!(fast.height(), reference.height(), "{what}: rows");
    for column in fast.columns() {
        let name = column.name();
        let Ok(other) = reference.column(name) else {
            panic!("{what}: no reference column {name}");
        };
        assert_eq!(column.dtype(), other.dtype(), "{what}: dtype of {name}");
        let same = column
            .as_materialized_series()
            .equals_missing(other.as_materialized_series());
        let first = (!same)
            .then(|| (0..fast.height()).find(|&i| column.get(i).ok() != other.get(i).ok()))
            .flatten();
        assert!(
            same,
            "{what}: column {name} differs, first at row {first:?}: {:?} vs {:?}",
            first.and_then(|i| column.get(i).ok()),
            first.and_then(|i| other.get(i).ok())
        );
    }
}

fn files_in(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

/// The project's captures (raw and details pages of both GPUs) and the default-set PyTorch layers.
fn capture_files() -> Vec<PathBuf> {
    let traces = warpsight_test_support::paths::traces_dir();
    let mut files = Vec::new();
    for gpu in ["h100-80gb-hbm3", "h200"] {
        files.extend(files_in(&traces.join(gpu), ".csv"));
    }
    files.extend(files_in(&traces.join("pytorch-layers"), ".csv"));
    files
}

fn synthetic_nsys(launches: usize) -> Result<DataFrame, Box<dyn std::error::Error>> {
    let temp = tempfile::tempdir()?;
    let csv = temp.path().join("cuda_gpu_trace.csv");
    write_gpu_trace_csv(
        &csv,
        &SyntheticConfig {
            launches,
            memcpy_every: 50,
            schema: Schema::New,
        },
    )?;
    Ok(read_path(&csv, &ReadConfig::default())?.launches)
}

#[test]
fn per_distinct_input_equals_the_per_launch_path_on_real_captures() -> TestResult {
    let registry = warpsight_test_support::registry();
    let files = capture_files();
    // 18 kit captures of each GPU (details and raw pages), plus the two PyTorch layers.
    assert!(files.len() >= 38, "captures found: {}", files.len());
    let mut predicted = 0usize;
    for path in &files {
        let launches = read_path(path, &ReadConfig::default())?.launches;
        for (label, config) in configs() {
            let what = format!("{}, {label}", path.display());
            let fast = evaluate(launches.clone().lazy(), &registry, &config)?.collect()?;
            let reference =
                evaluate_each_launch(launches.clone().lazy(), &registry, &config)?.collect()?;
            assert_identical(&what, &fast, &reference);
            predicted += fast
                .column(warpsight_model::columns::PREDICTED_NS)?
                .is_not_null()
                .sum()
                .unwrap_or(0) as usize;
        }
    }
    // The comparison is not one of nulls: most launches have a prediction.
    assert!(predicted > 500, "predictions compared: {predicted}");
    Ok(())
}

#[test]
fn chunks_evaluated_in_parallel_equal_one_evaluation_on_real_captures() -> TestResult {
    let registry = warpsight_test_support::registry();
    // Chunks of two rows or more (see `EvaluationOptions::parallel_min_rows`).
    let chunked = EvaluationOptions {
        parallel_min_rows: 2,
    };
    let mut compared = 0usize;
    for path in capture_files() {
        let launches = read_path(&path, &ReadConfig::default())?.launches;
        // The launches' own devices and one cross-device target (the other is the same path).
        for (label, config) in configs().into_iter().step_by(2) {
            let what = format!("{}, {label}, chunks", path.display());
            let whole = Evaluation::new(launches.clone().lazy(), &registry, &config)?;
            let parts =
                Evaluation::with_options(launches.clone().lazy(), &registry, &config, chunked)?;
            if whole.configs().height() >= 2 {
                compared += 1;
            }
            assert_identical(&what, &parts.configs().clone(), &whole.configs().clone());
            assert_identical(&what, &parts.per_launch()?, &whole.per_launch()?);
        }
    }
    // Most captures have several distinct inputs, so they were evaluated in more than one chunk.
    assert!(
        compared > 30,
        "captures with several distinct inputs: {compared}"
    );
    Ok(())
}

/// The parts of one export evaluated with a shared [`EvaluationCache`] give what each part gives
/// without it, the later parts finding their inputs in the cache: an nsys trace (few inputs, all
/// found), and real captures cut in three (inputs that all differ: none found, and a part with
/// one new input evaluates it as it is evaluated among others).
#[test]
fn parts_evaluated_with_a_shared_cache_equal_parts_evaluated_alone() -> TestResult {
    let registry = warpsight_test_support::registry();
    let mut exports = vec![("synthetic nsys".to_string(), synthetic_nsys(6_000)?)];
    // A few captures of different kinds (the other tests of this file go through all of them).
    for path in capture_files().into_iter().step_by(6) {
        exports.push((
            path.display().to_string(),
            read_path(&path, &ReadConfig::default())?.launches,
        ));
    }
    let mut found = 0usize;
    for (name, launches) in &exports {
        for (label, config) in configs().into_iter().step_by(2) {
            let cache = std::sync::Arc::new(EvaluationCache::default());
            let cached_config = ModelConfig {
                cache: Some(cache.clone()),
                ..config.clone()
            };
            let height = launches.height();
            let cuts = [0, height / 3, height - height / 3, height];
            let mut evaluated = 0usize;
            for range in cuts.windows(2) {
                let part = launches.slice(range[0] as i64, range[1] - range[0]);
                if part.height() == 0 {
                    continue;
                }
                let what = format!("{name}, {label}, rows {}..{}", range[0], range[1]);
                let alone = Evaluation::new(part.clone().lazy(), &registry, &config)?;
                let shared = Evaluation::new(part.lazy(), &registry, &cached_config)?;
                assert_identical(&what, &shared.configs().clone(), &alone.configs().clone());
                assert_identical(&what, &shared.per_launch()?, &alone.per_launch()?);
                evaluated += alone.configs().height();
            }
            // The cache keeps each distinct input once: fewer than were evaluated when the
            // parts share inputs.
            assert!(cache.inputs() <= evaluated, "{name}, {label}");
            found += evaluated - cache.inputs();
        }
    }
    // The nsys trace's parts share their few inputs.
    assert!(found >= 12, "inputs found in the cache: {found}");
    Ok(())
}

/// A cache whose column names were found before any launch was read (`prepare`, as `analyze` does
/// while it reads the first file), and a cache that starts with them (`with_columns_of`, the next
/// files), give the evaluations a cache-less evaluation gives, under every configuration. The
/// second starts without outputs, and an unknown override device is not prepared but still the
/// evaluation's error.
#[test]
fn prepared_model_columns_give_the_evaluation_of_an_unprepared_one() -> TestResult {
    let registry = warpsight_test_support::registry();
    let launches = synthetic_nsys(2_000)?;
    for (label, config) in configs() {
        let prepared = std::sync::Arc::new(EvaluationCache::default());
        prepared.prepare(&registry, &config)?;
        let next = std::sync::Arc::new(prepared.with_columns_of());
        assert_eq!(next.inputs(), 0, "{label}");
        let alone = Evaluation::new(launches.clone().lazy(), &registry, &config)?;
        for cache in [prepared, next] {
            let cached = ModelConfig {
                cache: Some(cache),
                ..config.clone()
            };
            let evaluation = Evaluation::new(launches.clone().lazy(), &registry, &cached)?;
            assert_eq!(evaluation.model_columns(), alone.model_columns(), "{label}");
            assert_identical(label, &evaluation.per_launch()?, &alone.per_launch()?);
        }
    }
    let unknown = ModelConfig {
        device_override: Some("NVIDIA TITAN Q".to_string()),
        ..ModelConfig::default()
    };
    let cache = EvaluationCache::default();
    assert!(cache.prepare(&registry, &unknown).is_err());
    Ok(())
}

#[test]
fn per_distinct_input_equals_the_per_launch_path_on_an_nsys_trace() -> TestResult {
    let registry = warpsight_test_support::registry();
    let launches = synthetic_nsys(20_000)?;
    for (label, config) in configs() {
        let evaluation = Evaluation::new(launches.clone().lazy(), &registry, &config)?;
        // Six kernels with six grid shapes each: at most 36 distinct inputs, not 20 000.
        assert!(
            (6..=36).contains(&evaluation.configs().height()),
            "{label}: {} distinct inputs",
            evaluation.configs().height()
        );
        assert_eq!(evaluation.config_ids().len(), 20_000);
        let reference =
            evaluate_each_launch(launches.clone().lazy(), &registry, &config)?.collect()?;
        assert_identical(
            &format!("synthetic nsys, {label}"),
            &evaluation.per_launch()?,
            &reference,
        );
        // A few rows and a few columns are the same values as the whole frame's.
        let rows = IdxCa::from_vec("rows".into(), vec![19_999, 0, 777]);
        assert_identical(
            &format!("synthetic nsys rows, {label}"),
            &evaluation.rows(&rows)?,
            &reference.take(&rows)?,
        );
        let some = evaluation.per_launch_columns(&[
            warpsight_model::columns::THEORETICAL_OCCUPANCY,
            warpsight_model::columns::PREDICTION_ERROR,
        ])?;
        let mut names: Vec<&str> = launches_names(&reference);
        names.extend([
            warpsight_model::columns::THEORETICAL_OCCUPANCY,
            warpsight_model::columns::PREDICTION_ERROR,
        ]);
        assert_identical(
            &format!("synthetic nsys columns, {label}"),
            &some,
            &reference.select(names)?,
        );
    }
    Ok(())
}

/// Launches with every combination of instruction and memory counts, each evaluated alone (its
/// missing counters are then null on every row, so the model plans them as absent), equal the
/// per-launch path's rows on the frame of all four, where every counter column has a value
/// somewhere. Only the launch with both counts gets a prediction.
#[test]
fn counters_null_on_every_input_planned_as_absent_give_the_per_launch_values() -> TestResult {
    let registry = warpsight_test_support::registry();
    let inst = 132.0 * 16.0 * 8.0 * 100_000.0;
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA H100 80GB HBM3"; 4],
        lt::CC_MAJOR => [9i64; 4],
        lt::CC_MINOR => [0i64; 4],
        lt::BLOCK_X => [256i64; 4],
        lt::GRID_X => [2112i64, 1000, 4000, 500],
        lt::REGISTERS_PER_THREAD => [32i64; 4],
        lt::DURATION_NS => [600_000.0, 5_000.0, 9_000.0, 2_000.0],
        lt::INST_EXECUTED => [Some(inst), None, Some(inst / 2.0), None],
        "sm__inst_executed_pipe_fp64.sum" => [Some(inst), None, None, None],
        lt::DRAM_BYTES_READ => [Some(1.0e6), Some(2.0e6), None, None],
        "dram__throughput.avg.pct_of_peak_sustained_elapsed" => [Some(10.0), Some(80.0), None, None],
    )?;
    for (label, config) in configs() {
        let reference =
            evaluate_each_launch(frame.clone().lazy(), &registry, &config)?.collect()?;
        for row in 0..frame.height() {
            let what = format!("row {row} alone, {label}");
            let alone = frame.slice(row as i64, 1);
            let fast = evaluate(alone.lazy(), &registry, &config)?.collect()?;
            assert_identical(&what, &fast, &reference.slice(row as i64, 1));
        }
        let predicted = reference.column(warpsight_model::columns::PREDICTED_NS)?;
        let predicted: Vec<bool> = predicted
            .is_not_null()
            .iter()
            .map(|p| p == Some(true))
            .collect();
        assert_eq!(predicted, [true, false, false, false], "{label}");
    }
    Ok(())
}

/// The launch-table columns of an evaluated frame (those before the model's first column).
fn launches_names(evaluated: &DataFrame) -> Vec<&str> {
    evaluated
        .get_column_names()
        .into_iter()
        .map(|n| n.as_str())
        .take_while(|n| {
            *n != warpsight_model::columns::THREADS_PER_BLOCK
                && *n != warpsight_model::columns::MODEL_SM_CLOCK_HZ
        })
        .collect()
}

/// Overwrites `column` of `frame` (when present) with values that differ on every row.
fn scramble(frame: &mut DataFrame, column: &str) -> PolarsResult<()> {
    let Ok(existing) = frame.column(column) else {
        return Ok(());
    };
    let height = frame.height();
    let replaced = match existing.dtype() {
        DataType::String => Column::new(
            column.into(),
            (0..height)
                .map(|i| format!("scrambled {i}"))
                .collect::<Vec<_>>(),
        ),
        DataType::Float64 => Column::new(
            column.into(),
            (0..height)
                .map(|i| 1.0e6 + i as f64 * 17.0)
                .collect::<Vec<_>>(),
        ),
        _ => Column::new(
            column.into(),
            (0..height)
                .map(|i| 1_000_003 + i as i64)
                .collect::<Vec<_>>(),
        )
        .cast(existing.dtype())?,
    };
    frame.with_column(replaced)?;
    Ok(())
}

#[test]
fn the_columns_left_out_of_the_key_are_not_model_inputs() -> TestResult {
    // On the per-launch reference path, overwriting every column left out of the key changes
    // no model column except those computed from the measured duration, which must change.
    let registry = warpsight_test_support::registry();
    let traces = warpsight_test_support::paths::traces_dir();
    let inputs = [
        read_path(
            &traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv"),
            &ReadConfig::default(),
        )?
        .launches,
        read_path(
            &traces.join("h200/reduction.ncu-details.csv"),
            &ReadConfig::default(),
        )?
        .launches,
        synthetic_nsys(2_000)?,
    ];
    for (index, launches) in inputs.iter().enumerate() {
        for (label, config) in configs() {
            let what = format!("input {index}, {label}");
            let conformed =
                warpsight_ingest::launch_table::conform(launches.clone().lazy())?.collect()?;
            let mut scrambled = conformed.clone();
            for column in NOT_MODEL_INPUTS {
                scramble(&mut scrambled, column)?;
            }
            let before = evaluate_each_launch(conformed.lazy(), &registry, &config)?.collect()?;
            let after = evaluate_each_launch(scrambled.lazy(), &registry, &config)?.collect()?;
            let model: Vec<String> = before
                .get_column_names()
                .into_iter()
                .skip(launches_names(&before).len())
                .map(|n| n.to_string())
                .collect();
            assert!(model.len() > 50, "{what}: model columns {}", model.len());
            let mut measured_changed = false;
            for name in &model {
                let same = before
                    .column(name)?
                    .as_materialized_series()
                    .equals_missing(after.column(name)?.as_materialized_series());
                if MEASURED.contains(&name.as_str()) {
                    measured_changed |= !same;
                } else {
                    assert!(
                        same,
                        "{what}: {name} changed when non-inputs were overwritten"
                    );
                }
            }
            assert!(
                measured_changed || index == 2,
                "{what}: no measured column changed with the duration (the check would be empty)"
            );
        }
    }
    // The nsys trace has no counters, so only its achieved FLOP/s could change, and they are
    // null; the duration must at least be among the overwritten columns.
    assert!(NOT_MODEL_INPUTS.contains(&lt::DURATION_NS));
    Ok(())
}
