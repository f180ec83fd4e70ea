//! Rule `compute-bound`: the binding ceiling is a compute peak; says how close the launch is.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::units;
use warpsight_model::columns as mc;

/// See the module documentation.
pub(crate) struct ComputeBound;

impl Rule for ComputeBound {
    fn id(&self) -> &'static str {
        "compute-bound"
    }

    fn applies(&self) -> Expr {
        col(mc::BOUND)
            .eq(lit("compute"))
            .and(col(mc::PCT_OF_ROOF).is_not_null())
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let ceiling = cells
            .str(mc::BINDING_CEILING, row)
            .unwrap_or_else(|| "compute".into())
            .to_ascii_uppercase();
        let pct = cells.f64(mc::PCT_OF_ROOF, row)?;
        let achieved = cells.f64(mc::ACHIEVED_FLOPS, row);
        let rate = achieved
            .map(|a| format!(" ({})", units::flops(a)))
            .unwrap_or_default();
        Some((
            Severity::Info,
            format!(
                "compute-bound at {ceiling}, {} of peak{rate}",
                units::percent(pct)
            ),
        ))
    }
}
