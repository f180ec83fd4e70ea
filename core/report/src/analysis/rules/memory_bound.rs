//! Rule `memory-bound`: the binding ceiling is a memory level. Near the roof the fix is fewer
//! bytes (reuse, fusion, smaller types), not more occupancy; far below it the access pattern or
//! latency is the problem.

use polars::prelude::*;

use crate::analysis::findings::{Rule, Severity};
use crate::analysis::frame_access::Cells;
use crate::units;
use warpsight_model::columns as mc;

/// At or above this fraction of the memory roof the launch counts as saturating it.
pub(crate) const NEAR_ROOF: f64 = 0.6;

/// See the module documentation.
pub(crate) struct MemoryBound;

impl Rule for MemoryBound {
    fn id(&self) -> &'static str {
        "memory-bound"
    }

    fn applies(&self) -> Expr {
        col(mc::BOUND)
            .str()
            .starts_with(lit("memory"))
            .and(col(mc::PCT_OF_ROOF).is_not_null())
    }

    fn message(&self, cells: &mut Cells<'_>, row: usize) -> Option<(Severity, String)> {
        let bound = cells.str(mc::BOUND, row)?;
        let level = bound.trim_start_matches("memory-").to_ascii_uppercase();
        let pct = cells.f64(mc::PCT_OF_ROOF, row)?;
        if pct >= NEAR_ROOF {
            Some((
                Severity::Info,
                format!(
                    "memory-bound at {level}, {} of roof: fewer bytes, not more occupancy",
                    units::percent(pct)
                ),
            ))
        } else {
            Some((
                Severity::Warning,
                format!(
                    "memory-bound at {level} but only {} of roof: uncoalesced or scattered accesses, or \
                     too few bytes in flight",
                    units::percent(pct)
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::findings::run_rules;
    use warpsight_ingest::launch_table::column_names as lt;

    #[test]
    fn near_the_roof_the_advice_is_fewer_bytes() -> PolarsResult<()> {
        let frame = df!(
            lt::SOURCE_FILE => ["t.csv", "t.csv", "t.csv"],
            lt::LAUNCH_ID => [1i64, 2, 3],
            lt::KERNEL_NAME => ["a", "b", "c"],
            mc::BOUND => ["memory-dram", "memory-l2", "compute"],
            mc::PCT_OF_ROOF => [0.82f64, 0.3, 0.9],
        )?;
        let findings = run_rules(&frame, &[&MemoryBound])?;
        assert_eq!(findings.len(), 2);
        assert_eq!(
            findings[0].message,
            "memory-bound at DRAM, 82.0 % of roof: fewer bytes, not more occupancy"
        );
        assert_eq!(findings[0].severity, Severity::Info);
        assert!(
            findings[1]
                .message
                .starts_with("memory-bound at L2 but only 30.0 % of roof")
        );
        assert_eq!(findings[1].severity, Severity::Warning);
        Ok(())
    }
}
