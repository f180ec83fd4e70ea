//! End-to-end scale benchmark of the `warpsight` binary (harness = false):
//! `cargo bench -p warpsight --bench scale`.
//!
//! Generates, once, the inputs of issue #15: a 2 M-launch Nsight Systems `cuda_gpu_trace` CSV and
//! the same launches as an SQLite export (the real layouts, see `test-support/src/synthetic_nsys`;
//! a few kernels with a few launch shapes each, as in a training run), and two 500 MB Nsight
//! Compute details pages (`synthetic_ncu::bench`): one with a few shapes per kernel, one with a
//! random configuration for every launch (the worst case for per-configuration work). Then it runs the release binary on them, each command
//! in its own process, and reports the median wall time and the largest peak RSS (`ru_maxrss` of
//! the child, from `wait4`) over the runs, with the command line that reproduces each figure, and
//! each command's time as a multiple of its input's ingest-only time (runs interleaved, the median
//! of the per-round ratios):
//! ingest only (`inspect`), `ingest` to Parquet, `analyze` per kernel, `analyze --per launch` to
//! Parquet, `report`, `predict`, and the same for ten copies of the CSV in one call (20 M launches).
//!
//! Environment: `WARPSIGHT_BENCH_BIN` (the binary to measure; default: the one built with this
//! benchmark), `WARPSIGHT_BENCH_LAUNCHES` (default 2 000 000), `WARPSIGHT_BENCH_DETAILS_MB`
//! (default 500), `WARPSIGHT_BENCH_RUNS` (default 3), `WARPSIGHT_BENCH_DIR` (keep the inputs there
//! between runs instead of a temporary directory), `WARPSIGHT_BENCH_ONLY` (run only the steps whose
//! label contains this text). Results go to stdout as a Markdown table; progress to stderr.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use common::Run;
use warpsight_test_support::synthetic_ncu::{LaunchShapes, write_bench_details};
use warpsight_test_support::synthetic_nsys::{self as synth, Schema, SyntheticConfig};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The generated inputs.
struct Inputs {
    csv: PathBuf,
    sqlite: PathBuf,
    details: PathBuf,
    /// The same size of details page with a random configuration for every launch.
    details_random: PathBuf,
    /// Ten names for the CSV (symbolic links), for the 20 M-launch runs.
    ten_csv: Vec<PathBuf>,
}

/// Writes the inputs into `dir` unless they are there already.
fn generate(dir: &Path, launches: usize, details_mb: u64) -> BenchResult<Inputs> {
    let config = SyntheticConfig {
        launches,
        memcpy_every: 50,
        schema: Schema::New,
    };
    let csv = dir.join(format!("cuda_gpu_trace_{launches}.csv"));
    if !csv.exists() {
        eprintln!("generating {}", csv.display());
        synth::write_gpu_trace_csv(&csv, &config)?;
    }
    let sqlite = dir.join(format!("nsys_{launches}.sqlite"));
    if !sqlite.exists() {
        eprintln!("generating {}", sqlite.display());
        synth::write_sqlite(&sqlite, &config)?;
    }
    let details = dir.join(format!("details_{details_mb}mb_per_kernel.ncu-details.csv"));
    let details_random = dir.join(format!(
        "details_{details_mb}mb_every_launch.ncu-details.csv"
    ));
    for (path, shapes) in [
        (&details, LaunchShapes::PerKernel),
        (&details_random, LaunchShapes::EveryLaunch),
    ] {
        if !path.exists() {
            eprintln!("generating {}", path.display());
            let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
            write_bench_details(&mut out, details_mb * 1_000_000, 7, shapes)?;
        }
    }
    let mut ten_csv = Vec::new();
    for copy in 0..10 {
        let link = dir.join(format!("copy{copy}_cuda_gpu_trace.csv"));
        if !link.exists() {
            std::os::unix::fs::symlink(&csv, &link)?;
        }
        ten_csv.push(link);
    }
    Ok(Inputs {
        csv,
        sqlite,
        details,
        details_random,
        ten_csv,
    })
}

/// Runs `binary args` with stdout discarded and returns its wall time and peak RSS.
fn run_once(binary: &Path, args: &[String]) -> BenchResult<Run> {
    let mut command = Command::new(binary);
    command.args(args);
    common::run_once(command)
}

/// One benchmark step: a label, the input it reads and the command's arguments.
struct Step {
    label: String,
    args: Vec<String>,
}

fn args(parts: &[&str], inputs: &[&Path]) -> Vec<String> {
    let mut out: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
    out.extend(inputs.iter().map(|p| p.display().to_string()));
    out
}

fn steps(inputs: &Inputs, out: &Path) -> Vec<Step> {
    let csv = [inputs.csv.as_path()];
    let ten: Vec<&Path> = inputs.ten_csv.iter().map(PathBuf::as_path).collect();
    let sqlite = [inputs.sqlite.as_path()];
    let details = [inputs.details.as_path()];
    let details_random = [inputs.details_random.as_path()];
    let o = |name: &str| out.join(name).display().to_string();
    let step = |label: &str, parts: Vec<String>, inputs: &[&Path]| Step {
        label: label.to_string(),
        args: args(
            &parts.iter().map(String::as_str).collect::<Vec<_>>(),
            inputs,
        ),
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        step(
            "nsys CSV: inspect (ingest only)",
            s(&["-q", "inspect"]),
            &csv,
        ),
        step(
            "nsys CSV: ingest to Parquet",
            s(&["-q", "ingest", "-o", &o("launches.parquet")]),
            &csv,
        ),
        step(
            "nsys CSV: analyze",
            s(&["-q", "analyze", "--format", "csv", "-o", &o("kernels.csv")]),
            &csv,
        ),
        step(
            "nsys CSV: analyze --per launch to Parquet",
            s(&[
                "-q",
                "analyze",
                "--per",
                "launch",
                "-o",
                &o("per_launch.parquet"),
            ]),
            &csv,
        ),
        step(
            "nsys CSV: report",
            s(&["-q", "report", "-o", &o("report.html")]),
            &csv,
        ),
        step(
            "nsys CSV: predict --on H200",
            s(&[
                "-q",
                "predict",
                "--on",
                "NVIDIA H200",
                "--format",
                "csv",
                "-o",
                &o("predict.csv"),
            ]),
            &csv,
        ),
        step(
            "nsys SQLite: inspect (ingest only)",
            s(&["-q", "inspect"]),
            &sqlite,
        ),
        step(
            "nsys SQLite: analyze",
            s(&[
                "-q",
                "analyze",
                "--format",
                "csv",
                "-o",
                &o("kernels_sqlite.csv"),
            ]),
            &sqlite,
        ),
        step(
            "10 × nsys CSV: inspect (ingest only)",
            s(&["-q", "inspect"]),
            &ten,
        ),
        step(
            "10 × nsys CSV: ingest to Parquet",
            s(&["-q", "ingest", "-o", &o("launches_ten.parquet")]),
            &ten,
        ),
        step(
            "10 × nsys CSV: analyze",
            s(&[
                "-q",
                "analyze",
                "--format",
                "csv",
                "-o",
                &o("kernels_ten.csv"),
            ]),
            &ten,
        ),
        step(
            "10 × nsys CSV: report",
            s(&["-q", "report", "-o", &o("report_ten.html")]),
            &ten,
        ),
        step(
            "10 × nsys CSV: predict --on H200",
            s(&[
                "-q",
                "predict",
                "--on",
                "NVIDIA H200",
                "--format",
                "csv",
                "-o",
                &o("predict_ten.csv"),
            ]),
            &ten,
        ),
        step(
            "ncu details, per-kernel shapes: inspect (ingest only)",
            s(&["-q", "inspect"]),
            &details,
        ),
        step(
            "ncu details, per-kernel shapes: analyze",
            s(&[
                "-q",
                "analyze",
                "--format",
                "csv",
                "-o",
                &o("kernels_details.csv"),
            ]),
            &details,
        ),
        step(
            "ncu details, random shapes: inspect (ingest only)",
            s(&["-q", "inspect"]),
            &details_random,
        ),
        step(
            "ncu details, random shapes: analyze",
            s(&[
                "-q",
                "analyze",
                "--format",
                "csv",
                "-o",
                &o("kernels_random.csv"),
            ]),
            &details_random,
        ),
    ]
}

fn run() -> BenchResult<()> {
    let launches = env_usize("WARPSIGHT_BENCH_LAUNCHES", 2_000_000);
    let details_mb = env_usize("WARPSIGHT_BENCH_DETAILS_MB", 500) as u64;
    let runs = env_usize("WARPSIGHT_BENCH_RUNS", 3).max(1);
    let only = std::env::var("WARPSIGHT_BENCH_ONLY").ok();
    let temp;
    let dir = match std::env::var_os("WARPSIGHT_BENCH_DIR") {
        Some(dir) => {
            std::fs::create_dir_all(&dir)?;
            PathBuf::from(dir)
        }
        None => {
            temp = tempfile::tempdir()?;
            temp.path().to_path_buf()
        }
    };
    let inputs = generate(&dir, launches, details_mb)?;
    let out = dir.join("out");
    std::fs::create_dir_all(&out)?;
    // The binary measured: the one cargo built beside this benchmark, or `WARPSIGHT_BENCH_BIN`
    // (the release binary when the benchmark itself is built in the dev profile; see
    // docs/performance.md).
    let binary = std::env::var_os("WARPSIGHT_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_warpsight")));
    eprintln!("measuring {}", binary.display());
    // `WARPSIGHT_BENCH_ONLY=^text` selects the labels that start with `text`.
    let selected: Vec<Step> = steps(&inputs, &out)
        .into_iter()
        .filter(|step| match only.as_deref() {
            None => true,
            Some(o) => match o.strip_prefix('^') {
                Some(prefix) => step.label.starts_with(prefix),
                None => step.label.contains(o),
            },
        })
        .collect();
    // Runs are interleaved (round 1 of every step, then round 2, ...) so that a machine that drifts
    // slower or faster during the benchmark moves a command and its ingest-only baseline together:
    // the ratios to ingest are taken per round and their median is reported.
    let mut measured: Vec<Vec<Run>> = selected.iter().map(|_| Vec::new()).collect();
    for round in 1..=runs {
        for (step, runs_of_step) in selected.iter().zip(measured.iter_mut()) {
            let run = run_once(&binary, &step.args)?;
            eprintln!(
                "round {round}: {}: {:.2} s, {} MB",
                step.label,
                run.wall_s,
                run.peak_rss_bytes / 1_000_000
            );
            runs_of_step.push(run);
        }
    }
    println!(
        "| step | wall s (median of {runs}) | CPU s (median) | peak RSS MB (max) | × ingest (median of rounds) | command |"
    );
    println!("|---|---|---|---|---|---|");
    for (index, step) in selected.iter().enumerate() {
        let runs_of_step = &measured[index];
        let ratio = baseline_of(&selected, index)
            .map(|baseline| {
                median(
                    runs_of_step
                        .iter()
                        .zip(&measured[baseline])
                        .map(|(run, base)| run.wall_s / base.wall_s)
                        .collect(),
                )
            })
            .map_or_else(|| "".to_string(), |ratio| format!("{ratio:.2}×"));
        println!(
            "| {} | {:.2} | {:.2} | {} | {} | `warpsight {}` |",
            step.label,
            median(runs_of_step.iter().map(|run| run.wall_s).collect()),
            median(runs_of_step.iter().map(|run| run.cpu_s).collect()),
            runs_of_step
                .iter()
                .map(|run| run.peak_rss_bytes)
                .max()
                .unwrap_or(0)
                / 1_000_000,
            ratio,
            step.args.join(" ")
        );
    }
    Ok(())
}

/// The median of a non-empty list (the upper one of the two middle values for an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The ingest-only step (`<input>: inspect (ingest only)`) of the same input as step `index`,
/// when it was selected and is not the step itself.
fn baseline_of(selected: &[Step], index: usize) -> Option<usize> {
    let (input, _) = selected[index].label.split_once(": ")?;
    let baseline = format!("{input}: inspect (ingest only)");
    selected
        .iter()
        .position(|step| step.label == baseline)
        .filter(|&found| found != index)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
