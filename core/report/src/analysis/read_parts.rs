//! Reading one input part by part: its launch table in parts of a few hundred thousand launches,
//! read on a thread of its own a few batches ahead of the caller, so that a training run's export
//! of millions of launches is analysed with one part's launches in memory at a time. The CLI's
//! `analyze`, `report`, `predict` and `diff` read their inputs through [`read_in_parts`], and so
//! can any other front end.

use std::path::Path;

use polars::prelude::*;

use super::error::AnalysisError;
use super::load::{self, Loaded};
use warpsight_ingest::trace::{RejectedRow, SideTables};
use warpsight_ingest::{BatchError, BatchSize, ReadConfig};

/// Launches analysed together when one input is read in batches: a `cuda_gpu_trace` CSV or an nsys
/// SQLite, Parquet or Arrow export of millions of launches is analysed part by part, each part the
/// batches read until they hold at least this many launches (four of the readers' batches of
/// 65 536, about 60 MB of launch table). Larger parts hold more memory; smaller ones run the
/// analysis' fixed costs more often (docs/performance.md, "Analysis in parts").
pub const LAUNCHES_PER_PART: usize = 262_144;

/// Batches read ahead of the caller ([`read_in_parts`]): about half a part.
const READ_AHEAD_BATCHES: usize = 2;

/// How an input is read in parts ([`read_in_parts`]).
#[derive(Debug, Clone)]
pub struct PartConfig {
    /// How the file is read (`strict`, a forced format).
    pub read: ReadConfig,
    /// The readers' batches.
    pub batch: BatchSize,
    /// Launches handed on together, at least (the last part holds the rest).
    pub launches_per_part: usize,
    /// Keep only the kernels whose name matches this regular expression (checked by the caller:
    /// an invalid one is a table computation error).
    pub filter: Option<String>,
}

impl PartConfig {
    /// Parts of [`LAUNCHES_PER_PART`] launches, read in the readers' own batches.
    pub fn new(read: ReadConfig) -> PartConfig {
        PartConfig {
            read,
            batch: BatchSize::default(),
            launches_per_part: LAUNCHES_PER_PART,
            filter: None,
        }
    }

    /// Batches of `launches` launches and parts of four batches: small exports cut into many
    /// parts (what tests use to check that an analysis in parts is the analysis of the whole).
    pub fn with_batch_launches(read: ReadConfig, launches: usize) -> PartConfig {
        PartConfig {
            read,
            batch: BatchSize { launches },
            launches_per_part: launches.saturating_mul(4),
            filter: None,
        }
    }
}

/// Reads `file` in batches ([`warpsight_ingest::read_trace_batches`]) and hands its launches, kept
/// to the kernels matching `config.filter`, to `on_part` in parts of at least
/// `config.launches_per_part` launches (the last part holds the rest; a format read whole is one
/// part), in file order. The last part also carries the file's other tables (ncu rule rows, nsys
/// transfers and kernel summaries) and its rejected rows, which is what a file read whole gives,
/// since those formats are one batch. A part without launches is not handed on. Returns the
/// file's tables without the launches.
///
/// The file is read on a thread of its own, a few batches ahead of `on_part` on the calling
/// thread: on two cores the next part is parsed while this one is analysed. The first error of
/// `on_part` stops the reading (at its next batch) and is returned as it is; the reader's own
/// errors are [`AnalysisError`]s, converted into the caller's error type.
pub fn read_in_parts<E>(
    file: &Path,
    config: &PartConfig,
    on_part: &mut dyn FnMut(&Loaded) -> Result<(), E>,
) -> Result<Loaded, E>
where
    E: From<AnalysisError>,
{
    let part_of = |batches: Vec<DataFrame>,
                   side: SideTables,
                   rejected_rows: &[RejectedRow]|
     -> Result<Loaded, AnalysisError> {
        part_of_file(file, batches, side, rejected_rows, config.filter.as_deref())
    };
    let mut parts = 0usize;
    let mut hand_on = |part: &Loaded| -> Result<(), E> {
        if part.launches.height() == 0 {
            return Ok(());
        }
        parts += 1;
        tracing::debug!(
            file = %file.display(),
            part = parts,
            launches = part.launches.height(),
            "analysing a part of the input"
        );
        on_part(part)
    };
    let mut pending: Vec<DataFrame> = Vec::new();
    let mut pending_launches = 0usize;
    // When `on_part` fails, the channel closes and the reading stops at its next batch.
    let (summary, handed_on) = std::thread::scope(|scope| {
        let (sender, batches) = std::sync::mpsc::sync_channel::<DataFrame>(READ_AHEAD_BATCHES);
        let reader = scope.spawn(move || {
            warpsight_ingest::read_trace_batches(file, &config.read, config.batch, |batch| {
                sender.send(batch)
            })
        });
        let mut handed_on: Result<(), E> = Ok(());
        for batch in batches {
            // A part is handed on when the next batch comes, so that an input read as one batch
            // (the formats with rule rows or summaries) is handed on with its other tables.
            if pending_launches >= config.launches_per_part {
                pending_launches = 0;
                handed_on = part_of(std::mem::take(&mut pending), SideTables::default(), &[])
                    .map_err(E::from)
                    .and_then(|part| hand_on(&part));
                if handed_on.is_err() {
                    break;
                }
            }
            pending_launches += batch.height();
            pending.push(batch);
        }
        let summary = match reader.join() {
            Ok(summary) => summary,
            Err(payload) => std::panic::resume_unwind(payload),
        };
        (summary, handed_on)
    });
    handed_on?;
    let summary = summary.map_err(|error| match error {
        BatchError::Read(error) => AnalysisError::from(error),
        BatchError::Sink(_) => AnalysisError::StoppedReading(file.to_path_buf()),
    })?;
    let mut last = part_of(pending, summary.side, &summary.rejected)?;
    hand_on(&last)?;
    last.launches = warpsight_ingest::launch_table::empty();
    Ok(last)
}

/// One part of `file`: `batches` stacked, with `side` and the counts of `rejected_rows`, kept
/// to the kernels matching `filter`.
fn part_of_file(
    file: &Path,
    batches: Vec<DataFrame>,
    side: SideTables,
    rejected_rows: &[RejectedRow],
    filter: Option<&str>,
) -> Result<Loaded, AnalysisError> {
    let rejected = rejected_rows.len();
    let failed = load::profiling_failures(rejected_rows);
    let mut batches = batches.into_iter();
    let mut launches = batches
        .next()
        .unwrap_or_else(warpsight_ingest::launch_table::empty);
    // The batches stay memory chunks of their own: copying a part of millions of launches into
    // one chunk per column cost more than any reading of it (the model reads the few key columns
    // chunk by chunk, and gathers only the rows it needs).
    for batch in batches {
        launches.vstack_mut_owned(batch)?;
    }
    let loaded = Loaded {
        files: vec![file.to_path_buf()],
        launches,
        side,
        rejected: if rejected > 0 {
            vec![(file.to_path_buf(), rejected)]
        } else {
            Vec::new()
        },
        profiling_failed: if failed > 0 {
            vec![(file.to_path_buf(), failed)]
        } else {
            Vec::new()
        },
    };
    Ok(match filter {
        Some(pattern) => load::filter_kernels(loaded, pattern)?,
        None => loaded,
    })
}
