//! Launch groups: the launches of one export and one kernel that share their model input. The
//! analysis (what-if searches, rules, findings, the per-kernel table) runs once per group, never
//! per launch, so a training run of millions of launches of a few dozen configurations costs a few
//! dozen evaluations.
//!
//! A group's row is its first launch (every launch-table and model column of it, as
//! [`Evaluation::rows`] gives them) followed by the statistics of `group_col` over all of its
//! launches. The statistics come from one polars `group_by` over a narrow per-launch frame (the
//! group number, the measured duration and the per-launch prediction), so no model column is
//! materialised per launch.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::{Evaluation, columns as mc};

/// The statistics columns of a group row (internal names, `__g_…`; [`group_col::FIRST_ROW`] is
/// public for callers that merge the groups of several analyses themselves).
pub mod group_col {
    /// Number of launches.
    pub(crate) const LAUNCHES: &str = "__g_launches";
    /// Launches with a measured duration.
    pub(crate) const TIMED: &str = "__g_timed";
    /// Total measured time, ns (null when no launch has one).
    pub(crate) const TOTAL_NS: &str = "__g_total_ns";
    /// Total predicted time, ns (null when no launch has one).
    pub(crate) const PREDICTED_TOTAL_NS: &str = "__g_predicted_total_ns";
    /// Launches with an occupancy but no predicted time.
    pub(crate) const UNPREDICTED: &str = "__g_unpredicted";
    /// Row of the group's first launch in the launch table (an `Int64` after `super::build`'s
    /// cast): the per-kernel aggregation takes a kernel's figures from the group with the least
    /// first row among its dominant configuration's, so groups merged from several analyses must
    /// keep their launches' order in it.
    pub const FIRST_ROW: &str = "__g_first_row";
}
use group_col as g;

/// Internal: a launch's group number in the narrow per-launch frame.
const GROUP: &str = "__g_group";

/// The group rows of an evaluation and each launch's group number.
pub(crate) fn build(evaluation: &Evaluation) -> PolarsResult<(DataFrame, IdxCa)> {
    let launches = evaluation.launches();
    let config = Column::new(
        "__g_config".into(),
        evaluation.config_ids().clone().into_series(),
    );
    let keyed = DataFrame::new(
        launches.height(),
        vec![
            launches.column(lt::SOURCE_FILE)?.clone(),
            launches.column(lt::KERNEL_NAME)?.clone(),
            config,
        ],
    )?;
    let (first_rows, group_ids) = warpsight_model::number_distinct_rows(&keyed)?;
    drop(keyed);
    warpsight_ingest::memory::log_stage("numbering the launch groups");
    let predicted = evaluation.per_launch_columns(&[mc::PREDICTED_NS])?;
    // The sums are taken over one memory chunk per column, whatever the chunks of the launch
    // table (a part stacked from batches), so that they add in the same order.
    let narrow = DataFrame::new(
        launches.height(),
        vec![
            Column::new(GROUP.into(), group_ids.clone().into_series()),
            launches.column(lt::DURATION_NS)?.rechunk(),
            predicted.column(mc::PREDICTED_NS)?.rechunk(),
        ],
    )?;
    drop(predicted);
    let stats = narrow
        .lazy()
        .group_by([col(GROUP)])
        .agg([
            len().cast(DataType::Int64).alias(g::LAUNCHES),
            col(lt::DURATION_NS)
                .count()
                .cast(DataType::Int64)
                .alias(g::TIMED),
            null_aware_sum(lt::DURATION_NS).alias(g::TOTAL_NS),
            null_aware_sum(mc::PREDICTED_NS).alias(g::PREDICTED_TOTAL_NS),
            col(mc::PREDICTED_NS)
                .null_count()
                .cast(DataType::Int64)
                .alias(g::UNPREDICTED),
        ])
        .sort([GROUP], SortMultipleOptions::default())
        .collect()?;
    warpsight_ingest::memory::log_stage("the launch groups' statistics");
    let mut rows = evaluation.rows(&first_rows)?;
    for name in [
        g::LAUNCHES,
        g::TIMED,
        g::TOTAL_NS,
        g::PREDICTED_TOTAL_NS,
        g::UNPREDICTED,
    ] {
        rows.with_column(stats.column(name)?.clone())?;
    }
    rows.with_column(Column::new(
        g::FIRST_ROW.into(),
        first_rows.into_series().cast(&DataType::Int64)?,
    ))?;
    // Launches without an occupancy are unmodelled, not unpredicted; launches that cannot run on
    // the device they are modelled on (`not_launchable`) say why themselves.
    let launchable = if rows.schema().contains(mc::NOT_LAUNCHABLE) {
        col(mc::NOT_LAUNCHABLE).is_null()
    } else {
        lit(true)
    };
    let rows = rows
        .lazy()
        .with_column(
            when(col(mc::THEORETICAL_OCCUPANCY).is_not_null().and(launchable))
                .then(col(g::UNPREDICTED))
                .otherwise(lit(0i64))
                .alias(g::UNPREDICTED),
        )
        .collect()?;
    Ok((rows, group_ids))
}

/// A launch frame as groups of one launch each (for per-launch frames built without an
/// [`Evaluation`], such as unit-test fixtures).
pub fn single_launch_groups(launches: &DataFrame) -> PolarsResult<DataFrame> {
    let duration = col(lt::DURATION_NS).cast(DataType::Float64);
    let predicted = if launches.schema().contains(mc::PREDICTED_NS) {
        col(mc::PREDICTED_NS)
    } else {
        lit(NULL).cast(DataType::Float64)
    };
    let occupancy = if launches.schema().contains(mc::THEORETICAL_OCCUPANCY) {
        col(mc::THEORETICAL_OCCUPANCY)
    } else {
        lit(NULL).cast(DataType::Float64)
    };
    let launchable = if launches.schema().contains(mc::NOT_LAUNCHABLE) {
        col(mc::NOT_LAUNCHABLE).is_null()
    } else {
        lit(true)
    };
    launches
        .clone()
        .lazy()
        .with_row_index(g::FIRST_ROW, None)
        .with_columns([
            lit(1i64).alias(g::LAUNCHES),
            duration
                .clone()
                .is_not_null()
                .cast(DataType::Int64)
                .alias(g::TIMED),
            duration.alias(g::TOTAL_NS),
            predicted.clone().alias(g::PREDICTED_TOTAL_NS),
            // As in `build`: a launch without an occupancy is unmodelled, not unpredicted, and
            // one that cannot run says why in `not_launchable`.
            predicted
                .is_null()
                .and(occupancy.is_not_null())
                .and(launchable)
                .cast(DataType::Int64)
                .alias(g::UNPREDICTED),
            col(g::FIRST_ROW).cast(DataType::Int64),
        ])
        .collect()
}

/// A sum that stays null when every value is null (polars' `sum` would give 0).
pub(crate) fn null_aware_sum(name: &str) -> Expr {
    when(col(name).count().gt(lit(0)))
        .then(col(name).sum())
        .otherwise(lit(NULL).cast(DataType::Float64))
}
