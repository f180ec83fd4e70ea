//! The terminal table (comfy-table), drawn from the display columns and cells of
//! `warpsight_report::render::table`. Cells never wrap: on a terminal (or under the hidden
//! `--width`), the table is fitted to the width by dropping the columns with the highest drop
//! priority and then shortening kernel names with `…`; otherwise every row is one line at its full
//! width.

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};
use polars::prelude::*;
use warpsight_report::render::table::{DisplayColumn, abbreviate_kernel, cells};

/// Kernel names are not shortened below this many characters (or their full length).
const MIN_NAME_WIDTH: usize = 16;

/// Layout options of the terminal table.
#[derive(Debug, Clone, Copy)]
pub struct TerminalStyle {
    /// The width to fit, in characters; `None` prints every row at its full width.
    pub width: Option<u16>,
    /// Whether columns may be dropped to fit (not when the user chose them, or asked for all).
    pub drop_columns: bool,
    /// Whether to colour (bold headers, coloured bound and severity cells).
    pub color: bool,
}

/// The terminal table, fitted to `style.width` when there is one.
pub fn terminal(
    frame: &DataFrame,
    columns: &[DisplayColumn],
    style: TerminalStyle,
) -> PolarsResult<String> {
    let (columns, rows) = fit(columns, cells(frame, columns)?, style);
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED);
    table.set_content_arrangement(ContentArrangement::Disabled);
    if style.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table.set_header(columns.iter().map(|column| {
        let cell = Cell::new(&column.header);
        if style.color {
            cell.add_attribute(comfy_table::Attribute::Bold)
        } else {
            cell
        }
    }));
    for row in rows {
        table.add_row(row.into_iter().zip(&columns).map(|(text, column)| {
            let mut cell = Cell::new(&text);
            if column.unit.is_numeric() {
                cell = cell.set_alignment(CellAlignment::Right);
            }
            if style.color
                && let Some(color) = highlight(&text)
            {
                cell = cell.fg(color);
            }
            cell
        }));
    }
    Ok(table.to_string())
}

/// The width of a table drawn with `UTF8_FULL_CONDENSED` whose columns are `widths` wide: a
/// border, and per column one space each side and a separator.
fn table_width(widths: impl Iterator<Item = usize>) -> usize {
    1 + widths.map(|w| w + 3).sum::<usize>()
}

/// The columns and cells that fit `style.width`: columns dropped by priority (highest number
/// first, the rightmost among equals) while the table is too wide with kernel names at their
/// shortest, then the kernel names shortened to share what is left.
pub(crate) fn fit(
    columns: &[DisplayColumn],
    rows: Vec<Vec<String>>,
    style: TerminalStyle,
) -> (Vec<DisplayColumn>, Vec<Vec<String>>) {
    let Some(limit) = style.width.map(usize::from) else {
        return (columns.to_vec(), rows);
    };
    let natural: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([column.header.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let shortest = |i: usize| {
        if columns[i].is_kernel_name() {
            natural[i].min(MIN_NAME_WIDTH.max(columns[i].header.chars().count()))
        } else {
            natural[i]
        }
    };
    let mut keep: Vec<usize> = (0..columns.len()).collect();
    if style.drop_columns {
        while table_width(keep.iter().map(|&i| shortest(i))) > limit {
            let Some(position) = keep
                .iter()
                .enumerate()
                .filter(|(_, i)| columns[**i].priority > 0)
                .max_by_key(|(position, i)| (columns[**i].priority, *position))
                .map(|(position, _)| position)
            else {
                break;
            };
            keep.remove(position);
        }
    }
    let names: Vec<usize> = keep
        .iter()
        .copied()
        .filter(|&i| columns[i].is_kernel_name())
        .collect();
    let mut widths: Vec<usize> = natural.clone();
    if !names.is_empty() && table_width(keep.iter().map(|&i| natural[i])) > limit {
        let others = table_width(keep.iter().map(|&i| {
            if columns[i].is_kernel_name() {
                0
            } else {
                natural[i]
            }
        }));
        let room = limit.saturating_sub(others) / names.len();
        for &i in &names {
            widths[i] = room.clamp(shortest(i), natural[i]);
        }
    }
    let rows = rows
        .into_iter()
        .map(|row| {
            keep.iter()
                .map(|&i| {
                    if columns[i].is_kernel_name() && widths[i] < natural[i] {
                        abbreviate_kernel(&row[i], widths[i])
                    } else {
                        row[i].clone()
                    }
                })
                .collect()
        })
        .collect();
    (keep.iter().map(|&i| columns[i].clone()).collect(), rows)
}

/// The colour of a cell whose text is a bound or a severity, if any.
fn highlight(text: &str) -> Option<Color> {
    match text {
        "compute" => Some(Color::Green),
        "latency" | "tail" | "warning" => Some(Color::Yellow),
        "not-launchable" | "error" => Some(Color::Red),
        _ if text.starts_with("memory") => Some(Color::Cyan),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsight_report::render::table::Unit;

    fn sample() -> PolarsResult<DataFrame> {
        df!(
            "kernel" => ["gemm|v2", "relu"],
            "time" => [Some(12_345.0f64), None],
            "occ" => [0.75f64, 0.5],
        )
    }

    fn columns() -> Vec<DisplayColumn> {
        vec![
            DisplayColumn::new("kernel", "Kernel", Unit::Text),
            DisplayColumn::new("time", "Time", Unit::Duration),
            DisplayColumn::new("occ", "Occupancy", Unit::Percent),
            DisplayColumn::new("absent", "Absent", Unit::Number),
        ]
    }

    fn style(width: Option<u16>) -> TerminalStyle {
        TerminalStyle {
            width,
            drop_columns: true,
            color: false,
        }
    }

    #[test]
    fn a_narrow_table_drops_columns_by_priority_and_never_wraps() -> PolarsResult<()> {
        let mut columns = columns();
        columns[2] = columns[2].clone().priority(1);
        columns[3] = columns[3].clone().priority(2);
        let text = terminal(&sample()?, &columns, style(Some(34)))?;
        assert!(
            text.lines().all(|line| line.chars().count() <= 34),
            "{text}"
        );
        assert!(
            !text.contains("Absent") && text.contains("Occupancy"),
            "{text}"
        );
        // Header, rule, two rows and the two borders: one line per row.
        assert_eq!(text.lines().count(), 6, "{text}");
        assert!(!text.contains('\x1b'));
        Ok(())
    }

    #[test]
    fn the_computed_width_is_the_drawn_width() -> PolarsResult<()> {
        let text = terminal(&sample()?, &columns(), style(None))?;
        let widths = [7, 7, 9, 6];
        let drawn = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert_eq!(drawn, table_width(widths.into_iter()), "{text}");
        Ok(())
    }

    #[test]
    fn long_kernel_names_are_shortened_to_fit() {
        let name = "void ns::gemm<float, 128, 128, true>(float const*, float*, int)".to_string();
        let rows = vec![vec![name, "1.00 ms".to_string()]];
        let columns = vec![
            DisplayColumn::new("kernel", "Kernel", Unit::Text),
            DisplayColumn::new("time", "Time", Unit::Duration),
        ];
        let (kept, rows) = fit(&columns, rows, style(Some(40)));
        assert_eq!(kept.len(), 2);
        assert_eq!(rows[0][0], "void ns::gemm<…>(…)");
    }
}
