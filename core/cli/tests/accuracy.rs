//! `warpsight accuracy` end to end on the project's own H100 and H200 captures (`traces/`):
//! the issue #11 targets (same device per launch: median ≤ 15 %, p90 ≤ 40 % on each GPU, tightened
//! to a median of 5 % by issue #23;
//! H100 → H200 and back: median ≤ 10 %, p90 ≤ 25 %), every launch counted, and launches without
//! counters counted with their reason instead of dropped. The held-out captures
//! (`traces/*-holdout`: tensor_peak, tensor_gemm, strided_store, 18 launches per GPU, never used to
//! fit anything) are checked with the thresholds the model meets there, which docs/accuracy.md
//! states.

use std::process::Command;

use serde_json::Value;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Runs `warpsight --plugin-dir <workspace plugins> ARGS...` from the repository root and returns
/// (success, stdout, stderr).
fn warpsight(args: &[&str]) -> Result<(bool, String, String), Box<dyn std::error::Error>> {
    let plugins = warpsight_test_support::plugins::binary_plugin_dir()?;
    let output = Command::new(env!("CARGO_BIN_EXE_warpsight"))
        .current_dir(warpsight_test_support::paths::workspace_root())
        .env("NO_COLOR", "1")
        .env_remove("WARPSIGHT_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .arg("--plugin-dir")
        .arg(&plugins)
        .args(args)
        .output()?;
    Ok((
        output.status.success(),
        String::from_utf8(output.stdout)?,
        String::from_utf8(output.stderr)?,
    ))
}

/// Runs with `--format json` and returns the one summary row.
fn summary(args: &[&str]) -> Result<Value, Box<dyn std::error::Error>> {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (ok, stdout, stderr) = warpsight(&all)?;
    if !ok {
        return Err(format!("warpsight {all:?} failed:\n{stderr}").into());
    }
    let json: Value = serde_json::from_str(&stdout)?;
    let rows = json["summary"].as_array().ok_or("no summary array")?;
    assert_eq!(rows.len(), 1, "one device: {stdout}");
    assert!(
        json["kernel"].is_array(),
        "the default tables are summary and kernel"
    );
    Ok(rows[0].clone())
}

fn number(row: &Value, key: &str) -> Result<f64, String> {
    row[key]
        .as_f64()
        .ok_or_else(|| format!("no number `{key}` in {row}"))
}

/// What a summary row must show: its launch count, and the largest median and p90 errors.
#[derive(Clone, Copy)]
struct Targets {
    launches: f64,
    median: f64,
    p90: f64,
}

/// `warpsight accuracy DIR/*.ncu-raw.csv` (same device) meets `targets`, every launch compared.
fn same_device(dir: &str, device: &str, targets: Targets) -> TestResult {
    let pattern = format!("{dir}/*.ncu-raw.csv");
    let row = summary(&["accuracy", &pattern])?;
    assert_eq!(row["device"], device);
    assert_eq!(number(&row, "launches")?, targets.launches, "{row}");
    assert_eq!(number(&row, "compared")?, targets.launches, "{row}");
    assert_eq!(number(&row, "unpredicted")?, 0.0, "{row}");
    let (median, p90) = (
        number(&row, "median_abs_error")?,
        number(&row, "p90_abs_error")?,
    );
    println!(
        "{dir}: median {:.1} %, p90 {:.1} %",
        median * 100.0,
        p90 * 100.0
    );
    assert!(median <= targets.median, "{dir}: {row}");
    assert!(p90 <= targets.p90, "{dir}: {row}");
    assert!(number(&row, "worst_abs_error")? >= p90);
    Ok(())
}

/// `warpsight accuracy FROM/*.ncu-raw.csv --on DEVICE --against TO/*.ncu-raw.csv` meets `targets`,
/// every launch matched.
fn cross_device(from: &str, to: &str, device: &str, targets: Targets) -> TestResult {
    let input = format!("{from}/*.ncu-raw.csv");
    let against = format!("{to}/*.ncu-raw.csv");
    let row = summary(&["accuracy", &input, "--on", device, "--against", &against])?;
    assert_eq!(row["device"], device);
    assert_eq!(number(&row, "launches")?, targets.launches, "{row}");
    assert_eq!(number(&row, "unmatched")?, 0.0, "{row}");
    let (median, p90) = (
        number(&row, "median_abs_error")?,
        number(&row, "p90_abs_error")?,
    );
    println!(
        "{from} -> {device}: median {:.1} %, p90 {:.1} %",
        median * 100.0,
        p90 * 100.0
    );
    assert!(median <= targets.median, "{from} -> {device}: {row}");
    assert!(p90 <= targets.p90, "{from} -> {device}: {row}");
    Ok(())
}

/// The capture folders of one set, H100 then H200, with their device names.
fn both_gpus(suffix: &str) -> [(String, &'static str); 2] {
    [
        (
            format!("traces/h100-80gb-hbm3{suffix}"),
            "NVIDIA H100 80GB HBM3",
        ),
        (format!("traces/h200{suffix}"), "NVIDIA H200"),
    ]
}

/// Same device on the kit: issue #11's targets (median ≤ 15 %, p90 ≤ 40 % on each GPU), tightened
/// by issue #23 to a median of 5 % at the clock the export reports (the default `--sm-clock
/// export`); the p90 bound is today's 25 %.
#[test]
fn same_device_accuracy_meets_the_targets_on_both_gpus() -> TestResult {
    let targets = Targets {
        launches: 43.0,
        median: 0.05,
        p90: 0.25,
    };
    for (dir, device) in both_gpus("") {
        same_device(&dir, device, targets)?;
    }
    Ok(())
}

/// Issue #11's cross-device targets on the kit: median ≤ 10 %, p90 ≤ 25 % both ways.
#[test]
fn cross_device_accuracy_meets_the_targets_both_ways() -> TestResult {
    let targets = Targets {
        launches: 43.0,
        median: 0.10,
        p90: 0.25,
    };
    let [h100, h200] = both_gpus("");
    cross_device(&h100.0, &h200.0, h200.1, targets)?;
    cross_device(&h200.0, &h100.0, h100.1, targets)
}

/// The held-out captures, same device: median ≤ 10 % on each GPU (the 15 % target is met),
/// but p90 ≤ 50 %, not the 40 %: the naive WMMA GEMMs (L2-request-bound, −15…−53 %) and
/// the 64×64-block tiled GEMM (+40…+55 %) are outside it (docs/accuracy.md, "Held-out captures").
/// The 18 tensor-pipe chains are checked one by one in `core/model/tests/tensor_pipe.rs`.
#[test]
fn same_device_accuracy_on_the_held_out_captures() -> TestResult {
    let targets = Targets {
        launches: 18.0,
        median: 0.10,
        p90: 0.50,
    };
    for (dir, device) in both_gpus("-holdout") {
        same_device(&dir, device, targets)?;
    }
    Ok(())
}

/// The held-out captures across devices meet the cross-device targets (median ≤ 10 %,
/// p90 ≤ 25 %) both ways.
#[test]
fn cross_device_accuracy_on_the_held_out_captures() -> TestResult {
    let targets = Targets {
        launches: 18.0,
        median: 0.10,
        p90: 0.25,
    };
    let [h100, h200] = both_gpus("-holdout");
    cross_device(&h100.0, &h200.0, h200.1, targets)?;
    cross_device(&h200.0, &h100.0, h100.1, targets)
}

/// One case against the whole other capture: the launches of the other cases have no partner and
/// are listed and counted; the matched ones pair by file name.
#[test]
fn unmatched_launches_are_listed() -> TestResult {
    let (ok, stdout, stderr) = warpsight(&[
        "accuracy",
        "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
        "--on",
        "NVIDIA H200",
        "--per",
        "launch",
        "--format",
        "json",
        "--against",
        "traces/h200/sgemm.ncu-raw.csv",
        "traces/h200/transpose.ncu-raw.csv",
    ])?;
    assert!(ok, "{stderr}");
    let json: Value = serde_json::from_str(&stdout)?;
    let launches = json["launch"].as_array().ok_or("no launch array")?;
    assert!(!launches.is_empty());
    for launch in launches {
        let file = launch["file"].as_str().unwrap_or_default();
        let measured = launch["measured_file"].as_str().unwrap_or_default();
        assert!(
            file.ends_with("sgemm.ncu-raw.csv") && measured.ends_with("h200/sgemm.ncu-raw.csv"),
            "{launch}"
        );
    }
    let unmatched = json["unmatched"].as_array().ok_or("no unmatched array")?;
    assert!(!unmatched.is_empty());
    assert!(unmatched.iter().all(|u| {
        u["side"] == "against"
            && u["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("transpose.ncu-raw.csv"))
    }));
    assert!(stderr.contains("without a partner"), "{stderr}");
    Ok(())
}

/// An nsys trace has no counters: every launch is counted as unpredicted with its reason.
#[test]
fn launches_without_counters_are_counted_with_their_reason() -> TestResult {
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("trace_cuda_gpu_trace.csv");
    let config = SyntheticConfig {
        launches: 12,
        memcpy_every: 0,
        schema: Schema::New,
    };
    write_gpu_trace_csv(&csv, &config)?;
    let path = csv.display().to_string();
    let row = summary(&["accuracy", &path])?;
    assert_eq!(number(&row, "launches")?, 12.0, "{row}");
    assert_eq!(number(&row, "compared")?, 0.0, "{row}");
    assert_eq!(number(&row, "unpredicted")?, 12.0, "{row}");
    assert!(row["median_abs_error"].is_null());
    let reasons = row["unpredicted_reasons"].as_str().unwrap_or_default();
    assert!(
        reasons.contains("instruction count") && reasons.contains("(12)"),
        "{reasons}"
    );
    Ok(())
}

#[test]
fn csv_needs_a_single_table() -> TestResult {
    let (ok, _, stderr) = warpsight(&[
        "accuracy",
        "traces/h200/sgemm.ncu-raw.csv",
        "--format",
        "csv",
    ])?;
    assert!(!ok);
    assert!(stderr.contains("--per summary"), "{stderr}");
    let (ok, stdout, stderr) = warpsight(&[
        "accuracy",
        "traces/h200/sgemm.ncu-raw.csv",
        "--format",
        "csv",
        "--per",
        "launch",
    ])?;
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("file,launch_id,kernel,"), "{stdout}");
    Ok(())
}

#[test]
fn help_ends_with_examples() -> TestResult {
    let (ok, stdout, _) = warpsight(&["accuracy", "--help"])?;
    assert!(ok);
    let tail = stdout
        .trim_end()
        .rsplit("Examples:")
        .next()
        .unwrap_or_default();
    assert_eq!(tail.matches("warpsight accuracy").count(), 3, "{stdout}");
    Ok(())
}

/// The files of `../shared/traces/ncu-other-gpus/` that `MANIFEST.md` lists with "full counters"
/// (an independent decoder's reading of what each export holds).
fn full_counter_exports(
    shared: &std::path::Path,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let manifest = std::fs::read_to_string(shared.join("MANIFEST.md"))?;
    let files: Vec<String> = manifest
        .lines()
        .filter(|line| line.starts_with("| ") && line.contains("| full counters |"))
        .filter_map(|line| line.split('|').nth(1).map(|f| f.trim().to_string()))
        .filter(|file| shared.join("ncu-other-gpus").join(file).is_file())
        .collect();
    Ok(files)
}

/// Issue #23 on exports other people made on their own GPUs, mostly with ncu's default base-clock
/// lock (`../shared/traces/ncu-other-gpus`, read in place): every launch of every full-counter
/// export gets a prediction, modelled at the clock ncu ran it at, and each GPU's same-device error
/// stays within the figures docs/accuracy.md reports. The targets (median ≤ 15 %, p90 ≤
/// 35 % per GPU) hold on the T4; the other GPUs' ceilings below are today's figures, checked so
/// that they cannot silently get worse (docs/accuracy.md, "Other GPUs", says what is missing).
#[test]
fn every_full_counter_launch_of_other_gpus_is_predicted() -> TestResult {
    let Some(shared) = warpsight_test_support::paths::shared_traces() else {
        return Ok(());
    };
    let files = full_counter_exports(&shared)?;
    assert!(
        files.len() >= 20,
        "full-counter exports in MANIFEST.md: {files:?}"
    );
    let paths: Vec<String> = files
        .iter()
        .map(|f| shared.join("ncu-other-gpus").join(f).display().to_string())
        .collect();
    let mut args: Vec<&str> = vec!["accuracy"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["--per", "summary", "--format", "json"]);
    let (ok, stdout, stderr) = warpsight(&args)?;
    assert!(ok, "{stderr}");
    let json: Value = serde_json::from_str(&stdout)?;
    let rows = json["summary"].as_array().ok_or("no summary array")?;
    // (device, launches, the clock source, largest median, largest p90)
    let expected: &[(&str, f64, &str, f64, f64)] = &[
        ("Tesla T4", 10.0, "base (ncu locked the clocks)", 0.15, 0.35),
        (
            "Tesla V100-SXM2-32GB",
            10.0,
            "base (ncu locked the clocks)",
            0.20,
            0.60,
        ),
        (
            "NVIDIA GeForce GTX 1660 SUPER",
            7.0,
            "base (ncu locked the clocks)",
            0.10,
            1.0,
        ),
        (
            "NVIDIA A30",
            8.0,
            "base (ncu locked the clocks)",
            0.30,
            0.40,
        ),
        (
            "NVIDIA GeForce RTX 3060 Laptop GPU",
            12.0,
            "export",
            0.25,
            0.60,
        ),
    ];
    assert_eq!(rows.len(), expected.len(), "{stdout}");
    for (device, launches, clock, median, p90) in expected {
        let row = rows
            .iter()
            .find(|r| r["device"] == *device)
            .ok_or_else(|| format!("no row for {device}: {stdout}"))?;
        assert_eq!(number(row, "launches")?, *launches, "{row}");
        assert_eq!(number(row, "unpredicted")?, 0.0, "{row}");
        assert_eq!(row["clock_source"], *clock, "{row}");
        let (m, p) = (
            number(row, "median_abs_error")?,
            number(row, "p90_abs_error")?,
        );
        println!(
            "{device}: median {:.1} %, p90 {:.1} %",
            m * 100.0,
            p * 100.0
        );
        assert!(m <= *median && p <= *p90, "{device}: {row}");
    }
    Ok(())
}
