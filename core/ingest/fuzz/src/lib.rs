//! What every ingest fuzz target shares: the bytes are written to a file (the readers read files,
//! as `warpsight` does) and read through `warpsight_ingest`, with the launch-table validation.
//!
//! A panic anywhere, including one that `read_path`'s `catch_unwind` would turn into
//! `IngestError::Panicked`, aborts the process under libFuzzer (libfuzzer-sys installs a panic
//! hook that aborts before unwinding), so every panic is reported as a crash with its input. The
//! one exception is the Parquet / Arrow IPC target, where panics raised inside polars' own readers
//! unwind to `read_path` as in the binary and are logged (`let_polars_panics_unwind`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, OnceLock};

use warpsight_ingest::{Format, ReadConfig};

/// A folder of this process's own, `warpsight-ingest-fuzz/<pid>` in `/dev/shm` when there is one
/// (so that writing the input costs no disk I/O), holding only the current input: the nsys
/// single-table reader looks for sibling tables beside its file. libFuzzer's fork mode starts a
/// process per job and none can clean up after itself at exit, so each new one removes the folders
/// of the processes that have ended (Linux: no `/proc/<pid>`).
fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        let base = base.join("warpsight-ingest-fuzz");
        if let Ok(entries) = std::fs::read_dir(&base) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let ended = name
                    .to_str()
                    .and_then(|pid| pid.parse::<u32>().ok())
                    .is_some_and(|pid| Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists());
                if ended {
                    // Another process may be removing it too: a failure here changes nothing.
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let dir = base.join(std::process::id().to_string());
        // A fuzz target has no caller to report to: failing to make its scratch folder ends the run.
        std::fs::create_dir_all(&dir).expect("cannot create the fuzzing scratch folder");
        dir
    })
}

/// Writes `data` to the scratch file `name` and returns its path.
fn input_file(data: &[u8], name: &str) -> PathBuf {
    let path = scratch_dir().join(name);
    std::fs::write(&path, data).expect("cannot write the fuzzing input file");
    path
}

/// Reads `data` as `format` (detection first, then the reader forced to `format`, so that the
/// reader sees every input, not only those detection accepts), leniently and with `--strict`.
/// The formats `warpsight ingest` and `warpsight analyze` read in batches (the `cuda_gpu_trace`
/// CSV, the SQLite export) are read whole leniently and in batches with `--strict`
/// (`read_trace_batches` with their other tables, format forced, batches of [`FUZZ_BATCH`] so
/// that a small input is many batches), so that both readers see every input.
pub fn read_as(data: &[u8], format: Format, name: &str) {
    let path = input_file(data, name);
    let _ = warpsight_ingest::detect(&path);
    let _ = warpsight_ingest::read_as(&path, format, &ReadConfig { strict: false, format: None });
    let strict = ReadConfig { strict: true, format: Some(format) };
    if matches!(format, Format::NsysGpuTrace | Format::NsysSqlite) {
        let _ = warpsight_ingest::read_trace_batches(&path, &strict, FUZZ_BATCH, |_batch| {
            Ok::<(), ()>(())
        });
    } else {
        let _ = warpsight_ingest::read_as(&path, format, &strict);
    }
}

/// Reads `data` the way `warpsight` reads an input it is given: detection, then the detected
/// reader; an nsys Parquet / Arrow table also in batches with `--strict`, as `ingest` and
/// `analyze` read it.
pub fn read_detected(data: &[u8], name: &str) {
    let path = input_file(data, name);
    let _ = warpsight_ingest::read_path(&path, &ReadConfig::default());
    // An nsys table is also read in row slices, as `warpsight ingest` reads it.
    if let Ok(format @ (Format::NsysParquet | Format::NsysArrow)) = warpsight_ingest::detect(&path) {
        let strict = ReadConfig { strict: true, format: Some(format) };
        let _ = warpsight_ingest::read_trace_batches(&path, &strict, FUZZ_BATCH, |_batch| {
            Ok::<(), ()>(())
        });
    }
}

/// Batches of three launches: a fuzzing input of a few kilobytes is cut into many batches
/// (`cuda_gpu_trace` blocks of 4 KiB, SQLite ranges of 3 rowids, Parquet / Arrow slices of 12
/// rows), so that the batch boundaries are fuzzed too.
const FUZZ_BATCH: warpsight_ingest::BatchSize = warpsight_ingest::BatchSize { launches: 3 };

/// Whether a panic raised at `file` (a source path from the panic's location) was raised inside
/// one of polars' own crates (`polars-arrow-0.55.2/src/…`, `polars-parquet-…`), as opposed to
/// warpsight's code or the standard library.
pub fn raised_in_polars(file: &str) -> bool {
    file.split(['/', '\\']).any(|part| part.starts_with("polars-") || part == "polars")
}

/// Lets panics raised inside polars unwind, as they do in `warpsight`, to the `catch_unwind` of
/// `read_path` (which turns them into `IngestError::Panicked`, reported as `unreadable:` with a
/// hint); every other panic still aborts through libfuzzer-sys' hook and is a crash.
///
/// This is for the Parquet / Arrow IPC target only: there, polars' readers parse the untrusted
/// bytes themselves and panic on some damaged page data (docs/reliability.md lists the places),
/// which would otherwise stop every run at the first such input. Each place is printed to stderr
/// the first time it is seen (`caught polars panic #N at FILE:LINE: MESSAGE`), with a running
/// count of the panics caught, so a run's log tells which places it met and how often.
pub fn let_polars_panics_unwind() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let Some(location) = info.location().filter(|l| raised_in_polars(l.file())) else {
                abort_hook(info);
                return;
            };
            static SEEN: Mutex<Option<HashMap<String, u64>>> = Mutex::new(None);
            let place = format!("{}:{}", location.file(), location.line());
            let mut seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let seen = seen.get_or_insert_with(HashMap::new);
            let total: u64 = seen.values().sum::<u64>() + 1;
            let count = seen.entry(place.clone()).or_insert(0);
            *count += 1;
            if *count == 1 {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let message: String = message.chars().take(160).collect();
                eprintln!("caught polars panic #{total} at {place}: {message}");
            } else if total.is_power_of_two() {
                eprintln!("caught polars panics: {total} in all, at {} places", seen.len());
            }
        }));
    });
}
