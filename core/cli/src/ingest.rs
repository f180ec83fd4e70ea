//! `warpsight ingest`: reads profiler exports (files, directories, globs) into one launch table and
//! writes it as Parquet, Arrow IPC or CSV (chosen by the output's extension).
//!
//! The inputs are read one at a time and written batch by batch as they come
//! ([`warpsight_ingest::read_batches`]: a Parquet row group, an IPC record batch or CSV rows per
//! batch), so that the whole table is never held: a `cuda_gpu_trace` CSV is read in batches of
//! at least 65 536 launches, any other input as one batch. When an input's columns differ from the
//! first input's, the inputs are stacked with their columns unioned
//! ([`warpsight_ingest::combine::stack`], one output column per task on rayon's pool): the tables
//! already read whole are kept from the streaming pass (up to `KEEP_BYTES`), the others are read
//! (again) in parallel.
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

/// The most bytes of launch tables (`DataFrame::estimated_size`) the streaming pass keeps for a
/// stacked write, should an input's columns differ from the first's; past it, nothing is kept and
/// the stacked write reads every input again, as it did before tables were kept.
const KEEP_BYTES: usize = 256 << 20;

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
    let (failed, launches) = write_inputs(&paths, &config, &args.output, color, KEEP_BYTES)?;
    tracing::info!(output = %args.output.display(), launches, "written");
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads `paths` and writes their launch table to `output`, streamed, or stacked when their
/// columns differ (keeping up to `keep_bytes` of the tables read by the streaming pass). Returns
/// the number of files that failed and of launches written.
fn write_inputs(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &Path,
    color: bool,
    keep_bytes: usize,
) -> anyhow::Result<(usize, usize)> {
    // The inputs already reported (read, or rejected rows counted), so that a second pass over
    // them (the stacked write) says nothing twice.
    let mut logged = BTreeSet::new();
    let mut kept = Kept::new(paths.len(), keep_bytes);
    match stream(paths, config, output, color, &mut logged, &mut kept)? {
        Some(done) => Ok(done),
        None => stack_and_write(paths, config, output, color, &logged, kept.frames),
    }
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

/// The launch tables the streaming pass read whole, by input index, kept so that the stacked write
/// (should an input's columns differ from the first's) need not read those inputs again.
struct Kept {
    /// Each input's table: one read whole, every row of it usable, by `read_batches` (the table
    /// `read_many` gives for it).
    frames: Vec<Option<DataFrame>>,
    /// The estimated bytes of the tables kept, and the most it may reach (`KEEP_BYTES`).
    bytes: usize,
    budget: usize,
    /// False once the tables would exceed the budget (or with one input, which is never
    /// stacked): nothing is kept then.
    open: bool,
}

impl Kept {
    fn new(inputs: usize, budget: usize) -> Self {
        Kept {
            frames: vec![None; inputs],
            bytes: 0,
            budget,
            open: inputs > 1,
        }
    }

    /// Keeps `frame`, the table of input `index`, or forgets every table when it would exceed
    /// the budget.
    fn keep(&mut self, index: usize, frame: DataFrame) {
        if !self.open {
            return;
        }
        let Some(slot) = self.frames.get_mut(index) else {
            return;
        };
        if slot.is_none() {
            self.bytes += frame.estimated_size();
        }
        *slot = Some(frame);
        if self.bytes > self.budget {
            self.frames.iter_mut().for_each(|slot| *slot = None);
            self.open = false;
        }
    }
}

/// Whether `path` is read whole ([`warpsight_ingest::reads_whole`]) in the format `config` forces or detection gives;
/// false when the format cannot be told.
fn path_read_whole(path: &Path, config: &ReadConfig) -> bool {
    config
        .format
        .or_else(|| warpsight_ingest::detect(path).ok())
        .is_some_and(warpsight_ingest::reads_whole)
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
/// from the first's: the caller then stacks the tables, those in `kept` and the others.
fn stream(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &Path,
    color: bool,
    logged: &mut BTreeSet<usize>,
    kept: &mut Kept,
) -> anyhow::Result<Option<(usize, usize)>> {
    // The inputs that failed, by index (their errors are printed at the end, in input order).
    let mut failures: BTreeMap<usize, anyhow::Error> = BTreeMap::new();
    loop {
        let mut written = Written {
            writer: None,
            output: OutputFile::new(output),
            launches: 0,
        };
        match stream_pass(paths, config, &mut written, &mut failures, logged, kept)? {
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

/// One pass over the inputs that have not failed, writing into `written`, and keeping in `kept`
/// the tables read whole.
///
/// An input read whole whose columns differ from the first input's is not written but kept (and
/// logged) like the others, and the pass ends there with [`Pass::Stack`]; any other input whose
/// columns differ ends it at its first batch, read again by the stacked write.
fn stream_pass(
    paths: &[PathBuf],
    config: &ReadConfig,
    written: &mut Written,
    failures: &mut BTreeMap<usize, anyhow::Error>,
    logged: &mut BTreeSet<usize>,
    kept: &mut Kept,
) -> anyhow::Result<Pass> {
    for (index, path) in paths.iter().enumerate() {
        if failures.contains_key(&index) {
            continue;
        }
        // Batches written, and this input's batches held for `kept` (while it keeps tables, and
        // only for an input read whole: an nsys export's batches are never held).
        let keepable = kept.open && path_read_whole(path, config);
        let mut batches = 0usize;
        let mut held: Vec<DataFrame> = Vec::new();
        // Whether this input's first batch had other columns and was held instead of written.
        let mut differs = false;
        let result = warpsight_ingest::read_batches(path, config, |batch| {
            if differs {
                return Err(Unwritten::OtherColumns);
            }
            match written.write(&batch) {
                Ok(()) => batches += 1,
                Err(Unwritten::OtherColumns) if batches == 0 && keepable => {
                    differs = true;
                }
                Err(err) => return Err(err),
            }
            if keepable {
                held.push(batch);
            }
            Ok::<(), Unwritten>(())
        });
        match result {
            Ok(summary) => {
                if differs {
                    log_stack(path);
                }
                if logged.insert(index) {
                    log_read(
                        path,
                        summary.format.name(),
                        summary.launches,
                        &summary.rejected,
                    );
                }
                match nothing_usable(path, summary.launches, &summary.rejected) {
                    Some(err) => {
                        failures.insert(index, err);
                    }
                    None if held.len() == 1 && warpsight_ingest::reads_whole(summary.format) => {
                        kept.keep(index, held.swap_remove(0));
                    }
                    None => {}
                }
                if differs {
                    return Ok(Pass::Stack);
                }
            }
            // The input's columns differ: the stacked write reads it again (and fails it again).
            Err(BatchError::Read(_)) if differs => {
                log_stack(path);
                return Ok(Pass::Stack);
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
                log_stack(path);
                return Ok(Pass::Stack);
            }
            Err(BatchError::Sink(Unwritten::Write(err))) => return Err(err.into()),
        }
        crate::allocator::release_freed_memory();
    }
    Ok(Pass::Done(failures.len(), written.launches))
}

/// Logs that `path`'s columns differ from the first input's.
fn log_stack(path: &Path) {
    tracing::info!(
        file = %path.display(),
        "columns differ from the first file's: the tables are stacked instead"
    );
}

/// Reads every file not in `kept` (in parallel), stacks the tables (columns unioned, in input
/// order) and writes them.
fn stack_and_write(
    paths: &[PathBuf],
    config: &ReadConfig,
    output: &Path,
    color: bool,
    logged: &BTreeSet<usize>,
    kept: Vec<Option<DataFrame>>,
) -> anyhow::Result<(usize, usize)> {
    let unread: Vec<PathBuf> = paths
        .iter()
        .zip(&kept)
        .filter(|(_, frame)| frame.is_none())
        .map(|(path, _)| path.clone())
        .collect();
    let mut results = warpsight_ingest::read_many(&unread, config).into_iter();
    let mut frames = Vec::new();
    let mut failed = 0usize;
    let mut errors_seen: Vec<anyhow::Error> = Vec::new();
    for (index, kept) in kept.into_iter().enumerate() {
        if let Some(frame) = kept {
            frames.push(frame);
            continue;
        }
        let Some(file) = results.next() else {
            break;
        };
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
    let mut table = warpsight_ingest::combine::stack(frames)
        .map_err(|e| anyhow::Error::new(e).context("cannot combine the launch tables"))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// The file `write_inputs` writes for `paths`, with a budget of `keep_bytes` for the tables
    /// kept from the streaming pass.
    fn written(
        paths: &[PathBuf],
        output: &Path,
        keep_bytes: usize,
    ) -> Result<(usize, usize, Vec<u8>), Box<dyn std::error::Error>> {
        let (failed, launches) =
            write_inputs(paths, &ReadConfig::default(), output, false, keep_bytes)?;
        Ok((failed, launches, std::fs::read(output)?))
    }

    #[test]
    fn stacked_inputs_are_written_as_the_diagonal_concatenation_of_their_tables() -> TestResult {
        let dir = tempfile::tempdir()?;
        let traces = warpsight_test_support::paths::traces_dir();
        let raw = traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
        let copy = dir.path().join("copy.ncu-raw.csv");
        std::fs::copy(&raw, &copy)?;
        let unreadable = dir.path().join("unreadable.csv");
        std::fs::write(&unreadable, "hello\n")?;
        // The first two have the same columns (streamed), the details page's differ (kept, not
        // written), then a report, a file that fails, and the first file again.
        let mut paths = vec![
            raw.clone(),
            copy,
            traces.join("h100-80gb-hbm3/sgemm.ncu-details.csv"),
            unreadable,
            raw,
        ];
        let mut reports: Vec<PathBuf> = std::fs::read_dir(traces.join("ncu-rep"))?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|e| e == "ncu-rep"))
            .collect();
        reports.sort();
        paths.extend(reports.into_iter().take(2));

        // The reference: every readable input read whole, stacked diagonally, written at once.
        let frames = paths
            .iter()
            .filter_map(|path| warpsight_ingest::read_path(path, &ReadConfig::default()).ok())
            .map(|trace| trace.launches)
            .collect::<Vec<_>>();
        let mut expected = polars::functions::concat_df_diagonal(
            &warpsight_ingest::combine::unify_column_types(frames)?,
        )?;
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let reference = dir.path().join(format!("reference-{name}"));
            warpsight_native::write(&mut expected, &reference)?;
            let reference = std::fs::read(&reference)?;
            let output = dir.path().join(name);
            // Tables kept from the streaming pass, and none (every input read again).
            for keep_bytes in [KEEP_BYTES, 0] {
                let (failed, launches, bytes) = written(&paths, &output, keep_bytes)?;
                assert_eq!(failed, 1, "{name}");
                assert_eq!(launches, expected.height(), "{name}");
                assert!(bytes == reference, "{name}, keeping {keep_bytes} bytes");
            }
        }
        Ok(())
    }

    #[test]
    fn the_streaming_pass_keeps_the_tables_read_whole_up_to_the_one_with_other_columns()
    -> TestResult {
        let dir = tempfile::tempdir()?;
        let traces = warpsight_test_support::paths::traces_dir();
        let raw = traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
        let details = traces.join("h100-80gb-hbm3/sgemm.ncu-details.csv");
        let paths = vec![raw.clone(), raw, details.clone(), details];
        let output = dir.path().join("out.parquet");
        let config = ReadConfig::default();
        let mut logged = BTreeSet::new();
        let mut kept = Kept::new(paths.len(), KEEP_BYTES);
        let streamed = stream(&paths, &config, &output, false, &mut logged, &mut kept)?;
        assert!(streamed.is_none(), "the columns differ: stacked");
        let held: Vec<bool> = kept.frames.iter().map(Option::is_some).collect();
        assert_eq!(held, [true, true, true, false]);
        assert_eq!(logged.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
        // The kept tables are those the readers give.
        for (path, frame) in paths.iter().zip(&kept.frames).take(3) {
            let whole = warpsight_ingest::read_path(path, &config)?.launches;
            let frame = frame.as_ref().ok_or("kept")?;
            assert_eq!(frame.schema(), whole.schema());
            assert!(frame.equals_missing(&whole));
        }
        // Over the budget, nothing is kept.
        let mut kept = Kept::new(paths.len(), 1);
        let streamed = stream(
            &paths,
            &config,
            &output,
            false,
            &mut BTreeSet::new(),
            &mut kept,
        )?;
        assert!(streamed.is_none());
        assert!(kept.frames.iter().all(Option::is_none));
        assert!(!output.exists(), "nothing is written by a pass that stacks");
        Ok(())
    }
}
