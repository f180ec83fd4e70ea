//! Rule `block-size`: another block size (same registers and shared memory per block) reaches a
//! clearly higher theoretical occupancy, typically because small blocks hit the blocks-per-SM
//! limit or because warps are wasted on partial or oversized blocks.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::analysis::what_if;
use crate::units;
use warpsight_model::columns as mc;

/// Smallest occupancy gain (0–1) worth a finding.
pub(crate) const MIN_GAIN: f64 = 0.1;

/// See the module documentation.
pub(crate) struct BlockSize;

impl Rule for BlockSize {
    fn id(&self) -> &'static str {
        "block-size"
    }

    fn needs_what_if(&self) -> bool {
        true
    }

    fn applies(&self) -> Expr {
        (col(what_if::BLOCK_SIZE_OCCUPANCY) - col(mc::THEORETICAL_OCCUPANCY)).gt_eq(lit(MIN_GAIN))
    }

    fn is_occupancy_advice(&self) -> bool {
        true
    }

    fn estimated_speedup(&self, cells: &mut Cells<'_>, row: usize) -> Option<f64> {
        super::occupancy_gain(
            cells.f64(mc::THEORETICAL_OCCUPANCY, row)?,
            cells.f64(what_if::BLOCK_SIZE_OCCUPANCY, row)?,
        )
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let threads = cells.i64(mc::THREADS_PER_BLOCK, row)?;
        let before = cells.f64(mc::THEORETICAL_OCCUPANCY, row)?;
        let better = cells.i64(what_if::BLOCK_SIZE, row)?;
        let after = cells.f64(what_if::BLOCK_SIZE_OCCUPANCY, row)?;
        let limiter = cells.str(mc::LIMITER, row).unwrap_or_default();
        let cause = match limiter.as_str() {
            l if l.contains("blocks") => {
                let slots = cells
                    .i64(mc::LIMIT_BLOCKS, row)
                    .map(|b| format!(" of {b}"))
                    .unwrap_or_default();
                format!(" (blocks-per-SM limit{slots})")
            }
            "" => String::new(),
            other => format!(" ({} limit)", other.replace('_', " ")),
        };
        Some((
            Severity::Warning,
            format!(
                "block size {threads} caps occupancy at {}{cause}: {better} threads per block reach {}",
                units::percent(before),
                units::percent(after)
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
    fn the_message_names_the_blocks_per_sm_cap() -> PolarsResult<()> {
        // OCCUPANCY.md TV5: 32-thread blocks on CC 10.0 stop at 32 blocks per SM = 50 %.
        let frame = df!(
            lt::SOURCE_FILE => ["t.csv"],
            lt::LAUNCH_ID => [1i64],
            lt::KERNEL_NAME => ["k"],
            mc::THREADS_PER_BLOCK => [32i64],
            mc::THEORETICAL_OCCUPANCY => [0.5f64],
            mc::LIMITER => ["blocks"],
            mc::LIMIT_BLOCKS => [32i64],
            what_if::BLOCK_SIZE => [64i64],
            what_if::BLOCK_SIZE_OCCUPANCY => [1.0f64],
        )?;
        let findings = run_rules(&frame, &[&BlockSize])?;
        assert_eq!(
            findings[0].message,
            "block size 32 caps occupancy at 50.0 % (blocks-per-SM limit of 32): 64 threads per block reach 100.0 %"
        );
        Ok(())
    }
}
