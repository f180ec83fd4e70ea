//! Opening an input for reading: streams read once, and files that change while they are read.
//!
//! - **Streams and special files.** A FIFO, a process substitution (`<(…)`), `-` (standard input)
//!   or any other path that is neither a regular file nor a directory cannot be read twice, yet
//!   detection and the reader each open their input. The first open of such a path copies the
//!   stream once into an unnamed temporary file (at most [`SPOOL_LIMIT_BYTES`]), and every later
//!   open of the same path opens that copy ([`real_path`]): the stream is read once, from its
//!   start, and never opened again.
//! - **Files that shrink while read.** The length of a regular file is noted when its read
//!   begins ([`length`]) and compared at its end ([`shrink_check`]): a file that shrank meanwhile
//!   gives a rejected row saying the launches after the new end are missing, or the error with
//!   `--strict`, instead of a table silently cut short. [`read_all`] reads a whole file into
//!   memory, and a file that ends before the length it had when opened is an error there (a cut
//!   container cannot be decoded), so that Parquet and Arrow files are handed to polars as bytes:
//!   polars would otherwise map them into memory, where a truncation during the read kills the
//!   process with SIGBUS.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

use polars::prelude::*;

use crate::trace::RejectedRow;
use crate::{Format, IngestError};

/// The most bytes copied from a stream: a stream longer than this is an error (an endless
/// stream such as `/dev/zero` would otherwise fill the disk).
pub(crate) const SPOOL_LIMIT_BYTES: u64 = 16 << 30;

/// The command-line name of standard input.
pub(crate) const STDIN_NAME: &str = "-";

/// The streams copied so far, by the path they were named by.
static SPOOLS: LazyLock<Mutex<HashMap<PathBuf, Spool>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A stream's copy: the open temporary file (kept open so that it lives as long as the process)
/// and the path it is opened by.
#[derive(Debug)]
struct Spool {
    _file: File,
    path: PathBuf,
}

/// The path to open to read the input named `path`: `path` itself for a regular file or a
/// directory, else the copy of the stream ([`SPOOLS`]), made on the first call.
pub(crate) fn real_path(path: &Path) -> Result<PathBuf, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let opened = stream_path(path);
    let meta = std::fs::metadata(opened).map_err(io)?;
    if meta.is_file() || meta.is_dir() {
        return Ok(opened.to_path_buf());
    }
    // One lock for every copy: a stream is copied once even when two threads name it at once.
    let mut spools = SPOOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(spool) = spools.get(path) {
        return Ok(spool.path.clone());
    }
    let spool = spool(path, opened)?;
    let real = spool.path.clone();
    spools.insert(path.to_path_buf(), spool);
    Ok(real)
}

/// The path a stream named `path` is opened by: standard input for `-`.
fn stream_path(path: &Path) -> &Path {
    if path.as_os_str() == STDIN_NAME {
        Path::new("/dev/stdin")
    } else {
        path
    }
}

/// Copies the stream `opened` (named `path`) into an unnamed temporary file.
fn spool(path: &Path, opened: &Path) -> Result<Spool, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut copy = tempfile::tempfile().map_err(io)?;
    let stream = File::open(opened).map_err(io)?;
    let copied = std::io::copy(&mut stream.take(SPOOL_LIMIT_BYTES + 1), &mut copy).map_err(io)?;
    if copied > SPOOL_LIMIT_BYTES {
        return Err(IngestError::Unrecognized {
            path: path.to_path_buf(),
            looks_like: format!(
                "a stream longer than {} GiB (it is copied to a temporary file before it is read)",
                SPOOL_LIMIT_BYTES >> 30
            ),
            hint: "write the export to a file and pass the file".into(),
        });
    }
    copy.flush().map_err(io)?;
    tracing::debug!(file = %path.display(), bytes = copied, "stream copied to a temporary file");
    Ok(Spool {
        path: fd_path(&copy).map_err(io)?,
        _file: copy,
    })
}

/// The path that opens `file` again from its start: `/proc/self/fd/N`.
#[cfg(target_os = "linux")]
fn fd_path(file: &File) -> std::io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    Ok(PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd())))
}

/// Elsewhere there is no path to an unnamed file: streams are not supported.
#[cfg(not(target_os = "linux"))]
fn fd_path(_file: &File) -> std::io::Result<PathBuf> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "reading a stream (FIFO, pipe) is supported on Linux only; write it to a file first",
    ))
}

/// The error for a file that ended after `consumed` of the `expected` bytes it had when opened.
pub(crate) fn shrank(expected: u64, consumed: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!(
            "the file shrank while it was read: it had {expected} bytes when the read began, and \
             {consumed} at its end (it was cut or rewritten during the read)"
        ),
    )
}

/// Opens the input named `path` ([`real_path`]) for reading.
pub(crate) fn open(path: &Path) -> Result<File, IngestError> {
    File::open(real_path(path)?).map_err(|source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether `format` is read from the file as it goes (the CSV pages and SQLite), so that a file
/// cut during the read gives a shorter table ([`shrink_check`]); the other formats are read into
/// memory whole first ([`read_all`]), where a cut file is an error.
pub(crate) fn streamed(format: Format) -> bool {
    matches!(
        format,
        Format::NcuDetails
            | Format::NcuRaw
            | Format::NsysGpuTrace
            | Format::NsysKernSum
            | Format::NsysSqlite
    )
}

/// The length of the input named `path` now, if it is a regular file (a stream's copy never
/// changes, a directory has none).
pub(crate) fn length(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(real_path(path).ok()?).ok()?;
    meta.is_file().then_some(meta.len())
}

/// What a read of `path` that began when the file had `before` bytes says if the file is shorter
/// now: with `strict` the error, else a rejected row (line 0: the file as a whole) saying that
/// the launches after the new end are missing. `None` when the file did not shrink.
pub(crate) fn shrink_check(
    path: &Path,
    before: Option<u64>,
    strict: bool,
) -> Result<Option<RejectedRow>, IngestError> {
    let (Some(before), Some(after)) = (before, length(path)) else {
        return Ok(None);
    };
    if after >= before {
        return Ok(None);
    }
    if strict {
        return Err(IngestError::Io {
            path: path.to_path_buf(),
            source: shrank(before, after),
        });
    }
    tracing::warn!(file = %path.display(), before, after, "the file shrank while it was read");
    Ok(Some(RejectedRow {
        line: 0,
        reason: format!(
            "the file shrank while it was read ({before} bytes when the read began, {after} at \
             its end): the launches after byte {after} are missing, and the last one read may \
             be cut"
        ),
    }))
}

/// The first `len` bytes of the input named `path`, read into memory (never mapped); the file
/// ending before them is an error.
pub(crate) fn read_prefix(path: &Path, len: u64) -> Result<Vec<u8>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = open(path)?;
    let expected = file.metadata().map_err(io)?.len();
    let want = len.min(expected);
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(want).unwrap_or(usize::MAX))
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::OutOfMemory, e)))?;
    let consumed = file.take(want).read_to_end(&mut bytes).map_err(io)?;
    if (consumed as u64) < want {
        return Err(io(shrank(want, consumed as u64)));
    }
    Ok(bytes)
}

/// The whole input named `path`, read into memory (never mapped); a file that shrinks during
/// the read is an error.
pub(crate) fn read_all(path: &Path) -> Result<Vec<u8>, IngestError> {
    read_prefix(path, u64::MAX)
}

/// A lazy scan of a Parquet (`parquet` true) or Arrow IPC file held in memory: polars reads the
/// bytes, never a mapping of the file.
pub(crate) fn scan_bytes(bytes: Vec<u8>, parquet: bool) -> PolarsResult<LazyFrame> {
    let sources = ScanSources::Buffers(Arc::from(vec![bytes.into()]));
    // A buffer has no path to take Hive partitions from.
    let hive_options = HiveOptions {
        enabled: Some(false),
        ..HiveOptions::default()
    };
    if parquet {
        let args = ScanArgsParquet {
            hive_options,
            ..ScanArgsParquet::default()
        };
        LazyFrame::scan_parquet_sources(sources, args)
    } else {
        let args = UnifiedScanArgs {
            hive_options,
            ..UnifiedScanArgs::default()
        };
        LazyFrame::scan_ipc_sources(sources, Default::default(), args)
    }
}

/// The footer of a Parquet (`parquet` true) or Arrow IPC file `path`, framed as a file of its
/// own (magic, footer, footer length, magic): enough for polars to read the schema, without
/// reading (or mapping) the data. The footer's length was checked against the file's size
/// (`preflight`, depth `Footer`) before.
pub(crate) fn footer_file(path: &Path, parquet: bool) -> Result<Vec<u8>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(real_path(path)?).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    // The trailer: the footer's length, then the magic.
    let (head, magic): (&[u8], &[u8]) = if parquet {
        (b"PAR1", b"PAR1")
    } else {
        (b"ARROW1\0\0", b"ARROW1")
    };
    let trailer = 4 + magic.len() as u64;
    let damaged = || {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file is shorter than its footer",
        ))
    };
    let at = len.checked_sub(trailer).ok_or_else(damaged)?;
    file.seek(SeekFrom::Start(at)).map_err(io)?;
    let mut size = [0u8; 4];
    file.read_exact(&mut size).map_err(io)?;
    let footer_len = u64::from(u32::from_le_bytes(size));
    let start = at.checked_sub(footer_len).ok_or_else(damaged)?;
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut out = Vec::new();
    out.extend_from_slice(head);
    let read = (&mut file)
        .take(footer_len)
        .read_to_end(&mut out)
        .map_err(io)?;
    if (read as u64) < footer_len {
        return Err(io(shrank(len, start + read as u64)));
    }
    out.extend_from_slice(&size);
    out.extend_from_slice(magic);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_shorter_than_when_its_read_began_is_noted_or_an_error()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("cut.csv");
        std::fs::write(&path, "0123456789")?;
        let before = length(&path);
        assert_eq!(shrink_check(&path, before, false)?, None);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)?
            .set_len(4)?;
        let note = shrink_check(&path, before, false)?.ok_or("no note")?;
        assert_eq!(note.line, 0);
        assert!(
            note.reason.contains("10 bytes when the read began, 4"),
            "{}",
            note.reason
        );
        let err = shrink_check(&path, before, true)
            .err()
            .ok_or("strict accepted")?;
        assert!(format!("{:?}", err).contains("shrank"), "{err:?}");
        Ok(())
    }

    #[test]
    fn a_fifo_is_read_once_and_opened_again_from_its_copy() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let fifo = dir.path().join("p.csv");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status()?;
        assert!(made.success());
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, b"hello\n"))
        };
        let first = real_path(&fifo)?;
        assert_ne!(first, fifo);
        assert_eq!(std::fs::read(&first)?, b"hello\n");
        // The second open is the copy's again, from its start; the FIFO is not opened twice.
        assert_eq!(real_path(&fifo)?, first);
        assert_eq!(read_all(&fifo)?, b"hello\n");
        writer.join().map_err(|_| "writer panicked")??;
        Ok(())
    }
}
