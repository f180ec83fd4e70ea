//! The per-kernel and per-device tables of `warpsight accuracy`: summed times and their error per
//! kernel and launch configuration, and the error statistics per device.

use polars::prelude::*;

use super::super::frame_access::Cells;
use super::*;

/// One row per device, kernel name and launch configuration: launches, compared launches, summed
/// measured and predicted time of the compared launches, the error of the sums, and the
/// bottleneck of the longest launch. Most measured time first.
pub(crate) fn per_kernel(per_launch: &DataFrame) -> PolarsResult<DataFrame> {
    let mut keys = vec![col(ac::DEVICE), col(ac::KERNEL_NAME)];
    keys.extend(CONFIG.iter().map(|name| col(*name)));
    let compared = col(ac::ABS_ERROR).is_not_null();
    let sum_compared = |name: &str| {
        when(compared.clone().sum().gt(lit(0)))
            .then(col(name).filter(compared.clone()).sum())
            .otherwise(lit(NULL).cast(DataType::Float64))
    };
    let longest_first = SortMultipleOptions::default()
        .with_order_descending(true)
        .with_nulls_last(true);
    let mut aggregates = vec![
        col(ac::KERNEL).first(),
        len().cast(DataType::Int64).alias(ac::LAUNCHES),
        compared
            .clone()
            .sum()
            .cast(DataType::Int64)
            .alias(ac::COMPARED),
        sum_compared(ac::MEASURED_NS).alias(ac::MEASURED_TOTAL_NS),
        sum_compared(ac::PREDICTED_NS).alias(ac::PREDICTED_TOTAL_NS),
        col(mc::BOTTLENECK)
            .sort_by([col(ac::MEASURED_NS)], longest_first.clone())
            .first(),
        col(mc::BOTTLENECK_DETAIL)
            .sort_by([col(ac::MEASURED_NS)], longest_first)
            .first(),
        col(mc::SMEM_PER_BLOCK).first(),
        col(ac::FILE).first(),
    ];
    if per_launch.schema().contains(ac::SOURCE_DEVICE) {
        aggregates.push(col(ac::SOURCE_DEVICE).first());
    }
    let mut order = vec![col(ac::DEVICE), col(ac::KERNEL)];
    order.extend(CONFIG.iter().map(|name| col(*name)));
    order.extend([
        col(mc::SMEM_PER_BLOCK),
        col(ac::LAUNCHES),
        col(ac::COMPARED),
        col(ac::UNPREDICTED),
        col(ac::MEASURED_TOTAL_NS),
        col(ac::PREDICTED_TOTAL_NS),
        col(ac::ABS_ERROR),
        col(mc::BOTTLENECK),
        col(mc::BOTTLENECK_DETAIL),
        col(ac::KERNEL_NAME),
        col(ac::FILE),
    ]);
    if per_launch.schema().contains(ac::SOURCE_DEVICE) {
        order.insert(1, col(ac::SOURCE_DEVICE));
    }
    per_launch
        .clone()
        .lazy()
        .group_by_stable(keys)
        .agg(aggregates)
        .with_columns([
            (col(ac::LAUNCHES) - col(ac::COMPARED)).alias(ac::UNPREDICTED),
            ((col(ac::PREDICTED_TOTAL_NS) - col(ac::MEASURED_TOTAL_NS))
                / col(ac::MEASURED_TOTAL_NS))
            .abs()
            .alias(ac::ABS_ERROR),
        ])
        .sort_by_exprs(
            [col(ac::MEASURED_TOTAL_NS), col(ac::KERNEL)],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false])
                .with_nulls_last(true)
                .with_maintain_order(true),
        )
        .select(order)
        .collect()
}

/// One row per device (in order of first appearance): launches, compared launches, median / p90
/// / worst absolute error per launch and the worst launch's kernel, launches within 20 %, the
/// unpredicted launches with their reasons, and (cross-device) the unmatched launches.
pub(crate) fn summary(per_launch: &DataFrame, unmatched: Option<usize>) -> PolarsResult<DataFrame> {
    struct Group {
        device: Option<String>,
        cc: Option<String>,
        sources: Vec<(String, usize)>,
        launches: i64,
        errors: Vec<(f64, String)>,
        reasons: Vec<(String, usize)>,
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut cells = Cells::new(per_launch);
    for row in 0..per_launch.height() {
        let device = cells.str(ac::DEVICE, row);
        let index = match groups.iter().position(|g| g.device == device) {
            Some(index) => index,
            None => {
                groups.push(Group {
                    device: device.clone(),
                    cc: None,
                    sources: Vec::new(),
                    launches: 0,
                    errors: Vec::new(),
                    reasons: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[index];
        group.launches += 1;
        if group.cc.is_none()
            && let (Some(major), Some(minor)) =
                (cells.i64(ac::CC_MAJOR, row), cells.i64(ac::CC_MINOR, row))
        {
            group.cc = Some(format!("{major}.{minor}"));
        }
        if let Some(source) = cells.str(ac::CLOCK_SOURCE, row) {
            match group.sources.iter_mut().find(|(s, _)| *s == source) {
                Some((_, count)) => *count += 1,
                None => group.sources.push((source, 1)),
            }
        }
        match cells.f64(ac::ABS_ERROR, row) {
            Some(error) => group
                .errors
                .push((error, cells.str(ac::KERNEL, row).unwrap_or_default())),
            None => {
                let reason = cells
                    .str(ac::REASON, row)
                    .unwrap_or_else(|| "unknown reason".to_string());
                match group.reasons.iter_mut().find(|(r, _)| *r == reason) {
                    Some((_, count)) => *count += 1,
                    None => group.reasons.push((reason, 1)),
                }
            }
        }
    }
    let stats: Vec<Option<ErrorStats>> = groups
        .iter()
        .map(|g| ErrorStats::of(&g.errors.iter().map(|(e, _)| *e).collect::<Vec<_>>()))
        .collect();
    let worst_kernel: Vec<Option<String>> = groups
        .iter()
        .map(|g| {
            g.errors
                .iter()
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, kernel)| kernel.clone())
        })
        .collect();
    let field = |f: fn(&ErrorStats) -> f64| -> Vec<Option<f64>> {
        stats.iter().map(|s| s.as_ref().map(f)).collect()
    };
    let mut frame = df!(
        ac::DEVICE => groups.iter().map(|g| g.device.clone()).collect::<Vec<_>>(),
        ac::CC => groups.iter().map(|g| g.cc.clone()).collect::<Vec<_>>(),
        ac::CLOCK_SOURCE => groups.iter().map(|g| clock_sources(&g.sources)).collect::<Vec<_>>(),
        ac::LAUNCHES => groups.iter().map(|g| g.launches).collect::<Vec<_>>(),
        ac::COMPARED => groups.iter().map(|g| g.errors.len() as i64).collect::<Vec<_>>(),
        ac::MEDIAN_ERROR => field(|s| s.median),
        ac::P90_ERROR => field(|s| s.p90),
        ac::WORST_ERROR => field(|s| s.worst),
        ac::WORST_KERNEL => worst_kernel,
        ac::WITHIN_20 => stats.iter().map(|s| s.map_or(0, |s| s.within_20 as i64)).collect::<Vec<_>>(),
        ac::UNPREDICTED => groups.iter().map(|g| g.launches - g.errors.len() as i64).collect::<Vec<_>>(),
        ac::UNPREDICTED_REASONS => groups
            .iter()
            .map(|g| {
                (!g.reasons.is_empty()).then(|| {
                    g.reasons
                        .iter()
                        .map(|(reason, count)| format!("{reason} ({count})"))
                        .collect::<Vec<_>>()
                        .join("; ")
                })
            })
            .collect::<Vec<_>>(),
    )?;
    if let Some(unmatched) = unmatched {
        // Cross-device runs have one target device: the unmatched launches belong to it.
        let counts: Vec<i64> = (0..frame.height())
            .map(|row| if row == 0 { unmatched as i64 } else { 0 })
            .collect();
        frame.with_column(Column::new(ac::UNMATCHED.into(), counts))?;
    }
    Ok(frame)
}

/// The clock sources of a device's launches: the one source, or each with its launch count, most
/// frequent first (`export 12, base (ncu locked the clocks) 2`); null when none is known.
fn clock_sources(sources: &[(String, usize)]) -> Option<String> {
    match sources {
        [] => None,
        [(only, _)] => Some(only.clone()),
        _ => {
            let mut sorted: Vec<&(String, usize)> = sources.iter().collect();
            sorted.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
            Some(
                sorted
                    .iter()
                    .map(|(source, count)| format!("{source} {count}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        }
    }
}
