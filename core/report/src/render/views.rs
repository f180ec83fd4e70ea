//! Which columns the human formats show for each command, under which headers and units, plus
//! the derived `config` text column (`grid × block · registers · shared memory`).

use polars::prelude::*;

use super::table::{DisplayColumn, Unit};
use crate::analysis::accuracy::accuracy_col as ac;
use crate::analysis::diff::diff_col as dc;
use crate::analysis::findings::FINDINGS;
use crate::analysis::frame_access::Cells;
use crate::analysis::predict::predict_col as pc;
use crate::analysis::report_columns as rc;
use crate::units;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as mc;

/// The derived text column describing a launch configuration.
pub(crate) const CONFIG: &str = "config";

/// A dimension triple as people write it: `4096`, `(64,64)`, `(8,8,4)`.
fn dims(x: Option<i64>, y: Option<i64>, z: Option<i64>) -> Option<String> {
    let x = x?;
    let (y, z) = (y.unwrap_or(1), z.unwrap_or(1));
    Some(if z != 1 {
        format!("({x},{y},{z})")
    } else if y != 1 {
        format!("({x},{y})")
    } else {
        x.to_string()
    })
}

/// Adds `CONFIG` (`grid × block · N reg · S smem`) to the rows to display.
pub fn with_config_text(frame: &DataFrame) -> PolarsResult<DataFrame> {
    let mut cells = Cells::new(frame);
    let texts: Vec<Option<String>> = (0..frame.height())
        .map(|row| {
            let grid = dims(
                cells.i64(lt::GRID_X, row),
                cells.i64(lt::GRID_Y, row),
                cells.i64(lt::GRID_Z, row),
            );
            let block = dims(
                cells.i64(lt::BLOCK_X, row),
                cells.i64(lt::BLOCK_Y, row),
                cells.i64(lt::BLOCK_Z, row),
            );
            let mut text = match (grid, block) {
                (Some(g), Some(b)) => format!("{g} × {b}"),
                (None, Some(b)) => format!("? × {b}"),
                (Some(g), None) => format!("{g} × ?"),
                (None, None) => return None,
            };
            if let Some(registers) = cells.i64(lt::REGISTERS_PER_THREAD, row) {
                text.push_str(&format!(" · {registers} reg"));
            }
            if let Some(smem) = cells.f64(mc::SMEM_PER_BLOCK, row).filter(|s| *s > 0.0) {
                text.push_str(&format!(" · {}", units::bytes(smem)));
            }
            Some(text)
        })
        .collect();
    let mut out = frame.clone();
    out.with_column(Column::new(CONFIG.into(), texts))?;
    Ok(out)
}

/// Per-kernel columns of the terminal table (compact: the findings are listed below it). Each has a
/// drop priority: when a terminal is too narrow, columns with the highest number go first (tail
/// efficiency, achieved occupancy, the configuration), the kernel name and total time never.
pub fn kernel_terminal() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(rc::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(rc::LAUNCHES, "N", Unit::Integer).priority(3),
        DisplayColumn::new(rc::TOTAL_NS, "Total", Unit::Duration),
        DisplayColumn::new(rc::TIME_SHARE, "Share", Unit::Percent).priority(1),
        DisplayColumn::new(CONFIG, "Grid × block", Unit::Text).priority(4),
        DisplayColumn::new(mc::THEORETICAL_OCCUPANCY, "Occ.", Unit::Percent).priority(2),
        DisplayColumn::new(mc::LIMITER, "Limiter", Unit::Text).priority(3),
        DisplayColumn::new(lt::ACHIEVED_OCCUPANCY, "Achieved", Unit::Percent).priority(4),
        DisplayColumn::new(mc::BOTTLENECK, "Bottleneck", Unit::Text).priority(1),
        DisplayColumn::new(mc::PCT_OF_ROOF, "Of roof", Unit::Percent).priority(2),
        DisplayColumn::new(mc::TAIL_EFFICIENCY, "Tail", Unit::Percent).priority(5),
        DisplayColumn::new(mc::PREDICTED_NS, "Predicted", Unit::Duration).priority(2),
    ]
}

/// Per-kernel columns of the markdown table and the HTML report (everything).
pub fn kernel_full() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(rc::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(rc::LAUNCHES, "Launches", Unit::Integer),
        DisplayColumn::new(rc::TOTAL_NS, "Total", Unit::Duration),
        DisplayColumn::new(rc::MEAN_NS, "Mean", Unit::Duration),
        DisplayColumn::new(rc::TIME_SHARE, "Share", Unit::Percent),
        DisplayColumn::new(CONFIG, "Grid × block", Unit::Text),
        DisplayColumn::new(mc::THEORETICAL_OCCUPANCY, "Occupancy", Unit::Percent),
        DisplayColumn::new(
            lt::NCU_THEORETICAL_OCCUPANCY,
            "ncu occupancy",
            Unit::Percent,
        ),
        DisplayColumn::new(mc::LIMITER, "Limiter", Unit::Text),
        DisplayColumn::new(lt::ACHIEVED_OCCUPANCY, "Achieved", Unit::Percent),
        DisplayColumn::new(mc::ACTIVE_WARPS, "Warps active", Unit::Integer),
        DisplayColumn::new(rc::WARPS_NEEDED, "Warps needed", Unit::Number),
        DisplayColumn::new(mc::AI_DRAM, "AI DRAM", Unit::Number),
        DisplayColumn::new(mc::AI_L2, "AI L2", Unit::Number),
        DisplayColumn::new(mc::AI_L1, "AI L1", Unit::Number),
        DisplayColumn::new(mc::BOTTLENECK, "Bottleneck", Unit::Text),
        DisplayColumn::new(mc::PCT_OF_ROOF, "Of roof", Unit::Percent),
        DisplayColumn::new(mc::WAVES, "Waves", Unit::Number),
        DisplayColumn::new(mc::TAIL_EFFICIENCY, "Tail eff.", Unit::Percent),
        DisplayColumn::new(lt::DURATION_NS, "Measured", Unit::Duration),
        DisplayColumn::new(mc::PREDICTED_NS, "Predicted", Unit::Duration),
        DisplayColumn::new(FINDINGS, "Findings", Unit::Text),
    ]
}

/// Columns of the HTML review's kernel table with their widths in CSS pixels (with the page's `#`
/// and findings-count columns, 34 + 70 pixels, they add up to 1,202, which fits a 1280-pixel
/// window with its scroll bar and margins).
pub(crate) fn kernel_review() -> Vec<(DisplayColumn, u32)> {
    vec![
        (DisplayColumn::new(rc::KERNEL, "Kernel", Unit::Text), 206),
        (
            DisplayColumn::new(rc::LAUNCHES, "Launches", Unit::Integer),
            80,
        ),
        (
            DisplayColumn::new(rc::TOTAL_NS, "Total", Unit::Duration),
            66,
        ),
        (
            DisplayColumn::new(rc::TIME_SHARE, "Share", Unit::Percent),
            62,
        ),
        (DisplayColumn::new(rc::MEAN_NS, "Mean", Unit::Duration), 66),
        (DisplayColumn::new(CONFIG, "Grid × block", Unit::Text), 130),
        (
            DisplayColumn::new(mc::THEORETICAL_OCCUPANCY, "Occ.", Unit::Percent),
            62,
        ),
        (
            DisplayColumn::new(lt::ACHIEVED_OCCUPANCY, "Achieved", Unit::Percent),
            78,
        ),
        (DisplayColumn::new(mc::LIMITER, "Limiter", Unit::Text), 90),
        (DisplayColumn::new(mc::BOUND, "Bound", Unit::Text), 112),
        (
            DisplayColumn::new(mc::PCT_OF_ROOF, "Of roof", Unit::Percent),
            62,
        ),
        (
            DisplayColumn::new(rc::PREDICTED_TOTAL_NS, "Predicted", Unit::Duration),
            84,
        ),
    ]
}

/// The dominant launch configuration of one kernel and the model's figures for it, as the HTML
/// review's per-kernel section lists them (label, column).
pub(crate) fn kernel_section() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(rc::DEVICE, "Device", Unit::Text),
        DisplayColumn::new(rc::LAUNCHES, "Launches", Unit::Integer),
        DisplayColumn::new(rc::CONFIGS, "Launch configurations", Unit::Integer),
        DisplayColumn::new(CONFIG, "Grid × block (dominant)", Unit::Text),
        DisplayColumn::new(rc::TOTAL_NS, "Total time", Unit::Duration),
        DisplayColumn::new(rc::TIME_SHARE, "Share of GPU time", Unit::Percent),
        DisplayColumn::new(
            mc::THEORETICAL_OCCUPANCY,
            "Theoretical occupancy",
            Unit::Percent,
        ),
        DisplayColumn::new(
            lt::NCU_THEORETICAL_OCCUPANCY,
            "ncu theoretical occupancy",
            Unit::Percent,
        ),
        DisplayColumn::new(mc::LIMITER, "Occupancy limiter", Unit::Text),
        DisplayColumn::new(lt::ACHIEVED_OCCUPANCY, "Achieved occupancy", Unit::Percent),
        DisplayColumn::new(mc::ACTIVE_WARPS, "Warps active per SM", Unit::Integer),
        DisplayColumn::new(rc::WARPS_NEEDED, "Warps needed per SM", Unit::Number),
        DisplayColumn::new(mc::WAVES, "Waves", Unit::Number),
        DisplayColumn::new(mc::TAIL_EFFICIENCY, "Tail efficiency", Unit::Percent),
        DisplayColumn::new(mc::AI_DRAM, "Intensity DRAM (FLOP/B)", Unit::Number),
        DisplayColumn::new(mc::AI_L2, "Intensity L2 (FLOP/B)", Unit::Number),
        DisplayColumn::new(mc::AI_L1, "Intensity L1 (FLOP/B)", Unit::Number),
        DisplayColumn::new(mc::ACHIEVED_FLOPS, "Achieved", Unit::Flops),
        DisplayColumn::new(mc::PCT_OF_ROOF, "Of roof", Unit::Percent),
        DisplayColumn::new(mc::BINDING_CEILING, "Binding ceiling", Unit::Text),
        DisplayColumn::new(mc::BOUND, "Bound", Unit::Text),
        DisplayColumn::new(mc::BOTTLENECK_DETAIL, "Bottleneck", Unit::Text),
        DisplayColumn::new(lt::DURATION_NS, "Measured (one launch)", Unit::Duration),
        DisplayColumn::new(mc::PREDICTED_NS, "Predicted (one launch)", Unit::Duration),
        DisplayColumn::new(
            mc::PREDICTION_ERROR,
            "Prediction error",
            Unit::SignedPercent,
        ),
    ]
}

/// Per-launch columns of the terminal table (the findings are listed below it).
pub fn launch_terminal() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(lt::LAUNCH_ID, "ID", Unit::Integer),
        DisplayColumn::new(rc::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(CONFIG, "Grid × block", Unit::Text).priority(4),
        DisplayColumn::new(mc::THEORETICAL_OCCUPANCY, "Occ.", Unit::Percent).priority(2),
        DisplayColumn::new(lt::NCU_THEORETICAL_OCCUPANCY, "ncu", Unit::Percent).priority(5),
        DisplayColumn::new(mc::LIMITER, "Limiter", Unit::Text).priority(3),
        DisplayColumn::new(lt::ACHIEVED_OCCUPANCY, "Achieved", Unit::Percent).priority(4),
        DisplayColumn::new(mc::BOTTLENECK, "Bottleneck", Unit::Text).priority(1),
        DisplayColumn::new(mc::PCT_OF_ROOF, "Of roof", Unit::Percent).priority(2),
        DisplayColumn::new(mc::WAVES, "Waves", Unit::Number).priority(5),
        DisplayColumn::new(lt::DURATION_NS, "Measured", Unit::Duration),
        DisplayColumn::new(mc::PREDICTED_NS, "Predicted", Unit::Duration).priority(2),
    ]
}

/// Per-launch columns of the markdown table (everything).
pub fn launch_full() -> Vec<DisplayColumn> {
    let mut columns = vec![
        DisplayColumn::new(rc::FILE, "File", Unit::Text),
        DisplayColumn::new(lt::LAUNCH_ID, "ID", Unit::Integer),
    ];
    columns.extend(kernel_full().into_iter().filter(|c| {
        !matches!(
            c.source.as_str(),
            rc::LAUNCHES | rc::TOTAL_NS | rc::MEAN_NS | rc::TIME_SHARE
        )
    }));
    columns
}

/// Columns of the `predict` tables.
pub fn predict() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(pc::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(pc::LAUNCHES, "Launches", Unit::Integer).priority(3),
        DisplayColumn::new(pc::MEASURED_NS, "Measured", Unit::Duration),
        DisplayColumn::new(
            pc::SOURCE_PREDICTED_NS,
            "Predicted (source)",
            Unit::Duration,
        )
        .priority(2),
        DisplayColumn::new(
            pc::TARGET_PREDICTED_NS,
            "Predicted (target)",
            Unit::Duration,
        ),
        DisplayColumn::new(pc::SPEEDUP, "Speedup", Unit::Times),
        DisplayColumn::new(pc::SOURCE_OCCUPANCY, "Occupancy (source)", Unit::Percent).priority(4),
        DisplayColumn::new(pc::TARGET_OCCUPANCY, "Occupancy (target)", Unit::Percent).priority(3),
        DisplayColumn::new(pc::TARGET_LIMITER, "Limiter (target)", Unit::Text).priority(3),
        DisplayColumn::new(pc::TARGET_BOUND, "Bound (target)", Unit::Text).priority(1),
    ]
}

/// Columns of the `diff` terminal table (compact).
pub fn diff_terminal() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(dc::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(dc::STATUS, "Status", Unit::Text),
        DisplayColumn::new(dc::BEFORE_NS, "Before", Unit::Duration),
        DisplayColumn::new(dc::AFTER_NS, "After", Unit::Duration),
        DisplayColumn::new(dc::DELTA_NS, "Change", Unit::SignedDuration),
        DisplayColumn::new(dc::DELTA_RATIO, "Change %", Unit::SignedPercent).priority(1),
        DisplayColumn::new(dc::BEFORE_OCCUPANCY, "Occ. before", Unit::Percent).priority(3),
        DisplayColumn::new(dc::AFTER_OCCUPANCY, "Occ. after", Unit::Percent).priority(2),
        DisplayColumn::new(dc::AFTER_LIMITER, "Limiter after", Unit::Text).priority(3),
        DisplayColumn::new(dc::AFTER_BOUND, "Bound after", Unit::Text).priority(2),
    ]
}

/// Columns of the `diff` markdown table (everything).
pub fn diff() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(dc::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(dc::STATUS, "Status", Unit::Text),
        DisplayColumn::new(dc::BEFORE_NS, "Before", Unit::Duration),
        DisplayColumn::new(dc::AFTER_NS, "After", Unit::Duration),
        DisplayColumn::new(dc::DELTA_NS, "Change", Unit::SignedDuration),
        DisplayColumn::new(dc::DELTA_RATIO, "Change %", Unit::SignedPercent),
        DisplayColumn::new(dc::BEFORE_LAUNCHES, "Launches before", Unit::Integer),
        DisplayColumn::new(dc::AFTER_LAUNCHES, "Launches after", Unit::Integer),
        DisplayColumn::new(dc::BEFORE_OCCUPANCY, "Occupancy before", Unit::Percent),
        DisplayColumn::new(dc::AFTER_OCCUPANCY, "Occupancy after", Unit::Percent),
        DisplayColumn::new(dc::BEFORE_LIMITER, "Limiter before", Unit::Text),
        DisplayColumn::new(dc::AFTER_LIMITER, "Limiter after", Unit::Text),
        DisplayColumn::new(dc::BEFORE_BOUND, "Bound before", Unit::Text),
        DisplayColumn::new(dc::AFTER_BOUND, "Bound after", Unit::Text),
    ]
}

/// Columns of the `accuracy` per-launch table (`cross`: with the source device and time).
pub fn accuracy_launch(cross: bool) -> Vec<DisplayColumn> {
    let mut columns = vec![
        DisplayColumn::new(ac::FILE, "File", Unit::Text),
        DisplayColumn::new(lt::LAUNCH_ID, "Launch", Unit::Integer),
        DisplayColumn::new(ac::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(CONFIG, "Config", Unit::Text),
    ];
    if cross {
        columns.push(DisplayColumn::new(
            ac::SOURCE_MEASURED_NS,
            "Measured (source)",
            Unit::Duration,
        ));
    }
    columns.extend([
        DisplayColumn::new(ac::MEASURED_NS, "Measured", Unit::Duration),
        DisplayColumn::new(ac::PREDICTED_NS, "Predicted", Unit::Duration),
        DisplayColumn::new(ac::ABS_ERROR, "Error", Unit::Percent),
        DisplayColumn::new(mc::BOTTLENECK, "Bottleneck", Unit::Text),
        DisplayColumn::new(ac::REASON, "No prediction because", Unit::Text),
    ]);
    columns
}

/// Columns of the `accuracy` per-kernel table (`with_device`: when the inputs span devices).
pub fn accuracy_kernel(with_device: bool) -> Vec<DisplayColumn> {
    let mut columns = Vec::new();
    if with_device {
        columns.push(DisplayColumn::new(ac::DEVICE, "Device", Unit::Text));
    }
    columns.extend([
        DisplayColumn::new(ac::KERNEL, "Kernel", Unit::Text),
        DisplayColumn::new(CONFIG, "Config", Unit::Text),
        DisplayColumn::new(ac::LAUNCHES, "Launches", Unit::Integer),
        DisplayColumn::new(ac::MEASURED_TOTAL_NS, "Measured", Unit::Duration),
        DisplayColumn::new(ac::PREDICTED_TOTAL_NS, "Predicted", Unit::Duration),
        DisplayColumn::new(ac::ABS_ERROR, "Error", Unit::Percent),
        DisplayColumn::new(mc::BOTTLENECK, "Bottleneck", Unit::Text),
        DisplayColumn::new(ac::UNPREDICTED, "Unpredicted", Unit::Integer),
    ]);
    columns
}

/// Columns of the `accuracy` summary table (`cross`: with the unmatched launches).
pub fn accuracy_summary(cross: bool) -> Vec<DisplayColumn> {
    let mut columns = vec![
        DisplayColumn::new(ac::DEVICE, "Device", Unit::Text),
        DisplayColumn::new(ac::CC, "CC", Unit::Text),
        DisplayColumn::new(ac::CLOCK_SOURCE, "SM clock", Unit::Text),
        DisplayColumn::new(ac::LAUNCHES, "Launches", Unit::Integer),
        DisplayColumn::new(ac::COMPARED, "Compared", Unit::Integer),
        DisplayColumn::new(ac::MEDIAN_ERROR, "Median error", Unit::Percent),
        DisplayColumn::new(ac::P90_ERROR, "p90 error", Unit::Percent),
        DisplayColumn::new(ac::WORST_ERROR, "Worst error", Unit::Percent),
        DisplayColumn::new(ac::WORST_KERNEL, "Worst kernel", Unit::Text),
        DisplayColumn::new(ac::WITHIN_20, "Within 20 %", Unit::Integer),
        DisplayColumn::new(ac::UNPREDICTED, "Unpredicted", Unit::Integer),
    ];
    if cross {
        columns.push(DisplayColumn::new(
            ac::UNMATCHED,
            "Unmatched",
            Unit::Integer,
        ));
    }
    columns
}

/// Columns of the `accuracy` unmatched-launches table.
pub fn accuracy_unmatched() -> Vec<DisplayColumn> {
    vec![
        DisplayColumn::new(ac::SIDE, "Side", Unit::Text),
        DisplayColumn::new(ac::FILE, "File", Unit::Text),
        DisplayColumn::new(ac::LAUNCH_ID, "Launch", Unit::Integer),
        DisplayColumn::new(ac::KERNEL, "Kernel", Unit::Text),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_review_kernel_table_fits_a_1280_pixel_window() {
        // 1280 px less a 15 px scroll bar and the page's two 16 px margins leaves 1233 px; the
        // page adds the `#` (34 px) and findings (70 px) columns.
        let width: u32 = kernel_review().iter().map(|(_, w)| w).sum::<u32>() + 34 + 70;
        assert_eq!(width, 1202);
        assert!(width <= 1280 - 15 - 2 * 16);
    }

    #[test]
    fn config_text_collapses_unit_dimensions() -> PolarsResult<()> {
        let frame = df!(
            lt::GRID_X => [4096i64, 64],
            lt::GRID_Y => [1i64, 64],
            lt::GRID_Z => [1i64, 1],
            lt::BLOCK_X => [256i64, 16],
            lt::BLOCK_Y => [1i64, 16],
            lt::BLOCK_Z => [1i64, 1],
            lt::REGISTERS_PER_THREAD => [32i64, 40],
            mc::SMEM_PER_BLOCK => [0.0f64, 9216.0],
        )?;
        let out = with_config_text(&frame)?;
        let texts: Vec<Option<&str>> = out.column(CONFIG)?.str()?.iter().collect();
        assert_eq!(
            texts,
            [
                Some("4096 × 256 · 32 reg"),
                Some("(64,64) × (16,16) · 40 reg · 9.00 KiB")
            ]
        );
        Ok(())
    }
}
