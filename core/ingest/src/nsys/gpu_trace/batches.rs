//! The launch table of a `cuda_gpu_trace` export built batch by batch while the file is read, so
//! that the whole table is never held (`warpsight ingest` of one large export).
//!
//! The pieces the shared CSV driver parses (block by block, in file order) are gathered until they
//! hold [`Batching::launches`] launches; they are then merged, with interners of their own (each
//! batch gathers its strings from its own distinct values, so the strings are those of the
//! whole-table reader), and built into a conformed launch table by the same code as the whole
//! table ([`super::frame::build_launches`]), with the first header's columns: every batch has the
//! whole table's schema, whatever its rows. The memcpy / memset rows are not handed on: they are
//! dropped as they come, or kept apart and built into the transfers frame at the end when the
//! caller asks for the other tables ([`TablesWanted::All`]). The rows the reader rejects are
//! gathered and returned in line order, as [`super::read`] lists them; with `--strict` the reading
//! stops at the first piece with a rejected row, and the error names the first rejected row of the
//! file, as [`super::read`]'s does.

use std::ops::ControlFlow;
use std::path::Path;

use polars::prelude::*;

use crate::launch_source::{AfterBatches, Batching, LaunchSource, TablesWanted};
use crate::nsys::stats_csv::{self, StatsTable};
use crate::trace::{RejectedRow, SideTables};
use crate::{IngestError, ReadConfig};

use super::header::Header;
use super::rows::{Parsed, merge, parse_piece};
use super::{REPORT, frame};

/// Reads a `cuda_gpu_trace` CSV export in batches of at least [`Batching::launches`] launches,
/// parsed [`Batching::block_bytes`] at a time.
pub(crate) struct GpuTraceSource;

impl LaunchSource for GpuTraceSource {
    fn read_launches(
        &self,
        path: &Path,
        config: &ReadConfig,
        batching: Batching,
        wanted: TablesWanted,
        on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
    ) -> Result<AfterBatches, IngestError> {
        // A file cut while it is read is noted at the end, as `crate::read_as` notes it.
        let before = crate::source::length(path);
        let mut after = read_batches(path, config, batching, wanted, on_batch)?;
        after
            .rejected
            .extend(crate::source::shrink_check(path, before, config.strict)?);
        Ok(after)
    }
}

/// The pieces gathered for the next batch.
#[derive(Default)]
struct Pending {
    pieces: Vec<Parsed>,
    launches: usize,
}

impl Pending {
    /// Merges the gathered pieces into the next batch's launch table (empty, with the schema,
    /// when no piece is gathered), with the columns of the first `header`.
    fn build(&mut self, header: Option<&Header>, source: &str) -> PolarsResult<DataFrame> {
        let mut merged = merge(std::mem::take(&mut self.pieces));
        self.launches = 0;
        frame::build_launches(&mut merged, header, source)
    }
}

/// The header of the report's first table.
fn header_of(table: Option<&StatsTable<Header>>) -> Option<&Header> {
    match table {
        Some(StatsTable::Report(header)) => Some(header),
        _ => None,
    }
}

/// Reads the `cuda_gpu_trace` export at `path` and hands its launch table to `on_batch`, one
/// batch at a time in file order (at least one batch, empty when the file has no launch, unless
/// the reading fails); `on_batch` breaks to stop the reading (the batches it had stay handed).
/// The launches are not validated here ([`crate::read_batches`] does it batch by batch). Returns
/// the rows the reader rejected, in line order (those met until then when `on_batch` stopped the
/// reading), and with [`TablesWanted::All`] the transfers frame of the memcpy / memset rows (empty
/// when `on_batch` stopped the reading).
fn read_batches(
    path: &Path,
    config: &ReadConfig,
    batching: Batching,
    wanted: TablesWanted,
    on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
) -> Result<AfterBatches, IngestError> {
    // A stream is read from its copy; a file that shrinks during the read is an error.
    let file = crate::source::open(path)?;
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let source = path.display().to_string();
    let mut pending = Pending::default();
    // The memcpy / memset rows of every piece, with the interners their ids point into.
    let mut transfer_pieces: Vec<Parsed> = Vec::new();
    let mut rejected: Vec<RejectedRow> = Vec::new();
    let mut batches = 0usize;
    let mut failed: Option<PolarsError> = None;
    let mut stopped = false;
    let read = stats_csv::read_report_until(
        path,
        file,
        REPORT,
        batching.block_bytes,
        parse_piece,
        |mut piece, first| {
            if !piece.rejected.is_empty() {
                rejected.append(&mut piece.rejected);
                if config.strict {
                    // The first rejected row of the file is in this piece or among the driver's
                    // rejected headers seen so far: nothing read further can come before it.
                    return ControlFlow::Break(());
                }
            }
            // Only the launches are handed on; the transfers are kept apart when asked for.
            let transfers = std::mem::take(&mut piece.transfers);
            let labels = std::mem::take(&mut piece.labels);
            if wanted == TablesWanted::All && !transfers.start_ns.is_empty() {
                transfer_pieces.push(Parsed {
                    transfers,
                    labels,
                    devices: piece.devices.clone(),
                    ..Parsed::default()
                });
            }
            pending.launches += piece.launch_id.len();
            pending.pieces.push(piece);
            if pending.launches < batching.launches {
                return ControlFlow::Continue(());
            }
            match pending.build(header_of(first), &source) {
                Ok(batch) => {
                    batches += 1;
                    let flow = on_batch(batch);
                    stopped = flow.is_break();
                    flow
                }
                Err(error) => {
                    failed = Some(error);
                    ControlFlow::Break(())
                }
            }
        },
    )?;
    if let Some(error) = failed {
        return Err(polars(error));
    }
    if stopped {
        return Ok(AfterBatches {
            rejected,
            side: SideTables::default(),
        });
    }
    // The driver's rejected rows (unusable later headers) join the pieces' in line order, as in
    // the whole-table reader.
    rejected.extend(read.rejected);
    rejected.sort_by_key(|row| row.line);
    super::finish(path, &rejected, config)?;
    if !pending.pieces.is_empty() || batches == 0 {
        let batch = pending
            .build(header_of(Some(&*read.first_header)), &source)
            .map_err(polars)?;
        // The last batch: whether the consumer breaks changes nothing more.
        let _ = on_batch(batch);
    }
    let side = match wanted {
        TablesWanted::LaunchesOnly => SideTables::default(),
        TablesWanted::All => SideTables {
            transfers: frame::build_transfers(&merge(transfer_pieces), &source).map_err(polars)?,
            ..SideTables::default()
        },
    };
    Ok(AfterBatches { rejected, side })
}
