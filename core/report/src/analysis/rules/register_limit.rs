//! Rule `register-limit`: registers limit the resident blocks and the what-if engine found the
//! register count (the next allocation step down) that fits one more block per SM.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::analysis::what_if;
use crate::units;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as mc;

/// Below this theoretical occupancy (or when latency-bound) the finding is a warning.
pub(crate) const LOW_OCCUPANCY: f64 = 0.5;

/// See the module documentation.
pub(crate) struct RegisterLimit;

impl Rule for RegisterLimit {
    fn id(&self) -> &'static str {
        "register-limit"
    }

    fn needs_what_if(&self) -> bool {
        true
    }

    fn applies(&self) -> Expr {
        col(what_if::REGISTERS).is_not_null()
    }

    fn is_occupancy_advice(&self) -> bool {
        true
    }

    fn estimated_speedup(&self, cells: &mut Cells<'_>, row: usize) -> Option<f64> {
        super::occupancy_gain(
            cells.f64(mc::THEORETICAL_OCCUPANCY, row)?,
            cells.f64(what_if::REGISTERS_OCCUPANCY, row)?,
        )
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let registers = cells.i64(lt::REGISTERS_PER_THREAD, row)?;
        let fewer = cells.i64(what_if::REGISTERS, row)?;
        let blocks = cells.i64(what_if::REGISTERS_BLOCKS, row)?;
        let before = cells.f64(mc::THEORETICAL_OCCUPANCY, row)?;
        let after = cells.f64(what_if::REGISTERS_OCCUPANCY, row)?;
        let latency_bound = cells.bool(mc::LATENCY_BOUND, row).unwrap_or(false);
        let severity = if latency_bound || before < LOW_OCCUPANCY {
            Severity::Warning
        } else {
            Severity::Info
        };
        Some((
            severity,
            format!(
                "registers {registers} → {fewer} gives {blocks} blocks/SM: occupancy {} → {} \
                 (e.g. __launch_bounds__ or -maxrregcount={fewer})",
                units::percent(before),
                units::percent(after)
            ),
        ))
    }
}
