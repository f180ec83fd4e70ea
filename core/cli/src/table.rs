//! The terminal table (comfy-table), fitted to the terminal width, drawn from the display columns
//! and cells of `warpsight_report::render::table`.

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};
use polars::prelude::*;
use warpsight_report::render::table::{DisplayColumn, cells};

/// Layout options of the terminal table.
#[derive(Debug, Clone, Copy)]
pub struct TerminalStyle {
    /// Total width in characters; `None` lets comfy-table use the terminal's width.
    pub width: Option<u16>,
    /// Whether to colour (bold headers, coloured bound and severity cells).
    pub color: bool,
}

/// The terminal table (comfy-table), fitted to `style.width` or the terminal's width.
pub fn terminal(
    frame: &DataFrame,
    columns: &[DisplayColumn],
    style: TerminalStyle,
) -> PolarsResult<String> {
    let rows = cells(frame, columns)?;
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED);
    table.set_content_arrangement(ContentArrangement::Dynamic);
    if style.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    if let Some(width) = style.width {
        table.set_width(width);
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
        table.add_row(row.into_iter().zip(columns).map(|(text, column)| {
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

    #[test]
    fn terminal_table_respects_the_width_and_has_no_colour_codes() -> PolarsResult<()> {
        let text = terminal(
            &sample()?,
            &columns(),
            TerminalStyle {
                width: Some(40),
                color: false,
            },
        )?;
        assert!(
            text.lines().all(|line| line.chars().count() <= 40),
            "{text}"
        );
        assert!(!text.contains('\x1b'));
        assert!(text.contains("Occupa"));
        Ok(())
    }
}
