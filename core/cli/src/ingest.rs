//! `warpsight ingest`: reads profiler exports (files, directories, globs) into one launch table and
//! writes it as Parquet, Arrow IPC or CSV (chosen by the output's extension).
//!
//! The inputs are read in input order and written batch by batch as they come
//! ([`warpsight_ingest::read_batches`]: a Parquet row group, an IPC record batch or CSV rows per
//! batch), so that the whole table is never held: a `cuda_gpu_trace` CSV is read in batches of
//! at least 65 536 launches, any other input as one batch. The inputs read whole (reports, ncu
//! pages, warpsight tables) are read ahead on every core ([`warpsight_ingest::read_ahead`], within
//! `batch::READ_BUDGET_BYTES` of inputs read and not yet taken), and their tables are held back,
//! unwritten, while they fit in `KEEP_BYTES`, then written together (stacked: a few large Parquet
//! row groups rather than one per input, each repeating the metadata of every column of a wide
//! table). When an input's columns differ from the first
//! input's, the inputs are stacked with their columns unioned ([`warpsight_ingest::combine::stack`],
//! one output column per task on rayon's pool): the tables held back are stacked as they are,
//! with nothing written before, and the others are read (again) in parallel.
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
use warpsight_ingest::combine::{Stacking, StackingPlanner};
use warpsight_ingest::native::{self as warpsight_native, BatchWriter, WriteError};
use warpsight_ingest::read_ahead::{InOrder, ReadAheadConfig, read_ahead};
use warpsight_ingest::trace::RejectedRow;
use warpsight_ingest::{self, BatchError, BatchSummary, Format, ReadConfig, batch};
use warpsight_report::analysis::load;

/// The most bytes of launch tables ([`held_bytes`]) the streaming pass keeps for a stacked write,
/// should an input's columns differ from the first's; past it, nothing is kept and the stacked
/// write reads every input again, as it did before tables were kept. It is also the most bytes of
/// tables held back unwritten once nothing is kept (written together when they reach it).
const KEEP_BYTES: usize = 256 << 20;

/// The memory a held table takes for each of its columns beyond its values: the column's array,
/// its type and name, its chunk list. Measured: 200 copies of `traces/h100-80gb-hbm3/
/// sgemm.ncu-raw.csv` held at once (2,403 columns × 4 launches each) took 2.55 MB of resident
/// memory each, of which `DataFrame::estimated_size` counts 77 KB: about 1 KiB per column more.
const COLUMN_OVERHEAD_BYTES: usize = 1024;

/// The memory a table held in memory takes, estimated: its values (`estimated_size`) and
/// [`COLUMN_OVERHEAD_BYTES`] per column, which a wide table of a few launches (an ncu raw page, a
/// report) holds mostly in the latter.
fn held_bytes(frame: &DataFrame) -> usize {
    frame
        .estimated_size()
        .saturating_add(frame.width().saturating_mul(COLUMN_OVERHEAD_BYTES))
}

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
        None => stack_and_write(paths, config, output, color, &logged, kept),
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

/// The output being written batch by batch: the columns of the first batch admitted, the batches
/// admitted but not yet written (in order), and the writer, created at the first batch written
/// (the writer is dropped, closing the file, before the output removes an unfinished file).
struct Written {
    schema: Option<Schema>,
    pending: Vec<DataFrame>,
    /// The [`held_bytes`] of `pending`, and the most they reach once no table is kept.
    pending_bytes: usize,
    budget: usize,
    writer: Option<BatchWriter<File>>,
    output: OutputFile,
    launches: usize,
}

impl Written {
    fn new(output: &Path, budget: usize) -> Self {
        Written {
            schema: None,
            pending: Vec::new(),
            pending_bytes: 0,
            budget,
            writer: None,
            output: OutputFile::new(output),
            launches: 0,
        }
    }

    /// Admits a batch to be written (later, by [`Self::flush`]) when its columns are the first
    /// batch's; the first batch admitted sets them.
    fn admit(&mut self, batch: &DataFrame) -> Result<(), Unwritten> {
        match &self.schema {
            Some(first) if **batch.schema() == *first => {}
            Some(_) => return Err(Unwritten::OtherColumns),
            None => self.schema = Some(batch.schema().as_ref().clone()),
        }
        self.pending_bytes = self.pending_bytes.saturating_add(held_bytes(batch));
        self.pending.push(batch.clone());
        Ok(())
    }

    /// Whether the batches held back reach the budget (to be written once no table is kept).
    fn pending_is_full(&self) -> bool {
        self.pending_bytes >= self.budget
    }

    /// Writes the batches admitted, in order, creating the output at the first: several as one
    /// table (stacked on rayon's pool), so that the many small tables of a batch of reports or
    /// pages become a few large Parquet row groups instead of one per input (each with the
    /// metadata of every column of a wide table).
    fn flush(&mut self) -> Result<(), WriteError> {
        let polars = |source| WriteError::Polars {
            path: self.output.path().to_path_buf(),
            source,
        };
        let mut pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let batch = match pending.len() {
            0 => return Ok(()),
            1 => pending.swap_remove(0),
            _ => warpsight_ingest::combine::stack(pending).map_err(polars)?,
        };
        let writer = match &mut self.writer {
            Some(writer) => writer,
            None => {
                let file = self.output.create().map_err(|source| WriteError::Io {
                    path: self.output.path().to_path_buf(),
                    source,
                })?;
                let writer =
                    warpsight_native::batch_writer_for(self.output.path(), batch.schema(), file)?;
                self.writer.insert(writer)
            }
        };
        writer.write(&batch).map_err(|source| WriteError::Polars {
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
    /// The bytes of the tables kept ([`held_bytes`]), and the most they may reach (`KEEP_BYTES`).
    bytes: usize,
    budget: usize,
    /// False once the tables would exceed the budget (or with one input, which is never
    /// stacked): nothing is kept then.
    open: bool,
    /// The stacking of the tables kept, planned as they come (on this thread, while the next
    /// inputs are read), with the inputs planned, in order; `None` once a table came out of input
    /// order or nothing is kept. For a batch of reports (thousands of columns each) the plan was
    /// the serial part of the stacking.
    planned: Option<(StackingPlanner, Vec<usize>)>,
}

impl Kept {
    fn new(inputs: usize, budget: usize) -> Self {
        Kept {
            frames: vec![None; inputs],
            bytes: 0,
            budget,
            open: inputs > 1,
            planned: (inputs > 1).then(|| (StackingPlanner::default(), Vec::new())),
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
        let first_time = slot.is_none();
        if first_time {
            self.bytes = self.bytes.saturating_add(held_bytes(&frame));
        }
        match &mut self.planned {
            Some((planner, inputs))
                if first_time && inputs.last().is_none_or(|&last| last < index) =>
            {
                planner.add(&frame);
                inputs.push(index);
            }
            _ => self.planned = None,
        }
        *slot = Some(frame);
        if self.bytes > self.budget {
            self.frames.iter_mut().for_each(|slot| *slot = None);
            self.open = false;
            self.planned = None;
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

/// Reads the inputs in input order (those read whole ahead, in parallel) and writes their batches
/// (held back while their tables are kept, then written together). Returns the number of files
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
        let mut written = Written::new(output, kept.budget);
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
                let Some(writer) = written.writer else {
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

/// What a reading thread of the streaming pass gives for one input.
enum ReadInput {
    /// The input failed in an earlier pass: it is left out.
    Failed,
    /// The input is read in batches by the pass itself, as it writes them (an nsys export).
    Streamed,
    /// The input was read whole: its batches (one) and how the reading ended.
    Whole(Box<WholeInput>),
}

/// An input read whole by a reading thread: how the reading ended, and the batches (one) it gave.
type WholeInput = (
    Result<BatchSummary, BatchError<std::convert::Infallible>>,
    Vec<DataFrame>,
);

/// One pass over the inputs that have not failed, writing into `written`, and keeping in `kept`
/// the tables read whole.
///
/// The inputs read whole are read ahead, in parallel ([`warpsight_ingest::read_ahead`]), and
/// taken in input order. While tables are kept, their batches are admitted but not written: a
/// batch of reports whose columns differ is then stacked without any write wasted, and one whose
/// columns agree is written at the end (or once the kept tables exceed their budget). An input
/// read whole whose columns differ from the first input's is kept (and logged) like the others,
/// and so are the inputs read whole after it, up to the first that cannot be kept; the pass ends
/// there with [`Pass::Stack`]. Any other input whose columns differ ends it at its first batch,
/// read again by the stacked write.
fn stream_pass(
    paths: &[PathBuf],
    config: &ReadConfig,
    written: &mut Written,
    failures: &mut BTreeMap<usize, anyhow::Error>,
    logged: &mut BTreeSet<usize>,
    kept: &mut Kept,
) -> anyhow::Result<Pass> {
    let failed_before: BTreeSet<usize> = failures.keys().copied().collect();
    let read = |index: usize| {
        let path = &paths[index];
        if failed_before.contains(&index) {
            ReadInput::Failed
        } else if path_read_whole(path, config) {
            let mut batches = Vec::new();
            let result = warpsight_ingest::read_batches(path, config, |batch| {
                batches.push(batch);
                Ok(())
            });
            ReadInput::Whole(Box::new((result, batches)))
        } else {
            ReadInput::Streamed
        }
    };
    let read_config = ReadAheadConfig {
        sizes: paths.iter().map(|path| batch::disk_size(path)).collect(),
        budget_bytes: batch::READ_BUDGET_BYTES,
        workers: warpsight_ingest::read_ahead::reading_threads(paths.len()),
    };
    read_ahead(&read_config, read, |inputs| {
        while let Some((index, input)) = inputs.next() {
            let path = &paths[index];
            let stack = match input {
                ReadInput::Failed => continue,
                ReadInput::Whole(whole) => {
                    let (result, batches) = *whole;
                    take_whole(
                        index, path, result, batches, written, failures, logged, kept,
                    )?
                }
                ReadInput::Streamed => {
                    stream_input(index, path, config, written, failures, logged)?
                }
            };
            match stack {
                None => {}
                Some(Pass::Stack) => {
                    keep_read_ahead(inputs, paths, logged, kept);
                    return Ok(Pass::Stack);
                }
                Some(pass) => return Ok(pass),
            }
            // While tables are kept, the held batches are the kept tables (within the budget):
            // a batch whose columns differ later then wastes no write.
            if !kept.open && written.pending_is_full() {
                written.flush()?;
            }
            crate::allocator::release_freed_memory();
        }
        written.flush()?;
        Ok(Pass::Done(failures.len(), written.launches))
    })
}

/// Takes the table of an input read whole: admits its batch, keeps the table, and logs the
/// input; `Some` pass when the pass ends here.
#[allow(clippy::too_many_arguments)]
fn take_whole(
    index: usize,
    path: &Path,
    result: Result<BatchSummary, BatchError<std::convert::Infallible>>,
    batches: Vec<DataFrame>,
    written: &mut Written,
    failures: &mut BTreeMap<usize, anyhow::Error>,
    logged: &mut BTreeSet<usize>,
    kept: &mut Kept,
) -> anyhow::Result<Option<Pass>> {
    let keepable = kept.open;
    let mut admitted = 0usize;
    // Whether this input's first batch had other columns and was held instead of written.
    let mut differs = false;
    let mut held: Vec<DataFrame> = Vec::new();
    for batch in batches {
        match written.admit(&batch) {
            Ok(()) => admitted += 1,
            Err(Unwritten::OtherColumns) if admitted == 0 && keepable => differs = true,
            Err(Unwritten::OtherColumns) => {
                log_stack(path);
                return Ok(Some(Pass::Stack));
            }
            Err(Unwritten::Write(err)) => return Err(err.into()),
        }
        if keepable {
            held.push(batch);
        }
        if differs {
            break;
        }
    }
    match result {
        Ok(summary) => {
            if differs {
                log_stack(path);
            }
            log_read_once(index, path, &summary, logged);
            match nothing_usable(path, summary.launches, &summary.rejected) {
                Some(err) => {
                    failures.insert(index, err);
                }
                None if held.len() == 1 && warpsight_ingest::reads_whole(summary.format) => {
                    kept.keep(index, held.swap_remove(0));
                }
                None => {}
            }
            Ok(differs.then_some(Pass::Stack))
        }
        // The input's columns differ: the stacked write reads it again (and fails it again).
        Err(BatchError::Read(_)) if differs => {
            log_stack(path);
            Ok(Some(Pass::Stack))
        }
        Err(BatchError::Read(err)) => Ok(read_failed(index, path, err, admitted > 0, failures)),
        Err(BatchError::Sink(never)) => match never {},
    }
}

/// Reads an input in batches, writing each as it comes (after the batches admitted before it);
/// `Some` pass when the pass ends here.
fn stream_input(
    index: usize,
    path: &Path,
    config: &ReadConfig,
    written: &mut Written,
    failures: &mut BTreeMap<usize, anyhow::Error>,
    logged: &mut BTreeSet<usize>,
) -> anyhow::Result<Option<Pass>> {
    let mut batches = 0usize;
    let result = warpsight_ingest::read_batches(path, config, |batch| {
        written.admit(&batch)?;
        written.flush()?;
        batches += 1;
        Ok::<(), Unwritten>(())
    });
    match result {
        Ok(summary) => {
            log_read_once(index, path, &summary, logged);
            if let Some(err) = nothing_usable(path, summary.launches, &summary.rejected) {
                failures.insert(index, err);
            }
            Ok(None)
        }
        Err(BatchError::Read(err)) => Ok(read_failed(index, path, err, batches > 0, failures)),
        Err(BatchError::Sink(Unwritten::OtherColumns)) => {
            log_stack(path);
            Ok(Some(Pass::Stack))
        }
        Err(BatchError::Sink(Unwritten::Write(err))) => Err(err.into()),
    }
}

/// Once the tables are to be stacked, keeps (and logs) the tables of the inputs read ahead whole
/// that follow, up to the first that cannot be kept (one streamed, one that failed, or past the
/// budget): the stacked write reads the others.
fn keep_read_ahead(
    inputs: &mut InOrder<'_, ReadInput>,
    paths: &[PathBuf],
    logged: &mut BTreeSet<usize>,
    kept: &mut Kept,
) {
    while kept.open
        && let Some((index, ReadInput::Whole(whole))) = inputs.next()
        && let (Ok(summary), mut batches) = *whole
    {
        if batches.len() != 1
            || !warpsight_ingest::reads_whole(summary.format)
            || nothing_usable(&paths[index], summary.launches, &summary.rejected).is_some()
        {
            break;
        }
        log_read_once(index, &paths[index], &summary, logged);
        kept.keep(index, batches.swap_remove(0));
    }
}

/// Logs that input `index` was read, unless it was logged before (by an earlier pass).
fn log_read_once(index: usize, path: &Path, summary: &BatchSummary, logged: &mut BTreeSet<usize>) {
    if logged.insert(index) {
        log_read(
            path,
            summary.format.name(),
            summary.launches,
            &summary.rejected,
        );
    }
}

/// Records that input `index` could not be read; [`Pass::Again`] when some of its batches were
/// already admitted (the output is then written again without it).
fn read_failed(
    index: usize,
    path: &Path,
    err: warpsight_ingest::IngestError,
    admitted_some: bool,
    failures: &mut BTreeMap<usize, anyhow::Error>,
) -> Option<Pass> {
    failures.insert(index, anyhow::Error::new(err));
    admitted_some.then(|| {
        tracing::info!(
            file = %path.display(),
            "the file failed after some of its launches were written: writing the output again without it"
        );
        Pass::Again
    })
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
    kept: Kept,
) -> anyhow::Result<(usize, usize)> {
    let Kept {
        frames: kept,
        planned,
        ..
    } = kept;
    let unread: Vec<PathBuf> = paths
        .iter()
        .zip(&kept)
        .filter(|(_, frame)| frame.is_none())
        .map(|(path, _)| path.clone())
        .collect();
    warpsight_ingest::memory::log_stage("the streaming pass");
    let mut results = warpsight_ingest::read_many(&unread, config).into_iter();
    warpsight_ingest::memory::log_stage("reading the other inputs");
    let mut frames = Vec::new();
    // The input of each frame.
    let mut inputs = Vec::new();
    let mut failed = 0usize;
    let mut errors_seen: Vec<anyhow::Error> = Vec::new();
    for (index, kept) in kept.into_iter().enumerate() {
        if let Some(frame) = kept {
            frames.push(frame);
            inputs.push(index);
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
                inputs.push(index);
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
    // of `warpsight_ingest::combine` (docs/trace-schema.md), never refused. The output's writer
    // (a Parquet or Arrow IPC one) is made from the stacked table's schema while the table is
    // built: for a batch of reports (thousands of columns) its schemas are much of the serial
    // part of the write. The plan made while the tables were kept holds when the tables read
    // since come after them.
    let stacking = match planned {
        Some((planner, planned_inputs)) if inputs.starts_with(&planned_inputs) => planner
            .plan(&frames)
            .map_err(|e| anyhow::Error::new(e).context("cannot combine the launch tables"))?,
        _ => Stacking::plan(&frames),
    };
    let mut out = OutputFile::new(output);
    let io_error = |source| WriteError::Io {
        path: output.to_path_buf(),
        source,
    };
    let whole_only = !matches!(
        warpsight_native::format_for_extension(output),
        Some(Format::WarpsightParquet | Format::WarpsightIpc)
    );
    let (table, writer) = rayon::join(
        || stacking.stack(&frames),
        || -> Result<Option<BatchWriter<File>>, WriteError> {
            if whole_only {
                return Ok(None);
            }
            let file = out.create().map_err(io_error)?;
            warpsight_native::batch_writer_for(output, stacking.schema(), file).map(Some)
        },
    );
    let mut table =
        table.map_err(|e| anyhow::Error::new(e).context("cannot combine the launch tables"))?;
    let writer = writer?;
    // The command ends once the table is written: the inputs are not freed (see
    // `keep_until_exit` below).
    crate::allocator::keep_until_exit(frames);
    warpsight_ingest::memory::log_stage("stacking the tables");
    match writer {
        Some(mut writer) => {
            let polars = |source| WriteError::Polars {
                path: output.to_path_buf(),
                source,
            };
            writer.write(&table).map_err(polars)?;
            let ended = writer.end().map_err(polars)?;
            // The command ends once the output is renamed into place: what the writer held is
            // not freed. (A file still open cannot be renamed on Windows: it is closed there.)
            if cfg!(unix) {
                crate::allocator::keep_until_exit(ended);
            } else {
                drop(ended);
            }
        }
        None => {
            let file = out.create().map_err(io_error)?;
            warpsight_native::write_to(&mut table, output, file)?;
        }
    }
    warpsight_ingest::memory::log_stage("writing the output");
    out.commit().map_err(io_error)?;
    let launches = table.height();
    // The command ends here: freeing the stacked table (thousands of columns for a batch of
    // reports) would only delay the exit.
    crate::allocator::keep_until_exit(table);
    Ok((failed, launches))
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

    /// What `stream` did with some inputs.
    struct Streamed {
        /// Whether it wrote them (false: it left them to be stacked).
        written: bool,
        /// Whether each input's table was kept.
        held: Vec<bool>,
        /// The inputs logged, by index.
        logged: Vec<usize>,
        kept: Kept,
    }

    /// What `stream` does with `paths`, keeping up to `keep_bytes` of tables.
    fn stream_of(
        paths: &[PathBuf],
        output: &Path,
        keep_bytes: usize,
    ) -> Result<Streamed, Box<dyn std::error::Error>> {
        let mut logged = BTreeSet::new();
        let mut kept = Kept::new(paths.len(), keep_bytes);
        let written = stream(
            paths,
            &ReadConfig::default(),
            output,
            false,
            &mut logged,
            &mut kept,
        )?
        .is_some();
        Ok(Streamed {
            written,
            held: kept.frames.iter().map(Option::is_some).collect(),
            logged: logged.into_iter().collect(),
            kept,
        })
    }

    #[test]
    fn the_streaming_pass_keeps_the_tables_read_whole_up_to_the_first_it_cannot_keep() -> TestResult
    {
        let dir = tempfile::tempdir()?;
        let traces = warpsight_test_support::paths::traces_dir();
        let raw = traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
        let details = traces.join("h100-80gb-hbm3/sgemm.ncu-details.csv");
        let unreadable = dir.path().join("unreadable.csv");
        std::fs::write(&unreadable, "hello\n")?;
        let output = dir.path().join("out.parquet");
        let config = ReadConfig::default();

        // The details page's columns differ: it is kept, and so is the input read whole after it.
        let paths = vec![raw.clone(), raw.clone(), details.clone(), details.clone()];
        let streamed = stream_of(&paths, &output, KEEP_BYTES)?;
        assert!(!streamed.written, "the columns differ: stacked");
        assert_eq!(streamed.held, [true, true, true, true]);
        assert_eq!(streamed.logged, [0, 1, 2, 3]);
        assert!(!output.exists(), "nothing is written by a pass that stacks");
        // The kept tables are those the readers give.
        for (path, frame) in paths.iter().zip(&streamed.kept.frames) {
            let whole = warpsight_ingest::read_path(path, &config)?.launches;
            let frame = frame.as_ref().ok_or("kept")?;
            assert_eq!(frame.schema(), whole.schema());
            assert!(frame.equals_missing(&whole));
        }

        // An input that fails ends the keeping: the stacked write reads it and those after it.
        let paths = vec![raw.clone(), details.clone(), unreadable, raw.clone()];
        let streamed = stream_of(&paths, &output, KEEP_BYTES)?;
        assert!(!streamed.written);
        assert_eq!(streamed.held, [true, true, false, false]);
        assert_eq!(streamed.logged, [0, 1]);

        // Over the budget, nothing is kept.
        let paths = vec![raw.clone(), raw, details.clone(), details];
        let streamed = stream_of(&paths, &output, 1)?;
        assert!(!streamed.written);
        assert!(streamed.held.iter().all(|kept| !kept));
        assert!(!output.exists(), "nothing is written by a pass that stacks");
        Ok(())
    }

    #[test]
    fn held_back_tables_are_written_together_up_to_the_budget() -> TestResult {
        let dir = tempfile::tempdir()?;
        let raw =
            warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
        let one = held_bytes(&warpsight_ingest::read_path(&raw, &ReadConfig::default())?.launches);
        let row_groups = |output: &Path| -> Result<usize, Box<dyn std::error::Error>> {
            use polars::prelude::SerReader;
            let metadata = polars::io::parquet::read::ParquetReader::new(File::open(output)?)
                .get_metadata()?
                .clone();
            Ok(metadata.row_groups.len())
        };
        let output = dir.path().join("out.parquet");
        let paths = vec![raw.clone(); 5];
        // A budget of two and a half tables: the third table closes the keeping, and the three
        // held are written together; the last two are held until the end.
        written(&paths, &output, one * 5 / 2)?;
        assert_eq!(row_groups(&output)?, 2);
        // A budget of many tables: one row group; of none: one per input.
        written(&paths, &output, KEEP_BYTES)?;
        assert_eq!(row_groups(&output)?, 1);
        written(&paths, &output, 0)?;
        assert_eq!(row_groups(&output)?, 5);
        // A wide table of a few launches is counted mostly by its columns.
        assert!(one > 2403 * COLUMN_OVERHEAD_BYTES);
        Ok(())
    }

    #[test]
    fn inputs_with_the_same_columns_are_the_same_table_whether_held_back_or_not() -> TestResult {
        let dir = tempfile::tempdir()?;
        let traces = warpsight_test_support::paths::traces_dir();
        let raw = traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
        let unreadable = dir.path().join("unreadable.csv");
        std::fs::write(&unreadable, "hello\n")?;
        // A CUDA trace, and the same trace as warpsight's own table (read whole): the same
        // columns, one read in batches, the other whole.
        let trace = dir.path().join("trace.csv");
        warpsight_test_support::synthetic_nsys::write_gpu_trace_csv(
            &trace,
            &warpsight_test_support::synthetic_nsys::SyntheticConfig::default(),
        )?;
        let table = dir.path().join("trace.parquet");
        written(std::slice::from_ref(&trace), &table, KEEP_BYTES)?;
        // Whether every input is read whole.
        for (paths, all_whole) in [
            (vec![raw.clone(), raw.clone(), unreadable, raw], true),
            (vec![table.clone(), trace.clone(), table, trace], false),
        ] {
            let readable: Vec<&PathBuf> = paths
                .iter()
                .filter(|p| !p.ends_with("unreadable.csv"))
                .collect();
            let whole: Vec<DataFrame> = readable
                .iter()
                .map(|path| {
                    warpsight_ingest::read_path(path, &ReadConfig::default()).map(|t| t.launches)
                })
                .collect::<Result<_, _>>()?;
            let expected_launches: usize = whole.iter().map(DataFrame::height).sum();
            let streamed = stream_of(&paths, &dir.path().join("streamed.parquet"), KEEP_BYTES)?;
            assert!(
                streamed.written,
                "the same columns: written as they come, not stacked"
            );
            let mut stacked = whole[0].clone();
            for frame in &whole[1..] {
                stacked.vstack_mut(frame)?;
            }
            // Every table held back (written together at the end, or before the first input read
            // in batches) or none (each written as it comes, a row group each).
            for keep_bytes in [KEEP_BYTES, 0] {
                let output = dir.path().join(format!("out-{keep_bytes}.parquet"));
                let (failed, launches, bytes) = written(&paths, &output, keep_bytes)?;
                assert_eq!(failed, usize::from(paths.len() != readable.len()));
                assert_eq!(launches, expected_launches);
                // The tables read back are the inputs' tables, one after the other.
                let back = warpsight_ingest::read_path(&output, &ReadConfig::default())?.launches;
                let back = back.select(stacked.get_column_names_owned())?;
                assert!(back.equals_missing(&stacked), "kept {keep_bytes} bytes");
                if all_whole && keep_bytes > 0 {
                    // Held back together, they are the file of their stacked table written whole.
                    let reference = dir.path().join("reference.parquet");
                    warpsight_native::write(&mut stacked.clone(), &reference)?;
                    assert!(bytes == std::fs::read(&reference)?);
                }
            }
        }
        Ok(())
    }
}
