//! warpsight-ingest: every supported profiler export read into one launch table.
//!
//! # Public API
//!
//! What the `warpsight` binary, the other crates and a future Python package use:
//!
//! - [`read_path`] (detect, then read one file or export directory), [`read_as`] (a known
//!   format), [`read_many`] (files in parallel, one [`FileResult`] each) and [`detect()`]: read
//!   whole, giving a [`trace::Trace`]: the launch table, its [`trace::RejectedRow`]s and its
//!   [`trace::SideTables`] (ncu rule rows, nsys transfers and kernel summary);
//! - [`read_batches`] / [`read_trace_batches`] (sized by [`BatchSize`]): one input as launch-table
//!   batches, so that a caller writing them as they come never holds the whole table; they end
//!   with a [`BatchSummary`] or a [`BatchError`];
//! - [`ReadConfig`]: strictness and a forced [`Format`]; [`IngestError`] (with [`Hint`]): why an
//!   input could not be read;
//! - [`launch_table`]: the table every reader produces (one row per kernel launch, base units),
//!   its column names ([`launch_table::column_names`]) and [`launch_table::conform`];
//!   [`trace`]: the side tables' column names;
//! - [`native`]: warpsight's own launch-table files (Parquet, Arrow IPC, CSV), written whole
//!   ([`native::write`]) or batch by batch ([`native::BatchWriter`]);
//! - [`read_ahead`]: inputs read on every core ahead of a consumer that takes them in input
//!   order, with bounded memory (`warpsight ingest`'s streaming pass);
//! - [`batch::expand_inputs`] (files, directories, globs), [`ncu::rep::info`] (what a `.ncu-rep`
//!   holds), [`nsys::tables`] (the tables of an nsys export), [`combine`] and [`memory`]: helpers
//!   of the commands; [`panic_text`]: the text of a caught panic;
//! - the limits [`MAX_BLOCK_THREADS`] … [`PROFILING_FAILED`] the validation applies.
//!
//! Each reader lives in its own private module and returns the launch table already passed
//! through [`launch_table::conform`], with `source_file` and `format` filled on every row:
//!
//! | module | format name | what |
//! |---|---|---|
//! | `ncu::details` | `ncu-details` | `ncu --csv` default page (long: one row per metric) |
//! | `ncu::raw` | `ncu-raw` | `ncu --csv --page raw` (wide: one row per launch) |
//! | `ncu::rep` | `ncu-rep` | `ncu -o report` (the `.ncu-rep` report file itself) |
//! | `nsys::gpu_trace` | `nsys-gpu-trace` | `nsys stats --report cuda_gpu_trace --format csv` |
//! | `nsys::kern_sum` | `nsys-kern-sum` | `nsys stats --report cuda_gpu_kern_sum --format csv` |
//! | `nsys::sqlite` | `nsys-sqlite` | `nsys export --type sqlite` |
//! | `nsys::arrow` | `nsys-parquet`, `nsys-arrow` | `nsys export --type parquetdir / arrowdir / arrow` |
//! | `native` | `warpsight-parquet`, `warpsight-ipc`, `warpsight-csv` | warpsight's own output |
//!
//! # Example
//!
//! Reading an H100 capture shipped in `traces/` (an `ncu --csv --page raw` export):
//!
//! ```
//! use std::path::Path;
//! use warpsight_ingest::launch_table::column_names as lt;
//! use warpsight_ingest::{Format, ReadConfig, detect, read_path};
//!
//! let path = Path::new(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../traces/h100-80gb-hbm3/sgemm.ncu-raw.csv"
//! ));
//! assert_eq!(detect(path)?, Format::NcuRaw);
//! let trace = read_path(path, &ReadConfig::default())?;
//! assert!(trace.launch_count() > 0);
//! let devices = trace.launches.column(lt::DEVICE_NAME)?;
//! assert_eq!(devices.str()?.get(0), Some("NVIDIA H100 80GB HBM3"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod batch;
pub mod combine;
mod csv_records;
pub mod detect;
mod hint;
pub(crate) mod kernel_names;
mod launch_source;
pub mod launch_table;
pub mod memory;
pub mod native;
pub mod ncu;
pub mod nsys;
mod parquet_container;
mod preflight;
pub mod read_ahead;
mod source;
mod streaming;
pub mod trace;
mod validate;
mod whole;

pub use validate::{
    MAX_BLOCK_THREADS, MAX_BLOCK_Z, MAX_GRID_X, MAX_GRID_YZ, MAX_REGISTERS_PER_THREAD,
    MAX_SMEM_BYTES, PROFILING_FAILED,
};

use std::path::{Path, PathBuf};

use trace::Trace;

pub use batch::{FileResult, read_many};
pub use detect::detect;
pub use hint::Hint;
pub use launch_source::BatchSize;
pub use streaming::{BatchError, BatchSummary, read_batches, read_trace_batches, reads_whole};

/// Declares [`Format`] from one list of its variants, each with its name, so that
/// [`Format::ALL`] and [`Format::name`] cannot leave a variant out.
macro_rules! formats {
    ($($(#[doc = $doc:literal])+ $variant:ident => $name:literal,)+) => {
        /// The supported input formats.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Format {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Format {
            /// Every format, in the order `--format` lists them.
            pub const ALL: &'static [Format] = &[$(Format::$variant),+];

            /// The stable name used on the command line, in the `format` column and in JSON
            /// output.
            pub fn name(self) -> &'static str {
                match self {
                    $(Format::$variant => $name,)+
                }
            }
        }
    };
}

formats! {
    /// Nsight Compute `--csv` details page.
    NcuDetails => "ncu-details",
    /// Nsight Compute `--csv --page raw`.
    NcuRaw => "ncu-raw",
    /// Nsight Compute report file (`.ncu-rep`, report version 7).
    NcuRep => "ncu-rep",
    /// Nsight Systems `cuda_gpu_trace` CSV.
    NsysGpuTrace => "nsys-gpu-trace",
    /// Nsight Systems `cuda_gpu_kern_sum` CSV.
    NsysKernSum => "nsys-kern-sum",
    /// Nsight Systems SQLite export.
    NsysSqlite => "nsys-sqlite",
    /// Nsight Systems `parquetdir` export (a directory of `.parquet` files, one per table).
    NsysParquet => "nsys-parquet",
    /// Nsight Systems `arrowdir` / `arrow` export (Arrow IPC files, one per table).
    NsysArrow => "nsys-arrow",
    /// warpsight's own launch table written as Parquet.
    WarpsightParquet => "warpsight-parquet",
    /// warpsight's own launch table written as Arrow IPC.
    WarpsightIpc => "warpsight-ipc",
    /// warpsight's own launch table written as CSV.
    WarpsightCsv => "warpsight-csv",
}

impl Format {
    /// Parses a format name as printed by [`Format::name`].
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read inputs.
#[derive(Debug, Clone, Default)]
pub struct ReadConfig {
    /// Turn rows that cannot be used into errors instead of counting them.
    pub strict: bool,
    /// Skip detection and read every input as this format.
    pub format: Option<Format>,
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The file could not be opened or read.
    #[error("cannot read `{}`", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The content is not a supported export.
    #[error("`{}` is not a supported profiler export: it looks like {looks_like}", path.display())]
    Unrecognized {
        /// The file.
        path: PathBuf,
        /// What the content looks like, e.g. "Nsight Compute's plain-text (non-CSV) output".
        looks_like: String,
        /// How to produce a supported export instead.
        hint: String,
    },
    /// The content is malformed at a given place.
    #[error("`{}`, line {line}: expected {expected}, found {found}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line (or row) number.
        line: u64,
        /// What was expected there.
        expected: String,
        /// What was found.
        found: String,
    },
    /// A row could not be used and `--strict` is on.
    #[error("`{}`, line {line}: {reason} (rejected because of --strict)", path.display())]
    StrictRejected {
        /// The file.
        path: PathBuf,
        /// 1-based line (or row) number.
        line: u64,
        /// Why the row could not be used.
        reason: String,
    },
    /// A launch has a value outside its column's range (see `docs/trace-schema.md`, *Validated
    /// ranges*) and `--strict` is on.
    #[error(
        "`{}`, launch-table row {row} ({launch}): `{column}` {detail} (rejected because of --strict)",
        path.display()
    )]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// 1-based row of the launch table read from the file.
        row: u64,
        /// `launch id N`, or `launch without id`.
        launch: String,
        /// The launch-table column.
        column: String,
        /// The value found and the range it is outside.
        detail: String,
    },
    /// ncu failed to profile a launch (grid (0, 0, 0), no counter values) and `--strict` is on.
    #[error(
        "`{}`, launch-table row {row} ({launch}): {} (rejected because of --strict)",
        path.display(),
        PROFILING_FAILED
    )]
    ProfilingFailed {
        /// The file.
        path: PathBuf,
        /// 1-based row of the launch table read from the file.
        row: u64,
        /// `launch id N`, or `launch without id`.
        launch: String,
    },
    /// `--input-format` names a format the content is recognisably not.
    #[error("`{}` was read as {forced} (--input-format) but its content is {detected}", path.display())]
    FormatMismatch {
        /// The file.
        path: PathBuf,
        /// The format asked for.
        forced: Format,
        /// The format the content shows.
        detected: Format,
    },
    /// A reader, or a library it uses, panicked on this input (caught at the file boundary).
    #[error("`{}`: the reader stopped on an internal error: {message}", path.display())]
    Panicked {
        /// The file.
        path: PathBuf,
        /// The panic's message.
        message: String,
    },
    /// An Nsight Compute export names the same launch id twice (ncu numbers launches uniquely):
    /// two rows of the raw page or of the launch table, or two separate blocks of records of the
    /// details page.
    #[error(
        "`{}`, {again}: launch id {launch_id} appears twice (first at {first}); expected every launch id once",
        path.display()
    )]
    DuplicateLaunchId {
        /// The file.
        path: PathBuf,
        /// The repeated id.
        launch_id: i64,
        /// Where the id is first seen: `line 4` (details page) or `launch-table row 1`.
        first: String,
        /// Where it appears again, in the same terms.
        again: String,
    },
    /// A Parquet or Arrow IPC file whose own length fields contradict the file's size or each
    /// other, found before polars reads it (polars would trust them, and could ask for an
    /// allocation that aborts the process).
    #[error("`{}`: damaged {container} file: {place}: {problem}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// `Parquet` or `Arrow IPC`.
        container: &'static str,
        /// Where in the file: `footer`, `record batch 0 (block at byte 320), buffer 7`,
        /// `row group 0, column `name`, page 2 (byte 4096)`.
        place: String,
        /// What is wrong there, with the lengths found and the room there is.
        problem: String,
    },
    /// A Parquet or Arrow IPC file whose lengths are consistent but declare more data than fits in
    /// this machine's memory (physical and swap): polars would abort the process trying.
    #[error(
        "`{}`: the {container} file declares more data than this machine can hold: {what} need at least {needs} bytes, and the machine has {available}",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// `Parquet` or `Arrow IPC`.
        container: &'static str,
        /// What needs the memory.
        what: String,
        /// Bytes needed at least.
        needs: u64,
        /// Physical memory plus swap, in bytes.
        available: u64,
    },
    /// An error from polars while building or reading a table.
    #[error("`{}`: cannot build the launch table", path.display())]
    Polars {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: polars::error::PolarsError,
    },
    /// An Nsight Compute report that cannot be decoded (truncated, corrupted, compressed, or of
    /// another report version); the source names the byte offset and what was expected there.
    #[error("`{}`: cannot decode the Nsight Compute report", path.display())]
    NcuRep {
        /// The file.
        path: PathBuf,
        /// The decoder's error: byte offset and expectation.
        #[source]
        source: warpsight_ncu_rep::DecodeError,
    },
    /// An error from SQLite.
    #[error("`{}`: cannot read the SQLite export", path.display())]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

impl Hint for IngestError {
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        let hint = match self {
            IngestError::Unrecognized { hint, .. } => Some(hint.as_str()),
            IngestError::FormatMismatch { .. } => Some(
                "drop --input-format (the format is detected from the content), or name the \
                 detected format",
            ),
            IngestError::ProfilingFailed { .. } => Some(
                "ncu wrote the launch but could not measure it (the kernel faulted, or its replay \
                 failed or was cut short); profile it again, or drop --strict to count such \
                 launches and go on without them",
            ),
            IngestError::OutOfRange { .. } => Some(
                "the export is damaged or was edited; drop --strict to skip such launches (they \
                 are counted as rejected rows), or profile again",
            ),
            IngestError::Panicked { .. } => Some(
                "the file is probably damaged (cut or edited); export it again. The other inputs \
                 were read; please report the file if it is intact",
            ),
            IngestError::Damaged { .. } => Some(
                "the file's own length fields do not fit together: it is probably damaged (cut or \
                 edited); export it again",
            ),
            IngestError::TooLarge { .. } => Some(
                "a file this large is either damaged (a few changed bytes can declare billions of \
                 rows) or must be read on a machine with more memory; export it again, or split it",
            ),
            IngestError::Polars { .. } => Some(
                "the table could not be read or built: the file is probably damaged (cut or \
                 edited); export it again (-v prints the library's details)",
            ),
            IngestError::DuplicateLaunchId { .. } => Some(
                "Nsight Compute numbers the launches of one export uniquely; the file was probably \
                 concatenated from several exports: read each export as its own file",
            ),
            _ => None,
        };
        hint.map(std::borrow::Cow::Borrowed)
    }
}

/// Formats that share a container and are told apart by detail (warpsight's own Parquet/IPC and
/// nsys's single table files): forcing one of them on the other is the override's purpose.
fn same_family(a: Format, b: Format) -> bool {
    let container = |f: Format| match f {
        Format::WarpsightParquet | Format::NsysParquet => 1,
        Format::WarpsightIpc | Format::NsysArrow => 2,
        _ => 0,
    };
    container(a) != 0 && container(a) == container(b)
}

/// Reads one input (a file, or a directory for `nsys-parquet` / `nsys-arrow`), detecting its format
/// unless `config.format` forces one.
///
/// The read runs behind `std::panic::catch_unwind`: a panic inside a dependency (polars' Parquet
/// reader on a damaged file, say) becomes [`IngestError::Panicked`] for this input, so a batch goes
/// on with the other files.
pub fn read_path(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    let read = || {
        let format = resolve_format(path, config)?;
        read_as(path, format, config)
    };
    // The closure only reads: nothing it borrows is left half-modified when it unwinds.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).unwrap_or_else(|payload| {
        Err(IngestError::Panicked {
            path: path.to_path_buf(),
            message: panic_message(&*payload),
        })
    })
}

/// The format to read `path` as: the detected one, or the one `config.format` forces.
fn resolve_format(path: &Path, config: &ReadConfig) -> Result<Format, IngestError> {
    match config.format {
        // A forced format is taken where detection cannot tell (that is what the option is for),
        // but never against content that is recognisably another format.
        Some(forced) => match detect(path) {
            Ok(detected) if detected != forced && !same_family(detected, forced) => {
                Err(IngestError::FormatMismatch {
                    path: path.to_path_buf(),
                    forced,
                    detected,
                })
            }
            _ => Ok(forced),
        },
        None => detect(path),
    }
}

/// The text of a panic payload (`panic!` gives a `&str` or a `String`). The binary's panic hook
/// uses it too; the plugin ABI crate has its own copy (`warpsight_plugin::export::panic_message`)
/// because plugins are built without this crate.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.as_str()
    } else {
        "a panic without a message"
    }
}

/// A panic's message on one line (an `assert_eq!` spreads `left:` and `right:` over three), so
/// that the error stays one line of `inspect`'s table.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    panic_text(payload)
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads one input as the given format, then validates its launch table (`validate.rs`): launches
/// with a value out of range are rejected, or an error with `config.strict`. A file that shrank
/// during the read gets a rejected row saying so (the error with `config.strict`).
pub fn read_as(path: &Path, format: Format, config: &ReadConfig) -> Result<Trace, IngestError> {
    let span = tracing::debug_span!("read", path = %path.display(), format = format.name());
    let _entered = span.enter();
    let before = source::streamed(format)
        .then(|| source::length(path))
        .flatten();
    let mut trace = match format {
        Format::NcuDetails => ncu::details::read(path, config),
        Format::NcuRaw => ncu::raw::read(path, config),
        Format::NcuRep => ncu::rep::read(path, config),
        Format::NsysGpuTrace => nsys::gpu_trace::read(path, config),
        Format::NsysKernSum => nsys::kern_sum::read(path, config),
        Format::NsysSqlite => nsys::sqlite::read(path, config),
        Format::NsysParquet | Format::NsysArrow => nsys::arrow::read(path, format, config),
        Format::WarpsightParquet | Format::WarpsightIpc | Format::WarpsightCsv => {
            native::read(path, format, config)
        }
    }?;
    // A file cut while it was read: what was read is not the whole export.
    if let Some(note) = source::shrink_check(path, before, config.strict)? {
        trace.rejected.push(note);
    }
    validate::validate(path, format, trace, config.strict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_found_by_its_own_name() {
        for &format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("nsys"), None);
    }
}
