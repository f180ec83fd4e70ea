//! Human tables from a result frame: the display columns, their cells in readable units (also used
//! by the HTML report) and the GitHub markdown table. The terminal table is drawn by the binary.
//!
//! A table is described by a list of [`DisplayColumn`]s: which frame column to show, under which
//! header, printed with which [`Unit`]. Missing columns print as `-` so that one description works
//! for inputs with and without counters. Only the (already truncated) output rows are formatted, so
//! the per-row loop here is bounded by what a person reads.

use polars::prelude::*;

use crate::units;

/// How a column's values are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Text as it is.
    Text,
    /// A whole number.
    Integer,
    /// Nanoseconds, printed as ns/µs/ms/s.
    Duration,
    /// A signed duration in nanoseconds (`+1.20 ms`).
    SignedDuration,
    /// Bytes, printed with binary prefixes.
    Bytes,
    /// Bytes per second.
    Bandwidth,
    /// FLOP per second.
    Flops,
    /// A 0–1 ratio printed as a percentage.
    Percent,
    /// A signed 0–1 change printed as a percentage with its sign.
    SignedPercent,
    /// A plain number with three significant digits.
    Number,
    /// A multiplier (`2.35×`).
    Times,
}

impl Unit {
    /// True for units whose cells are right-aligned numbers.
    pub fn is_numeric(self) -> bool {
        !matches!(self, Unit::Text)
    }
}

/// One column of a human table.
#[derive(Debug, Clone)]
pub struct DisplayColumn {
    /// Name of the source column in the frame.
    pub source: String,
    /// Header printed above it.
    pub header: String,
    /// How its values are printed.
    pub unit: Unit,
    /// How readily a terminal too narrow for the table drops the column: 0 never, higher numbers
    /// first (see `kernel_terminal` in `views`).
    pub priority: u8,
}

impl DisplayColumn {
    /// Shows frame column `source` under `header`, printed as `unit`.
    pub fn new(source: &str, header: &str, unit: Unit) -> Self {
        DisplayColumn {
            source: source.to_string(),
            header: header.to_string(),
            unit,
            priority: 0,
        }
    }

    /// The same column with a drop priority (0: always shown; higher: dropped first).
    pub fn priority(mut self, priority: u8) -> Self {
        self.priority = priority;
        self
    }

    /// True for columns holding kernel names, which a narrow terminal abbreviates.
    pub fn is_kernel_name(&self) -> bool {
        self.unit == Unit::Text && matches!(self.source.as_str(), "kernel" | "worst_kernel")
    }
}

/// A kernel name shortened to at most `max` characters, never inside a word: first the template
/// arguments become `…` (`void ns::gemm<…>`), then the parameter list's, then the name is cut at its
/// end with `…`.
pub fn abbreviate_kernel(name: &str, max: usize) -> String {
    let fits = |text: &str| text.chars().count() <= max;
    if fits(name) {
        return name.to_string();
    }
    let mut text = collapse(name, '<', '>');
    if fits(&text) {
        return text;
    }
    text = collapse(&text, '(', ')');
    if fits(&text) {
        return text;
    }
    let head: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{head}…")
}

/// Replaces the contents of every outermost `open`…`close` group with `…`.
fn collapse(text: &str, open: char, close: char) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        if c == open {
            if depth == 0 {
                out.push(open);
                out.push('…');
            }
            depth += 1;
        } else if c == close && depth > 0 {
            depth -= 1;
            if depth == 0 {
                out.push(close);
            }
        } else if depth == 0 {
            out.push(c);
        }
    }
    out
}

/// Formats every shown cell of `frame` as text, row by row.
pub fn cells(frame: &DataFrame, columns: &[DisplayColumn]) -> PolarsResult<Vec<Vec<String>>> {
    let rendered: Vec<Vec<String>> = columns
        .iter()
        .map(|column| column_cells(frame, column))
        .collect::<PolarsResult<_>>()?;
    Ok((0..frame.height())
        .map(|row| rendered.iter().map(|column| column[row].clone()).collect())
        .collect())
}

/// The cells of one column, formatted with its unit.
fn column_cells(frame: &DataFrame, column: &DisplayColumn) -> PolarsResult<Vec<String>> {
    let Ok(series) = frame.column(&column.source) else {
        return Ok(vec![units::MISSING.to_string(); frame.height()]);
    };
    if column.unit == Unit::Text {
        let text = series.cast(&DataType::String)?;
        return Ok(text
            .str()?
            .iter()
            .map(|value| value.map_or_else(|| units::MISSING.to_string(), str::to_string))
            .collect());
    }
    if series.dtype() == &DataType::Boolean {
        return Ok(series
            .bool()?
            .iter()
            .map(|value| match value {
                Some(true) => "yes".to_string(),
                Some(false) => "no".to_string(),
                None => units::MISSING.to_string(),
            })
            .collect());
    }
    let numbers = series.cast(&DataType::Float64)?;
    Ok(numbers
        .f64()?
        .iter()
        .map(|value| {
            value.map_or_else(
                || units::MISSING.to_string(),
                |v| format_number(v, column.unit),
            )
        })
        .collect())
}

/// Formats one number with a unit.
pub(crate) fn format_number(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Text | Unit::Number => units::number(value),
        Unit::Integer => {
            if value.is_finite() {
                format!("{value:.0}")
            } else {
                units::MISSING.to_string()
            }
        }
        Unit::Duration => units::duration_ns(value),
        Unit::SignedDuration => units::signed_duration_ns(value),
        Unit::Bytes => units::bytes(value),
        Unit::Bandwidth => units::bandwidth(value),
        Unit::Flops => units::flops(value),
        Unit::Percent => units::percent(value),
        Unit::SignedPercent => units::signed_percent(value),
        Unit::Times => units::times(value),
    }
}

/// A GitHub-flavoured markdown table (numbers right-aligned, `|` in text escaped).
pub fn markdown(frame: &DataFrame, columns: &[DisplayColumn]) -> PolarsResult<String> {
    let rows = cells(frame, columns)?;
    let mut out = String::new();
    out.push('|');
    for column in columns {
        out.push_str(&format!(" {} |", escape_markdown(&column.header)));
    }
    out.push_str("\n|");
    for column in columns {
        out.push_str(if column.unit.is_numeric() {
            "---:|"
        } else {
            "---|"
        });
    }
    out.push('\n');
    for row in rows {
        out.push('|');
        for text in row {
            out.push_str(&format!(" {} |", escape_markdown(&text)));
        }
        out.push('\n');
    }
    Ok(out)
}

/// Escapes the characters that would break a markdown table cell.
fn escape_markdown(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('\n', " ")
}
#[cfg(test)]
mod tests {
    use super::*;

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
    fn cells_use_units_and_dashes_for_missing() -> PolarsResult<()> {
        let rows = cells(&sample()?, &columns())?;
        assert_eq!(rows[0], ["gemm|v2", "12.3 µs", "75.0 %", "-"]);
        assert_eq!(rows[1], ["relu", "-", "50.0 %", "-"]);
        Ok(())
    }

    #[test]
    fn kernel_names_lose_template_arguments_first() {
        let name = "void ns::gemm<float, 128, 128>(float const*, float*)";
        assert_eq!(abbreviate_kernel(name, 80), name);
        assert_eq!(
            abbreviate_kernel(name, 40),
            "void ns::gemm<…>(float const*, float*)"
        );
        assert_eq!(abbreviate_kernel(name, 20), "void ns::gemm<…>(…)");
        assert_eq!(abbreviate_kernel(name, 10), "void ns::…");
        assert_eq!(abbreviate_kernel("a<b<c>>", 6), "a<…>");
    }

    #[test]
    fn markdown_escapes_pipes_and_aligns_numbers() -> PolarsResult<()> {
        let text = markdown(&sample()?, &columns())?;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "| Kernel | Time | Occupancy | Absent |");
        assert_eq!(lines[1], "|---|---:|---:|---:|");
        assert_eq!(lines[2], "| gemm\\|v2 | 12.3 µs | 75.0 % | - |");
        Ok(())
    }
}
