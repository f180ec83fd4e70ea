//! The tensor pipe of the time model against the held-out tensor captures
//! (`traces/{h100-80gb-hbm3,h200}-holdout/`, Nsight Compute 2025.3.1): ncu's own peak values of the
//! mma.sync path, the measured `gpu__time_duration.sum` of the pure tensor-instruction chains of
//! `tensor_peak`, and the clock rule (a launch with HMMA, IMMA or wgmma tensor work runs at the
//! tensor clock; a kernel whose only "tensor" instructions are `HFMA2.MMA` does not); and the
//! roofline's tensor FLOP of the cuBLAS wgmma GEMMs (`traces/{h100-80gb-hbm3,h200}-wgmma/`).

use std::path::PathBuf;

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::arch::{ComputeCapability, Registry};
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, SmClock, evaluate};
use warpsight_test_support::registry;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The held-out capture folders, one per GPU.
fn holdout_dirs() -> Vec<PathBuf> {
    let root = warpsight_test_support::paths::traces_dir();
    vec![
        root.join("h100-80gb-hbm3-holdout"),
        root.join("h200-holdout"),
    ]
}

/// One launch: kernel name, measured and predicted duration (ns) and the bottleneck.
type Row = (String, f64, f64, String);

/// One raw page modelled on the GPU it ran on with `registry`, one row per launch.
fn predicted(
    path: &std::path::Path,
    registry: &Registry,
) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    // The tensor-clock rule these tests check holds at the boost clock (docs/model.md §6,
    // "Clock"); at the export's own clock reading the launch's measured clock replaces it.
    predicted_at(path, registry, SmClock::Boost)
}

/// [`predicted`] at the SM clock `policy`.
fn predicted_at(
    path: &std::path::Path,
    registry: &Registry,
    policy: SmClock,
) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let trace = read_path(path, &ReadConfig::default())?;
    let config = ModelConfig {
        sm_clock: policy,
        ..ModelConfig::default()
    };
    let frame = evaluate(trace.launches.lazy(), registry, &config)?
        .select([
            col(lt::KERNEL_NAME),
            col(lt::DURATION_NS).cast(DataType::Float64),
            col(out::PREDICTED_NS),
            col(out::BOTTLENECK),
        ])
        .collect()?;
    let names = frame.column(lt::KERNEL_NAME)?.str()?;
    let measured = frame.column(lt::DURATION_NS)?.f64()?;
    let predicted = frame.column(out::PREDICTED_NS)?.f64()?;
    let bottleneck = frame.column(out::BOTTLENECK)?.str()?;
    let mut rows = Vec::new();
    for i in 0..frame.height() {
        rows.push((
            names.get(i).unwrap_or_default().to_string(),
            measured.get(i).ok_or("no measured time")?,
            predicted.get(i).ok_or("no prediction")?,
            bottleneck.get(i).unwrap_or_default().to_string(),
        ));
    }
    Ok(rows)
}

/// The plugin's mma.sync numbers for CC 9.0 are ncu's own `*.avg.peak_sustained` values of the
/// held-out captures (the same on both GPUs), within ncu's two-decimal rounding.
#[test]
fn hopper_mma_sync_peaks_are_ncus_peaks() -> TestResult {
    let arch = registry()
        .arch(ComputeCapability::new(9, 0))
        .cloned()
        .ok_or("no CC 9.0 plugin")?;
    for dir in holdout_dirs() {
        let trace = read_path(&dir.join("tensor_peak.ncu-raw.csv"), &ReadConfig::default())?;
        let frame = trace.launches;
        let peak = |metric: &str| -> Result<f64, Box<dyn std::error::Error>> {
            let column = frame
                .column(metric)
                .map_err(|e| format!("{metric}: {e}"))?
                .cast(&DataType::Float64)?;
            Ok(column.f64()?.get(0).ok_or(format!("{metric} is empty"))?)
        };
        for (metric, plugin) in [
            (
                "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.avg.peak_sustained",
                arch.mma.fp16_flop,
            ),
            (
                "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_off.avg.peak_sustained",
                arch.mma.fp16_flop,
            ),
            (
                "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.avg.peak_sustained",
                arch.mma.bf16_flop,
            ),
            (
                "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_off.avg.peak_sustained",
                arch.mma.tf32_flop,
            ),
            (
                "sm__ops_path_tensor_op_imma_src_int8_sparsity_off.avg.peak_sustained",
                arch.mma.int8_op,
            ),
            (
                "sm__ops_path_tensor_src_fp64.avg.peak_sustained",
                arch.mma.fp64_flop,
            ),
        ] {
            let ncu = peak(metric)?;
            assert!(
                (ncu - plugin).abs() <= 0.01,
                "{}: {metric} = {ncu}, plugin {plugin}",
                dir.display()
            );
        }
    }
    Ok(())
}

/// Every pure tensor-instruction chain of `tensor_peak` (WMMA FP16/BF16/TF32/INT8/FP64 and the
/// inline-PTX mma shapes FP16 k8, TF32 k8, INT8 k32, FP64 m16n8k16) predicted on the GPU it ran on
/// within 12 % of ncu's measured time, and named tensor-bound. The bound: the fixed model gives
/// −9 % to +1 % (the k8/k32 mma.sync chains keep the pipe 92–95 % busy, not 100 %, and the H200
/// ran its tensor kernels at 1.80 GHz, 1.6 % under the 1.83 GHz the plugin uses), so 12 % leaves
/// 3 points of margin, while the per-instruction rates of before this rule were 37–81 % off on
/// five of the nine shapes.
#[test]
fn tensor_peak_chains_are_predicted_within_12_percent_on_both_gpus() -> TestResult {
    for dir in holdout_dirs() {
        let rows = predicted(&dir.join("tensor_peak.ncu-raw.csv"), &registry())?;
        assert_eq!(rows.len(), 9, "{}", dir.display());
        for (name, measured, predicted, bottleneck) in rows {
            let error = (predicted - measured) / measured;
            println!(
                "{}: {name}: measured {measured:.0} ns, predicted {predicted:.0} ns ({:+.1} %), {bottleneck}",
                dir.display(),
                error * 100.0
            );
            assert!(
                error.abs() <= 0.12,
                "{}: {name}: measured {measured} ns, predicted {predicted} ns ({:+.1} %)",
                dir.display(),
                error * 100.0
            );
            let expected = if name.contains("fp64") {
                "tensor_dmma"
            } else if name.contains("int8") {
                "tensor_imma"
            } else {
                "tensor_hmma"
            };
            assert_eq!(bottleneck, expected, "{}: {name}", dir.display());
        }
    }
    Ok(())
}

/// The registry with every device's tensor clock multiplied by `factor`.
fn with_tensor_clock_scaled(factor: f64) -> Registry {
    let mut changed = registry();
    for (device, _) in &mut changed.devices {
        device.tensor_clock_hz *= factor;
    }
    changed
}

/// The clock rule, checked by moving the plugin's tensor clock: a launch with HMMA tensor FLOP
/// (`sm__ops_path_tensor_src_fp16.sum` > 0) is timed at the tensor clock in every term, so even the
/// naive WMMA GEMM, whose time the L2 requests set (tensor pipe 4 % busy), scales with it (ncu ran
/// all of them at 1.79–1.84 GHz, not the 1.98 GHz SM boost). Kernels whose
/// `sm__inst_executed_pipe_tensor_op_hmma` is non-zero without tensor FLOP (`HFMA2.MMA` in the
/// strided store and in the kit's FP32/FP16x2 chains, copy, sgemm and regs kernels; ncu ran them at
/// 1.94–2.02 GHz) are not: their predictions do not move.
#[test]
fn only_launches_with_tensor_flop_are_timed_at_the_tensor_clock() -> TestResult {
    let slower = with_tensor_clock_scaled(0.5);
    let root = warpsight_test_support::paths::traces_dir();
    let mut hfma2_mma_launches = 0;
    for path in [
        root.join("h100-80gb-hbm3-holdout/strided_store.ncu-raw.csv"),
        root.join("h200-holdout/strided_store.ncu-raw.csv"),
        root.join("h100-80gb-hbm3/precision.ncu-raw.csv"),
        root.join("h200/sgemm.ncu-raw.csv"),
    ] {
        let trace = read_path(&path, &ReadConfig::default())?;
        let hmma = trace
            .launches
            .column("sm__inst_executed_pipe_tensor_op_hmma.sum")?
            .cast(&DataType::Float64)?;
        let ops = trace
            .launches
            .column("sm__ops_path_tensor_src_fp16.sum")?
            .cast(&DataType::Float64)?;
        let base = predicted(&path, &registry())?;
        let moved = predicted(&path, &slower)?;
        for (i, ((name, _, a, _), (_, _, b, _))) in base.iter().zip(&moved).enumerate() {
            let has_hmma = hmma.f64()?.get(i).unwrap_or(0.0) > 0.0;
            if has_hmma {
                assert_eq!(ops.f64()?.get(i), Some(0.0), "{name}: no tensor FLOP");
                hfma2_mma_launches += 1;
            }
            assert!(
                (a - b).abs() <= 1e-9 * a,
                "{}: {name} moved with the tensor clock: {a} vs {b} ns",
                path.display()
            );
        }
    }
    assert!(
        hfma2_mma_launches >= 8,
        "HFMA2.MMA launches: {hfma2_mma_launches}"
    );
    for dir in holdout_dirs() {
        let path = dir.join("tensor_gemm.ncu-raw.csv");
        let base = predicted(&path, &registry())?;
        let moved = predicted(&path, &slower)?;
        let mut naive = 0;
        for ((name, _, a, bottleneck), (_, _, b, _)) in base.iter().zip(&moved) {
            if !name.starts_with("wmma_gemm_naive") {
                continue;
            }
            naive += 1;
            // Everything but the launch overhead (2.12 µs) runs at the clock: half the clock,
            // about twice the time.
            let ratio = (b - 2120.0) / (a - 2120.0);
            assert!(
                (ratio - 2.0).abs() <= 0.01,
                "{}: {name} ({bottleneck}): {a} → {b} ns, ratio {ratio}",
                dir.display()
            );
            assert_ne!(bottleneck, "tensor_hmma", "{name}");
        }
        assert_eq!(naive, 3, "{}", dir.display());
    }
    Ok(())
}

/// The roofline's tensor FLOP of the cuBLAS wgmma GEMMs (`traces/*-wgmma/`, case `cublas_gemm`)
/// are the GEMMs' own 2·M·N·K (ncu's FLOP counters count the padded tiles: up to a few percent
/// more), not tensor instructions × the 4 096 FLOP of one `HMMA.16816`, which is 8 to 16 times too
/// few for a wgmma instruction.
#[test]
fn the_roofline_counts_the_tensor_flop_of_wgmma_gemms() -> TestResult {
    let root = warpsight_test_support::paths::traces_dir();
    // The case's launches in order: FP16, BF16, TF32 at each size (traces/capture/cublas_gemm.cu).
    let sizes = [
        (4096.0, 4096.0, 4096.0),
        (8192.0, 8192.0, 8192.0),
        (8192.0, 8192.0, 128.0),
    ];
    let registry = registry();
    for dir in ["h100-80gb-hbm3-wgmma", "h200-wgmma"] {
        let path = root.join(dir).join("cublas_gemm.ncu-raw.csv");
        let trace = read_path(&path, &ReadConfig::default())?;
        let frame = evaluate(trace.launches.lazy(), &registry, &ModelConfig::default())?
            .select([col(out::FLOP_TENSOR)])
            .collect()?;
        let flop = frame.column(out::FLOP_TENSOR)?.f64()?;
        assert_eq!(flop.len(), 9, "{dir}");
        for (launch, value) in flop.iter().enumerate() {
            let (m, n, k) = sizes[launch / 3];
            let gemm = 2.0 * m * n * k;
            let value = value.ok_or("no tensor FLOP")?;
            assert!(
                value >= gemm && value <= 1.05 * gemm,
                "{dir} launch {launch}: {value:e} tensor FLOP for a GEMM of {gemm:e}"
            );
        }
    }
    Ok(())
}

/// The cuBLAS wgmma GEMMs (`traces/*-wgmma`, FP16, BF16 and TF32 at 4096³, 8192³ and
/// 8192 × 8192 × 128) are predicted within 20 % each and 12 % in the median on both GPUs at the
/// boost clock with the wgmma clock fraction. At the tensor clock of 1.83 GHz (no wgmma clock of
/// their own) the model was 10–24 % too fast on most of them (median 16.3 % on the H100); the
/// remaining errors are the K = 128 launches' partial overlap and the H100 TF32 8192³ launch's L2
/// bandwidth (docs/accuracy.md, "wgmma GEMMs"). At the export's clock reading (the default) the
/// median holds too, and every launch is within 25 %: the K = 128 launches are DRAM-bound, and
/// their measured clock moves the latency part of the blend, not the DRAM term (+22 % on the H100).
#[test]
fn cublas_wgmma_gemms_are_predicted_within_20_percent_on_both_gpus() -> TestResult {
    let root = warpsight_test_support::paths::traces_dir();
    let registry = registry();
    for (dir, policy, worst) in [
        ("h100-80gb-hbm3-wgmma", SmClock::Boost, 0.20),
        ("h200-wgmma", SmClock::Boost, 0.20),
        ("h100-80gb-hbm3-wgmma", SmClock::Export, 0.25),
        ("h200-wgmma", SmClock::Export, 0.25),
    ] {
        let rows = predicted_at(
            &root.join(dir).join("cublas_gemm.ncu-raw.csv"),
            &registry,
            policy,
        )?;
        assert_eq!(rows.len(), 9, "{dir}");
        let mut errors: Vec<f64> = Vec::new();
        for (kernel, measured, predicted, bottleneck) in &rows {
            let error = (predicted - measured) / measured;
            assert!(
                error.abs() <= worst,
                "{dir} {policy:?} {kernel}: predicted {predicted:.0} ns, measured {measured:.0} ns ({:+.1} %, {bottleneck})",
                error * 100.0
            );
            errors.push(error.abs());
        }
        errors.sort_by(f64::total_cmp);
        let median = errors[errors.len() / 2];
        assert!(
            median <= 0.12,
            "{dir} {policy:?}: median error {:.1} %",
            median * 100.0
        );
    }
    Ok(())
}

/// The wgmma clock fraction, taken from the cuBLAS captures' measured clocks, agrees within 3 % with
/// the clocks the wgmma launches of real PyTorch layers ran at (cuBLAS `nvjet` GEMMs and cuDNN flash
/// attention in `traces/pytorch-layers/`, ncu's "SM Frequency"), which it was not taken from.
#[test]
fn the_wgmma_clock_agrees_with_the_clock_of_pytorch_wgmma_launches() -> TestResult {
    let basic = warpsight_test_support::paths::traces_dir().join("pytorch-layers");
    let files = [
        "h100_gpt_layer.ncu-details.csv",
        "h200_gpt_layer.ncu-details.csv",
    ];
    let mut clocks: Vec<f64> = Vec::new();
    for file in files {
        let trace = read_path(&basic.join(file), &ReadConfig::default())?;
        let frame = trace
            .launches
            .lazy()
            .filter(
                col(lt::KERNEL_NAME)
                    .str()
                    .contains(lit("nvjet_sm90|sdpa_sm90"), false),
            )
            .select([col(lt::SM_CLOCK_HZ)])
            .collect()?;
        clocks.extend(frame.column(lt::SM_CLOCK_HZ)?.f64()?.into_no_null_iter());
    }
    assert!(clocks.len() >= 16, "{} wgmma launches", clocks.len());
    clocks.sort_by(f64::total_cmp);
    let measured = clocks[clocks.len() / 2];
    let model =
        warpsight_model::time::fitted::FittedConstants::default().wgmma_clock_fraction * 1.83e9;
    assert!(
        (model / measured - 1.0).abs() <= 0.03,
        "model wgmma clock {model:e} Hz, PyTorch wgmma launches' median {measured:e} Hz"
    );
    Ok(())
}
