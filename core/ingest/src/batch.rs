//! Batch reading: expands files, directories and glob patterns, reads them in parallel, and keeps
//! one result per input file so that one bad file never hides the others.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::trace::Trace;
use crate::{Hint, IngestError, ReadConfig, read_path};

/// The outcome of reading one input file.
#[derive(Debug)]
pub struct FileResult {
    /// The file (or export directory) read.
    pub path: PathBuf,
    /// The trace, or why it could not be read.
    pub result: Result<Trace, IngestError>,
}

/// Why the command-line inputs could not be expanded into files.
#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    /// A glob pattern is malformed.
    #[error("invalid glob pattern `{pattern}`")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// The underlying error.
        #[source]
        source: glob::PatternError,
    },
    /// An input matched nothing.
    #[error("`{0}` does not exist and matches no file")]
    NoMatch(String),
    /// A directory could not be listed.
    #[error("cannot list directory `{}`", path.display())]
    ReadDir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Hint for ExpandError {
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        let hint = match self {
            ExpandError::Pattern { .. } => {
                "a glob pattern takes `*`, `?` and `[...]`; quote it so that the shell leaves it \
                 to warpsight"
            }
            ExpandError::NoMatch(_) => {
                "give the exports' files, directories or glob patterns (relative paths start at \
                 the current directory)"
            }
            ExpandError::ReadDir { .. } => "check that the directory exists and can be read",
        };
        Some(hint.into())
    }
}

/// Expands command-line inputs: `-` is standard input; a file, a FIFO or another stream named
/// on the command line stays itself; a directory that is an nsys table export
/// (`parquetdir` / `arrowdir`) stays itself; any other directory gives its files (sorted, not
/// recursive, hidden files skipped); anything else is treated as a glob pattern.
pub fn expand_inputs(inputs: &[String]) -> Result<Vec<PathBuf>, ExpandError> {
    let mut out = Vec::new();
    for input in inputs {
        let path = Path::new(input);
        if input == crate::source::STDIN_NAME {
            // Standard input, read once from its copy ([`crate::source`]).
            out.push(path.to_path_buf());
        } else if path.exists() && !path.is_dir() {
            out.push(path.to_path_buf());
        } else if path.is_dir() {
            if crate::detect::detect(path).is_ok() {
                out.push(path.to_path_buf());
                continue;
            }
            let entries = std::fs::read_dir(path).map_err(|source| ExpandError::ReadDir {
                path: path.to_path_buf(),
                source,
            })?;
            let mut files: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| !n.starts_with('.'))
                        // A stream inside a directory is not listed (reading it would wait for a
                        // writer); a subdirectory is listed when it is an nsys table export.
                        && (p.is_file() || (p.is_dir() && crate::detect::detect(p).is_ok()))
                })
                .collect();
            files.sort();
            out.extend(files);
        } else {
            let paths = glob::glob(input).map_err(|source| ExpandError::Pattern {
                pattern: input.clone(),
                source,
            })?;
            let mut matched: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
            if matched.is_empty() {
                return Err(ExpandError::NoMatch(input.clone()));
            }
            matched.sort();
            out.extend(matched);
        }
    }
    Ok(out)
}

/// Reads every path in parallel and returns one result per path, in input order.
///
/// The files are shared among a few plain threads (not rayon workers), each taking the next
/// unread file. A rayon worker that waits for polars' own thread pool (every reader collects lazy
/// frames there) steals other queued jobs meanwhile, so reading the files as rayon jobs nested one
/// read inside another's wait, a stack as deep as the number of inputs (300 small files overflowed
/// it). A plain thread waits without stealing, so the depth stays that of one read.
///
/// Memory is bounded: [`reading_threads`] files are read at a time, and a file is started only while the
/// files being read total less than [`READ_BUDGET_BYTES`] on disk (one file is always read, however
/// large), since a reader holds its input's bytes (an `.ncu-rep` report whole) and its decoded
/// form while it builds the table. The largest files are started first, so that the last file to
/// finish is a small one and no core idles at the end of a batch of reports of uneven sizes; the
/// results keep the input order.
pub fn read_many(paths: &[PathBuf], config: &ReadConfig) -> Vec<FileResult> {
    let workers = reading_threads().min(paths.len()).max(1);
    // The order in which the files are read: largest first (equal sizes in input order).
    let sizes: Vec<u64> = paths.iter().map(|path| disk_size(path)).collect();
    let mut order: Vec<usize> = (0..paths.len()).collect();
    order.sort_by_key(|&index| std::cmp::Reverse(sizes[index]));
    let next = AtomicUsize::new(0);
    let budget = ReadBudget::new(READ_BUDGET_BYTES);
    let results: Mutex<Vec<Option<FileResult>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(paths.len()).collect());
    let work = || {
        while let Some(&index) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let Some(path) = paths.get(index) else {
                break;
            };
            let size = sizes[index];
            budget.acquire(size);
            let result = FileResult {
                path: path.clone(),
                result: read_path(path, config),
            };
            budget.release(size);
            // A poisoned lock only means another worker panicked outside `read_path`'s boundary;
            // the vector itself is whole.
            let mut slots = results.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(slot) = slots.get_mut(index) {
                *slot = Some(result);
            }
        }
    };
    std::thread::scope(|scope| {
        let spawned: Vec<bool> = (1..workers)
            .map(|_| {
                std::thread::Builder::new()
                    .name("warpsight-read".into())
                    .stack_size(READER_STACK_BYTES)
                    .spawn_scoped(scope, work)
                    .is_ok()
            })
            .collect();
        tracing::trace!(
            threads = 1 + spawned.iter().filter(|ok| **ok).count(),
            "reading inputs"
        );
        // The calling thread reads too, so that the files are read even if no thread could be
        // started.
        work();
    });
    let slots = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    paths
        .iter()
        .zip(slots)
        .map(|(path, slot)| {
            slot.unwrap_or_else(|| FileResult {
                path: path.clone(),
                result: Err(IngestError::Panicked {
                    path: path.clone(),
                    message: "the reading thread stopped before this file".into(),
                }),
            })
        })
        .collect()
}

/// How many plain threads [`read_many`] reads a batch's inputs with: one more than the cores, or
/// one on a single core. (`warpsight ingest`'s read-ahead reads its inputs on a pool of its own
/// instead, one thread per core: [`crate::read_ahead::reading_threads`].)
///
/// A reader hands the decoding of its input's launch blocks to rayon's pool and waits for it
/// without working (a plain thread does not steal), so with one reader per core the cores idle
/// whenever every reader waits for the last blocks of its own input. One reader more keeps the pool
/// fed: the 71-report batch of the `cores` benchmark took 0.22 s on 2 cores with 3 readers against
/// 0.24 s with 2 (6 interleaved rounds, medians; 4 readers: 0.215 s), and its peak memory grew
/// from 115 to 116 MB. On one core a second reader only adds switching (0.31 s against 0.30 s).
pub fn reading_threads() -> usize {
    match std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) {
        1 => 1,
        cores => cores + 1,
    }
}

/// The most bytes (the inputs' sizes on disk) that [`read_many`] reads at once, unless a single
/// file is larger. A reader holds about its input's size again in decoded form, so the files
/// being read take about twice this: 1 GiB in all, whatever the number of cores.
pub const READ_BUDGET_BYTES: u64 = 512 << 20;

/// The size of `path` on disk (0 for a stream, a directory or a file that cannot be read, which
/// the reader reports).
pub fn disk_size(path: &Path) -> u64 {
    std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map_or(0, |meta| meta.len())
}

/// The bytes of the files being read by [`read_many`], waited on by a reader whose file would
/// take them over the budget.
struct ReadBudget {
    limit: u64,
    in_flight: Mutex<u64>,
    freed: std::sync::Condvar,
}

impl ReadBudget {
    fn new(limit: u64) -> Self {
        ReadBudget {
            limit,
            in_flight: Mutex::new(0),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Waits until `size` more bytes fit in the budget (at once when nothing is being read, so
    /// that a file larger than the budget is read alone), then counts them.
    fn acquire(&self, size: u64) {
        let mut in_flight = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *in_flight > 0 && in_flight.saturating_add(size) > self.limit {
            in_flight = self
                .freed
                .wait(in_flight)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *in_flight = in_flight.saturating_add(size);
    }

    /// Gives back the `size` bytes of a file that has been read.
    fn release(&self, size: u64) {
        let mut in_flight = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *in_flight = in_flight.saturating_sub(size);
        self.freed.notify_all();
    }
}

/// The stack of each reading thread: the size of a main thread's on Linux, more than one read
/// needs.
pub(crate) const READER_STACK_BYTES: usize = 8 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_input_is_an_error_naming_it() {
        let err = expand_inputs(&["/definitely/not/here/*.csv".to_string()]).unwrap_err();
        assert!(err.to_string().contains("/definitely/not/here/*.csv"));
    }

    #[test]
    fn the_read_budget_admits_one_file_alone_and_others_within_it() {
        let budget = ReadBudget::new(100);
        // A file larger than the budget is read when nothing else is.
        budget.acquire(250);
        budget.release(250);
        budget.acquire(60);
        budget.acquire(40);
        assert_eq!(*budget.in_flight.lock().unwrap(), 100);
        // A third file waits until one of the two is read.
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| {
                budget.acquire(50);
                *budget.in_flight.lock().unwrap()
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!waiting.is_finished());
            budget.release(60);
            assert_eq!(waiting.join().ok(), Some(90));
        });
    }

    #[test]
    fn many_files_keep_the_input_order_whatever_order_they_are_read_in()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let small = dir.path().join("small.csv");
        std::fs::write(&small, warpsight_test_support::fixtures::SMALL_DETAILS)?;
        // An empty file (read last: it is the smallest) and a missing one (size 0).
        let empty = dir.path().join("empty.csv");
        std::fs::write(&empty, "")?;
        let missing = dir.path().join("missing.csv");
        let paths = vec![empty.clone(), small.clone(), missing.clone(), small.clone()];
        let results = read_many(&paths, &ReadConfig::default());
        let read: Vec<&Path> = results.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(read, paths.iter().map(PathBuf::as_path).collect::<Vec<_>>());
        let ok: Vec<bool> = results.iter().map(|r| r.result.is_ok()).collect();
        assert_eq!(ok, [false, true, false, true]);
        Ok(())
    }

    #[test]
    fn directories_expand_to_their_sorted_files() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("b.csv"), "x")?;
        std::fs::write(dir.path().join("a.csv"), "x")?;
        std::fs::write(dir.path().join(".hidden"), "x")?;
        let files = expand_inputs(&[dir.path().display().to_string()])?;
        let names: Vec<_> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.csv", "b.csv"]);
        Ok(())
    }
}
