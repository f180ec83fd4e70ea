//! The time model against independent references: measured durations of the project's own
//! H100 and H200 captures (`traces/h100-80gb-hbm3`, `traces/h200`, ncu `gpu__time_duration.sum`),
//! the bottlenecks the CUDA documentation explains for the capture kit's kernels, and hand
//! arithmetic from the plugins' published rates.

use std::collections::BTreeMap;
use std::path::PathBuf;

use polars::prelude::*;

use warpsight_ingest::launch_table::{self, column_names as lt};
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, ModelError, evaluate};
use warpsight_test_support::registry;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The capture folders of the repository's `traces/`.
fn capture_dirs() -> Vec<PathBuf> {
    let root = warpsight_test_support::paths::traces_dir();
    vec![root.join("h100-80gb-hbm3"), root.join("h200")]
}

/// Every raw page of a capture folder, modelled on the GPU it ran on.
fn modelled(dir: &std::path::Path) -> Result<DataFrame, Box<dyn std::error::Error>> {
    let mut frames = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".ncu-raw.csv"))
        .collect();
    paths.sort();
    for path in paths {
        let trace = read_path(&path, &ReadConfig::default())?;
        let frame = evaluate(trace.launches.lazy(), &registry(), &ModelConfig::default())?
            .select([
                col(lt::SOURCE_FILE),
                col(lt::KERNEL_NAME),
                col(lt::GRID_X),
                col(lt::BLOCK_X),
                col(lt::DURATION_NS),
                col(out::PREDICTED_NS),
                col(out::BOTTLENECK),
                col(out::BOTTLENECK_DETAIL),
            ])
            .collect()?;
        frames.push(frame.lazy());
    }
    Ok(concat(frames, UnionArgs::default())?.collect()?)
}

/// Median and nearest-rank 90th percentile.
fn median_p90(mut values: Vec<f64>) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
    (median, values[rank - 1])
}

fn errors(frame: &DataFrame) -> Result<Vec<f64>, PolarsError> {
    let measured = frame.column(lt::DURATION_NS)?.f64()?;
    let predicted = frame.column(out::PREDICTED_NS)?.f64()?;
    Ok(measured
        .iter()
        .zip(predicted.iter())
        .map(|(m, p)| match (m, p) {
            (Some(m), Some(p)) if m > 0.0 => ((p - m) / m).abs(),
            _ => f64::INFINITY,
        })
        .collect())
}

#[test]
fn same_device_accuracy_on_the_h100_and_h200_captures() -> TestResult {
    for dir in capture_dirs() {
        let frame = modelled(&dir)?;
        assert_eq!(frame.height(), 43, "{}", dir.display());
        let errs = errors(&frame)?;
        assert!(
            errs.iter().all(|e| e.is_finite()),
            "a launch got no prediction in {}",
            dir.display()
        );
        let (median, p90) = median_p90(errs.clone());
        let kernels = frame.column(lt::KERNEL_NAME)?.str()?;
        let names = frame.column(out::BOTTLENECK)?.str()?;
        for (i, e) in errs.iter().enumerate() {
            println!(
                "{:>6.1} %  {:<40} {:?}",
                e * 100.0,
                kernels.get(i).unwrap_or("?"),
                names.get(i)
            );
        }
        println!(
            "{}: median {:.1} %, p90 {:.1} %",
            dir.display(),
            median * 100.0,
            p90 * 100.0
        );
        // Issue #11 targets: median ≤ 15 %, p90 ≤ 40 % per launch on each GPU.
        assert!(median <= 0.15, "{}: median {median}", dir.display());
        assert!(p90 <= 0.40, "{}: p90 {p90}", dir.display());
    }
    Ok(())
}

/// The kit's kernels and the bottleneck the CUDA documentation explains for them (issue #11),
/// checked at each kernel's largest launch (the longest; grid-stride kernels keep one grid size)
/// on each GPU: FP32/FP64/FP16 pipes,
/// DRAM for streaming copies, L1/LSU for the naive SGEMM, uncoalesced global access for the naive
/// transpose, shared-memory bank conflicts for the tiled one, DRAM once padded, the blocks-per-SM
/// limit at 32-thread blocks, and occupancy for the 65-register kernel.
#[test]
fn bottlenecks_are_the_ones_the_cuda_documentation_explains() -> TestResult {
    let expected: &[(&str, &str)] = &[
        ("fma_chain_fp32", "fma"),
        ("fma_chain_fp64", "fp64"),
        ("fma_chain_fp16x2", "fp16"),
        ("copy_kernel", "dram"),
        ("saxpy_kernel", "dram"),
        ("sgemm_naive", "l1"),
        ("transpose_naive", "uncoalesced_global"),
        ("transpose_tiled", "shared"),
        ("transpose_tiled_padded", "dram"),
        ("regs65_kernel", "occupancy"),
    ];
    for dir in capture_dirs() {
        let frame = modelled(&dir)?;
        let kernels = frame.column(lt::KERNEL_NAME)?.str()?;
        let durations = frame.column(lt::DURATION_NS)?.f64()?;
        let names = frame.column(out::BOTTLENECK)?.str()?;
        let details = frame.column(out::BOTTLENECK_DETAIL)?.str()?;
        // The largest launch of each kernel.
        let mut largest: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for row in 0..frame.height() {
            let short = kernels
                .get(row)
                .unwrap_or("")
                .split('(')
                .next()
                .unwrap_or("")
                .to_string();
            let duration = durations.get(row).unwrap_or(0.0);
            let entry = largest.entry(short).or_insert((duration, row));
            if duration > entry.0 {
                *entry = (duration, row);
            }
        }
        for (kernel, bottleneck) in expected {
            let (_, row) = largest
                .get(*kernel)
                .ok_or(format!("{kernel} not in {}", dir.display()))?;
            assert_eq!(
                names.get(*row),
                Some(*bottleneck),
                "{kernel} in {}: {:?}",
                dir.display(),
                details.get(*row)
            );
        }
        let (_, row) = largest.get("transpose_tiled").ok_or("no transpose_tiled")?;
        assert!(
            details
                .get(*row)
                .is_some_and(|d| d.contains("bank conflicts")),
            "{:?}",
            details.get(*row)
        );
        // block_sweep at 32 threads per block: the blocks-per-SM limit (32 blocks of 1 warp: 50 %).
        let blocks = frame.column(lt::BLOCK_X)?.i64()?;
        let mut checked = 0;
        for row in 0..frame.height() {
            if kernels
                .get(row)
                .is_some_and(|k| k.starts_with("scale_add_kernel"))
                && blocks.get(row) == Some(32)
            {
                assert_eq!(names.get(row), Some("blocks"), "{:?}", details.get(row));
                assert!(
                    details
                        .get(row)
                        .is_some_and(|d| d.contains("32 resident blocks per SM")),
                    "{:?}",
                    details.get(row)
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 1, "{}", dir.display());
    }
    Ok(())
}

/// Issue #11 item 4 and #23 item 1: a same-device prediction reads nothing derived from the
/// measured time but ncu's two clock readings (SM and DRAM frequency). Every other such column is
/// overwritten with garbage, and no prediction moves; garbling the SM clock reading does move them
/// (the test would pass vacuously if the model did not read it).
#[test]
fn predictions_do_not_read_the_measured_time() -> TestResult {
    let dir = capture_dirs().remove(0);
    let clocks = [
        launch_table::column_names::SM_CLOCK_HZ,
        launch_table::column_names::DRAM_CLOCK_HZ,
    ];
    for case in ["sgemm", "transpose", "block_sweep"] {
        let path = dir.join(format!("{case}.ncu-raw.csv"));
        let launches = read_path(&path, &ReadConfig::default())?.launches;
        let mut garbled = launches.clone();
        let mut overwritten = 0;
        for column in launches.columns() {
            let name = column.name().to_string();
            if !launch_table::is_time_derived(&name)
                || !column.dtype().is_primitive_numeric()
                || clocks.contains(&name.as_str())
            {
                continue;
            }
            let values: Vec<f64> = (0..launches.height())
                .map(|i| 1.0e7 + 977.0 * i as f64)
                .collect();
            garbled.with_column(Column::new(name.as_str().into(), values))?;
            overwritten += 1;
        }
        assert!(
            overwritten >= 10,
            "only {overwritten} time-derived columns in {}",
            path.display()
        );
        let predict = |frame: DataFrame| -> Result<Vec<Option<f64>>, ModelError> {
            let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
            Ok(out.column(out::PREDICTED_NS)?.f64()?.iter().collect())
        };
        let clean = predict(launches.clone())?;
        assert!(clean.iter().all(Option::is_some));
        assert_eq!(clean, predict(garbled)?, "{}", path.display());
        let mut other_clock = launches;
        let height = other_clock.height();
        other_clock.with_column(Column::new(
            launch_table::column_names::SM_CLOCK_HZ.into(),
            vec![1.0e9; height],
        ))?;
        assert_ne!(clean, predict(other_clock)?, "{}", path.display());
    }
    Ok(())
}

/// Issue #11 item 2: the details page and the raw page of the same launches give the same model
/// inputs and the same predictions. The kit's details pages carry the `--metrics` list only, so the
/// raw page is restricted to the columns the details page has (a recapture with the kit's extended
/// list makes the full set equal too, docs/model-v2/SPEC.md §1.2).
#[test]
fn details_and_raw_pages_give_equal_predictions() -> TestResult {
    for dir in capture_dirs() {
        for case in [
            "copy_saxpy",
            "sgemm",
            "transpose",
            "precision",
            "regs_64_65",
        ] {
            let details = read_path(
                &dir.join(format!("{case}.ncu-details.csv")),
                &ReadConfig::default(),
            )?
            .launches;
            let raw = read_path(
                &dir.join(format!("{case}.ncu-raw.csv")),
                &ReadConfig::default(),
            )?
            .launches;
            // The details page gives the branch count and the L1 hit rate under their section
            // labels; the raw page keeps them under their metric names.
            let shared: Vec<String> = details
                .get_column_names()
                .iter()
                .map(|n| n.to_string())
                .chain([
                    "smsp__inst_executed_op_branch.sum".to_string(),
                    "l1tex__t_sector_hit_rate.pct".to_string(),
                ])
                .filter(|n| raw.schema().contains(n))
                .collect();
            let raw = raw.select(shared.iter().map(|s| s.as_str()))?;
            let predict = |frame: DataFrame| -> Result<Vec<Option<f64>>, ModelError> {
                let out =
                    evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
                Ok(out.column(out::PREDICTED_NS)?.f64()?.iter().collect())
            };
            let from_details = predict(details)?;
            let from_raw = predict(raw)?;
            assert!(
                from_details.iter().all(Option::is_some),
                "{case} in {}",
                dir.display()
            );
            for (a, b) in from_details.iter().zip(&from_raw) {
                let (a, b) = (a.unwrap_or(f64::NAN), b.unwrap_or(f64::NAN));
                assert!(
                    (a - b).abs() <= 1e-9 * a.abs(),
                    "{case} in {}: {a} vs {b}",
                    dir.display()
                );
            }
        }
    }
    Ok(())
}

/// Issue #11 targets for cross-device prediction: every kit launch captured on one GPU predicted
/// on the other (measured time × model(target) / model(source)), compared with the other GPU's
/// capture of the same launch; median ≤ 10 %, p90 ≤ 25 %, both ways.
#[test]
fn cross_device_h100_to_h200_and_back() -> TestResult {
    let dirs = capture_dirs();
    for (source, target, target_name) in [
        (&dirs[0], &dirs[1], "NVIDIA H200"),
        (&dirs[1], &dirs[0], "NVIDIA H100 80GB HBM3"),
    ] {
        let mut errs = Vec::new();
        for case in [
            "block_sweep",
            "copy_saxpy",
            "outer_product",
            "precision",
            "reduction",
            "regs_64_65",
            "sgemm",
            "smem_limited",
            "transpose",
        ] {
            let launches = read_path(
                &source.join(format!("{case}.ncu-raw.csv")),
                &ReadConfig::default(),
            )?
            .launches;
            let config = ModelConfig {
                device_override: Some(target_name.into()),
                ..ModelConfig::default()
            };
            let predicted = evaluate(launches.lazy(), &registry(), &config)?.collect()?;
            let measured = read_path(
                &target.join(format!("{case}.ncu-raw.csv")),
                &ReadConfig::default(),
            )?
            .launches;
            let p = predicted.column(out::PREDICTED_NS)?.f64()?;
            let m = measured.column(lt::DURATION_NS)?.f64()?;
            let pk = predicted.column(lt::KERNEL_NAME)?.str()?;
            let mk = measured.column(lt::KERNEL_NAME)?.str()?;
            assert_eq!(p.len(), m.len(), "{case}");
            for row in 0..p.len() {
                assert_eq!(
                    pk.get(row),
                    mk.get(row),
                    "{case}: launches in the same order"
                );
                let (Some(p), Some(m)) = (p.get(row), m.get(row)) else {
                    return Err(format!("{case} launch {row}: no prediction or measurement").into());
                };
                errs.push(((p - m) / m).abs());
            }
        }
        let (median, p90) = median_p90(errs);
        println!(
            "{} -> {target_name}: median {:.1} %, p90 {:.1} %",
            source.display(),
            median * 100.0,
            p90 * 100.0
        );
        assert!(
            median <= 0.10 && p90 <= 0.25,
            "{target_name}: median {median}, p90 {p90}"
        );
    }
    Ok(())
}

/// Hand arithmetic from the Programming Guide's rates: a pure FP64 stream of instructions on H100
/// (2 warp instructions per SM per cycle at 1.98 GHz, 132 SMs) takes instructions / 132 / 2 / f,
/// plus the launch overhead, when it fills whole waves.
#[test]
fn an_fp64_bound_launch_takes_its_instructions_at_the_fp64_rate() -> TestResult {
    let warps_per_block = 8.0;
    let blocks = 132 * 16;
    let per_warp = 100_000.0;
    let inst = blocks as f64 * warps_per_block * per_warp;
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA H100 80GB HBM3"],
        lt::CC_MAJOR => [9i64],
        lt::CC_MINOR => [0i64],
        lt::BLOCK_X => [256i64],
        lt::GRID_X => [blocks as i64],
        lt::REGISTERS_PER_THREAD => [32i64],
        lt::INST_EXECUTED => [inst],
        "sm__inst_executed_pipe_fp64.sum" => [inst],
        // A prediction needs a byte count of some memory level; this kernel moves none.
        lt::DRAM_BYTES_READ => [0.0],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let predicted = out
        .column(out::PREDICTED_NS)?
        .f64()?
        .get(0)
        .ok_or("no prediction")?;
    let fp64_ns = inst / 132.0 / 2.0 / 1.98e9 * 1e9;
    assert_eq!(out.column(out::BOTTLENECK)?.str()?.get(0), Some("fp64"));
    // Within 2 %: the latency term adds a little through the smooth maximum.
    assert!(
        (predicted - fp64_ns - 2120.0).abs() < 0.02 * fp64_ns,
        "{predicted} vs {fp64_ns}"
    );
    Ok(())
}

/// An export without counters (ncu's default set, nsys) gets no same-device prediction, but
/// still its occupancy.
#[test]
fn no_counters_no_prediction() -> TestResult {
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA H100 80GB HBM3"],
        lt::CC_MAJOR => [9i64],
        lt::CC_MINOR => [0i64],
        lt::BLOCK_X => [256i64],
        lt::GRID_X => [1000i64],
        lt::REGISTERS_PER_THREAD => [32i64],
        lt::DURATION_NS => [5000.0],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    assert_eq!(out.column(out::PREDICTED_NS)?.f64()?.get(0), None);
    assert_eq!(out.column(out::BOUND)?.str()?.get(0), Some("unknown"));
    assert_eq!(
        out.column(out::THEORETICAL_OCCUPANCY)?.f64()?.get(0),
        Some(1.0)
    );
    Ok(())
}

#[test]
fn an_unknown_override_device_is_an_error() -> TestResult {
    let frame = df!(lt::CC_MAJOR => [9i64], lt::CC_MINOR => [0i64], lt::BLOCK_X => [128i64])?;
    let config = ModelConfig {
        device_override: Some("GeForce 256".into()),
        ..ModelConfig::default()
    };
    let result = evaluate(frame.lazy(), &registry(), &config);
    assert!(
        matches!(result, Err(ModelError::UnknownDevice { ref name, .. }) if name == "GeForce 256")
    );
    Ok(())
}

/// Issue #11 item 7: exports without counters (ncu's default set) still predict across devices,
/// from the measured duration and the Speed-of-Light breakdown. The same PyTorch transformer
/// layers profiled on an H100 and on an H200 (`traces/pytorch-layers`): each H100 launch
/// predicted on the H200 and compared with the H200's measurement of the launch at the same
/// position with the same kernel (cuBLAS picks other GEMM kernels for two launches on the H200;
/// those are not compared), and back.
#[test]
fn default_set_exports_predict_across_devices_from_the_speed_of_light() -> TestResult {
    let dir = warpsight_test_support::paths::traces_dir().join("pytorch-layers");
    let h100 = dir.join("h100_gpt_layer.ncu-details.csv");
    let h200 = dir.join("h200_gpt_layer.ncu-details.csv");
    for (source, target, target_name) in [
        (&h100, &h200, "NVIDIA H200"),
        (&h200, &h100, "NVIDIA H100 80GB HBM3"),
    ] {
        let launches = read_path(source, &ReadConfig::default())?.launches;
        // No same-device prediction: the default set has no instruction counters.
        let own = evaluate(
            launches.clone().lazy(),
            &registry(),
            &ModelConfig::default(),
        )?
        .collect()?;
        assert_eq!(own.column(out::PREDICTED_NS)?.null_count(), own.height());
        let config = ModelConfig {
            device_override: Some(target_name.into()),
            ..ModelConfig::default()
        };
        let predicted = evaluate(launches.lazy(), &registry(), &config)?.collect()?;
        let measured = read_path(target, &ReadConfig::default())?.launches;
        let (pk, mk) = (
            predicted.column(lt::KERNEL_NAME)?.str()?,
            measured.column(lt::KERNEL_NAME)?.str()?,
        );
        let (p, m) = (
            predicted.column(out::PREDICTED_NS)?.f64()?,
            measured.column(lt::DURATION_NS)?.f64()?,
        );
        let method = predicted.column(out::PREDICTION_METHOD)?.str()?;
        let mut errs = Vec::new();
        for row in 0..p.len().min(m.len()) {
            if pk.get(row) != mk.get(row) {
                continue;
            }
            assert_eq!(
                method.get(row),
                Some("speed-of-light-scaled"),
                "launch {row}"
            );
            let (Some(p), Some(m)) = (p.get(row), m.get(row)) else {
                return Err(format!("launch {row}: no prediction or measurement").into());
            };
            errs.push(((p - m) / m).abs());
        }
        assert!(errs.len() >= 14, "only {} launches matched", errs.len());
        let (median, p90) = median_p90(errs);
        println!(
            "{} -> {target_name}: median {:.1} %, p90 {:.1} %",
            source.display(),
            median * 100.0,
            p90 * 100.0
        );
        assert!(
            median <= 0.10 && p90 <= 0.25,
            "{target_name}: median {median}, p90 {p90}"
        );
    }
    Ok(())
}
