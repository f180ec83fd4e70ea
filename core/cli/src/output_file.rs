//! Where every command's output goes, and what happens when it cannot go there (issue #28).
//!
//! - [`refuse_input_as_output`]: an `-o` path that is an input, or lies inside an input directory,
//!   is refused before anything is opened for writing, by canonical path and by device + inode.
//! - [`OutputFile`]: a regular output file is written under a temporary name beside it
//!   (`.NAME.partial-PID`) and renamed over it once complete, so that a failed run leaves an
//!   existing file as it was. A device or a FIFO (`/dev/null`, `/dev/stdout`) is written directly.
//! - [`Sink`]: the `-o` file or stdout, as one writer with a [`Sink::finish`].
//! - [`Stdout`], [`print_stdout`] and [`eprint()`]: writes to stdout and stderr that never panic
//!   (`println!` and `eprintln!` do when the stream cannot be written). The first failure is
//!   recorded; `main` turns a broken pipe on stdout into a quiet exit 0, and any other failure into
//!   one `error:` line (where stderr is writable) and a non-zero exit.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::errors::CliError;

/// The first failed write to the output (stdout or an `-o` file): what was written and the error.
static OUTPUT_FAILURE: Mutex<Option<(String, io::ErrorKind, String)>> = Mutex::new(None);

/// Set when a write to stderr failed.
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// Records a failed write to `target` (the first one only: later ones follow from it).
fn record_failure(target: &str, error: &io::Error) {
    if let Ok(mut failure) = OUTPUT_FAILURE.lock()
        && failure.is_none()
    {
        *failure = Some((target.to_string(), error.kind(), error.to_string()));
    }
}

/// How writing the output failed, if it did.
pub(crate) enum OutputFault {
    /// stdout's reader went away (`| head`): the reader has what it wanted.
    BrokenPipe,
    /// Another error (ENOSPC, EIO): the error to print.
    Failed(anyhow::Error),
}

/// The recorded output failure, if any write to stdout or an `-o` file failed.
pub(crate) fn output_fault() -> Option<OutputFault> {
    let failure = OUTPUT_FAILURE.lock().ok()?.clone()?;
    let (target, kind, message) = failure;
    if kind == io::ErrorKind::BrokenPipe {
        return Some(OutputFault::BrokenPipe);
    }
    let hint = if target == "to stdout" {
        "the device stdout goes to is full or failing: free some space, or write the output to \
         another device with -o FILE"
    } else {
        "free some space on that device, or write the output elsewhere; an existing file was left \
         as it was"
    };
    Some(OutputFault::Failed(anyhow::Error::new(CliError::new(
        format!("cannot write {target}: {message}"),
        hint,
    ))))
}

/// True when a write to stderr failed (a message was lost: the exit status says so).
pub(crate) fn stderr_failed() -> bool {
    STDERR_FAILED.load(Ordering::Relaxed)
}

/// Stdout as a writer that records its first failure instead of panicking.
pub(crate) struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf).inspect_err(|error| {
            record_failure("to stdout", error);
        })
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        io::stdout().lock().write_all(buf).inspect_err(|error| {
            record_failure("to stdout", error);
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().lock().flush().inspect_err(|error| {
            record_failure("to stdout", error);
        })
    }
}

/// Writes `text` to stdout and flushes it; a failure is recorded (see [`output_fault`]) and
/// returned.
pub(crate) fn print_stdout(text: &str) -> io::Result<()> {
    let mut out = Stdout;
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes `text` to stderr. A failure is recorded (see [`stderr_failed`]) and otherwise ignored:
/// there is nowhere left to say it.
pub(crate) fn eprint(text: &str) {
    let mut err = io::stderr().lock();
    if err
        .write_all(text.as_bytes())
        .and_then(|()| err.flush())
        .is_err()
    {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Stderr as a writer for the log (`tracing`): a failure is recorded and reported as written, so
/// that the log never prints an error about itself.
pub(crate) struct Stderr;

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if io::stderr().lock().write_all(buf).is_err() {
            STDERR_FAILED.store(true, Ordering::Relaxed);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if io::stderr().lock().flush().is_err() {
            STDERR_FAILED.store(true, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// An output file, written under a temporary name in its directory and renamed over it by
/// [`OutputFile::commit`]; the temporary file is removed when the output is dropped before that.
/// A path that exists and is not a regular file (a device, a FIFO) is written in place.
pub(crate) struct OutputFile {
    path: PathBuf,
    temp: PathBuf,
    created: bool,
}

impl OutputFile {
    /// The output `path`, not created yet.
    pub(crate) fn new(path: &Path) -> Self {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
        OutputFile {
            path: path.to_path_buf(),
            temp,
            created: false,
        }
    }

    /// The output's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// True when the output is written in place: it exists and is not a regular file.
    fn in_place(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|meta| !meta.is_file())
    }

    /// Creates the temporary file (or opens a device or FIFO for writing).
    pub(crate) fn create(&mut self) -> io::Result<File> {
        if self.in_place() {
            return std::fs::OpenOptions::new().write(true).open(&self.path);
        }
        let file = File::create(&self.temp)?;
        self.created = true;
        Ok(file)
    }

    /// Renames the complete temporary file over the output.
    pub(crate) fn commit(mut self) -> io::Result<()> {
        if self.created {
            std::fs::rename(&self.temp, &self.path)?;
            self.created = false;
        }
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.created {
            // Nothing more can be done about a temporary file that cannot be removed.
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// A file being written: records its first failed write under the output's name.
pub(crate) struct Recording {
    file: File,
    target: String,
}

impl Write for Recording {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).inspect_err(|error| {
            record_failure(&self.target, error);
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().inspect_err(|error| {
            record_failure(&self.target, error);
        })
    }
}

/// Where a command writes its result: an `-o` file (a temporary file renamed into place by
/// [`Sink::finish`]) or stdout. Dropped without `finish`, it leaves an existing file as it was.
pub(crate) enum Sink {
    /// Stdout, buffered.
    Stdout(io::BufWriter<Stdout>),
    /// An output file, buffered.
    File(io::BufWriter<Recording>, OutputFile),
}

impl Sink {
    /// The sink for `path`, or stdout when there is none.
    pub(crate) fn open(path: Option<&Path>) -> anyhow::Result<Sink> {
        let Some(path) = path else {
            return Ok(Sink::Stdout(io::BufWriter::new(Stdout)));
        };
        let mut output = OutputFile::new(path);
        let file = output
            .create()
            .map_err(|source| cannot_create(path, source))?;
        let target = format!("`{}`", path.display());
        Ok(Sink::File(
            io::BufWriter::new(Recording { file, target }),
            output,
        ))
    }

    /// Flushes the output and, for a file, renames it into place.
    pub(crate) fn finish(self) -> anyhow::Result<()> {
        match self {
            Sink::Stdout(mut out) => Ok(out.flush()?),
            Sink::File(out, output) => {
                let recording = out.into_inner().map_err(io::IntoInnerError::into_error)?;
                drop(recording);
                let name = output.path().display().to_string();
                output.commit().map_err(|source| {
                    anyhow::Error::new(source).context(format!("cannot write `{name}`"))
                })
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(buf),
            Sink::File(out, _) => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.write_all(buf),
            Sink::File(out, _) => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File(out, _) => out.flush(),
        }
    }
}

/// The error for an output file that cannot be created.
pub(crate) fn cannot_create(path: &Path, source: io::Error) -> anyhow::Error {
    anyhow::Error::new(
        CliError::new(
            format!("cannot create `{}`", path.display()),
            "check that the output's directory exists and can be written, or choose another \
             path with -o",
        )
        .with_source(source),
    )
}

/// Writes `bytes` to `path` through an [`OutputFile`] (a failed write leaves an existing file as
/// it was).
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut output = OutputFile::new(path);
    let mut file = output
        .create()
        .map_err(|source| cannot_create(path, source))?;
    let written = file.write_all(bytes).and_then(|()| file.flush());
    drop(file);
    written.and_then(|()| output.commit()).map_err(|source| {
        anyhow::Error::new(
            CliError::new(
                format!("cannot write `{}`", path.display()),
                "free some space on that device, or write the output elsewhere; an \
                 existing file was left as it was",
            )
            .with_source(source),
        )
    })
}

/// Refuses an output path that is one of the `inputs` (files, directories or glob patterns as
/// given on the command line, expanded as the readers expand them), or lies inside an input
/// directory: writing it would destroy an input before it is read, or add the output to the
/// inputs of the next run. Compared by canonical path and by device + inode (a hard link, a
/// symbolic link or a bind mount of an input is the input). Nothing is opened for writing.
pub(crate) fn refuse_input_as_output(output: &Path, inputs: &[String]) -> anyhow::Result<()> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for input in inputs {
        let path = Path::new(input);
        if path.is_dir() {
            dirs.push(path.to_path_buf());
        }
        // An input that cannot be expanded is reported by the command itself.
        if let Ok(found) = warpsight_ingest::batch::expand_inputs(std::slice::from_ref(input)) {
            for found in found {
                if found.is_dir() {
                    dirs.push(found);
                } else {
                    files.push(found);
                }
            }
        }
    }
    let refuse = |message: String| {
        Err(anyhow::Error::new(CliError::new(
            message,
            "write the output to a path outside the inputs and their directories",
        )))
    };
    for input in files.iter().chain(&dirs) {
        if same_file(output, input) {
            return refuse(format!(
                "the output `{}` is also an input (`{}`)",
                output.display(),
                input.display()
            ));
        }
    }
    // The directory the output would be created in, and every directory above it.
    let parent = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(parent) = std::fs::canonicalize(parent) else {
        // A directory that does not exist holds no input (creating the output fails later).
        return Ok(());
    };
    for dir in &dirs {
        let inside = std::fs::canonicalize(dir).is_ok_and(|dir| parent.starts_with(dir))
            || parent.ancestors().any(|above| same_file(above, dir));
        if inside {
            return refuse(format!(
                "the output `{}` lies inside the input directory `{}`",
                output.display(),
                dir.display()
            ));
        }
    }
    Ok(())
}

/// True when `a` and `b` name the same file: the same canonical path, or the same device and
/// inode.
fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(a), Ok(b)) = (std::fs::canonicalize(a), std::fs::canonicalize(b))
        && a == b
    {
        return true;
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_and_their_directories_are_refused() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let input = dir.path().join("a.csv");
        std::fs::write(&input, "x\n")?;
        let link = dir.path().join("link.csv");
        std::fs::hard_link(&input, &link)?;
        let other = tempfile::tempdir()?;
        let input_name = input.display().to_string();
        assert!(refuse_input_as_output(&input, std::slice::from_ref(&input_name)).is_err());
        assert!(refuse_input_as_output(&link, std::slice::from_ref(&input_name)).is_err());
        let dir_name = dir.path().display().to_string();
        let inside = dir.path().join("new.csv");
        assert!(refuse_input_as_output(&inside, std::slice::from_ref(&dir_name)).is_err());
        let outside = other.path().join("new.csv");
        assert!(refuse_input_as_output(&outside, &[dir_name, input_name]).is_ok());
        Ok(())
    }

    #[test]
    fn a_dropped_output_leaves_the_old_file() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "old\n")?;
        let mut output = OutputFile::new(&path);
        let mut file = output.create()?;
        file.write_all(b"new, unfinished")?;
        drop(file);
        drop(output);
        assert_eq!(std::fs::read_to_string(&path)?, "old\n");
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
        write_file(&path, b"new\n")?;
        assert_eq!(std::fs::read_to_string(&path)?, "new\n");
        Ok(())
    }
}
