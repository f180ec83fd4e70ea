//! One input read as a sequence of launch-table batches ([`read_batches`]), so that a caller that
//! writes them as they come (`warpsight ingest`) never holds the whole table.
//!
//! This module only picks the [`LaunchSource`] of the input's format and validates and hands on
//! what it reads. The formats that reach millions of launches have a source that reads them in
//! batches: the `cuda_gpu_trace` CSV reader builds its launch table batch by batch while it reads
//! the file ([`crate::nsys::gpu_trace`]), the nsys SQLite reader reads the kernel table in rowid
//! ranges ([`crate::nsys::sqlite`]) and the nsys Parquet / Arrow reader in row slices
//! ([`crate::nsys::arrow`]). Every other format (ncu pages and reports, nsys summaries,
//! warpsight's own tables) is read whole ([`crate::read_path`]) and handed on as one batch
//! ([`crate::whole`]). Either way:
//!
//! - every batch has the schema of the whole table (the conformed launch table of
//!   [`crate::launch_table::conform`]; a column that is all null in a batch keeps its dtype), and
//!   the batches stacked are the table [`crate::read_path`] gives, row for row;
//! - the launches are validated batch by batch as [`crate::read_path`] validates the whole table:
//!   a launch out of range is removed and counted, its rejected row naming its row in the whole
//!   table;
//! - the rejected rows are those of [`crate::trace::Trace::rejected`], in the same order; with
//!   `--strict` the error is the one [`crate::read_path`] gives: the reader's first rejected row
//!   comes before an out-of-range launch, so a strict reading that meets an out-of-range launch
//!   hands on no further batch but reads on for the reader's own rejected rows.
//!
//! The batches are the launch table only. The input's other tables (ncu rule rows, the memcpy /
//! memset rows of an nsys export, nsys kernel summaries) are read only by [`read_trace_batches`],
//! which returns them once the last batch is handed on ([`BatchSummary::side`]): a caller that
//! analyses the batches (`warpsight analyze` of one large export) needs them, `warpsight ingest`
//! does not.

use std::any::Any;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::Path;

use polars::prelude::*;

use crate::launch_source::{
    AfterBatches, BATCHING, BatchSize, Batching, LaunchSource, TablesWanted,
};
use crate::nsys::arrow::TableFilesSource;
use crate::nsys::gpu_trace::GpuTraceSource;
use crate::nsys::sqlite::SqliteSource;
use crate::trace::{RejectedRow, SideTables};
use crate::whole::WholeSource;
use crate::{Format, IngestError, ReadConfig, validate};

/// What [`read_batches`] read from one input.
#[derive(Debug, Clone)]
pub struct BatchSummary {
    /// The detected (or forced) format.
    pub format: Format,
    /// Launches handed on (the rows of every batch).
    pub launches: usize,
    /// Batches handed on (at least one when the reading succeeds).
    #[cfg(test)]
    batches: usize,
    /// Rows that could not be used, as [`crate::trace::Trace::rejected`] lists them.
    pub rejected: Vec<RejectedRow>,
    /// The input's tables other than the launch table, as [`crate::read_path`] gives them; empty
    /// unless read by [`read_trace_batches`].
    pub side: SideTables,
}

/// Why [`read_batches`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum BatchError<E> {
    /// The input could not be read (the errors of [`crate::read_path`]); batches may have been
    /// handed on before.
    #[error(transparent)]
    Read(IngestError),
    /// The consumer of the batches failed; the reading stopped there.
    #[error("the launch-table batches could not be consumed")]
    Sink(#[source] E),
}

/// Reads one input (detecting its format unless `config.format` forces one) and hands its launch
/// table to `on_batch`, one batch at a time, in the table's row order: a `cuda_gpu_trace` CSV in
/// batches of at least 65 536 launches (the pieces the reader parses in parallel, gathered until
/// they hold that many; the last batch holds the rest), an nsys SQLite export in ranges of 65 536
/// kernel rowids, an nsys Parquet / Arrow export in slices of 262 144 kernel rows, any other
/// format as one batch. When `on_batch` fails, the
/// reading stops and its error is returned.
///
/// As in [`crate::read_path`], a panic while reading becomes [`IngestError::Panicked`]; a panic of
/// `on_batch` is the caller's and goes on unwinding.
pub fn read_batches<E>(
    path: &Path,
    config: &ReadConfig,
    on_batch: impl FnMut(DataFrame) -> Result<(), E>,
) -> Result<BatchSummary, BatchError<E>> {
    read_batches_with(path, config, BATCHING, TablesWanted::LaunchesOnly, on_batch)
}

/// [`read_batches`] with batches of `size`, and the input's other tables (ncu rule rows, nsys
/// transfers and kernel summaries) returned in [`BatchSummary::side`] after the last batch: what
/// [`crate::read_path`] gives, with the launch table handed on in batches.
pub fn read_trace_batches<E>(
    path: &Path,
    config: &ReadConfig,
    size: BatchSize,
    on_batch: impl FnMut(DataFrame) -> Result<(), E>,
) -> Result<BatchSummary, BatchError<E>> {
    read_batches_with(path, config, size.batching(), TablesWanted::All, on_batch)
}

/// Whether [`read_batches`] hands on the launch table of an input of `format` whole, as one batch
/// (the table [`crate::read_path`] gives), rather than in batches.
pub fn reads_whole(format: Format) -> bool {
    source_of(format).reads_whole()
}

/// The source that reads `format` in batches: the formats that reach millions of launches have
/// their own, every other format is read whole and handed on as one batch.
fn source_of(format: Format) -> Box<dyn LaunchSource> {
    match format {
        Format::NsysGpuTrace => Box::new(GpuTraceSource),
        Format::NsysSqlite => Box::new(SqliteSource),
        Format::NsysParquet | Format::NsysArrow => Box::new(TableFilesSource { format }),
        Format::NcuDetails
        | Format::NcuRaw
        | Format::NcuRep
        | Format::NsysKernSum
        | Format::WarpsightParquet
        | Format::WarpsightIpc
        | Format::WarpsightCsv => Box::new(WholeSource { format }),
    }
}

/// [`read_batches`] with the batches cut as `batching` says, and the other tables read as
/// `wanted` says.
pub(crate) fn read_batches_with<E>(
    path: &Path,
    config: &ReadConfig,
    batching: Batching,
    wanted: TablesWanted,
    on_batch: impl FnMut(DataFrame) -> Result<(), E>,
) -> Result<BatchSummary, BatchError<E>> {
    let mut delivery = Delivery {
        path,
        strict: config.strict,
        on_batch,
        launches: 0,
        batches: 0,
        rows_read: 0,
        out_of_range: Vec::new(),
        deferred: None,
        failed: None,
        sink_error: None,
        sink_panic: None,
    };
    let read = || -> Result<(Format, AfterBatches), IngestError> {
        let format = crate::resolve_format(path, config)?;
        let span = tracing::debug_span!("read", path = %path.display(), format = format.name());
        let _entered = span.enter();
        let source = source_of(format);
        let validated = source.validates();
        let after = source.read_launches(path, config, batching, wanted, &mut |batch| {
            if validated {
                delivery.sink(batch)
            } else {
                delivery.validated(batch)
            }
        })?;
        Ok((format, after))
    };
    // The closure only reads and hands on batches: what it leaves half-done when it unwinds is
    // not used afterwards (a panic of `on_batch` is resumed below).
    let outcome = catch_unwind(AssertUnwindSafe(read));
    if let Some(payload) = delivery.sink_panic.take() {
        resume_unwind(payload);
    }
    if let Some(error) = delivery.sink_error.take() {
        return Err(BatchError::Sink(error));
    }
    let (format, AfterBatches { mut rejected, side }) = match outcome {
        Ok(Ok(read)) => read,
        Ok(Err(error)) => return Err(BatchError::Read(error)),
        Err(payload) => {
            return Err(BatchError::Read(IngestError::Panicked {
                path: path.to_path_buf(),
                message: crate::panic_message(&*payload),
            }));
        }
    };
    if let Some(error) = delivery.failed.or(delivery.deferred) {
        return Err(BatchError::Read(error));
    }
    rejected.append(&mut delivery.out_of_range);
    Ok(BatchSummary {
        format,
        launches: delivery.launches,
        #[cfg(test)]
        batches: delivery.batches,
        rejected,
        side,
    })
}

/// The batches on their way to the consumer, and what became of them.
struct Delivery<'p, E, F> {
    path: &'p Path,
    strict: bool,
    on_batch: F,
    /// Launches and batches handed on.
    launches: usize,
    batches: usize,
    /// Rows of the file's launch table read so far, before validation.
    rows_read: u64,
    /// The rejected rows of the out-of-range launches, in row order.
    out_of_range: Vec<RejectedRow>,
    /// With `--strict`, the error for the first out-of-range launch: it stands unless the reader
    /// rejects a row of its own.
    deferred: Option<IngestError>,
    /// A batch that could not be validated.
    failed: Option<IngestError>,
    /// The consumer's error, or its panic.
    sink_error: Option<E>,
    sink_panic: Option<Box<dyn Any + Send>>,
}

impl<E, F: FnMut(DataFrame) -> Result<(), E>> Delivery<'_, E, F> {
    /// Validates a batch read in batches and hands on what is left of it.
    fn validated(&mut self, batch: DataFrame) -> ControlFlow<()> {
        if self.deferred.is_some() {
            // Strict, and a launch was out of range: the rest is read only for the reader's own
            // rejected rows, which come first.
            return ControlFlow::Continue(());
        }
        let first_row = self.rows_read;
        self.rows_read += batch.height() as u64;
        match validate::validate_batch(self.path, batch, first_row, self.strict) {
            Ok((batch, mut rejected)) => {
                self.out_of_range.append(&mut rejected);
                // A batch emptied by validation is handed on only when it is the first, so that
                // the consumer always sees the schema.
                if batch.height() == 0 && self.batches > 0 {
                    return ControlFlow::Continue(());
                }
                self.sink(batch)
            }
            Err(error @ (IngestError::OutOfRange { .. } | IngestError::ProfilingFailed { .. })) => {
                self.deferred = Some(error);
                ControlFlow::Continue(())
            }
            Err(error) => {
                self.failed = Some(error);
                ControlFlow::Break(())
            }
        }
    }

    /// Hands a batch to the consumer; breaks when it fails or panics.
    fn sink(&mut self, batch: DataFrame) -> ControlFlow<()> {
        let height = batch.height();
        match catch_unwind(AssertUnwindSafe(|| (self.on_batch)(batch))) {
            Ok(Ok(())) => {
                self.launches += height;
                self.batches += 1;
                ControlFlow::Continue(())
            }
            Ok(Err(error)) => {
                self.sink_error = Some(error);
                ControlFlow::Break(())
            }
            Err(payload) => {
                self.sink_panic = Some(payload);
                ControlFlow::Break(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::launch_table::column_names as lt;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/nsys");

    #[test]
    fn only_the_nsys_launch_tables_are_read_in_batches() {
        let batched = [
            Format::NsysGpuTrace,
            Format::NsysSqlite,
            Format::NsysParquet,
            Format::NsysArrow,
        ];
        for &format in Format::ALL {
            assert_eq!(
                reads_whole(format),
                !batched.contains(&format),
                "{format:?}"
            );
        }
    }

    /// Small blocks and batches, so that a file of a few thousand launches is many of each.
    const SMALL: Batching = Batching {
        block_bytes: 4096,
        launches: 700,
    };

    fn lenient() -> ReadConfig {
        ReadConfig::default()
    }

    fn strict() -> ReadConfig {
        ReadConfig {
            strict: true,
            format: None,
        }
    }

    /// The batches of `path` and the summary.
    fn batches_of(
        path: &Path,
        config: &ReadConfig,
        batching: Batching,
    ) -> Result<(Vec<DataFrame>, BatchSummary), BatchError<std::convert::Infallible>> {
        batches_with(path, config, batching, TablesWanted::LaunchesOnly)
    }

    /// The batches of `path` and the summary, the other tables read as `wanted` says.
    fn batches_with(
        path: &Path,
        config: &ReadConfig,
        batching: Batching,
        wanted: TablesWanted,
    ) -> Result<(Vec<DataFrame>, BatchSummary), BatchError<std::convert::Infallible>> {
        let mut batches = Vec::new();
        let summary = read_batches_with(path, config, batching, wanted, |batch| {
            batches.push(batch);
            Ok(())
        })?;
        Ok((batches, summary))
    }

    /// Reads `path` whole and in batches, and checks that the batches are the whole table: the
    /// same schema in every batch, the same rows, the same rejected rows; and that the other
    /// tables, read in a second pass that asks for them, are the whole read's (and empty in the
    /// first). Returns the batches.
    fn same_as_whole(
        path: &Path,
        batching: Batching,
    ) -> Result<Vec<DataFrame>, Box<dyn std::error::Error>> {
        let whole = crate::read_path(path, &lenient())?;
        let (with_others, summary) = batches_with(path, &lenient(), batching, TablesWanted::All)?;
        let name = path.display().to_string();
        let (side, whole_side) = (&summary.side, &whole.side);
        for (read, expected, table) in [
            (&side.rules, &whole_side.rules, "rules"),
            (&side.transfers, &whole_side.transfers, "transfers"),
            (
                &side.kernel_summary,
                &whole_side.kernel_summary,
                "kernel summary",
            ),
        ] {
            assert_eq!(read.height(), expected.height(), "{name}: {table}");
            if expected.height() > 0 {
                assert!(read.equals_missing(expected), "{name}: {table}");
            }
        }
        let (batches, summary) = batches_of(path, &lenient(), batching)?;
        assert_eq!(batches.len(), with_others.len(), "{name}");
        for empty in [
            &summary.side.rules,
            &summary.side.transfers,
            &summary.side.kernel_summary,
        ] {
            assert_eq!(empty.height(), 0, "{name}");
        }
        assert!(!batches.is_empty(), "{}", path.display());
        let mut stacked = whole.launches.clear();
        for batch in &batches {
            assert_eq!(
                batch.schema(),
                whole.launches.schema(),
                "{}",
                path.display()
            );
            stacked.vstack_mut(batch)?;
        }
        assert!(
            stacked.equals_missing(&whole.launches),
            "{}",
            path.display()
        );
        assert_eq!(summary.format, whole.format);
        assert_eq!(summary.launches, whole.launches.height());
        assert_eq!(summary.batches, batches.len());
        assert_eq!(summary.rejected, whole.rejected, "{}", path.display());
        Ok(batches)
    }

    /// The number of transfers [`read_trace_batches`] returns for `path` (read in small batches).
    fn transfers_read_with_the_batches(path: &Path) -> Result<usize, Box<dyn std::error::Error>> {
        let (_, summary) = batches_with(path, &lenient(), SMALL, TablesWanted::All)?;
        Ok(summary.side.transfers.height())
    }

    /// A generated `cuda_gpu_trace` export of `launches` launches with a memcpy every 10.
    fn generated(dir: &Path, launches: usize) -> Result<PathBuf, Box<dyn std::error::Error>> {
        let path = dir.join("generated_cuda_gpu_trace.csv");
        let config = warpsight_test_support::synthetic_nsys::SyntheticConfig {
            launches,
            ..Default::default()
        };
        warpsight_test_support::synthetic_nsys::write_gpu_trace_csv(&path, &config)?;
        Ok(path)
    }

    #[test]
    fn the_batches_of_the_nsys_fixtures_are_the_whole_table() -> TestResult {
        let mut files: Vec<PathBuf> = ["gpu_trace_old_header_us.csv", "gpu_trace_bad_rows.csv"]
            .iter()
            .map(|name| Path::new(FIXTURES).join(name))
            .collect();
        if let Some(shared) = warpsight_test_support::paths::shared_traces() {
            files.push(shared.join("tornadovm__chains_after_cuda_gpu_trace.csv"));
        }
        for file in &files {
            for batching in [SMALL, BATCHING] {
                same_as_whole(file, batching)?;
            }
        }
        Ok(())
    }

    #[test]
    fn a_multi_block_file_is_read_in_many_batches() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = generated(dir.path(), 5000)?;
        let batches = same_as_whole(&path, SMALL)?;
        // The memcpy / memset rows came from many pieces: one after every 10 launches.
        assert_eq!(transfers_read_with_the_batches(&path)?, 500);
        // 5 000 launches in batches of at least 700 (the last holds the rest).
        assert!(batches.len() >= 4, "{} batches", batches.len());
        assert!(
            batches[..batches.len() - 1]
                .iter()
                .all(|b| b.height() >= 700)
        );
        // Every batch interns its own names; the strings are the whole table's.
        let names = |frame: &DataFrame| -> PolarsResult<usize> {
            frame.column(lt::KERNEL_NAME)?.n_unique()
        };
        assert!(names(&batches[0])? > 1);
        // The default batching reads it as one batch.
        assert_eq!(same_as_whole(&path, BATCHING)?.len(), 1);
        Ok(())
    }

    #[test]
    fn a_column_all_null_in_a_batch_keeps_its_dtype() -> TestResult {
        // The first two launches have no device, context, stream or green context; the others
        // have them all. A batch of two launches is all null in those columns.
        let mut text = String::from(
            "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n",
        );
        for i in 0..2 {
            text.push_str(&format!(
                "{i}0,5,{i},1,1,1,32,1,1,16,0.000,0.000,,,,,,,,,k{i}\n"
            ));
        }
        for i in 2..6 {
            text.push_str(&format!(
                "{i}0,5,{i},1,1,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,3,7,k{i}\n"
            ));
        }
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("nulls.csv");
        std::fs::write(&path, text)?;
        // Blocks of 64 bytes hold one row each.
        let batching = Batching {
            block_bytes: 64,
            launches: 2,
        };
        let batches = same_as_whole(&path, batching)?;
        assert_eq!(batches.len(), 3);
        let first = &batches[0];
        for name in [lt::DEVICE_NAME, lt::DEVICE_ORDINAL, lt::CONTEXT, lt::STREAM] {
            assert_eq!(first.column(name)?.null_count(), 2, "{name}");
        }
        let green = first.column(crate::nsys::gpu_trace::GREEN_CONTEXT_COLUMN)?;
        assert_eq!((green.null_count(), green.dtype()), (2, &DataType::Int64));
        assert_eq!(batches[1].column(lt::STREAM)?.i64()?.get(0), Some(7));
        Ok(())
    }

    #[test]
    fn a_file_without_launches_gives_one_empty_batch() -> TestResult {
        let text = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n\
                    1,2,3,,,,,,,,,,0.131,1310.0,Pinned,Device,NVIDIA H100 (0),1,7,[CUDA memcpy Host-to-Device]\n";
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("transfers_only.csv");
        std::fs::write(&path, text)?;
        let batches = same_as_whole(&path, SMALL)?;
        assert_eq!(batches.len(), 1);
        assert_eq!(batches[0].height(), 0);
        Ok(())
    }

    /// `text` with the row of launch `index` (0-based among the launches) replaced by `row`.
    fn with_launch_row(text: &str, index: usize, row: &str) -> String {
        let mut launch = 0usize;
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            let is_launch = line.split(',').nth(3).is_some_and(|grid| !grid.is_empty())
                && line.as_bytes().first().is_some_and(u8::is_ascii_digit);
            if is_launch && launch == index {
                out.push_str(row);
            } else {
                out.push_str(line);
            }
            launch += usize::from(is_launch);
            out.push('\n');
        }
        out
    }

    #[test]
    fn out_of_range_launches_are_counted_by_their_row_in_the_whole_table() -> TestResult {
        let dir = tempfile::tempdir()?;
        let text = std::fs::read_to_string(generated(dir.path(), 3000)?)?;
        // Launches 2 100 (in the fourth batch of 700) and 2 200 have 300 registers per thread.
        let mut text = with_launch_row(
            &text,
            2100,
            "1,2,77,1,1,1,32,1,1,300,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,k",
        );
        text = with_launch_row(
            &text,
            2200,
            "1,2,78,1,1,1,32,1,1,300,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,k",
        );
        let path = dir.path().join("out_of_range.csv");
        std::fs::write(&path, &text)?;
        same_as_whole(&path, SMALL)?;
        let (_, summary) = batches_of(&path, &lenient(), SMALL)?;
        let lines: Vec<u64> = summary.rejected.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2101, 2201]);
        assert_eq!(summary.launches, 2998);
        // Strict: the first one is the error read_path gives.
        let whole = crate::read_path(&path, &strict())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let streamed = batches_of(&path, &strict(), SMALL)
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(streamed, whole);
        assert!(streamed.is_err_and(|e| e.contains("launch-table row 2101")));
        // A row the reader rejects, even after the out-of-range launch, comes first.
        let bad = format!("{text}9,9,9,1,x,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,bad\n");
        std::fs::write(&path, bad)?;
        let whole = crate::read_path(&path, &strict())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let streamed = batches_of(&path, &strict(), SMALL)
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(streamed, whole);
        assert!(
            streamed
                .is_err_and(|e| e.contains("rejected because of --strict") && e.contains("`GrdY`"))
        );
        Ok(())
    }

    #[test]
    fn strict_stops_at_the_first_rejected_row_with_the_whole_reader_error() -> TestResult {
        let dir = tempfile::tempdir()?;
        let text = std::fs::read_to_string(generated(dir.path(), 3000)?)?;
        let text = with_launch_row(
            &text,
            2500,
            "1,2,3,1,x,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,bad",
        );
        let path = dir.path().join("bad_row.csv");
        std::fs::write(&path, &text)?;
        let whole = crate::read_path(&path, &strict())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let mut handed = 0usize;
        let streamed = read_batches_with(
            &path,
            &strict(),
            SMALL,
            TablesWanted::LaunchesOnly,
            |batch| {
                handed += batch.height();
                Ok::<(), std::convert::Infallible>(())
            },
        );
        match streamed {
            Err(BatchError::Read(error @ IngestError::StrictRejected { line, .. })) => {
                assert_eq!(Err(error.to_string()), whole);
                // The preamble, the header and a memcpy row after every ten launches come before.
                assert_eq!(line, 2 + 2500 + 250 + 1);
            }
            other => panic!("expected StrictRejected, got {other:?}"),
        }
        // Batches before the bad row were handed on; none after it.
        assert!(handed > 0 && handed <= 2500, "{handed}");
        // Lenient: the row is counted, the rest is read.
        same_as_whole(&path, SMALL)?;
        Ok(())
    }

    #[test]
    fn a_failing_consumer_stops_the_reading() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = generated(dir.path(), 5000)?;
        let mut calls = 0usize;
        let result =
            read_batches_with(&path, &lenient(), SMALL, TablesWanted::LaunchesOnly, |_| {
                calls += 1;
                if calls == 2 { Err("disk full") } else { Ok(()) }
            });
        assert!(
            matches!(result, Err(BatchError::Sink("disk full"))),
            "{result:?}"
        );
        assert_eq!(calls, 2);
        // A panic of the consumer is the caller's: it is not turned into a reading error.
        let panicked = std::panic::catch_unwind(|| {
            read_batches_with(
                &path,
                &lenient(),
                SMALL,
                TablesWanted::LaunchesOnly,
                |_| -> Result<(), ()> { panic!("consumer") },
            )
        });
        assert!(panicked.is_err());
        Ok(())
    }

    /// A generated nsys SQLite export of `launches` launches in `schema`.
    fn generated_sqlite(
        dir: &Path,
        launches: usize,
        schema: warpsight_test_support::synthetic_nsys::Schema,
    ) -> Result<PathBuf, Box<dyn std::error::Error>> {
        let path = dir.join(format!("generated_{schema:?}.sqlite"));
        let config = warpsight_test_support::synthetic_nsys::SyntheticConfig {
            launches,
            schema,
            ..Default::default()
        };
        warpsight_test_support::synthetic_nsys::write_sqlite(&path, &config)?;
        Ok(path)
    }

    #[test]
    fn an_sqlite_export_is_read_in_rowid_ranges() -> TestResult {
        use warpsight_test_support::synthetic_nsys::Schema;
        let dir = tempfile::tempdir()?;
        for schema in [Schema::Old, Schema::New] {
            let path = generated_sqlite(dir.path(), 5000, schema)?;
            let batches = same_as_whole(&path, SMALL)?;
            // 5 000 kernel rows in ranges of 700 rowids.
            assert_eq!(batches.len(), 8, "{schema:?}");
            assert_eq!(transfers_read_with_the_batches(&path)?, 500, "{schema:?}");
            assert!(batches[..7].iter().all(|b| b.height() == 700), "{schema:?}");
            assert_eq!(same_as_whole(&path, BATCHING)?.len(), 1);
        }
        if let Some(shared) = warpsight_test_support::paths::shared_traces() {
            same_as_whole(&shared.join("cuda-perf-sandbox__report1.sqlite"), SMALL)?;
        }
        Ok(())
    }

    #[test]
    fn sqlite_rejected_rows_keep_their_row_in_the_whole_table_and_strict_stops_there() -> TestResult
    {
        use warpsight_test_support::synthetic_nsys::Schema;
        let dir = tempfile::tempdir()?;
        let path = generated_sqlite(dir.path(), 3000, Schema::New)?;
        {
            let conn = rusqlite::Connection::open(&path)?;
            // Sparse rowids (whole ranges without a row) and one kernel row ending before it
            // starts, the 2 000th row left.
            conn.execute(
                "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid BETWEEN 101 AND 1000",
                [],
            )?;
            conn.execute(
                "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"end\" = start - 1 WHERE rowid = 2900",
                [],
            )?;
        }
        let batches = same_as_whole(&path, SMALL)?;
        assert!(batches.len() >= 3, "{} batches", batches.len());
        let whole = crate::read_path(&path, &lenient())?;
        assert_eq!(whole.rejected.len(), 1);
        assert_eq!(whole.rejected[0].line, 2000);
        let whole_strict = crate::read_path(&path, &strict())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let mut handed = 0usize;
        let streamed = read_batches_with(
            &path,
            &strict(),
            SMALL,
            TablesWanted::LaunchesOnly,
            |batch| {
                handed += batch.height();
                Ok::<(), std::convert::Infallible>(())
            },
        );
        match streamed {
            Err(BatchError::Read(error @ IngestError::StrictRejected { .. })) => {
                assert_eq!(Err(error.to_string()), whole_strict);
            }
            other => panic!("expected StrictRejected, got {other:?}"),
        }
        // The ranges before the bad row were handed on; none after it.
        assert!(handed > 0 && handed < 2000, "{handed}");
        Ok(())
    }

    #[test]
    fn nsys_parquet_and_arrow_exports_are_read_in_row_slices() -> TestResult {
        use warpsight_test_support::synthetic_nsys::{
            Container, Schema, SyntheticConfig, write_table_dir,
        };
        let dir = tempfile::tempdir()?;
        for schema in [Schema::Old, Schema::New] {
            for container in [Container::Parquet, Container::Arrow] {
                let path = dir.path().join(format!("{schema:?}_{container:?}"));
                let config = SyntheticConfig {
                    launches: 5000,
                    schema,
                    ..Default::default()
                };
                write_table_dir(&path, &config, container)?;
                let what = format!("{schema:?} {container:?}");
                // Slices of 4 × 700 rows.
                let batches = same_as_whole(&path, SMALL)?;
                assert_eq!(batches.len(), 2, "{what}");
                assert_eq!(transfers_read_with_the_batches(&path)?, 500, "{what}");
                assert_eq!(same_as_whole(&path, BATCHING)?.len(), 1, "{what}");
                // A single kernel-table file with its sibling tables beside it reads the same way.
                let ext = if container == Container::Parquet {
                    "parquet"
                } else {
                    "arrow"
                };
                let kernel = path.join(format!("CUPTI_ACTIVITY_KIND_KERNEL.{ext}"));
                same_as_whole(&kernel, SMALL)?;
            }
        }
        // A kernel row ending before it starts, the 2 900th (in the second slice): rejected with
        // its row in the whole table, and the first error under --strict.
        let path = dir.path().join("New_Parquet");
        let kernel = path.join("CUPTI_ACTIVITY_KIND_KERNEL.parquet");
        let mut frame = ParquetReader::new(std::fs::File::open(&kernel)?).finish()?;
        let start = frame.column("start")?.cast(&DataType::Int64)?;
        let end: Int64Chunked = start
            .i64()?
            .iter()
            .zip(frame.column("end")?.cast(&DataType::Int64)?.i64()?.iter())
            .enumerate()
            .map(|(row, (start, end))| {
                if row == 2899 {
                    start.map(|s| s - 1)
                } else {
                    end
                }
            })
            .collect();
        frame.with_column(end.with_name("end".into()).into_column())?;
        ParquetWriter::new(std::fs::File::create(&kernel)?).finish(&mut frame)?;
        same_as_whole(&path, SMALL)?;
        let whole = crate::read_path(&path, &lenient())?;
        assert_eq!(whole.rejected.len(), 1);
        assert_eq!(whole.rejected[0].line, 2900);
        let whole_strict = crate::read_path(&path, &strict())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let streamed = batches_of(&path, &strict(), SMALL);
        match streamed {
            Err(BatchError::Read(error @ IngestError::StrictRejected { .. })) => {
                assert_eq!(Err(error.to_string()), whole_strict);
            }
            other => panic!("expected StrictRejected, got {other:?}"),
        }
        Ok(())
    }

    #[test]
    fn other_formats_are_one_batch_and_errors_are_read_errors() -> TestResult {
        let raw =
            warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
        let batches = same_as_whole(&raw, SMALL)?;
        assert_eq!(batches.len(), 1);
        let missing = batches_of(Path::new("/nonexistent/x.csv"), &lenient(), SMALL);
        assert!(
            matches!(missing, Err(BatchError::Read(IngestError::Io { .. }))),
            "{missing:?}"
        );
        Ok(())
    }
}
