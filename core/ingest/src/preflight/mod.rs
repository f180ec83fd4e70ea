//! Checks of a Parquet or Arrow IPC file's own length fields before polars reads it (issue #14).
//!
//! polars 0.55.2 trusts the lengths a file declares: a damaged one makes it ask for an absurd
//! allocation (6.6·10^16 bytes for an IPC buffer, 2^61 bytes for a Parquet page's validity
//! bitmap), and Rust aborts the whole process when an allocation fails, which no `catch_unwind`
//! can turn into an error. So every reader hands a Parquet or IPC file to polars only after the
//! checks here have read its footer and the headers of its pieces (never the data) and found every
//! length consistent with the file's size and with the other lengths:
//!
//! - [`ipc`]: the footer, each record batch's and dictionary batch's message, every buffer inside
//!   its batch's body, every body inside the file, a compressed buffer's decompressed size within
//!   what its codec can give, and (through [`ipc_layout`]) each field node's length against the
//!   buffers the schema gives it;
//! - [`parquet`]: the footer (walked the way polars decodes it, [`parquet_footer`]), every column
//!   chunk inside the file, and each page header's sizes, encoding and value counts against its
//!   column chunk, its codec and its row group;
//! - [`budget`]: the memory the declared lengths need (decompressed IPC buffers, Parquet values,
//!   columns without buffers) against the machine's memory.
//!
//! [`Probe`] reads the headers by absolute offset and counts what it reads.
//!
//! What is not checked is listed in docs/reliability.md (*Hostile input*).

mod budget;
mod ipc;
mod ipc_layout;
mod parquet;
mod parquet_footer;
mod probe;
#[cfg(test)]
mod tests_ipc;
#[cfg(test)]
mod tests_parquet;

use std::path::Path;

pub(crate) use probe::Probe;

use crate::{Format, IngestError};

/// What a check found.
#[derive(Debug)]
pub(crate) enum Finding {
    /// A length field contradicts the file's size or another length.
    Damaged {
        /// Where: `trailer`, `record batch 2 (block at byte 4096), buffer 7`, `row group 0, column
        /// `a`, page 1 (byte 300)`, ...
        place: String,
        /// What is wrong, e.g. `claims 100 bytes at offset 8 of the batch body, but the body has
        /// 64 bytes`.
        problem: String,
    },
    /// The lengths are consistent but need more memory than the machine has.
    TooLarge {
        /// What needs the memory, e.g. `its 2147483647 rows of 12 columns`.
        what: String,
        /// The bytes the declared lengths need at least.
        needs: u64,
        /// The machine's memory (physical and swap) in bytes.
        available: u64,
    },
    /// The file could not be read.
    Io(std::io::Error),
}

impl From<std::io::Error> for Finding {
    fn from(source: std::io::Error) -> Self {
        Finding::Io(source)
    }
}

/// A [`Finding::Damaged`] at `place`.
pub(crate) fn damaged(place: impl Into<String>, problem: impl Into<String>) -> Finding {
    Finding::Damaged {
        place: place.into(),
        problem: problem.into(),
    }
}

/// The name of `format`'s container in messages.
fn container_name(format: Format) -> &'static str {
    match format {
        Format::NsysParquet | Format::WarpsightParquet => "Parquet",
        _ => "Arrow IPC",
    }
}

/// How much of a file to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// The footer only, which is all that polars reads to learn a file's schema.
    Footer,
    /// The footer and the header of every piece, before polars reads the data.
    Whole,
}

/// Checks the Parquet or Arrow IPC file `path` (`format` names the container) before polars reads
/// it, to `depth`, against this machine's memory.
pub(crate) fn check(path: &Path, format: Format, depth: Depth) -> Result<(), IngestError> {
    let finding = |finding| into_error(path, format, finding);
    let file = std::fs::File::open(crate::source::real_path(path)?)
        .map_err(|source| finding(Finding::Io(source)))?;
    let len = file
        .metadata()
        .map_err(|source| finding(Finding::Io(source)))?
        .len();
    let mut probe = Probe::new(file).map_err(|source| finding(Finding::Io(source)))?;
    let budget = budget::available_memory();
    let started = std::time::Instant::now();
    let result = match format {
        Format::NsysParquet | Format::WarpsightParquet => {
            parquet::check(&mut probe, len, depth, budget)
        }
        _ => ipc::check(&mut probe, len, depth, budget),
    };
    tracing::debug!(
        path = %path.display(),
        container = container_name(format),
        read = probe.bytes_read(),
        of = len,
        seconds = started.elapsed().as_secs_f64(),
        "container checked"
    );
    result.map_err(finding)
}

/// The reader error for `finding` about `path`.
fn into_error(path: &Path, format: Format, finding: Finding) -> IngestError {
    let path = path.to_path_buf();
    let container = container_name(format);
    match finding {
        Finding::Damaged { place, problem } => IngestError::Damaged {
            path,
            container,
            place,
            problem,
        },
        Finding::TooLarge {
            what,
            needs,
            available,
        } => IngestError::TooLarge {
            path,
            container,
            what,
            needs,
            available,
        },
        Finding::Io(source) => IngestError::Io { path, source },
    }
}

/// The bytes of a bitmap of `bits` bits.
pub(crate) fn bitmap_bytes(bits: u64) -> u64 {
    bits.div_ceil(8)
}
