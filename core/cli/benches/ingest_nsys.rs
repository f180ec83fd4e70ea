//! Scale benchmark of the Nsight Systems readers (harness = false):
//! `cargo bench -p warpsight --bench ingest_nsys`.
//!
//! Generates a 2 M-launch `cuda_gpu_trace` CSV (real layout: preamble line, quoted templated kernel
//! names, a memcpy/memset row every 50 launches) and a 2 M-launch SQLite export (new schema) with
//! `ingest::nsys_synthetic`, then measures, each in a fresh child process so that the peak RSS
//! (`VmHWM` from `/proc/self/status`) belongs to that step alone:
//! - `csv`: CSV ingest;
//! - `csv+occupancy`: CSV ingest followed by `model::evaluate_occupancy` (the occupancy fast path:
//!   occupancy and waves, once per distinct launch configuration), collected;
//! - `csv+model`: CSV ingest followed by `model::evaluate` (occupancy and the rest of the model);
//! - `sqlite`: SQLite ingest.
//!
//! Environment: `WARPSIGHT_BENCH_LAUNCHES` (default 2 000 000), `WARPSIGHT_BENCH_RUNS` (default 3),
//! `WARPSIGHT_BENCH_DIR` (keep the generated files there instead of a temporary directory).
//! Results go to stdout; generation progress to stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use polars::prelude::*;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::{ModelConfig, evaluate, evaluate_occupancy};
use warpsight_test_support::synthetic_nsys::{self as synth, Schema, SyntheticConfig};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Peak resident set size of this process, bytes (`VmHWM`).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Child mode: runs one step on `path` and prints `launches wall_s ingest_s peak_rss_bytes`.
fn child(step: &str, path: &Path) -> BenchResult<()> {
    let registry = if step == "csv+model" || step == "csv+occupancy" {
        Some(warpsight_test_support::registry())
    } else {
        None
    };
    let start = Instant::now();
    let trace = read_path(path, &ReadConfig::default())?;
    let ingest_s = start.elapsed().as_secs_f64();
    let launches = trace.launch_count();
    if let Some(registry) = &registry {
        let frame = trace.launches.lazy();
        let config = ModelConfig::default();
        let evaluated = if step == "csv+occupancy" {
            evaluate_occupancy(frame, registry, &config)?.collect()?
        } else {
            evaluate(frame, registry, &config)?.collect()?
        };
        if evaluated.height() != launches {
            return Err(format!(
                "the model returned {} rows for {launches} launches",
                evaluated.height()
            )
            .into());
        }
    }
    let wall_s = start.elapsed().as_secs_f64();
    println!(
        "{launches} {wall_s} {ingest_s} {}",
        peak_rss_bytes().unwrap_or(0)
    );
    Ok(())
}

/// One measured step.
struct Measurement {
    launches: usize,
    wall_s: f64,
    ingest_s: f64,
    peak_rss: u64,
}

fn run_child(step: &str, path: &Path) -> BenchResult<Measurement> {
    let output = Command::new(std::env::current_exe()?)
        .args(["--child", step])
        .arg(path)
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "child `{step}` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 4 {
        return Err(format!("unexpected child output `{text}`").into());
    }
    Ok(Measurement {
        launches: fields[0].parse()?,
        wall_s: fields[1].parse()?,
        ingest_s: fields[2].parse()?,
        peak_rss: fields[3].parse()?,
    })
}

fn generate(dir: &Path, config: &SyntheticConfig) -> BenchResult<(PathBuf, PathBuf)> {
    let csv = dir.join(format!("cuda_gpu_trace_{}.csv", config.launches));
    let sqlite = dir.join(format!("report_{}.sqlite", config.launches));
    if !csv.exists() {
        let start = Instant::now();
        synth::write_gpu_trace_csv(&csv, config)?;
        eprintln!(
            "generated {} in {:.1} s",
            csv.display(),
            start.elapsed().as_secs_f64()
        );
    }
    if !sqlite.exists() {
        let start = Instant::now();
        synth::write_sqlite(&sqlite, config)?;
        eprintln!(
            "generated {} in {:.1} s",
            sqlite.display(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok((csv, sqlite))
}

fn parent() -> BenchResult<()> {
    let launches = env_usize("WARPSIGHT_BENCH_LAUNCHES", 2_000_000);
    let runs = env_usize("WARPSIGHT_BENCH_RUNS", 3).max(1);
    let config = SyntheticConfig {
        launches,
        memcpy_every: 50,
        schema: Schema::New,
    };
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
    let (csv, sqlite) = generate(&dir, &config)?;
    // Build and load the plugins once before timing anything.
    warpsight_test_support::registry();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    println!(
        "nsys ingest benchmark: {launches} launches, {runs} runs per step (median shown), {threads} CPU threads"
    );
    println!(
        "{:<14} {:>10} {:>10} {:>10} {:>10} {:>14} {:>12}",
        "step", "input MB", "launches", "wall s", "ingest s", "launches/s", "peak RSS MB"
    );
    for (step, path) in [
        ("csv", &csv),
        ("csv+occupancy", &csv),
        ("csv+model", &csv),
        ("sqlite", &sqlite),
    ] {
        let mut measurements = Vec::with_capacity(runs);
        for _ in 0..runs {
            measurements.push(run_child(step, path)?);
        }
        measurements.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
        let median = &measurements[measurements.len() / 2];
        let peak = measurements.iter().map(|m| m.peak_rss).max().unwrap_or(0);
        let size = std::fs::metadata(path)?.len() as f64 / 1e6;
        println!(
            "{:<14} {:>10.1} {:>10} {:>10.3} {:>10.3} {:>14.0} {:>12.1}",
            step,
            size,
            median.launches,
            median.wall_s,
            median.ingest_s,
            median.launches as f64 / median.wall_s,
            peak as f64 / 1e6,
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.iter().position(|a| a == "--child") {
        Some(at) if args.len() > at + 2 => child(&args[at + 1], Path::new(&args[at + 2])),
        Some(_) => Err("usage: ingest_nsys --child STEP PATH".into()),
        None => parent(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
