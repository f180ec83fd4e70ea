//! One large export analysed part by part: `analyze`, `report` and `predict` read an nsys
//! `cuda_gpu_trace` CSV, SQLite or Parquet export in batches and analyse it a part at a time, so
//! that only one part's launches are held. Cut into many small parts (the hidden
//! `--batch-launches`), every output must be the one the whole file gives in one part, byte for
//! byte: the per-kernel and per-launch tables, the findings with their launch counts and time
//! shares, the HTML report, the cross-device prediction, and the transfers note on stderr.

use std::path::{Path, PathBuf};
use std::process::Command;

use warpsight_test_support::synthetic_nsys::{
    Container, Schema, SyntheticConfig, write_gpu_trace_csv, write_sqlite, write_table_dir,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Launches of each generated export: with batches of [`SMALL_BATCH`] launches and parts of four
/// batches, at least four parts.
const LAUNCHES: usize = 6000;
const SMALL_BATCH: &str = "300";

/// What one run printed.
struct Run {
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs `warpsight -v [--batch-launches N] ARGS` and checks that it succeeded.
fn warpsight(batch: Option<&str>, args: &[&str]) -> Result<Run, Box<dyn std::error::Error>> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpsight"));
    command.current_dir(warpsight_test_support::paths::workspace_root());
    command.env_remove("WARPSIGHT_BATCH_LAUNCHES");
    command.arg("-v").arg("--color").arg("never");
    if let Some(launches) = batch {
        command.arg("--batch-launches").arg(launches);
    }
    command.args(args);
    let output = command.output()?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{args:?} failed: {stderr}");
    Ok(Run {
        stdout: output.stdout,
        stderr,
    })
}

/// The number of parts a run's debug log says it analysed.
fn parts(run: &Run) -> usize {
    run.stderr
        .lines()
        .filter(|line| line.contains("analysing a part of the input"))
        .count()
}

/// The stderr lines that are not log lines (the notes and warnings a user reads).
fn notes(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|line| {
            line.starts_with("note:") || line.starts_with("warning:") || line.starts_with("wrote")
        })
        .collect()
}

/// The generated exports: the same launches as a `cuda_gpu_trace` CSV, an SQLite export (both
/// schemas) and a Parquet directory.
fn exports(dir: &Path) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
    let mut paths = Vec::new();
    let csv = dir.join("run_cuda_gpu_trace.csv");
    let config = SyntheticConfig {
        launches: LAUNCHES,
        ..Default::default()
    };
    write_gpu_trace_csv(&csv, &config)?;
    paths.push(csv);
    for schema in [Schema::Old, Schema::New] {
        let config = SyntheticConfig {
            launches: LAUNCHES,
            schema,
            ..Default::default()
        };
        let sqlite = dir.join(format!("run_{schema:?}.sqlite"));
        write_sqlite(&sqlite, &config)?;
        paths.push(sqlite);
    }
    let parquet = dir.join("run_parquetdir");
    write_table_dir(&parquet, &config, Container::Parquet)?;
    paths.push(parquet);
    Ok(paths)
}

#[test]
fn an_export_analysed_in_many_parts_gives_what_one_part_gives() -> TestResult {
    let dir = tempfile::tempdir()?;
    for export in exports(dir.path())? {
        let input = export.to_str().ok_or("non-UTF-8 temporary path")?;
        let name = export.display().to_string();
        let commands: [&[&str]; 4] = [
            &["analyze", "--format", "csv", input],
            &["analyze", "--findings", "all", "--format", "md", input],
            &["analyze", "--per", "launch", "--format", "csv", input],
            &["predict", "--on", "NVIDIA H200", "--format", "csv", input],
        ];
        for args in commands {
            let whole = warpsight(None, args)?;
            let cut = warpsight(Some(SMALL_BATCH), args)?;
            assert_eq!(parts(&whole), 1, "{name} {args:?}: {}", whole.stderr);
            // Parquet slices are four batches, so the Parquet export is cut into fewer parts.
            assert!(parts(&cut) >= 2, "{name} {args:?}: {}", cut.stderr);
            assert!(!whole.stdout.is_empty(), "{name} {args:?}");
            assert!(
                whole.stdout == cut.stdout,
                "{name} {args:?}: the output differs when cut into parts"
            );
            assert_eq!(notes(&whole), notes(&cut), "{name} {args:?}");
        }
        // The transfers (one memcpy or memset after every 10 launches) are read with the batches.
        let analyze = warpsight(Some(SMALL_BATCH), &["analyze", input])?;
        assert!(
            String::from_utf8_lossy(&analyze.stdout).contains("transfers: 600 memcpy/memset"),
            "{name}: {}",
            String::from_utf8_lossy(&analyze.stdout)
        );
        // The HTML report, with its findings count and per-kernel findings.
        let pages: Vec<String> = [None, Some(SMALL_BATCH)]
            .into_iter()
            .enumerate()
            .map(|(i, batch)| -> Result<String, Box<dyn std::error::Error>> {
                let page = dir.path().join(format!("report{i}.html"));
                let path = page.to_str().ok_or("non-UTF-8 temporary path")?;
                warpsight(batch, &["report", "-o", path, input])?;
                Ok(std::fs::read_to_string(&page)?)
            })
            .collect::<Result<_, _>>()?;
        // The report has findings (the count its summary shows), so the comparison covers them.
        let findings = pages[0]
            .split("</b><span>findings</span>")
            .next()
            .and_then(|before| before.rsplit("<b>").next())
            .and_then(|count| count.parse::<usize>().ok())
            .ok_or("no findings count in the report")?;
        assert!(findings > 0, "{name}: no findings to compare");
        assert!(
            pages[0] == pages[1],
            "{name}: the report differs when cut into parts"
        );
    }
    Ok(())
}

#[test]
fn the_streamed_per_launch_table_is_written_as_parquet_and_arrow_ipc() -> TestResult {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("run_cuda_gpu_trace.csv");
    let config = SyntheticConfig {
        launches: LAUNCHES,
        ..Default::default()
    };
    write_gpu_trace_csv(&csv, &config)?;
    let input = csv.to_str().ok_or("non-UTF-8 temporary path")?;
    let mut tables = Vec::new();
    for name in ["launches.parquet", "launches.arrow", "launches.csv"] {
        let output = dir.path().join(name);
        let path = output.to_str().ok_or("non-UTF-8 temporary path")?;
        let run = warpsight(
            Some(SMALL_BATCH),
            &["analyze", "--per", "launch", "-o", path, input],
        )?;
        assert!(parts(&run) >= 2, "{name}: {}", run.stderr);
        let file = std::fs::File::open(&output)?;
        tables.push(match name {
            "launches.parquet" => ParquetReader::new(file).finish()?,
            "launches.arrow" => IpcReader::new(file).finish()?,
            _ => CsvReadOptions::default()
                .try_into_reader_with_file_path(Some(output.clone()))?
                .finish()?,
        });
    }
    assert_eq!(tables[0].height(), LAUNCHES);
    assert!(
        tables[0].equals_missing(&tables[1]),
        "the Arrow IPC table differs from the Parquet one"
    );
    // CSV keeps the values, not every dtype: compare the launch ids and kernel names.
    assert_eq!(tables[2].height(), LAUNCHES);
    for name in ["launch_id", "kernel_name"] {
        let text = |frame: &DataFrame| -> PolarsResult<Series> {
            Ok(frame
                .column(name)?
                .cast(&DataType::String)?
                .as_materialized_series()
                .clone())
        };
        assert!(
            text(&tables[0])?.equals_missing(&text(&tables[2])?),
            "{name}"
        );
    }
    Ok(())
}

/// Issue #28, finding I: consecutive small files with the same columns are analysed together
/// (one pipeline run instead of one per file). The outputs must be those of each file analysed
/// on its own: with `--batch-launches 1` no part is small enough to be grouped (a part may hold
/// at most a quarter of the four-launch part size), so that run analyses file by file.
#[test]
fn small_files_analysed_together_give_what_each_gives_alone() -> TestResult {
    let dir = tempfile::tempdir()?;
    let traces = warpsight_test_support::paths::traces_dir();
    let mut inputs = Vec::new();
    for gpu in ["h100-80gb-hbm3", "h200"] {
        for case in ["sgemm", "transpose", "reduction", "copy_saxpy"] {
            for page in ["details", "raw"] {
                // Pages of one kind next to each other: they have the same columns.
                let name = format!("{page}-{gpu}-{case}.csv");
                std::fs::copy(
                    traces.join(gpu).join(format!("{case}.ncu-{page}.csv")),
                    dir.path().join(&name),
                )?;
                inputs.push(dir.path().join(name).display().to_string());
            }
        }
    }
    let dir_arg = dir.path().display().to_string();
    for args in [
        vec![
            "analyze",
            dir_arg.as_str(),
            "--format",
            "md",
            "--findings",
            "all",
        ],
        vec![
            "analyze",
            dir_arg.as_str(),
            "--per",
            "launch",
            "--format",
            "csv",
        ],
        vec![
            "predict",
            dir_arg.as_str(),
            "--on",
            "NVIDIA A100-SXM4-40GB",
            "--format",
            "csv",
        ],
    ] {
        let together = warpsight(None, &args)?;
        let alone = warpsight(Some("1"), &args)?;
        assert!(!together.stdout.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&together.stdout),
            String::from_utf8_lossy(&alone.stdout),
            "{args:?}"
        );
        assert_eq!(notes(&together), notes(&alone), "{args:?}");
        if args[0] == "analyze" {
            assert!(
                together.stderr.contains("analysing small parts together")
                    && !alone.stderr.contains("analysing small parts together"),
                "{}",
                together.stderr
            );
        }
    }
    assert_eq!(inputs.len(), 16);
    Ok(())
}
