//! Ingest benchmark for the Nsight Compute readers (`cargo bench -p warpsight --bench ingest_ncu`).
//!
//! Generates a large synthetic details CSV (default 500 MB) and a raw-page CSV (default 200 MB)
//! shaped like real exports (see `warpsight_test_support::synthetic_ncu`) in a temporary directory,
//! then times `read_path` on each in a fresh child process of this binary, so that the generation
//! does not pollute the peak RSS. Prints MB/s, launches/s, wall time and peak RSS (`VmHWM`).
//!
//! Sizes: `WARPSIGHT_BENCH_DETAILS_MB`, `WARPSIGHT_BENCH_RAW_MB`. Targets on the 2-core
//! development machine: 500 MB details in ≤ 2 s wall and ≤ 500 MB peak RSS.

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use warpsight_ingest::{ReadConfig, read_path};
use warpsight_test_support::synthetic_ncu;

const CHILD_ENV: &str = "WARPSIGHT_BENCH_NCU_CHILD";

fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Child mode: read one file and print `wall_s launches rss_bytes`.
fn child(path: &Path) -> ExitCode {
    let start = Instant::now();
    match read_path(path, &ReadConfig::default()) {
        Ok(trace) => {
            let wall = start.elapsed().as_secs_f64();
            println!(
                "{wall} {} {} {}",
                trace.launch_count(),
                peak_rss_bytes().unwrap_or(0),
                trace.rejected.len()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(1)
        }
    }
}

fn env_mb(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn measure(
    label: &str,
    path: &PathBuf,
    bytes: u64,
    generated_launches: u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let output = Command::new(exe).env(CHILD_ENV, path).output()?;
    if !output.status.success() {
        return Err(format!(
            "{label}: child failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let text = String::from_utf8(output.stdout)?;
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [wall, launches, rss, rejected] = fields[..] else {
        return Err(format!("{label}: unexpected child output `{text}`").into());
    };
    let (wall, launches, rss): (f64, u64, u64) = (wall.parse()?, launches.parse()?, rss.parse()?);
    if launches != generated_launches {
        return Err(
            format!("{label}: read {launches} launches, generated {generated_launches}").into(),
        );
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "{label:<8} {mb:>8.1} MB  {wall:>7.3} s  {:>8.1} MB/s  {:>10.0} launches/s  peak RSS {:>7.1} MB  ({launches} launches, {rejected} rejected)",
        mb / wall,
        launches as f64 / wall,
        rss as f64 / 1e6
    );
    Ok(())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let details_mb = env_mb("WARPSIGHT_BENCH_DETAILS_MB", 500);
    let raw_mb = env_mb("WARPSIGHT_BENCH_RAW_MB", 200);
    let dir = tempfile::tempdir()?;
    let details = dir.path().join("details.csv");
    let raw = dir.path().join("raw.csv");
    let start = Instant::now();
    let (details_bytes, details_launches) = synthetic_ncu::write_bench_details(
        &mut BufWriter::new(std::fs::File::create(&details)?),
        details_mb * 1_000_000,
        1,
        synthetic_ncu::LaunchShapes::EveryLaunch,
    )?;
    let (raw_bytes, raw_launches) = synthetic_ncu::write_bench_raw(
        &mut BufWriter::new(std::fs::File::create(&raw)?),
        raw_mb * 1_000_000,
        400,
        2,
    )?;
    eprintln!(
        "generated in {:.1} s; threads: {}",
        start.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    );
    measure("details", &details, details_bytes, details_launches)?;
    measure("raw", &raw, raw_bytes, raw_launches)?;
    Ok(())
}

fn main() -> ExitCode {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        return child(Path::new(&path));
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(1)
        }
    }
}
