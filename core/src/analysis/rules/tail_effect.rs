//! Rule `tail-effect`: the grid is a few waves with a mostly empty last wave, or less than one
//! wave, so part of the GPU idles while the launch runs.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::model::columns as mc;
use crate::render::units;

/// Below this tail efficiency (waves / ceil(waves)) the tail is reported.
pub const MAX_TAIL_EFFICIENCY: f64 = 0.75;
/// Only grids of at most this many waves are reported (later waves dilute the tail).
pub const MAX_WAVES: f64 = 4.0;

/// See the module documentation.
pub struct TailEffect;

impl Rule for TailEffect {
    fn id(&self) -> &'static str {
        "tail-effect"
    }

    fn applies(&self) -> Expr {
        col(mc::TAIL_EFFICIENCY)
            .lt(lit(MAX_TAIL_EFFICIENCY))
            .and(col(mc::WAVES).lt_eq(lit(MAX_WAVES)))
            .and(col(mc::WAVES).gt(lit(0.0)))
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let grid = cells.i64(mc::GRID_BLOCKS, row)?;
        let waves = cells.f64(mc::WAVES, row)?;
        let per_wave = cells.i64(mc::BLOCKS_PER_WAVE, row)?;
        let per_sm = cells.i64(mc::ACTIVE_BLOCKS, row)?;
        let sms = if per_sm > 0 { per_wave / per_sm } else { 0 };
        let efficiency = cells.f64(mc::TAIL_EFFICIENCY, row)?;
        let shape = format!("grid of {grid} blocks on {sms} SMs ({per_sm} blocks/SM, {per_wave} per wave)");
        if waves < 1.0 {
            return Some((
                Severity::Warning,
                format!(
                    "{shape}: one partial wave {} full, the rest of the GPU idles; use more, smaller blocks",
                    units::percent(waves)
                ),
            ));
        }
        let last = waves - waves.floor();
        Some((
            Severity::Warning,
            format!(
                "{shape}: {waves:.2} waves, last wave {} full (tail efficiency {})",
                units::percent(if last == 0.0 { 1.0 } else { last }),
                units::percent(efficiency)
            ),
        ))
    }
}
