//! Rule `latency-bound`: by Little's law the launch does not keep enough work in flight to hide
//! latency (too few warps, too little instruction-level or memory-level parallelism).

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::units;
use warpsight_model::columns as mc;

/// See the module documentation.
pub(crate) struct LatencyBound;

impl Rule for LatencyBound {
    fn id(&self) -> &'static str {
        "latency-bound"
    }

    fn applies(&self) -> Expr {
        col(mc::LATENCY_BOUND).eq(lit(true))
    }

    fn is_occupancy_advice(&self) -> bool {
        true
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let active = cells.f64(mc::ACTIVE_WARPS, row)?;
        let hiding = cells.f64(mc::LATENCY_HIDING, row);
        let needed = cells
            .f64(mc::WARPS_NEEDED_ALU_ILP, row)
            .or_else(|| cells.f64(mc::WARPS_NEEDED_ALU, row));
        let mut message = format!("latency-bound: {active:.0} warps/SM active");
        if let Some(needed) = needed {
            message.push_str(&format!(", about {needed:.0} needed to hide ALU latency"));
        }
        if let (Some(needed), Some(provided)) = (
            cells.f64(mc::BYTES_IN_FLIGHT_NEEDED, row),
            cells.f64(mc::BYTES_IN_FLIGHT_PROVIDED, row),
        ) {
            message.push_str(&format!(
                "; {} in flight per SM vs {} needed to saturate DRAM",
                units::bytes(provided),
                units::bytes(needed)
            ));
        }
        if let Some(hiding) = hiding {
            message.push_str(&format!(" (latency hiding {})", units::percent(hiding)));
        }
        message.push_str(": more resident warps or more independent work per warp");
        Some((Severity::Warning, message))
    }
}
