//! `warpsight ingest`: reads profiler exports (files, directories, globs) into one launch table and
//! writes it as Parquet, Arrow IPC or CSV (chosen by the output's extension).
//!
//! The inputs are read one at a time and written batch by batch as they come
//! ([`warpsight_ingest::read_batches`]: a Parquet row group, an IPC record batch or CSV rows per
//! batch), so that the whole table is never held: a `cuda_gpu_trace` CSV is read in batches of
//! at least 65 536 launches, any other input as one batch. When an input's columns differ from the
//! first input's, the inputs are read again in parallel and stacked with their columns unioned.
//!
//! The output is written under a temporary name beside it (`.NAME.partial-PID`) and renamed over
//! it once complete: an error (`--strict` on a rejected row, a failed write) leaves no partial
//! output, and an existing file as it was. An input that fails after some of its batches were
//! written is left out by writing the output again without it, so that the output is the table of
//! the inputs that could be read, as when each input was read whole.
//!
//! Per-file problems are printed on stderr in the `error:` / `Caused by:` / `hint:` style; the
//! exit code is 1 when any input could not be read (the table of the others is still written).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use polars::prelude::{DataFrame, Schema};

use super::GlobalArgs;
use super::errors;
use crate::output_file::OutputFile;
use warpsight_ingest::native::{self as warpsight_native, BatchWriter, WriteError};
use warpsight_ingest::trace::RejectedRow;
use warpsight_ingest::{self, BatchError, Format, ReadConfig, batch};
use warpsight_report::analysis::load;

/// Arguments of `warpsight ingest`.
#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// Input files, directories (their files) or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Output file; the extension picks the container: `.parquet`, `.arrow` / `.ipc`, `.csv`.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Read every input as this format instead of detecting it (e.g. `ncu-details`, `ncu-raw`).
    #[arg(long = "input-format", value_name = "NAME", value_parser = parse_format)]
    pub input_format: Option<Format>,
}

/// Parses a `--input-format` value (the names of [`Format::name`]).
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown format `{name}`; expected one of: {}",
            names.join(", ")
        )
    })
}

/// Runs `warpsight ingest`.
pub fn run(args: IngestArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    if warpsight_native::format_for_extension(&args.output).is_none() {
        anyhow::bail!(errors::CliError::new(
            format!(
                "cannot tell the output format of `{}`",
                args.output.display()
            ),
            "name the output `*.parquet`, `*.arrow` (or `*.ipc`) or `*.csv`"
        ));
    }
    // Writing over an input would destroy it before (or while) it is read.
    crate::output_file::refuse_input_as_output(&args.output, &args.inputs)?;
    let paths = batch::expand_inputs(&args.inputs)?;
    let config = ReadConfig {
        strict: global.strict,
        format: args.input_format,
    };
    let color = errors::use_color(global.color);
    // The inputs already reported (read, or rejected rows counted), so that a second pass over
    // them (the stacked write) says nothing twice.
    let mut logged = BTreeSet::new();
    let (failed, launches) = match stream(&paths, &config, &args.output, color, &mut logged)? {
        Some(done) => done,
        None => stack_and_write(&paths, &config, &args.output, color, &logged)?,
    };
    tracing::info!(output = %args.output.display(), launches, "written");
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Logs a file's rejected rows and that it was read. Launches that ncu failed to profile are
/// said on one summary line on stderr, even with `-q`.
fn log_read(path: &Path, format: &str, launches: usize, rejected: &[RejectedRow]) {
    let failed = load::profiling_failures(rejected);
    crate::inputs::report_profiling_failures(path, failed);
    if let Some(first) = rejected.iter().find(|r| !r.profiling_failed()) {
        tracing::warn!(
            file = %path.display(),
            rejected = rejected.len() - failed,
            first_line = first.line,
            first_reason = %first.reason,
            "rows could not be used (use --strict to fail instead)"
        );
    }
    tracing::info!(file = %path.display(), format = %format, launches, "read");
}

/// The error for an input that was read but has no usable launch (every row rejected), or `None`.
fn nothing_usable(path: &Path, launches: usize, rejected: &[RejectedRow]) -> Option<anyhow::Error> {
    let first = rejected.first().filter(|_| launches == 0)?;
    let failed = load::profiling_failures(rejected);
    let message = format!(
        "`{}`: no launch could be used ({} row{} rejected; the first, line {}: {})",
        path.display(),
        rejected.len(),
        if rejected.len() == 1 { "" } else { "s" },
        first.line,
        first.reason
    );
    let hint = if failed == rejected.len() {
        "ncu could not profile any launch of this report: profile the program again (the \
         kernels faulted, or their replay failed)"
    } else {
        "the export holds no usable launch; see `warpsight inspect` on it, or export it again"
    };
    Some(anyhow::Error::new(errors::CliError::new(message, hint)))
}

/// Why a batch was not written.
#[derive(Debug)]
enum Unwritten {
    /// The output could not be created or written.
    Write(WriteError),
    /// The batch's columns differ from the first batch's.
    OtherColumns,
}

impl From<WriteError> for Unwritten {
    fn from(error: WriteError) -> Self {
        Unwritten::Write(error)
    }
}

/// The output being written batch by batch: the writer and the schema of the first batch (the
/// writer is dropped, closing the file, before the output removes an unfinished file).
struct Written {
    writer: Option<(BatchWriter<File>, Schema)>,
    output: OutputFile,
    launches: usize,
}

impl Written {
    /// Writes one batch, creating the output at the first.
    fn write(&mut self, batch: &DataFrame) -> Result<(), Unwritten> {
        let schema = batch.schema().as_ref().clone();
        let writer = match &mut self.writer {
            Some((writer, first)) if *first == schema => writer,
            Some(_) => return Err(Unwritten::OtherColumns),
            None => {
                let file = self.output.create().map_err(|source| WriteError::Io {
                    path: self.output.path().to_path_buf(),
                    source,
                })?;
                let writer = warpsight_native::batch_writer_for(self.output.path(), &schema, file)?;
                &mut self.writer.insert((writer, schema)).0
            }
        };
        writer.write(batch).map_err(|source| WriteError::Polars {
            path: self.output.path().to_path_buf(),
            source,
        })?;
        self.launches += batch.height();
        Ok(())
    }
}

/// How one pass over the inputs ended.
enum Pass {
    /// Every input was read or failed before any of its batches was written: the failed
    /// inputs and the launches written.
    Done(usize, usize),
    /// An input failed after some of its batches were written: write the output again without
    /// it.
    Again,
    /// An input's columns differ from the first input's: stack the tables instead.
    Stack,
}

/// Reads the inputs one at a time and writes each batch as it comes. Returns the number of files
/// that failed and of launches written, or `None` (nothing written) when a file's columns differ
/// from the first's: the caller then stacks the tables.
fn stream(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &Path,
    color: bool,
    logged: &mut BTreeSet<usize>,
) -> anyhow::Result<Option<(usize, usize)>> {
    // The inputs that failed, by index (their errors are printed at the end, in input order).
    let mut failures: BTreeMap<usize, anyhow::Error> = BTreeMap::new();
    loop {
        let mut written = Written {
            writer: None,
            output: OutputFile::new(output),
            launches: 0,
        };
        match stream_pass(paths, config, &mut written, &mut failures, logged)? {
            Pass::Done(failed, launches) => {
                if failed == paths.len() {
                    return Err(nothing_read(
                        std::mem::take(&mut failures).into_values().collect(),
                        color,
                    ));
                }
                for err in failures.values() {
                    errors::print_error(err, color);
                }
                let Some((writer, _)) = written.writer else {
                    anyhow::bail!("no input could be read ({failed} failed)");
                };
                writer.finish().map_err(|source| WriteError::Polars {
                    path: output.to_path_buf(),
                    source,
                })?;
                written.output.commit().map_err(|source| WriteError::Io {
                    path: output.to_path_buf(),
                    source,
                })?;
                return Ok(Some((failed, launches)));
            }
            Pass::Again => continue,
            Pass::Stack => return Ok(None),
        }
    }
}

/// One pass over the inputs that have not failed, writing into `written`.
fn stream_pass(
    paths: &[PathBuf],
    config: &ReadConfig,
    written: &mut Written,
    failures: &mut BTreeMap<usize, anyhow::Error>,
    logged: &mut BTreeSet<usize>,
) -> anyhow::Result<Pass> {
    for (index, path) in paths.iter().enumerate() {
        if failures.contains_key(&index) {
            continue;
        }
        let mut batches = 0usize;
        let result = warpsight_ingest::read_batches(path, config, |batch| {
            written.write(&batch)?;
            batches += 1;
            Ok::<(), Unwritten>(())
        });
        match result {
            Ok(summary) => {
                if logged.insert(index) {
                    log_read(
                        path,
                        summary.format.name(),
                        summary.launches,
                        &summary.rejected,
                    );
                }
                if let Some(err) = nothing_usable(path, summary.launches, &summary.rejected) {
                    failures.insert(index, err);
                }
            }
            Err(BatchError::Read(err)) => {
                failures.insert(index, anyhow::Error::new(err));
                if batches > 0 {
                    tracing::info!(
                        file = %path.display(),
                        "the file failed after some of its launches were written: writing the output again without it"
                    );
                    return Ok(Pass::Again);
                }
            }
            Err(BatchError::Sink(Unwritten::OtherColumns)) => {
                tracing::info!(
                    file = %path.display(),
                    "columns differ from the first file's: the tables are stacked instead"
                );
                return Ok(Pass::Stack);
            }
            Err(BatchError::Sink(Unwritten::Write(err))) => return Err(err.into()),
        }
        crate::allocator::release_freed_memory();
    }
    Ok(Pass::Done(failures.len(), written.launches))
}

/// Reads every file (in parallel), stacks the tables (columns unioned) and writes them.
fn stack_and_write(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &Path,
    color: bool,
    logged: &BTreeSet<usize>,
) -> anyhow::Result<(usize, usize)> {
    let results = warpsight_ingest::read_many(paths, config);
    let mut frames = Vec::new();
    let mut failed = 0usize;
    let mut errors_seen: Vec<anyhow::Error> = Vec::new();
    for (index, file) in results.into_iter().enumerate() {
        match file.result {
            Ok(trace) => {
                if !logged.contains(&index) {
                    log_read(
                        &file.path,
                        trace.format.name(),
                        trace.launch_count(),
                        &trace.rejected,
                    );
                }
                if let Some(err) = nothing_usable(&file.path, trace.launch_count(), &trace.rejected)
                {
                    failed += 1;
                    errors_seen.push(err);
                    continue;
                }
                frames.push(trace.launches);
            }
            Err(err) => {
                failed += 1;
                errors_seen.push(anyhow::Error::new(err));
            }
        }
    }
    if frames.is_empty() {
        return Err(nothing_read(errors_seen, color));
    }
    for err in &errors_seen {
        errors::print_error(err, color);
    }
    // An extra column that is a number in one export and text in another is stacked by the rule
    // of `warpsight_ingest::combine` (docs/trace-schema.md), never refused.
    let frames = warpsight_ingest::combine::unify_column_types(frames)
        .map_err(|e| anyhow::Error::new(e).context("cannot combine the launch tables"))?;
    let mut table = polars::functions::concat_df_diagonal(&frames)
        .map_err(|e| anyhow::Error::new(e).context("cannot combine the launch tables"))?;
    drop(frames);
    let mut out = OutputFile::new(output);
    let io_error = |source| WriteError::Io {
        path: output.to_path_buf(),
        source,
    };
    let file = out.create().map_err(io_error)?;
    warpsight_native::write_to(&mut table, output, file)?;
    out.commit().map_err(io_error)?;
    Ok((failed, table.height()))
}

/// The error when no input could be read: the input's own error when there is one input (one
/// `error:` line), else each input's error printed and a summary.
fn nothing_read(mut failures: Vec<anyhow::Error>, color: bool) -> anyhow::Error {
    if failures.len() == 1
        && let Some(only) = failures.pop()
    {
        return only;
    }
    for err in &failures {
        errors::print_error(err, color);
    }
    anyhow::Error::new(errors::CliError::new(
        format!("no input could be read ({} failed)", failures.len()),
        "each error above says why; `warpsight inspect` on the inputs says what they are",
    ))
}
