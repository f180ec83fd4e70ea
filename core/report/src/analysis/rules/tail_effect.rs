//! Rule `tail-effect`: the grid is a few waves with a mostly empty last wave, or less than one
//! wave, so part of the GPU idles while the launch runs.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::units;
use warpsight_model::columns as mc;

/// Below this tail efficiency (waves / ceil(waves)) the tail is reported.
pub(crate) const MAX_TAIL_EFFICIENCY: f64 = 0.75;
/// Only grids of at most this many waves are reported (later waves dilute the tail).
pub(crate) const MAX_WAVES: f64 = 4.0;

/// See the module documentation.
pub(crate) struct TailEffect;

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
        let shape =
            format!("grid of {grid} blocks on {sms} SMs ({per_sm} blocks/SM, {per_wave} per wave)");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::findings::run_rules;
    use warpsight_ingest::launch_table::column_names as lt;

    #[test]
    fn a_grid_just_over_one_wave_reports_its_nearly_empty_last_wave() -> PolarsResult<()> {
        // 140 blocks, 1 block per SM on 132 SMs: 140 / 132 = 1.06 waves, the second wave holds
        // 8 blocks = 6.1 % of a wave; tail efficiency 1.06 / 2 = 53 %.
        let waves = 140.0 / 132.0;
        let frame = df!(
            lt::SOURCE_FILE => ["t.csv", "t.csv"],
            lt::LAUNCH_ID => [1i64, 2],
            lt::KERNEL_NAME => ["k", "full"],
            mc::GRID_BLOCKS => [140i64, 264],
            mc::WAVES => [waves, 2.0],
            mc::BLOCKS_PER_WAVE => [132i64, 132],
            mc::ACTIVE_BLOCKS => [1i64, 1],
            mc::TAIL_EFFICIENCY => [waves / 2.0, 1.0],
        )?;
        let findings = run_rules(&frame, &[&TailEffect])?;
        assert_eq!(findings.len(), 1, "two full waves have no tail");
        assert_eq!(
            findings[0].message,
            "grid of 140 blocks on 132 SMs (1 blocks/SM, 132 per wave): 1.06 waves, last wave 6.1 % full \
             (tail efficiency 53.0 %)"
        );
        Ok(())
    }
}
