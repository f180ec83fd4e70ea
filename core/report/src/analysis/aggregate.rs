//! Per-kernel aggregation: launches grouped by kernel name with polars `group_by` expressions —
//! count, total and mean time, share of GPU time, total predicted time — plus the per-launch
//! figures of the kernel's dominant configuration (the launch configuration with the most total
//! time). Nsight Systems `cuda_gpu_kern_sum` inputs become per-kernel rows of their own from
//! [`warpsight_ingest::trace::SideTables::kernel_summary`] (never fake launches), and nsys transfers are summarised
//! for the footer line.

use polars::prelude::*;

use super::groups::{group_col as g, null_aware_sum};
use super::report_columns::{self as rc, PER_KERNEL, PER_LAUNCH};
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::{kernel_summary_col as ks, transfers_col as tc};
use warpsight_model::columns as mc;

/// Internal row index used to pick the representative launch.
const ROW: &str = "__row";
/// Internal: total time of a (kernel, configuration) group.
const CONFIG_TIME: &str = "__config_time";

/// The configuration columns that tell launches of one kernel apart.
const CONFIG: &[&str] = &[
    lt::GRID_X,
    lt::GRID_Y,
    lt::GRID_Z,
    lt::BLOCK_X,
    lt::BLOCK_Y,
    lt::BLOCK_Z,
    lt::REGISTERS_PER_THREAD,
    lt::STATIC_SMEM_BYTES,
    lt::DYNAMIC_SMEM_BYTES,
];

/// One row per kernel name from the launch groups of an analysis ([`super::groups`]; a
/// per-launch frame goes through [`super::groups::single_launch_groups`] first), sorted by total
/// time (largest first), columns of `PER_KERNEL`. The counts and times are summed over the
/// groups' statistics; the per-launch figures are those of the first launch of the kernel's
/// dominant configuration, which is the first launch of one of its groups.
pub fn per_kernel(groups: &DataFrame) -> PolarsResult<DataFrame> {
    let frame = rc::with_derived(groups.clone())?;
    let base = frame.lazy().with_column(col(g::FIRST_ROW).alias(ROW));

    let mut config_keys: Vec<Expr> = vec![col(lt::KERNEL_NAME)];
    config_keys.extend(CONFIG.iter().map(|name| col(*name)));
    let configs = base
        .clone()
        .group_by(config_keys)
        .agg([col(g::TOTAL_NS).sum().alias(CONFIG_TIME), col(ROW).min()]);
    let representatives = configs.group_by([col(lt::KERNEL_NAME)]).agg([
        col(ROW)
            .sort_by(
                [col(CONFIG_TIME), col(ROW)],
                SortMultipleOptions::default().with_order_descending_multi([true, false]),
            )
            .first(),
        len().alias(rc::CONFIGS),
    ]);
    let totals = base.clone().group_by([col(lt::KERNEL_NAME)]).agg([
        col(g::LAUNCHES)
            .sum()
            .cast(DataType::UInt32)
            .alias(rc::LAUNCHES),
        null_aware_sum(g::TOTAL_NS).alias(rc::TOTAL_NS),
        when(col(g::TIMED).sum().gt(lit(0)))
            .then(col(g::TOTAL_NS).sum() / col(g::TIMED).sum().cast(DataType::Float64))
            .otherwise(lit(NULL).cast(DataType::Float64))
            .alias(rc::MEAN_NS),
        null_aware_sum(g::PREDICTED_TOTAL_NS).alias(rc::PREDICTED_TOTAL_NS),
    ]);
    let launch_columns: Vec<Expr> = PER_LAUNCH
        .iter()
        .map(|(name, source)| col(*source).alias(*name))
        .chain([col(ROW)])
        .collect();
    let rows = base.select(launch_columns);
    let joined = representatives
        .join(
            totals,
            [col(lt::KERNEL_NAME)],
            [col(lt::KERNEL_NAME)],
            super::left_join_in_order(),
        )
        .join(
            rows.drop(cols([rc::KERNEL_NAME])),
            [col(ROW)],
            [col(ROW)],
            super::left_join_in_order(),
        );
    shares_in_order(joined)
        .select(PER_KERNEL.iter().map(|name| col(*name)).collect::<Vec<_>>())
        .collect()
}

/// Per-kernel rows from launches with each kernel's time share over all of them, in
/// [`per_kernel`]'s order: total time descending, then the short and the full name. Kernels with
/// the same total (or none) and the same short name (templates, overloads) are ordered by their
/// full name, which is unique here: the order never depends on the hash tables of the group-bys
/// (it changed from run to run before). The rows of several partitions of kernels, each
/// aggregated on its own, become the single-process table with it.
pub fn shares_in_order(rows: LazyFrame) -> LazyFrame {
    rows.with_column((col(rc::TOTAL_NS) / col(rc::TOTAL_NS).sum()).alias(rc::TIME_SHARE))
        .sort_by_exprs(
            [col(rc::TOTAL_NS), col(rc::KERNEL), col(rc::KERNEL_NAME)],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false, false])
                .with_nulls_last(true),
        )
}

/// Per-kernel rows from Nsight Systems kernel summaries (same columns as [`per_kernel`]; the
/// per-launch figures are null because a summary has no launch configuration).
pub fn per_kernel_from_summary(summary: &DataFrame) -> PolarsResult<DataFrame> {
    let exprs: Vec<Expr> = PER_KERNEL
        .iter()
        .map(|name| match *name {
            rc::KERNEL | rc::KERNEL_NAME => col(ks::KERNEL_NAME).alias(*name),
            rc::LAUNCHES => col(ks::INSTANCES).cast(DataType::UInt32).alias(*name),
            rc::TOTAL_NS => col(ks::TOTAL_NS).cast(DataType::Float64).alias(*name),
            rc::MEAN_NS => col(ks::AVG_NS).cast(DataType::Float64).alias(*name),
            rc::TIME_SHARE => col(ks::TIME_SHARE).cast(DataType::Float64).alias(*name),
            rc::FILE => col(ks::SOURCE_FILE).alias(*name),
            rc::CONFIGS => lit(NULL).cast(DataType::UInt32).alias(*name),
            other => lit(NULL).cast(summary_null_dtype(other)).alias(other),
        })
        .collect();
    summary
        .clone()
        .lazy()
        .select(exprs)
        .sort_by_exprs(
            [col(rc::TOTAL_NS), col(rc::KERNEL_NAME)],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false])
                .with_nulls_last(true)
                .with_maintain_order(true),
        )
        .collect()
}

/// The dtype of a per-kernel column a kernel summary cannot fill.
fn summary_null_dtype(name: &str) -> DataType {
    match name {
        rc::DEVICE
        | mc::LIMITER
        | mc::BOUND
        | mc::BOTTLENECK
        | mc::BOTTLENECK_DETAIL
        | mc::BINDING_CEILING
        | mc::NOT_LAUNCHABLE
        | super::findings::FINDINGS
        | super::findings::FINDING_MESSAGES => DataType::String,
        lt::LAUNCH_ID
        | lt::GRID_X
        | lt::GRID_Y
        | lt::GRID_Z
        | lt::BLOCK_X
        | lt::BLOCK_Y
        | lt::BLOCK_Z
        | lt::REGISTERS_PER_THREAD => DataType::Int64,
        _ => DataType::Float64,
    }
}

/// The per-kernel table of a whole analysis: rows from the launch groups, then kernel-summary rows.
pub fn per_kernel_all(groups: &DataFrame, kernel_summary: &DataFrame) -> PolarsResult<DataFrame> {
    let from_launches = (groups.height() > 0)
        .then(|| per_kernel(groups))
        .transpose()?;
    let from_summary = (kernel_summary.height() > 0)
        .then(|| per_kernel_from_summary(kernel_summary))
        .transpose()?;
    match harmonize(from_launches, from_summary)? {
        Some(table) => Ok(table),
        None => per_kernel(groups),
    }
}

/// The per-kernel rows from launches followed by those from kernel summaries, the summary rows
/// given the launch rows' dtypes (their launch figures are all null); `None` without either.
pub fn harmonize(
    from_launches: Option<DataFrame>,
    from_summary: Option<DataFrame>,
) -> PolarsResult<Option<DataFrame>> {
    match (from_launches, from_summary) {
        (Some(a), Some(mut b)) => {
            for column in a.columns() {
                if let Ok(other) = b.column(column.name())
                    && other.dtype() != column.dtype()
                {
                    let cast = other.cast(column.dtype())?;
                    b.with_column(cast)?;
                }
            }
            a.vstack(&b).map(Some)
        }
        (Some(a), None) => Ok(Some(a)),
        (None, Some(b)) => Ok(Some(b)),
        (None, None) => Ok(None),
    }
}

/// The transfers footer: count, bytes and time of the nsys memcpy / memset rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransferSummary {
    /// Number of transfers.
    pub count: usize,
    /// Bytes moved or set.
    pub bytes: f64,
    /// Total duration, ns.
    pub duration_ns: f64,
}

/// Summarises the transfers table, `None` when it is empty.
pub fn transfers(transfers: &DataFrame) -> PolarsResult<Option<TransferSummary>> {
    if transfers.height() == 0 {
        return Ok(None);
    }
    let sums = transfers
        .clone()
        .lazy()
        .select([
            col(tc::BYTES).cast(DataType::Float64).sum().alias("bytes"),
            col(tc::DURATION_NS)
                .cast(DataType::Float64)
                .sum()
                .alias("ns"),
        ])
        .collect()?;
    let mut cells = super::frame_access::Cells::new(&sums);
    Ok(Some(TransferSummary {
        count: transfers.height(),
        bytes: cells.f64("bytes", 0).unwrap_or(0.0),
        duration_ns: cells.f64("ns", 0).unwrap_or(0.0),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::groups::single_launch_groups;

    /// Two kernels: `gemm` with two configurations (the 128-thread one has more total time) and
    /// `relu` with one launch.
    fn launches() -> PolarsResult<DataFrame> {
        let frame = df!(
            lt::SOURCE_FILE => ["t.csv"; 4],
            lt::LAUNCH_ID => [1i64, 2, 3, 4],
            lt::KERNEL_NAME => ["gemm", "gemm", "gemm", "relu"],
            lt::BLOCK_X => [256i64, 128, 128, 64],
            lt::DURATION_NS => [500.0f64, 300.0, 300.0, 900.0],
            mc::PREDICTED_NS => [Some(400.0f64), None, Some(100.0), None],
            mc::THEORETICAL_OCCUPANCY => [1.0f64, 0.5, 0.5, 0.25],
        )?;
        warpsight_ingest::launch_table::conform(frame.lazy())?.collect()
    }

    #[test]
    fn kernels_are_grouped_with_their_dominant_configuration() -> PolarsResult<()> {
        let table = per_kernel(&single_launch_groups(&launches()?)?)?;
        assert_eq!(table.height(), 2);
        let kernels: Vec<Option<&str>> = table.column(rc::KERNEL)?.str()?.iter().collect();
        // gemm: 500 + 300 + 300 = 1100 ns > relu 900 ns, so gemm sorts first.
        assert_eq!(kernels, [Some("gemm"), Some("relu")]);
        let total = table.column(rc::TOTAL_NS)?.f64()?;
        assert_eq!(total.get(0), Some(1100.0));
        assert_eq!(
            table
                .column(rc::LAUNCHES)?
                .cast(&DataType::Int64)?
                .i64()?
                .get(0),
            Some(3)
        );
        let share = table.column(rc::TIME_SHARE)?.f64()?.get(0).unwrap_or(0.0);
        assert!((share - 1100.0 / 2000.0).abs() < 1e-12);
        // The 128-thread configuration has 600 ns against 500 ns: its first launch (id 2) represents.
        assert_eq!(table.column(lt::LAUNCH_ID)?.i64()?.get(0), Some(2));
        assert_eq!(table.column(lt::BLOCK_X)?.i64()?.get(0), Some(128));
        assert_eq!(
            table
                .column(rc::CONFIGS)?
                .cast(&DataType::Int64)?
                .i64()?
                .get(0),
            Some(2)
        );
        // Predicted totals ignore nulls, and stay null when every launch lacks a prediction.
        assert_eq!(
            table.column(rc::PREDICTED_TOTAL_NS)?.f64()?.get(0),
            Some(500.0)
        );
        assert_eq!(table.column(rc::PREDICTED_TOTAL_NS)?.f64()?.get(1), None);
        Ok(())
    }

    #[test]
    fn kernels_of_equal_time_and_short_name_are_ordered_by_full_name() -> PolarsResult<()> {
        // Four kernels without a duration, two short names: the order is (short, full) name
        // whatever the group-bys' hash order, the same on every run.
        let names = ["k<2>", "other", "k<1>", "k<3>"];
        let frame = df!(
            lt::SOURCE_FILE => ["t.csv"; 4],
            lt::LAUNCH_ID => [1i64, 2, 3, 4],
            lt::KERNEL_NAME => names,
            lt::KERNEL_SHORT_NAME => ["k", "other", "k", "k"],
            lt::BLOCK_X => [256i64, 128, 128, 64],
            lt::DURATION_NS => [None::<f64>, None, None, None],
        )?;
        let launches = warpsight_ingest::launch_table::conform(frame.lazy())?.collect()?;
        for _ in 0..8 {
            let table = per_kernel(&single_launch_groups(&launches)?)?;
            let order: Vec<Option<&str>> = table.column(rc::KERNEL_NAME)?.str()?.iter().collect();
            assert_eq!(
                order,
                [Some("k<1>"), Some("k<2>"), Some("k<3>"), Some("other")]
            );
        }
        Ok(())
    }

    #[test]
    fn kernel_summaries_keep_their_own_share() -> PolarsResult<()> {
        let summary = df!(
            ks::SOURCE_FILE => ["s.csv", "s.csv"],
            ks::KERNEL_NAME => ["a", "b"],
            ks::TIME_SHARE => [0.25f64, 0.75],
            ks::TOTAL_NS => [250i64, 750],
            ks::INSTANCES => [5i64, 1],
            ks::AVG_NS => [50.0f64, 750.0],
        )?;
        let table = per_kernel_from_summary(&summary)?;
        assert_eq!(table.column(rc::KERNEL)?.str()?.get(0), Some("b"));
        assert_eq!(table.column(rc::TIME_SHARE)?.f64()?.get(0), Some(0.75));
        assert_eq!(table.column(mc::THEORETICAL_OCCUPANCY)?.null_count(), 2);
        Ok(())
    }

    #[test]
    fn launches_and_kernel_summaries_stack_in_one_table() -> PolarsResult<()> {
        let summary = df!(
            ks::SOURCE_FILE => ["s.csv"],
            ks::KERNEL_NAME => ["from_nsys"],
            ks::TIME_SHARE => [1.0f64],
            ks::TOTAL_NS => [250i64],
            ks::INSTANCES => [5i64],
            ks::AVG_NS => [50.0f64],
        )?;
        let table = per_kernel_all(&single_launch_groups(&launches()?)?, &summary)?;
        assert_eq!(table.height(), 3);
        assert_eq!(table.column(rc::KERNEL)?.str()?.get(2), Some("from_nsys"));
        assert_eq!(table.column(lt::BLOCK_X)?.dtype(), &DataType::Int64);
        Ok(())
    }
}
