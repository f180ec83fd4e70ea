//! Rule `not-launchable`: the configuration cannot run at all (block too large, too many
//! registers, too much shared memory, no block fits on an SM).

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use warpsight_model::columns as mc;

/// See the module documentation.
pub(crate) struct NotLaunchable;

impl Rule for NotLaunchable {
    fn id(&self) -> &'static str {
        "not-launchable"
    }

    fn applies(&self) -> Expr {
        // Launches the model could not evaluate at all (unknown device or compute capability) have no
        // occupancy; they are counted as unmodelled, not reported as unlaunchable.
        col(mc::NOT_LAUNCHABLE)
            .is_not_null()
            .and(col(mc::THEORETICAL_OCCUPANCY).is_not_null())
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let reason = cells.str(mc::NOT_LAUNCHABLE, row)?;
        Some((
            Severity::Error,
            format!("cannot launch as configured: {reason}"),
        ))
    }
}
