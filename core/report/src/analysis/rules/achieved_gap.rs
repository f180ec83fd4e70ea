//! Rule `achieved-occupancy-gap`: the profiler's achieved occupancy is far below the theoretical
//! one, so the configuration is not what limits resident warps: load imbalance between blocks, a
//! tail, or warps that finish early.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::units;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as mc;

/// Achieved below this fraction of theoretical is reported.
pub(crate) const MAX_RATIO: f64 = 0.7;
/// ... and only when the absolute gap is at least this (0–1).
pub(crate) const MIN_GAP: f64 = 0.15;

/// See the module documentation.
pub(crate) struct AchievedGap;

impl Rule for AchievedGap {
    fn id(&self) -> &'static str {
        "achieved-occupancy-gap"
    }

    fn applies(&self) -> Expr {
        let achieved = col(lt::ACHIEVED_OCCUPANCY);
        let theoretical = col(mc::THEORETICAL_OCCUPANCY);
        achieved
            .clone()
            .lt(theoretical.clone() * lit(MAX_RATIO))
            .and((theoretical - achieved).gt_eq(lit(MIN_GAP)))
    }

    fn is_occupancy_advice(&self) -> bool {
        true
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let achieved = cells.f64(lt::ACHIEVED_OCCUPANCY, row)?;
        let theoretical = cells.f64(mc::THEORETICAL_OCCUPANCY, row)?;
        Some((
            Severity::Warning,
            format!(
                "achieved occupancy {} ≪ theoretical {}: the configuration is not the limit; look for \
                 load imbalance between blocks, a tail, or warps that exit early",
                units::percent(achieved),
                units::percent(theoretical)
            ),
        ))
    }
}
