//! Rule `shared-memory-limit`: shared memory limits the resident blocks and the what-if engine
//! found the per-block amount that fits one more block in the SM's shared capacity.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::analysis::what_if;
use crate::units;
use warpsight_model::columns as mc;

/// See the module documentation.
pub(crate) struct SharedMemoryLimit;

impl Rule for SharedMemoryLimit {
    fn id(&self) -> &'static str {
        "shared-memory-limit"
    }

    fn needs_what_if(&self) -> bool {
        true
    }

    fn applies(&self) -> Expr {
        col(what_if::SMEM_BYTES).is_not_null()
    }

    fn is_occupancy_advice(&self) -> bool {
        true
    }

    fn estimated_speedup(&self, cells: &mut Cells<'_>, row: usize) -> Option<f64> {
        super::occupancy_gain(
            cells.f64(mc::THEORETICAL_OCCUPANCY, row)?,
            cells.f64(what_if::SMEM_OCCUPANCY, row)?,
        )
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let allocated = cells.f64(mc::SMEM_PER_BLOCK, row)?;
        let capacity = cells.f64(mc::SMEM_CAPACITY, row)?;
        let blocks = cells.i64(mc::ACTIVE_BLOCKS, row)?;
        let target = cells.f64(what_if::SMEM_BYTES, row)?;
        let more = cells.i64(what_if::SMEM_BLOCKS, row)?;
        let before = cells.f64(mc::THEORETICAL_OCCUPANCY, row)?;
        let after = cells.f64(what_if::SMEM_OCCUPANCY, row)?;
        let severity = if before < super::register_limit::LOW_OCCUPANCY {
            Severity::Warning
        } else {
            Severity::Info
        };
        Some((
            severity,
            format!(
                "shared memory {} per block (allocated) fits {blocks} blocks/SM in {}: {} per block \
                 gives {more} blocks/SM: occupancy {} → {}",
                units::bytes(allocated),
                units::bytes(capacity),
                units::bytes(target),
                units::percent(before),
                units::percent(after)
            ),
        ))
    }
}
