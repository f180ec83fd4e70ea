//! Nsight Compute inputs end to end (issue #24): launches ncu failed to profile are reported with
//! the real reason once per file (even with `-q`), an input with no usable launch is an error for
//! `ingest` as for `analyze`, `nan` metrics keep a column numeric so that several exports stack
//! into one table, ncu's own `inst_executed` keeps its column beside warpsight's
//! `warp_inst_executed`, and the whole third-party `ncu-other-gpus/` folder ingests in one command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polars::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Runs the `warpsight` binary from the repository root.
fn warpsight(args: &[&str]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_warpsight"))
        .args(args)
        .current_dir(warpsight_test_support::paths::workspace_root())
        .env("NO_COLOR", "1")
        .output()
}

/// A raw page (`ncu --csv --page raw --print-units base`) with the given metric columns: the
/// identification columns, a units row, then one row per launch as (grid, metric cells).
fn raw_page(metrics: &[&str], launches: &[(&str, &[&str])]) -> String {
    let ident = [
        "ID",
        "Process ID",
        "Process Name",
        "Host Name",
        "Kernel Name",
        "Context",
        "Stream",
        "Block Size",
        "Grid Size",
        "Device",
        "CC",
    ];
    let quote = |cells: Vec<String>| -> String {
        cells
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut lines = vec![quote(
        ident.iter().chain(metrics).map(|s| s.to_string()).collect(),
    )];
    lines.push(quote(vec![String::new(); ident.len() + metrics.len()]));
    for (id, (grid, cells)) in launches.iter().enumerate() {
        let mut row: Vec<String> = [
            id.to_string().as_str(),
            "1",
            "app",
            "127.0.0.1",
            "kernel(float *)",
            "1",
            "7",
            "(256, 1, 1)",
            grid,
            "0",
            "9.0",
        ]
        .map(String::from)
        .to_vec();
        row.extend(cells.iter().map(|c| c.to_string()));
        lines.push(quote(row));
    }
    lines.join("\n") + "\n"
}

/// The metrics of the pages below: a duration, registers, a counter, ncu's SourceCounters
/// `inst_executed` and the kit's warp-instruction counter.
const METRICS: &[&str] = &[
    "gpu__time_duration.sum",
    "launch__registers_per_thread",
    "sm__cycles_elapsed.max",
    "inst_executed",
    "smsp__inst_executed.sum",
];

fn write(dir: &Path, name: &str, text: &str) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    std::fs::write(&path, text)?;
    Ok(path)
}

fn read_parquet(path: &Path) -> PolarsResult<DataFrame> {
    ParquetReader::new(std::fs::File::open(path)?).finish()
}

/// `warpsight ingest INPUTS -o OUT` (Parquet), which must succeed; returns the table written.
fn ingest(inputs: &[&Path], out: &Path) -> Result<DataFrame, Box<dyn std::error::Error>> {
    let mut args = vec!["ingest".to_string()];
    args.extend(inputs.iter().map(|p| p.display().to_string()));
    args.extend(["-o".to_string(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = warpsight(&args)?;
    assert!(run.status.success(), "{}", String::from_utf8(run.stderr)?);
    Ok(read_parquet(out)?)
}

#[test]
fn failed_launches_are_said_once_per_file_even_quietly() -> TestResult {
    let dir = tempfile::tempdir()?;
    let nan = ["nan"; 5];
    let mixed = write(
        dir.path(),
        "mixed.csv",
        &raw_page(
            METRICS,
            &[
                ("(4, 1, 1)", &["5,984", "32", "9,530", "1,200", "1,100"]),
                ("(0, 0, 0)", &nan),
                ("(0, 0, 0)", &nan),
            ],
        ),
    )?;
    // A second input with other columns: the tables are stacked in a second pass, which must not
    // say anything twice.
    let other = write(
        dir.path(),
        "other.csv",
        &raw_page(
            &METRICS[..2],
            &[
                ("(8, 1, 1)", &["1,000", "16"]),
                ("(0, 0, 0)", &["nan", "nan"]),
            ],
        ),
    )?;
    let out = dir.path().join("out.parquet");
    let run = warpsight(&[
        "ingest",
        "-q",
        &mixed.display().to_string(),
        &other.display().to_string(),
        "-o",
        &out.display().to_string(),
    ])?;
    let stderr = String::from_utf8(run.stderr)?;
    assert!(run.status.success(), "{stderr}");
    let said = |file: &Path, n: &str| {
        stderr
            .matches(&format!(
                "warning: {}: {n} not used: profiling failed in ncu (grid (0, 0, 0), no counter \
                 values)",
                file.display()
            ))
            .count()
    };
    assert_eq!(said(&mixed, "2 launches"), 1, "{stderr}");
    assert_eq!(said(&other, "1 launch"), 1, "{stderr}");
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert_eq!(read_parquet(&out)?.height(), 2);

    // analyze says the same, also under -q.
    let run = warpsight(&["analyze", "-q", &mixed.display().to_string()])?;
    let stderr = String::from_utf8(run.stderr)?;
    assert!(run.status.success(), "{stderr}");
    assert_eq!(said(&mixed, "2 launches"), 1, "{stderr}");

    // --strict names the real reason.
    let run = warpsight(&["analyze", "--strict", &mixed.display().to_string()])?;
    let stderr = String::from_utf8(run.stderr)?;
    assert!(!run.status.success());
    assert!(
        stderr.contains("launch id 1): profiling failed in ncu") && stderr.contains("hint:"),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn an_input_with_no_usable_launch_is_an_error_for_ingest() -> TestResult {
    let dir = tempfile::tempdir()?;
    let nan = ["nan"; 5];
    let failed = write(
        dir.path(),
        "failed.csv",
        &raw_page(METRICS, &[("(0, 0, 0)", &nan), ("(0, 0, 0)", &nan)]),
    )?;
    let out = dir.path().join("out.parquet");
    let run = warpsight(&[
        "ingest",
        "-q",
        &failed.display().to_string(),
        "-o",
        &out.display().to_string(),
    ])?;
    let stderr = String::from_utf8(run.stderr)?;
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.contains("no launch could be used (2 rows rejected")
            && stderr.contains("hint: ncu could not profile any launch"),
        "{stderr}"
    );
    assert!(!out.exists(), "an output was written");
    let run = warpsight(&["analyze", "-q", &failed.display().to_string()])?;
    assert!(!run.status.success());
    Ok(())
}

#[test]
fn nan_metrics_stay_numeric_and_text_clashes_stack_as_text() -> TestResult {
    let dir = tempfile::tempdir()?;
    let with_nan = write(
        dir.path(),
        "nan.csv",
        &raw_page(
            METRICS,
            &[("(4, 1, 1)", &["5,984", "32", "nan", "1,200", "1,100"])],
        ),
    )?;
    let numeric = write(
        dir.path(),
        "numeric.csv",
        &raw_page(
            METRICS,
            &[("(4, 1, 1)", &["6,000", "32", "9,530", "1,200", "1,100"])],
        ),
    )?;
    let text = write(
        dir.path(),
        "text.csv",
        &raw_page(
            METRICS,
            &[("(4, 1, 1)", &["6,000", "32", "n/a-ish", "1,200", "1,100"])],
        ),
    )?;
    let table = ingest(&[&with_nan, &numeric], &dir.path().join("two.parquet"))?;
    let cycles = table.column("sm__cycles_elapsed.max")?.f64()?;
    assert!(cycles.get(0).is_some_and(f64::is_nan));
    assert_eq!(cycles.get(1), Some(9530.0));

    let table = ingest(
        &[&with_nan, &numeric, &text],
        &dir.path().join("three.parquet"),
    )?;
    let cycles: Vec<Option<&str>> = table
        .column("sm__cycles_elapsed.max")?
        .str()?
        .iter()
        .collect();
    assert_eq!(cycles, [Some("NaN"), Some("9530"), Some("n/a-ish")]);
    Ok(())
}

#[test]
fn ncu_inst_executed_keeps_its_column_beside_warpsights() -> TestResult {
    let dir = tempfile::tempdir()?;
    let page = write(
        dir.path(),
        "page.csv",
        &raw_page(
            METRICS,
            &[("(4, 1, 1)", &["5,984", "32", "9,530", "1,234", "1,100"])],
        ),
    )?;
    let table = ingest(&[&page], &dir.path().join("out.parquet"))?;
    assert_eq!(table.column("inst_executed")?.f64()?.get(0), Some(1234.0));
    assert_eq!(
        table.column("warp_inst_executed")?.f64()?.get(0),
        Some(1100.0)
    );
    assert_eq!(
        table.column("smsp__inst_executed.sum")?.f64()?.get(0),
        Some(1100.0)
    );
    Ok(())
}

#[test]
fn two_real_reports_with_a_nan_metric_ingest_together() -> TestResult {
    let Some(shared) = warpsight_test_support::paths::shared_traces() else {
        return Ok(());
    };
    let dir = shared.join("ncu-other-gpus");
    let dir_out = tempfile::tempdir()?;
    let out = dir_out.path().join("two.parquet");
    let run = warpsight(&[
        "ingest",
        &dir.join("GPU-DEMO__ncu_detailed_occupancy_report.ncu-rep")
            .display()
            .to_string(),
        &dir.join("CudaCode__naive.ncu-rep").display().to_string(),
        "-o",
        &out.display().to_string(),
    ])?;
    let stderr = String::from_utf8(run.stderr)?;
    assert!(run.status.success(), "{stderr}");
    let table = read_parquet(&out)?;
    // 45 launches, one of which ncu failed to profile, and 2 (NVIDIA's reader lists 45 and 2).
    assert_eq!(table.height(), 44 + 2);
    assert_eq!(
        table.column("sm__cycles_elapsed.max")?.dtype(),
        &DataType::Float64
    );
    assert_eq!(
        stderr.matches("profiling failed in ncu").count(),
        1,
        "{stderr}"
    );
    Ok(())
}

#[test]
fn the_whole_other_gpus_folder_ingests_in_one_command() -> TestResult {
    let Some(shared) = warpsight_test_support::paths::shared_traces() else {
        return Ok(());
    };
    let dir = shared.join("ncu-other-gpus");
    // What each file holds when read alone.
    let run = warpsight(&["inspect", &dir.display().to_string(), "--format", "json"])?;
    let files: serde_json::Value = serde_json::from_slice(&run.stdout)?;
    let files = files.as_array().ok_or("inspect: not a list")?;
    assert_eq!(files.len(), 45, "reports and raw pages in ncu-other-gpus/");
    assert!(files.iter().all(|f| f["error"].is_null()), "{files:?}");
    let alone: u64 = files.iter().filter_map(|f| f["launches"].as_u64()).sum();
    let out_dir = tempfile::tempdir()?;
    for name in ["all.parquet", "all.arrow"] {
        let out = out_dir.path().join(name);
        let run = warpsight(&[
            "ingest",
            &dir.display().to_string(),
            "-o",
            &out.display().to_string(),
        ])?;
        let stderr = String::from_utf8(run.stderr)?;
        assert!(run.status.success(), "{stderr}");
        assert!(!stderr.contains("error:"), "{stderr}");
        let launches = if name.ends_with("parquet") {
            read_parquet(&out)?.height()
        } else {
            IpcReader::new(std::fs::File::open(&out)?)
                .finish()?
                .height()
        };
        // One table of every launch of every file.
        assert_eq!(launches as u64, alone);
    }
    Ok(())
}
