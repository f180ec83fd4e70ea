//! Every-core benchmark of issue #27 (harness = false): `cargo bench -p warpsight --bench cores`.
//!
//! Runs the release binary, and python-polars on the same files, each command in its own process
//! limited to 1 and to 2 threads (and to any thread counts given), and reports the median wall
//! time, the median CPU time and the largest peak RSS (`ru_maxrss` of the child, from `wait4`) over
//! the rounds, the speed-up over the same command on 1 thread, each `analyze` as a multiple of its
//! input's ingest, and each warpsight command as a multiple of python-polars on the same input
//! (runs interleaved, every ratio the median of the per-round ratios; within a round, the steps
//! of one input run together, a command's thread counts back to back):
//!
//! - a 500 MB Nsight Compute details page: `inspect` (ingest only) and `analyze`; polars reads it
//!   and pivots five metric columns (`cores_polars.py details`). The page amplifies a real A100
//!   export (`../shared/traces/opparam__pooling_nsight16.csv`, 240 launches, to ≈ 43 000
//!   launches; see `synthetic_ncu::amplify_details`), or, where `../shared` is absent, is the
//!   synthetic page of `synthetic_ncu::write_bench_details`;
//! - a 2 M-launch Nsight Systems `cuda_gpu_trace` CSV (`synthetic_nsys`): `inspect` and `analyze`;
//!   polars reads it and groups the kernels by name with the sum, mean and count of their
//!   durations (`cores_polars.py nsys`);
//! - a batch of 71 `.ncu-rep` reports (every readable report in `traces/` and `../shared/traces`,
//!   repeated to 71 inputs) ingested into one Parquet file (`ingest -o`);
//! - the machine's own ceiling: this benchmark run again as `cores --ceiling`, a loop that only
//!   computes (a hash over a buffer that stays in each core's cache: no allocation, no memory
//!   traffic, nothing shared), the same total work split over the threads. Its speed-up from 1 to
//!   `t` threads is the most any command can reach on the machine: a virtual machine whose cores
//!   share a physical core, or a busy host, gives less than `t`.
//!
//! A thread count `t` runs the command under `taskset -c 0-(t-1)` (where `taskset` is installed and
//! the machine has `t` cores) with `RAYON_NUM_THREADS=t` and `POLARS_MAX_THREADS=t`; the command
//! line of each figure is printed with it.
//!
//! python-polars comes from PyPI into a virtual environment under `target/`:
//!
//! ```sh
//! python3 -m venv target/bench-venv && target/bench-venv/bin/pip install polars
//! ```
//!
//! Without it (no `import polars`), the polars rows are skipped with a note saying so.
//!
//! Environment: `WARPSIGHT_BENCH_BIN` (the binary to measure; default: the one built with this
//! benchmark), `WARPSIGHT_BENCH_THREADS` (comma-separated thread counts, default `1,2`; e.g.
//! `1,2,4,8,16` on a larger machine), `WARPSIGHT_BENCH_DETAILS_MB` (default 500),
//! `WARPSIGHT_BENCH_LAUNCHES` (nsys launches, default 2 000 000), `WARPSIGHT_BENCH_REPORTS`
//! (`.ncu-rep` inputs, default 71), `WARPSIGHT_BENCH_RUNS` (rounds, default 3),
//! `WARPSIGHT_BENCH_DIR` (keep the inputs there between runs instead of a temporary directory),
//! `WARPSIGHT_BENCH_ONLY` (run only the steps whose label contains this text; `^text` for a
//! prefix), `WARPSIGHT_BENCH_PYTHON` (the Python with polars; default `target/bench-venv/bin/python`).
//! Results go to stdout as a Markdown table; progress to stderr.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use common::{Run, run_once};
use warpsight_test_support::paths;
use warpsight_test_support::synthetic_ncu::{LaunchShapes, amplify_details, write_bench_details};
use warpsight_test_support::synthetic_nsys::{self as synth, Schema, SyntheticConfig};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The real A100 details page the 500 MB page is amplified from (in `../shared/traces`).
const A100_DETAILS: &str = "opparam__pooling_nsight16.csv";

/// The polars script beside this benchmark.
const POLARS_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/cores_polars.py");

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The generated (or linked) inputs.
struct Inputs {
    details: PathBuf,
    nsys_csv: PathBuf,
    reports: Vec<PathBuf>,
}

/// Writes the details page into `dir` unless it is there already.
fn details_page(dir: &Path, details_mb: u64) -> BenchResult<PathBuf> {
    let target = details_mb * 1_000_000;
    let real = paths::shared_traces()
        .map(|traces| traces.join(A100_DETAILS))
        .filter(|path| path.is_file());
    let name = match real {
        Some(_) => format!("details_{details_mb}mb_a100_amplified.ncu-details.csv"),
        None => format!("details_{details_mb}mb_synthetic.ncu-details.csv"),
    };
    let path = dir.join(name);
    if path.exists() {
        return Ok(path);
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    let (bytes, launches) = match &real {
        Some(source) => {
            eprintln!("amplifying {} into {}", source.display(), path.display());
            amplify_details(&mut out, &std::fs::read_to_string(source)?, target)?
        }
        None => {
            eprintln!(
                "../shared/traces/{A100_DETAILS} is absent: writing the synthetic page {}",
                path.display()
            );
            write_bench_details(&mut out, target, 7, LaunchShapes::PerKernel)?
        }
    };
    use std::io::Write as _;
    out.flush()?;
    eprintln!("  {bytes} bytes, {launches} launches");
    Ok(path)
}

/// Every `.ncu-rep` file under `dir`, recursively.
fn find_reports(dir: &Path, found: &mut Vec<PathBuf>) -> BenchResult<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            find_reports(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "ncu-rep") {
            found.push(path);
        }
    }
    Ok(())
}

/// `count` links in `dir/reports` to the readable `.ncu-rep` files of `traces/` and
/// `../shared/traces`, the list repeated as often as needed.
fn report_batch(dir: &Path, binary: &Path, count: usize) -> BenchResult<Vec<PathBuf>> {
    let mut found = Vec::new();
    find_reports(&paths::traces_dir(), &mut found)?;
    if let Some(shared) = paths::shared_traces() {
        find_reports(&shared, &mut found)?;
    }
    found.sort();
    // A report the binary cannot read (a deliberately damaged test file) would fail the batch.
    let readable: Vec<PathBuf> = found
        .into_iter()
        .filter(|path| {
            Command::new(binary)
                .args(["-q", "inspect"])
                .arg(path)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        })
        .collect();
    if readable.is_empty() || count == 0 {
        return Ok(Vec::new());
    }
    let links = dir.join("reports");
    std::fs::create_dir_all(&links)?;
    let mut batch = Vec::with_capacity(count);
    for i in 0..count {
        let source = &readable[i % readable.len()];
        let name = source
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let link = links.join(format!("{i:03}_{name}"));
        if !link.exists() {
            std::os::unix::fs::symlink(std::fs::canonicalize(source)?, &link)?;
        }
        batch.push(link);
    }
    eprintln!(
        "{} .ncu-rep inputs from {} readable reports",
        batch.len(),
        readable.len()
    );
    Ok(batch)
}

fn generate(dir: &Path, binary: &Path) -> BenchResult<Inputs> {
    let details_mb = env_usize("WARPSIGHT_BENCH_DETAILS_MB", 500) as u64;
    let launches = env_usize("WARPSIGHT_BENCH_LAUNCHES", 2_000_000);
    let reports = env_usize("WARPSIGHT_BENCH_REPORTS", 71);
    let details = details_page(dir, details_mb)?;
    let nsys_csv = dir.join(format!("cuda_gpu_trace_{launches}.csv"));
    if !nsys_csv.exists() {
        eprintln!("generating {}", nsys_csv.display());
        let config = SyntheticConfig {
            launches,
            memcpy_every: 50,
            schema: Schema::New,
        };
        synth::write_gpu_trace_csv(&nsys_csv, &config)?;
    }
    Ok(Inputs {
        details,
        nsys_csv,
        reports: report_batch(dir, binary, reports)?,
    })
}

/// What a step measures, for its ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// warpsight reading the input only (`inspect`, or `ingest` of the report batch).
    Ingest,
    /// warpsight `analyze`.
    Analyze,
    /// python-polars on the same input.
    Polars,
    /// The compute-only loop of [`ceiling`].
    Ceiling,
}

/// One command of the benchmark, at one thread count.
struct Step {
    /// The input's name (steps of one input share it).
    input: &'static str,
    kind: Kind,
    threads: usize,
    /// The program and its arguments (without the thread limits).
    program: PathBuf,
    args: Vec<String>,
}

impl Step {
    fn label(&self) -> String {
        let what = match (self.kind, self.input) {
            (Kind::Ingest, REPORTS) => "ingest -o x.parquet",
            (Kind::Ingest, _) => "inspect (ingest only)",
            (Kind::Analyze, _) => "analyze",
            (Kind::Polars, DETAILS) => "python-polars read + pivot",
            (Kind::Polars, _) => "python-polars read + group-by",
            (Kind::Ceiling, _) => "compute-only loop (the ceiling)",
        };
        format!("{}: {what}", self.input)
    }

    /// The command with its thread limits.
    fn command(&self, taskset: bool) -> Command {
        let threads = self.threads.to_string();
        let mut command = if taskset {
            let mut c = Command::new("taskset");
            c.args(["-c", &format!("0-{}", self.threads - 1)])
                .arg(&self.program);
            c
        } else {
            Command::new(&self.program)
        };
        command
            .args(&self.args)
            .env("RAYON_NUM_THREADS", &threads)
            .env("POLARS_MAX_THREADS", &threads);
        command
    }

    /// The command line that reproduces the figure.
    fn shell(&self, taskset: bool) -> String {
        let limit = if taskset {
            format!("taskset -c 0-{} ", self.threads - 1)
        } else {
            String::new()
        };
        let program = match self.kind {
            Kind::Polars => format!("python {}", Path::new(POLARS_SCRIPT).display()),
            Kind::Ceiling => "target/debug/deps/cores-*".to_string(),
            _ => "warpsight".to_string(),
        };
        let args = match (self.kind, self.input) {
            (Kind::Polars, _) => self.args[1..].join(" "),
            // The report batch's command names its inputs by their folder, not one by one.
            (_, REPORTS) => format!(
                "{} $BENCH/reports/*.ncu-rep ({} inputs)",
                self.args[..4].join(" "),
                self.args.len() - 4
            ),
            _ => self.args.join(" "),
        };
        format!(
            "RAYON_NUM_THREADS={t} POLARS_MAX_THREADS={t} {limit}{program} {args}",
            t = self.threads
        )
    }
}

const DETAILS: &str = "ncu details page";
const NSYS: &str = "nsys cuda_gpu_trace CSV";
const REPORTS: &str = ".ncu-rep batch";
const MACHINE: &str = "machine";

/// The argument that runs this benchmark as [`ceiling`].
const CEILING_ARG: &str = "--ceiling";

/// The work of [`ceiling`]: passes over a 256 KiB buffer, in all (about 0.6 s on one core of the
/// development machine, the benchmark built in the dev profile as docs/performance.md builds it).
const CEILING_PASSES: u64 = 512;

/// The compute-only loop: `CEILING_PASSES` passes of an FNV-1a hash over a 256 KiB buffer (in each
/// core's L2 cache), shared among `RAYON_NUM_THREADS` plain threads, each with its own buffer.
/// Prints the hashes' sum, so that the work cannot be optimised away.
fn ceiling() -> ExitCode {
    let threads = env_usize("RAYON_NUM_THREADS", 1).max(1) as u64;
    let total: u64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                scope.spawn(move || {
                    let buffer: Vec<u8> = (0..256 * 1024u32)
                        .map(|i| {
                            (i.wrapping_mul(2_654_435_761).wrapping_add(worker as u32) >> 24) as u8
                        })
                        .collect();
                    let passes =
                        CEILING_PASSES / threads + u64::from(worker < CEILING_PASSES % threads);
                    let mut sum = 0u64;
                    for pass in 0..passes {
                        let mut hash = 0xcbf2_9ce4_8422_2325u64 ^ pass;
                        for &byte in &buffer {
                            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                        }
                        sum = sum.wrapping_add(hash);
                    }
                    sum
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or(0))
            .fold(0, u64::wrapping_add)
    });
    println!("{total}");
    ExitCode::SUCCESS
}

/// The Python with polars, or why there is none.
fn polars_python() -> Result<PathBuf, String> {
    let python = std::env::var_os("WARPSIGHT_BENCH_PYTHON").map_or_else(
        || paths::workspace_root().join("target/bench-venv/bin/python"),
        PathBuf::from,
    );
    let works = Command::new(&python)
        .args(["-c", "import polars"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if works {
        Ok(python)
    } else {
        Err(format!(
            "python-polars rows skipped: `{} -c \"import polars\"` fails; create the environment with \
             `python3 -m venv target/bench-venv && target/bench-venv/bin/pip install polars` \
             (or set WARPSIGHT_BENCH_PYTHON)",
            python.display()
        ))
    }
}

fn steps(
    inputs: &Inputs,
    out: &Path,
    binary: &Path,
    python: Option<&Path>,
    threads: &[usize],
) -> Vec<Step> {
    let mut steps = Vec::new();
    let text = |p: &Path| p.display().to_string();
    for &t in threads {
        let warpsight = |input, kind, args: Vec<String>| Step {
            input,
            kind,
            threads: t,
            program: binary.to_path_buf(),
            args,
        };
        let analyze = |file: &str, name: &str| {
            vec![
                "-q".to_string(),
                "analyze".into(),
                "--format".into(),
                "csv".into(),
                "-o".into(),
                text(&out.join(format!("{name}_{t}.csv"))),
                file.to_string(),
            ]
        };
        let details = text(&inputs.details);
        let nsys = text(&inputs.nsys_csv);
        steps.push(warpsight(
            DETAILS,
            Kind::Ingest,
            vec!["-q".into(), "inspect".into(), details.clone()],
        ));
        steps.push(warpsight(
            DETAILS,
            Kind::Analyze,
            analyze(&details, "details"),
        ));
        steps.push(warpsight(
            NSYS,
            Kind::Ingest,
            vec!["-q".into(), "inspect".into(), nsys.clone()],
        ));
        steps.push(warpsight(NSYS, Kind::Analyze, analyze(&nsys, "nsys")));
        if !inputs.reports.is_empty() {
            let mut args = vec![
                "-q".to_string(),
                "ingest".into(),
                "-o".into(),
                text(&out.join(format!("reports_{t}.parquet"))),
            ];
            args.extend(inputs.reports.iter().map(|p| text(p)));
            steps.push(warpsight(REPORTS, Kind::Ingest, args));
        }
        if let Ok(this) = std::env::current_exe() {
            steps.push(Step {
                input: MACHINE,
                kind: Kind::Ceiling,
                threads: t,
                program: this,
                args: vec![CEILING_ARG.to_string()],
            });
        }
        if let Some(python) = python {
            for (input, mode, file) in [(DETAILS, "details", &details), (NSYS, "nsys", &nsys)] {
                steps.push(Step {
                    input,
                    kind: Kind::Polars,
                    threads: t,
                    program: python.to_path_buf(),
                    args: vec![POLARS_SCRIPT.to_string(), mode.to_string(), file.clone()],
                });
            }
        }
    }
    steps
}

/// The order in which round `round` (from 1) runs the steps: input by input (in the order of
/// their first steps), and within an input command by command, each command's thread counts one
/// after the other, ascending in odd rounds and descending in even ones.
///
/// Every ratio compares two steps of one input, so they run close together: the 2-vCPU machine of
/// docs/performance.md changes speed for seconds at a time (the compute-only loop on one core
/// takes 0.51–0.58 s for several seconds in a row, then 0.84–0.91 s), and when every step of one
/// thread count ran before any of the next, a command's 1- and 2-thread runs were about 15 s
/// apart. Alternating the order cancels a drift within a pair. It does not remove the phases
/// shorter than a pair: docs/performance.md (session 21) has the spread that remains.
fn round_order(selected: &[Step], round: usize) -> Vec<usize> {
    let first_of = |same: &dyn Fn(&Step) -> bool| selected.iter().position(same);
    let mut order: Vec<usize> = (0..selected.len()).collect();
    order.sort_by_key(|&i| {
        let step = &selected[i];
        let threads = if round.is_multiple_of(2) {
            usize::MAX - step.threads
        } else {
            step.threads
        };
        (
            first_of(&|s: &Step| s.input == step.input),
            first_of(&|s: &Step| s.input == step.input && s.kind == step.kind),
            threads,
        )
    });
    order
}

/// The median of a non-empty list (the upper one of the two middle values for an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The index of the step of the same input as `step` with `kind` and `threads`, if selected.
fn find(selected: &[Step], step: &Step, kind: Kind, threads: usize) -> Option<usize> {
    selected
        .iter()
        .position(|s| s.input == step.input && s.kind == kind && s.threads == threads)
}

/// The median over the rounds of `measured[a] / measured[b]` (wall times), formatted with the
/// smallest and largest per-round ratio after it, so that a table shows how far one round is from
/// another on the same machine (docs/performance.md, session 21: the host's speed phases).
fn ratio(measured: &[Vec<Run>], a: usize, b: Option<usize>, invert: bool) -> String {
    let Some(b) = b.filter(|&b| b != a) else {
        return String::new();
    };
    let per_round = measured[a]
        .iter()
        .zip(&measured[b])
        .map(|(x, y)| {
            if invert {
                y.wall_s / x.wall_s
            } else {
                x.wall_s / y.wall_s
            }
        })
        .collect::<Vec<f64>>();
    if per_round.len() < 2 {
        return format!("{:.2}×", median(per_round));
    }
    let low = per_round.iter().copied().fold(f64::INFINITY, f64::min);
    let high = per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{:.2}× ({low:.2}–{high:.2})", median(per_round))
}

fn run() -> BenchResult<()> {
    let runs = env_usize("WARPSIGHT_BENCH_RUNS", 3).max(1);
    let only = std::env::var("WARPSIGHT_BENCH_ONLY").ok();
    let threads: Vec<usize> = std::env::var("WARPSIGHT_BENCH_THREADS")
        .unwrap_or_else(|_| "1,2".to_string())
        .split(',')
        .filter_map(|t| t.trim().parse().ok())
        .filter(|&t| t > 0)
        .collect();
    if threads.is_empty() {
        return Err("WARPSIGHT_BENCH_THREADS names no thread count".into());
    }
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
    // The binary measured: the one cargo built beside this benchmark, or `WARPSIGHT_BENCH_BIN`
    // (the release binary when the benchmark itself is built in the dev profile; see
    // docs/performance.md).
    let binary = std::env::var_os("WARPSIGHT_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_warpsight")));
    eprintln!("measuring {}", binary.display());
    let inputs = generate(&dir, &binary)?;
    let out = dir.join("out");
    std::fs::create_dir_all(&out)?;
    println!(
        "Inputs: {DETAILS} {} ({} MB), {NSYS} {} ({} MB), {REPORTS} of {} inputs.\n",
        inputs.details.display(),
        std::fs::metadata(&inputs.details)?.len() / 1_000_000,
        inputs.nsys_csv.display(),
        std::fs::metadata(&inputs.nsys_csv)?.len() / 1_000_000,
        inputs.reports.len()
    );
    let python = match polars_python() {
        Ok(python) => Some(python),
        Err(note) => {
            eprintln!("{note}");
            println!("Note: {note}.\n");
            None
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let has_taskset = Command::new("taskset")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    let taskset = |step: &Step| has_taskset && step.threads <= cores;
    let selected: Vec<Step> = steps(&inputs, &out, &binary, python.as_deref(), &threads)
        .into_iter()
        .filter(|step| match only.as_deref() {
            None => true,
            Some(o) => match o.strip_prefix('^') {
                Some(prefix) => step.label().starts_with(prefix),
                None => step.label().contains(o),
            },
        })
        .collect();
    // Runs are interleaved (round 1 of every step, then round 2, ...) so that a machine that
    // drifts slower or faster moves a command and its baselines together: every ratio is taken
    // per round and its median is reported. Within a round, the steps of one input run together,
    // each command's thread counts one after the other (see `round_order`).
    let mut measured: Vec<Vec<Run>> = selected.iter().map(|_| Vec::new()).collect();
    for round in 1..=runs {
        for index in round_order(&selected, round) {
            let (step, runs_of_step) = (&selected[index], &mut measured[index]);
            let run = run_once(step.command(taskset(step)))?;
            eprintln!(
                "round {round}: {}, {} thread(s): {:.2} s, {:.2} s CPU, {} MB",
                step.label(),
                step.threads,
                run.wall_s,
                run.cpu_s,
                run.peak_rss_bytes / 1_000_000
            );
            runs_of_step.push(run);
        }
    }
    println!(
        "| step | threads | wall s (median of {runs}) | CPU s (median) | peak RSS MB (max) | speed-up over 1 thread (median; rounds' range) | × ingest (same) | × polars (same) | command |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (index, step) in selected.iter().enumerate() {
        let runs_of_step = &measured[index];
        let one_thread = find(&selected, step, step.kind, 1);
        let ingest = match step.kind {
            Kind::Analyze => find(&selected, step, Kind::Ingest, step.threads),
            _ => None,
        };
        let polars = match step.kind {
            Kind::Polars => None,
            _ => find(&selected, step, Kind::Polars, step.threads),
        };
        println!(
            "| {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | `{}` |",
            step.label(),
            step.threads,
            median(runs_of_step.iter().map(|run| run.wall_s).collect()),
            median(runs_of_step.iter().map(|run| run.cpu_s).collect()),
            runs_of_step
                .iter()
                .map(|run| run.peak_rss_bytes)
                .max()
                .unwrap_or(0)
                / 1_000_000,
            ratio(&measured, index, one_thread, true),
            ratio(&measured, index, ingest, false),
            ratio(&measured, index, polars, false),
            step.shell(taskset(step)),
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(CEILING_ARG) {
        return ceiling();
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
