//! The launch source of the formats that are never read in batches (ncu pages and reports, nsys
//! kernel summaries, warpsight's own tables): the input is read whole by [`crate::read_as`] and its
//! launch table handed on as one batch.

use std::ops::ControlFlow;
use std::path::Path;

use polars::prelude::DataFrame;

use crate::launch_source::{AfterBatches, Batching, LaunchSource, TablesWanted, hand_on_whole};
use crate::{Format, IngestError, ReadConfig};

/// Reads an input of `format` whole, validated and checked for shrinking as [`crate::read_as`]
/// reads it, and hands its launch table on as one batch.
pub(crate) struct WholeSource {
    /// The format the input is read as.
    pub(crate) format: Format,
}

impl LaunchSource for WholeSource {
    fn validates(&self) -> bool {
        true
    }

    fn reads_whole(&self) -> bool {
        true
    }

    fn read_launches(
        &self,
        path: &Path,
        config: &ReadConfig,
        _batching: Batching,
        wanted: TablesWanted,
        on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
    ) -> Result<AfterBatches, IngestError> {
        let trace = crate::read_as(path, self.format, config)?;
        Ok(hand_on_whole(trace, wanted, on_batch))
    }
}
