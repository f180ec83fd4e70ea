//! The contract every batch reader keeps ([`LaunchSource`]), with what it is given (the batch
//! sizes, [`Batching`] and [`BatchSize`]; which tables to read, [`TablesWanted`]) and what it gives
//! back besides the batches ([`AfterBatches`], with the input's [`SideTables`]).
//!
//! This module depends on no reader: the readers implement [`LaunchSource`] here, and
//! [`crate::streaming`] picks one for each format and drives it.

use std::ops::ControlFlow;
use std::path::Path;

use polars::prelude::*;

use crate::trace::{RejectedRow, SideTables, Trace};
use crate::{IngestError, ReadConfig};

/// A reader that hands an input's launch table on in batches, in the table's row order, so that
/// a caller that writes or analyses the batches as they come never holds the whole table.
pub(crate) trait LaunchSource {
    /// Whether the batches are validated already (`validate.rs`), as the whole-table reader
    /// [`crate::read_as`] validates them. The batches of the other sources are validated batch by
    /// batch by their caller.
    fn validates(&self) -> bool {
        false
    }

    /// Whether the launch table is handed on whole, as one batch: the table [`crate::read_path`]
    /// gives (the sources of the formats that reach millions of launches cut it in batches).
    fn reads_whole(&self) -> bool {
        false
    }

    /// Reads the input at `path` and hands its launch table to `on_batch`, one batch at a time, cut
    /// as `batching` says (each source says how). Every batch is a conformed launch table with the
    /// schema of the whole table, and the batches stacked are the launch table of
    /// [`crate::read_path`], row for row; there is at least one batch unless the reading fails.
    /// `on_batch` breaks to stop the reading. With `--strict` the reading fails at the first row
    /// the source rejects, with the error [`crate::read_path`] gives. Returns the rejected rows
    /// (those met until `on_batch` stopped the reading) and, as `wanted` says, the input's other
    /// tables.
    fn read_launches(
        &self,
        path: &Path,
        config: &ReadConfig,
        batching: Batching,
        wanted: TablesWanted,
        on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
    ) -> Result<AfterBatches, IngestError>;
}

/// Which of an input's tables a [`LaunchSource`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TablesWanted {
    /// Only the launch table (`warpsight ingest`).
    LaunchesOnly,
    /// The launch table, then the [`SideTables`] once the last batch is handed on.
    All,
}

/// What a [`LaunchSource`] gives besides the batches.
#[derive(Debug, Default)]
pub(crate) struct AfterBatches {
    /// The rows the source rejected, in the order [`crate::trace::Trace::rejected`] lists them.
    pub(crate) rejected: Vec<RejectedRow>,
    /// The input's side tables with [`TablesWanted::All`], else empty.
    pub(crate) side: SideTables,
}

/// Hands on a trace read whole as the one batch of a [`LaunchSource`], and returns its rejected
/// rows and, as `wanted` says, its other tables.
pub(crate) fn hand_on_whole(
    trace: Trace,
    wanted: TablesWanted,
    on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
) -> AfterBatches {
    let Trace {
        launches,
        side,
        rejected,
        ..
    } = trace;
    // One batch, the last: whether the consumer breaks changes nothing.
    let _ = on_batch(launches);
    let side = match wanted {
        TablesWanted::LaunchesOnly => SideTables::default(),
        TablesWanted::All => side,
    };
    AfterBatches { rejected, side }
}

/// How a [`LaunchSource`] cuts its input into batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Batching {
    /// Bytes of a CSV file read and parsed at a time.
    pub(crate) block_bytes: usize,
    /// Launches (or kernel rows) per batch: a `cuda_gpu_trace` CSV in batches of at least this
    /// many launches (the last holds the rest), an nsys SQLite export in ranges of this many
    /// kernel rowids, an nsys Parquet / Arrow export in slices of 4 × this many kernel rows.
    pub(crate) launches: usize,
}

/// The blocks a CSV file is read and parsed in, so that its bytes are never all in memory.
pub(crate) const BLOCK_BYTES: usize = 32 << 20;

/// Launches per batch (at least) of a `cuda_gpu_trace` CSV read in batches: about 13 MB of launch
/// table, and a Parquet row group of a quarter of polars' default size (the 2 M-launch benchmark
/// file peaks at 130 MB with it, 165 MB with twice as many; its Parquet file is 2.5 % larger than
/// one written whole).
pub(crate) const BATCH_LAUNCHES: usize = 1 << 16;

/// How [`crate::read_batches`] cuts an input into batches.
pub(crate) const BATCHING: Batching = Batching {
    block_bytes: BLOCK_BYTES,
    launches: BATCH_LAUNCHES,
};

/// The size of the batches of [`crate::read_trace_batches`]: a `cuda_gpu_trace` CSV in batches of
/// at least `launches` launches, an nsys SQLite export in ranges of `launches` kernel rowids, an
/// nsys Parquet / Arrow export in slices of 4 × `launches` kernel rows. The default, 65 536, is
/// what [`crate::read_batches`] uses; smaller sizes let tests cut small files into many batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSize {
    /// Launches (or kernel rows) per batch, at least 1.
    pub launches: usize,
}

impl Default for BatchSize {
    fn default() -> Self {
        BatchSize {
            launches: BATCH_LAUNCHES,
        }
    }
}

impl BatchSize {
    /// The batching of this size: CSV blocks of the default size, or of about 64 bytes per launch
    /// (4 KiB at least) for batches smaller than the default.
    pub(crate) fn batching(self) -> Batching {
        let launches = self.launches.max(1);
        Batching {
            launches,
            block_bytes: if launches < BATCH_LAUNCHES {
                launches.saturating_mul(64).clamp(4096, BLOCK_BYTES)
            } else {
                BLOCK_BYTES
            },
        }
    }
}
