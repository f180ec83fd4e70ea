//! `diff`: two per-kernel tables (before, after) compared by kernel name — time, launches,
//! occupancy, limiter and bound — sorted by impact, the absolute change of total time.

use polars::prelude::*;

use super::report_columns as rc;
use warpsight_model::columns as mc;

/// Output columns of the diff table.
pub(crate) mod diff_col {
    /// Kernel display name.
    pub(crate) const KERNEL: &str = "kernel";
    /// Full kernel name (the join key).
    pub(crate) const KERNEL_NAME: &str = "kernel_name";
    /// `changed`, `added` (only after) or `removed` (only before).
    pub(crate) const STATUS: &str = "status";
    /// Total time before, ns.
    pub(crate) const BEFORE_NS: &str = "before_total_ns";
    /// Total time after, ns.
    pub(crate) const AFTER_NS: &str = "after_total_ns";
    /// after − before, ns (a missing side counts as 0).
    pub(crate) const DELTA_NS: &str = "delta_ns";
    /// after / before − 1 (null when a side is missing).
    pub(crate) const DELTA_RATIO: &str = "delta_ratio";
    /// Launches before.
    pub(crate) const BEFORE_LAUNCHES: &str = "before_launches";
    /// Launches after.
    pub(crate) const AFTER_LAUNCHES: &str = "after_launches";
    /// Theoretical occupancy before (dominant configuration), 0–1.
    pub(crate) const BEFORE_OCCUPANCY: &str = "before_occupancy";
    /// Theoretical occupancy after, 0–1.
    pub(crate) const AFTER_OCCUPANCY: &str = "after_occupancy";
    /// Limiter before.
    pub(crate) const BEFORE_LIMITER: &str = "before_limiter";
    /// Limiter after.
    pub(crate) const AFTER_LIMITER: &str = "after_limiter";
    /// Bound before.
    pub(crate) const BEFORE_BOUND: &str = "before_bound";
    /// Bound after.
    pub(crate) const AFTER_BOUND: &str = "after_bound";
}

use diff_col as dc;

/// The sides' columns: (per-kernel column, before name, after name).
const SIDES: &[(&str, &str, &str)] = &[
    (rc::TOTAL_NS, dc::BEFORE_NS, dc::AFTER_NS),
    (rc::LAUNCHES, dc::BEFORE_LAUNCHES, dc::AFTER_LAUNCHES),
    (
        mc::THEORETICAL_OCCUPANCY,
        dc::BEFORE_OCCUPANCY,
        dc::AFTER_OCCUPANCY,
    ),
    (mc::LIMITER, dc::BEFORE_LIMITER, dc::AFTER_LIMITER),
    (mc::BOUND, dc::BEFORE_BOUND, dc::AFTER_BOUND),
];

/// One side renamed for the join.
fn side(table: &DataFrame, before: bool) -> LazyFrame {
    let mut exprs = vec![
        col(rc::KERNEL_NAME),
        col(rc::KERNEL).alias(if before { "__kb" } else { "__ka" }),
    ];
    for (source, b, a) in SIDES {
        let name = if before { *b } else { *a };
        let expr = if *source == rc::LAUNCHES {
            col(*source).cast(DataType::Int64)
        } else {
            col(*source)
        };
        exprs.push(expr.alias(name));
    }
    table.clone().lazy().select(exprs)
}

/// Compares two per-kernel tables (from [`super::aggregate::per_kernel_all`]).
pub fn diff(before: &DataFrame, after: &DataFrame) -> PolarsResult<DataFrame> {
    let joined = side(before, true).join(
        side(after, false),
        [col(rc::KERNEL_NAME)],
        [col(rc::KERNEL_NAME)],
        JoinArgs {
            coalesce: JoinCoalesce::CoalesceColumns,
            nulls_equal: true,
            maintain_order: MaintainOrderJoin::LeftRight,
            ..JoinArgs::new(JoinType::Full)
        },
    );
    let before_ns = col(dc::BEFORE_NS);
    let after_ns = col(dc::AFTER_NS);
    let delta = after_ns.clone().fill_null(lit(0.0)) - before_ns.clone().fill_null(lit(0.0));
    let in_before = col(dc::BEFORE_LAUNCHES).is_not_null();
    let in_after = col(dc::AFTER_LAUNCHES).is_not_null();
    let status = when(in_before.clone().and(in_after.clone()))
        .then(lit("changed"))
        .when(in_after)
        .then(lit("added"))
        .otherwise(lit("removed"));
    joined
        .with_columns([
            coalesce(&[col("__ka"), col("__kb")]).alias(dc::KERNEL),
            status.alias(dc::STATUS),
            delta.alias(dc::DELTA_NS),
            (after_ns / before_ns - lit(1.0)).alias(dc::DELTA_RATIO),
        ])
        .with_column(col(dc::DELTA_NS).abs().alias("__impact"))
        .sort_by_exprs(
            [col("__impact"), col(dc::KERNEL)],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false])
                .with_nulls_last(true)
                .with_maintain_order(true),
        )
        .select([
            col(dc::KERNEL),
            col(dc::STATUS),
            col(dc::BEFORE_NS),
            col(dc::AFTER_NS),
            col(dc::DELTA_NS),
            col(dc::DELTA_RATIO),
            col(dc::BEFORE_LAUNCHES),
            col(dc::AFTER_LAUNCHES),
            col(dc::BEFORE_OCCUPANCY),
            col(dc::AFTER_OCCUPANCY),
            col(dc::BEFORE_LIMITER),
            col(dc::AFTER_LIMITER),
            col(dc::BEFORE_BOUND),
            col(dc::AFTER_BOUND),
            col(dc::KERNEL_NAME),
        ])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[&str], totals: &[f64], occupancy: &[f64]) -> PolarsResult<DataFrame> {
        df!(
            rc::KERNEL => names,
            rc::KERNEL_NAME => names,
            rc::TOTAL_NS => totals,
            rc::LAUNCHES => vec![1u32; names.len()],
            mc::THEORETICAL_OCCUPANCY => occupancy,
            mc::LIMITER => vec!["registers"; names.len()],
            mc::BOUND => vec!["memory-dram"; names.len()],
        )
    }

    #[test]
    fn kernels_are_matched_and_sorted_by_absolute_time_change() -> PolarsResult<()> {
        let before = table(
            &["a", "b", "gone"],
            &[1000.0, 500.0, 100.0],
            &[0.5, 0.5, 0.5],
        )?;
        let after = table(
            &["a", "b", "new"],
            &[400.0, 550.0, 300.0],
            &[1.0, 0.5, 0.25],
        )?;
        let out = diff(&before, &after)?;
        let kernels: Vec<Option<&str>> = out.column(dc::KERNEL)?.str()?.iter().collect();
        // |−600| > |+300| > |−100| > |+50|.
        assert_eq!(kernels, [Some("a"), Some("new"), Some("gone"), Some("b")]);
        let deltas: Vec<Option<f64>> = out.column(dc::DELTA_NS)?.f64()?.iter().collect();
        assert_eq!(
            deltas,
            [Some(-600.0), Some(300.0), Some(-100.0), Some(50.0)]
        );
        let status: Vec<Option<&str>> = out.column(dc::STATUS)?.str()?.iter().collect();
        assert_eq!(
            status,
            [
                Some("changed"),
                Some("added"),
                Some("removed"),
                Some("changed")
            ]
        );
        assert_eq!(out.column(dc::DELTA_RATIO)?.f64()?.get(0), Some(-0.6));
        assert_eq!(out.column(dc::AFTER_OCCUPANCY)?.f64()?.get(0), Some(1.0));
        Ok(())
    }
}
