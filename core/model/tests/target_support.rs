//! Launches that cannot run on another device (`predict --on`, `--device`): every cause gives a
//! reason in `not_launchable` that names the target device and its numbers, and such a launch gets
//! no predicted time there (neither the model's, nor its measured time scaled by the model or by
//! the Speed-of-Light breakdown). Each cause on a minimal frame; then the real captures: the
//! H100's cuBLAS wgmma GEMMs (213–231 KiB of dynamic shared memory per block, wgmma, TMA and
//! clusters) cannot run on an A100, and the capture kit's plain kernels can and are predicted.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, evaluate, evaluate_each_launch};
use warpsight_test_support::registry;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const A100: &str = "NVIDIA A100-SXM4-40GB";

/// One H100 launch of 132 × 256 threads, 32 registers, measured 100 µs, with instruction and DRAM
/// byte counters (so that it is predicted wherever it can run), changed by `extra` columns (which replace the
/// columns of the same name).
fn h100_launch(extra: Vec<Column>) -> PolarsResult<DataFrame> {
    let mut frame = df!(
        lt::DEVICE_NAME => ["NVIDIA H100 80GB HBM3"],
        lt::CC_MAJOR => [9i64],
        lt::CC_MINOR => [0i64],
        lt::BLOCK_X => [256i64],
        lt::GRID_X => [132i64],
        lt::REGISTERS_PER_THREAD => [32i64],
        lt::DURATION_NS => [100_000.0f64],
        lt::INST_EXECUTED => [1.0e8f64],
        "sm__inst_executed_pipe_fma.sum" => [5.0e7f64],
        lt::DRAM_BYTES_READ => [1.0e8f64],
    )?;
    for column in extra {
        frame.with_column(column)?;
    }
    Ok(frame)
}

fn int(name: &str, value: i64) -> Column {
    Column::new(name.into(), [value])
}

fn float(name: &str, value: f64) -> Column {
    Column::new(name.into(), [value])
}

/// What a launch became on a device: not_launchable, predicted_ns, prediction_method.
type Outcome = (Option<String>, Option<f64>, Option<String>);

/// The launch evaluated on `device`.
fn on(device: &str, frame: DataFrame) -> Result<Outcome, Box<dyn std::error::Error>> {
    let config = ModelConfig {
        device_override: Some(device.to_string()),
        ..ModelConfig::default()
    };
    let out = evaluate(frame.lazy(), &registry(), &config)?.collect()?;
    Ok((
        out.column(out::NOT_LAUNCHABLE)?
            .str()?
            .get(0)
            .map(str::to_string),
        out.column(out::PREDICTED_NS)?.f64()?.get(0),
        out.column(out::PREDICTION_METHOD)?
            .str()?
            .get(0)
            .map(str::to_string),
    ))
}

/// `device` cannot run the launch, for `reason`, and gives it no time.
fn cannot_run(device: &str, frame: DataFrame, reason: &str) -> TestResult {
    let (text, predicted, method) = on(device, frame)?;
    assert_eq!(text.as_deref(), Some(reason));
    assert_eq!(predicted, None, "{reason}");
    assert_eq!(method, None, "{reason}");
    Ok(())
}

/// `device` runs the launch and predicts it by scaling its measured time.
fn runs(device: &str, frame: DataFrame) -> TestResult {
    let (text, predicted, method) = on(device, frame)?;
    assert_eq!(text, None, "{device}");
    assert!(
        predicted.is_some_and(|p| p > 0.0),
        "{device}: {predicted:?}"
    );
    assert_eq!(method.as_deref(), Some("measured-scaled"), "{device}");
    Ok(())
}

#[test]
fn the_launch_itself_runs_on_both_devices() -> TestResult {
    runs(A100, h100_launch(vec![])?)?;
    runs("NVIDIA H200", h100_launch(vec![])?)
}

#[test]
fn shared_memory_over_the_opt_in_limit() -> TestResult {
    // 200 KiB of dynamic shared memory fits an H100 (227 KiB) but not an A100 (163 KiB).
    let frame = || h100_launch(vec![int(lt::DYNAMIC_SMEM_BYTES, 200 * 1024)]);
    cannot_run(
        A100,
        frame()?,
        "not launchable on NVIDIA A100-SXM4-40GB: needs 200 KiB shared memory per block, the \
         device allows 163 KiB",
    )?;
    runs("NVIDIA H200", frame()?)?;
    // Not a whole KiB: one decimal.
    cannot_run(
        A100,
        h100_launch(vec![int(lt::DYNAMIC_SMEM_BYTES, 213_188)])?,
        "not launchable on NVIDIA A100-SXM4-40GB: needs 208.2 KiB shared memory per block, the \
         device allows 163 KiB",
    )
}

#[test]
fn threads_per_block_over_the_limit() -> TestResult {
    cannot_run(
        A100,
        h100_launch(vec![int(lt::BLOCK_X, 2048)])?,
        "not launchable on NVIDIA A100-SXM4-40GB: needs 2048 threads per block, the device \
         allows 1024",
    )
}

#[test]
fn registers_per_thread_over_the_maximum() -> TestResult {
    cannot_run(
        A100,
        h100_launch(vec![int(lt::REGISTERS_PER_THREAD, 256)])?,
        "not launchable on NVIDIA A100-SXM4-40GB: needs 256 registers per thread, the device \
         allows 255",
    )
}

#[test]
fn registers_per_block_over_the_maximum() -> TestResult {
    // 1024 threads × 128 registers = 131072 registers, twice the 65536 of a block on CC 8.0.
    cannot_run(
        A100,
        h100_launch(vec![
            int(lt::BLOCK_X, 1024),
            int(lt::REGISTERS_PER_THREAD, 128),
        ])?,
        "not launchable on NVIDIA A100-SXM4-40GB: needs 131072 registers per block, the device \
         allows 65536",
    )
}

#[test]
fn no_block_fits_on_an_sm() -> TestResult {
    // OCCUPANCY.md's GP100 case: 704 threads × 88 registers fit a GP10x sub-partition split but not
    // GP100's, so no block fits on a Tesla P100.
    cannot_run(
        "Tesla P100-SXM2-16GB",
        h100_launch(vec![
            int(lt::BLOCK_X, 704),
            int(lt::REGISTERS_PER_THREAD, 88),
        ])?,
        "not launchable on Tesla P100-SXM2-16GB: no block fits on an SM (limited by registers)",
    )
}

#[test]
fn wgmma_from_the_pipe_counter_or_the_opcodes() -> TestResult {
    let reason = "not launchable on NVIDIA A100-SXM4-40GB: uses wgmma (compute capability 9.x), \
                  the device has 8.0";
    let pipe = || {
        h100_launch(vec![float(
            "sm__inst_executed_pipe_tensor_op_gmma.sum",
            4096.0,
        )])
    };
    cannot_run(A100, pipe()?, reason)?;
    runs("NVIDIA H200", pipe()?)?;
    for opcode in ["HGMMA", "IGMMA", "QGMMA", "BGMMA"] {
        let column = warpsight_ingest::launch_table::sass_opcode_column(opcode);
        cannot_run(A100, h100_launch(vec![float(&column, 64.0)])?, reason)?;
    }
    // A counter of 0 proves nothing.
    runs(
        A100,
        h100_launch(vec![float(
            "sm__inst_executed_pipe_tensor_op_gmma.sum",
            0.0,
        )])?,
    )
}

#[test]
fn tma_from_the_pipe_counter_or_the_opcodes() -> TestResult {
    let reason = "not launchable on NVIDIA A100-SXM4-40GB: uses TMA (compute capability ≥ 9.0), \
                  the device has 8.0";
    cannot_run(
        A100,
        h100_launch(vec![float("sm__inst_executed_pipe_tma.sum", 512.0)])?,
        reason,
    )?;
    for opcode in ["UTMALDG", "UTMASTG", "UBLKCP"] {
        let column = warpsight_ingest::launch_table::sass_opcode_column(opcode);
        cannot_run(A100, h100_launch(vec![float(&column, 8.0)])?, reason)?;
    }
    runs(
        "NVIDIA B200",
        h100_launch(vec![float("sm__inst_executed_pipe_tma.sum", 512.0)])?,
    )
}

#[test]
fn clusters_from_the_launch_statistics() -> TestResult {
    let reason = "not launchable on NVIDIA A100-SXM4-40GB: uses thread-block clusters (compute \
                  capability ≥ 9.0), the device has 8.0";
    cannot_run(
        A100,
        h100_launch(vec![float("launch__cluster_size", 2.0)])?,
        reason,
    )?;
    cannot_run(
        A100,
        h100_launch(vec![float("Launch Statistics/Cluster Size", 4.0)])?,
        reason,
    )?;
    // ncu writes 0 for a launch without clusters.
    runs(A100, h100_launch(vec![float("launch__cluster_size", 0.0)])?)
}

#[test]
fn tensor_types_need_their_compute_capability() -> TestResult {
    let fp8 = || {
        h100_launch(vec![float(
            "sm__ops_path_tensor_src_fp8_sparsity_off.sum",
            1e9,
        )])
    };
    cannot_run(
        A100,
        fp8()?,
        "not launchable on NVIDIA A100-SXM4-40GB: uses FP8 tensor cores (compute capability ≥ \
         8.9), the device has 8.0",
    )?;
    runs("NVIDIA L4", fp8()?)?;
    for (counter, name) in [
        ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", "BF16"),
        ("sm__ops_path_tensor_src_tf32_dst_fp32.sum", "TF32"),
    ] {
        let frame = || h100_launch(vec![float(counter, 1e9)]);
        cannot_run(
            "Tesla V100-SXM2-16GB",
            frame()?,
            &format!(
                "not launchable on Tesla V100-SXM2-16GB: uses {name} tensor cores (compute \
                 capability ≥ 8.0), the device has 7.0"
            ),
        )?;
        runs(A100, frame()?)?;
    }
    // Rates and peaks of the same counter family are not counts: they prove nothing.
    runs(
        "Tesla V100-SXM2-16GB",
        h100_launch(vec![float(
            "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
            1e9,
        )])?,
    )
}

#[test]
fn architecture_specific_and_older_tensor_instructions() -> TestResult {
    // tcgen05 (Blackwell data-centre GPUs) is on 10.x and 11.x only, not on the 12.x GeForce parts.
    let tcgen05 = || {
        let column = warpsight_ingest::launch_table::sass_opcode_column("UTCHMMA");
        h100_launch(vec![float(&column, 64.0)])
    };
    cannot_run(
        "NVIDIA GeForce RTX 5090",
        tcgen05()?,
        "not launchable on NVIDIA GeForce RTX 5090: uses tcgen05 tensor cores (compute capability \
         10.x or 11.x), the device has 12.0",
    )?;
    runs("NVIDIA B200", tcgen05()?)?;
    // Tensor cores at all need compute capability 7.0.
    cannot_run(
        "NVIDIA GeForce GTX 1080",
        h100_launch(vec![float("sm__ops_path_tensor_src_fp16.sum", 1e9)])?,
        "not launchable on NVIDIA GeForce GTX 1080: uses FP16 tensor cores (compute capability ≥ \
         7.0), the device has 6.1",
    )
}

#[test]
fn every_cause_is_named_and_features_are_grouped() -> TestResult {
    cannot_run(
        A100,
        h100_launch(vec![
            int(lt::DYNAMIC_SMEM_BYTES, 226 * 1024),
            float("sm__inst_executed_pipe_tensor_op_gmma.sum", 4096.0),
            float("sm__inst_executed_pipe_tma.sum", 512.0),
            float("launch__cluster_size", 2.0),
            float("sm__ops_path_tensor_src_fp8_sparsity_off.sum", 1e9),
        ])?,
        "not launchable on NVIDIA A100-SXM4-40GB: needs 226 KiB shared memory per block, the \
         device allows 163 KiB; uses wgmma (compute capability 9.x), TMA and thread-block \
         clusters (≥ 9.0) and FP8 tensor cores (≥ 8.9), the device has 8.0",
    )
}

#[test]
fn a_launch_on_its_own_device_is_never_refused_for_its_features() -> TestResult {
    let frame = h100_launch(vec![
        float("sm__inst_executed_pipe_tensor_op_gmma.sum", 4096.0),
        float("launch__cluster_size", 2.0),
    ])?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    assert_eq!(out.column(out::NOT_LAUNCHABLE)?.str()?.get(0), None);
    assert!(out.column(out::PREDICTED_NS)?.f64()?.get(0).is_some());
    Ok(())
}

/// An export without counters (ncu's default set) is predicted on another device from its
/// Speed-of-Light breakdown, unless it cannot run there.
#[test]
fn no_speed_of_light_scaling_where_the_launch_cannot_run() -> TestResult {
    let default_set = |cluster: f64| {
        df!(
            lt::DEVICE_NAME => ["NVIDIA H100 80GB HBM3"],
            lt::CC_MAJOR => [9i64],
            lt::CC_MINOR => [0i64],
            lt::BLOCK_X => [256i64],
            lt::GRID_X => [1320i64],
            lt::REGISTERS_PER_THREAD => [32i64],
            lt::DURATION_NS => [100_000.0f64],
            "GPU Speed Of Light Throughput/DRAM Throughput" => [0.8f64],
            "GPU Speed Of Light Throughput/Compute (SM) Throughput" => [0.3f64],
            "Launch Statistics/Cluster Size" => [cluster],
        )
    };
    let (text, predicted, method) = on(A100, default_set(0.0)?)?;
    assert_eq!(text, None);
    assert!(predicted.is_some());
    assert_eq!(method.as_deref(), Some("speed-of-light-scaled"));
    cannot_run(
        A100,
        default_set(2.0)?,
        "not launchable on NVIDIA A100-SXM4-40GB: uses thread-block clusters (compute capability \
         ≥ 9.0), the device has 8.0",
    )
}

fn captures() -> std::path::PathBuf {
    warpsight_test_support::paths::traces_dir()
}

/// The H100's cuBLAS GEMMs on an A100: every launch names its shared memory and wgmma, and none
/// has a time; the reference path (`evaluate_each_launch`) gives the same columns.
#[test]
fn the_h100_wgmma_gemms_cannot_run_on_an_a100() -> TestResult {
    let path = captures().join("h100-80gb-hbm3-wgmma/cublas_gemm.ncu-raw.csv");
    let launches = read_path(&path, &ReadConfig::default())?.launches;
    let config = ModelConfig {
        device_override: Some(A100.to_string()),
        ..ModelConfig::default()
    };
    let out = evaluate(launches.clone().lazy(), &registry(), &config)?.collect()?;
    assert_eq!(out.height(), 9);
    let reasons = out.column(out::NOT_LAUNCHABLE)?.str()?;
    for reason in reasons.iter() {
        let reason = reason.ok_or("a launchable wgmma GEMM")?;
        assert!(
            reason.starts_with("not launchable on NVIDIA A100-SXM4-40GB: needs "),
            "{reason}"
        );
        assert!(
            reason.contains(" KiB shared memory per block, the device allows 163 KiB"),
            "{reason}"
        );
        assert!(
            reason.contains(
                "uses wgmma (compute capability 9.x) and TMA and thread-block clusters (≥ 9.0)"
            ),
            "{reason}"
        );
        assert_eq!(
            warpsight_model::target_support::causes(reason),
            [
                "shared memory per block",
                "wgmma",
                "TMA",
                "thread-block clusters"
            ]
        );
    }
    assert_eq!(out.column(out::PREDICTED_NS)?.null_count(), 9);
    assert_eq!(out.column(out::PREDICTION_METHOD)?.null_count(), 9);
    // 213 188 B of dynamic shared memory: 208.2 KiB; 231 424 B: 226 KiB.
    assert!(
        reasons
            .iter()
            .any(|r| r.is_some_and(|r| r.contains("needs 208.2 KiB")))
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.is_some_and(|r| r.contains("needs 226 KiB")))
    );
    let reference = evaluate_each_launch(launches.lazy(), &registry(), &config)?.collect()?;
    for name in [
        out::NOT_LAUNCHABLE,
        out::PREDICTED_NS,
        out::PREDICTION_METHOD,
        out::BOTTLENECK,
    ] {
        assert!(
            out.column(name)?
                .as_materialized_series()
                .equals_missing(reference.column(name)?.as_materialized_series()),
            "{name}"
        );
    }
    // On an H200 (same compute capability) they all run and are predicted.
    let config = ModelConfig {
        device_override: Some("NVIDIA H200".to_string()),
        ..ModelConfig::default()
    };
    let launches = read_path(&path, &ReadConfig::default())?.launches;
    let out = evaluate(launches.lazy(), &registry(), &config)?.collect()?;
    assert_eq!(out.column(out::NOT_LAUNCHABLE)?.null_count(), 9);
    assert_eq!(out.column(out::PREDICTED_NS)?.null_count(), 0);
    Ok(())
}

/// The capture kit's plain kernels (no wgmma, TMA or clusters; at most 101 KiB of shared memory)
/// run on an A100 and are predicted there.
#[test]
fn the_kit_kernels_stay_launchable_on_an_a100() -> TestResult {
    let dir = captures().join("h100-80gb-hbm3");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".ncu-raw.csv"))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 9, "{}", dir.display());
    let config = ModelConfig {
        device_override: Some(A100.to_string()),
        ..ModelConfig::default()
    };
    for path in paths {
        let launches = read_path(&path, &ReadConfig::default())?.launches;
        let out = evaluate(launches.lazy(), &registry(), &config)?.collect()?;
        let what = path.display();
        assert_eq!(
            out.column(out::NOT_LAUNCHABLE)?.null_count(),
            out.height(),
            "{what}"
        );
        assert_eq!(out.column(out::PREDICTED_NS)?.null_count(), 0, "{what}");
    }
    Ok(())
}
