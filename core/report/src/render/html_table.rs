//! HTML tables of the review: already formatted cells with an optional hover text (`title`, the
//! full text of a cell the fixed column width cuts with an ellipsis) and an optional numeric sort
//! key, laid out with fixed column widths so that a table never grows wider than the page.

use std::fmt::Write as _;

use polars::prelude::*;

use super::svg::escape;
use super::table::{DisplayColumn, Unit, cells};
use crate::analysis::frame_access::Cells;

/// One cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HtmlCell {
    /// The text shown.
    pub(crate) text: String,
    /// Hover text (the full text when the shown one may be cut).
    pub(crate) title: Option<String>,
    /// The value the column sorts by (numbers); text columns sort by `text`.
    pub(crate) sort: Option<f64>,
}

impl HtmlCell {
    /// A text cell whose full text is also its hover text (for cells cut with an ellipsis).
    pub(crate) fn full(text: impl Into<String>) -> Self {
        let text = text.into();
        HtmlCell {
            title: Some(text.clone()),
            text,
            sort: None,
        }
    }

    /// A number shown as `text` and sorted by `value`.
    pub(crate) fn number(text: impl Into<String>, value: Option<f64>) -> Self {
        HtmlCell {
            text: text.into(),
            title: None,
            sort: value.filter(|v| v.is_finite()),
        }
    }
}

/// One column's layout.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HtmlColumn {
    /// Header text.
    pub(crate) header: String,
    /// Hover text of the header (what the column means).
    pub(crate) help: Option<String>,
    /// Right-aligned numbers.
    pub(crate) numeric: bool,
    /// Width in CSS pixels.
    pub(crate) width: u32,
}

impl HtmlColumn {
    /// A column of `width` pixels.
    pub(crate) fn new(header: &str, numeric: bool, width: u32) -> Self {
        HtmlColumn {
            header: header.to_string(),
            help: None,
            numeric,
            width,
        }
    }

    /// The same column with a header hover text.
    pub(crate) fn help(mut self, help: &str) -> Self {
        self.help = Some(help.to_string());
        self
    }
}

/// A table of formatted cells.
#[derive(Debug, Clone, Default)]
pub(crate) struct HtmlTable {
    /// The columns.
    pub(crate) columns: Vec<HtmlColumn>,
    /// The rows (one cell per column).
    pub(crate) rows: Vec<Vec<HtmlCell>>,
    /// Whether clicking a header sorts the rows (the page's inline sort script).
    pub(crate) sortable: bool,
}

impl HtmlTable {
    /// The cells of `frame` for `columns` (display columns with their pixel widths): text cells
    /// carry their full text as hover text, numeric cells sort by the raw value.
    pub(crate) fn from_frame(
        frame: &DataFrame,
        columns: &[(DisplayColumn, u32)],
    ) -> PolarsResult<Self> {
        let display: Vec<DisplayColumn> = columns.iter().map(|(c, _)| c.clone()).collect();
        let texts = cells(frame, &display)?;
        let mut raw = Cells::new(frame);
        let rows = texts
            .into_iter()
            .enumerate()
            .map(|(row, texts)| {
                texts
                    .into_iter()
                    .zip(&display)
                    .map(|(text, column)| match column.unit {
                        Unit::Text => HtmlCell::full(text),
                        _ => HtmlCell::number(text, raw.f64(&column.source, row)),
                    })
                    .collect()
            })
            .collect();
        Ok(HtmlTable {
            columns: columns
                .iter()
                .map(|(c, width)| HtmlColumn::new(&c.header, c.unit.is_numeric(), *width))
                .collect(),
            rows,
            sortable: false,
        })
    }

    /// The table's width in CSS pixels (the sum of its columns).
    pub(crate) fn width(&self) -> u32 {
        self.columns.iter().map(|c| c.width).sum()
    }

    /// Writes the table as HTML.
    pub(crate) fn write(&self, out: &mut String) {
        let class = if self.sortable { " sortable" } else { "" };
        let _ = write!(
            out,
            "<table class=\"fixed{class}\" style=\"width:{}px\"><colgroup>",
            self.width()
        );
        for column in &self.columns {
            let _ = write!(out, "<col style=\"width:{}px\">", column.width);
        }
        out.push_str("</colgroup><thead><tr>");
        for column in &self.columns {
            let class = if column.numeric { " class=\"num\"" } else { "" };
            let title = column
                .help
                .as_ref()
                .map(|h| format!(" title=\"{}\"", escape(h)))
                .unwrap_or_default();
            let _ = write!(out, "<th{class}{title}>{}</th>", escape(&column.header));
        }
        out.push_str("</tr></thead><tbody>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for (cell, column) in row.iter().zip(&self.columns) {
                let class = if column.numeric { " class=\"num\"" } else { "" };
                let title = cell
                    .title
                    .as_ref()
                    .map(|t| format!(" title=\"{}\"", escape(t)))
                    .unwrap_or_default();
                let sort = cell
                    .sort
                    .map(|v| format!(" data-v=\"{v:e}\""))
                    .unwrap_or_default();
                let _ = write!(out, "<td{class}{title}{sort}>{}</td>", escape(&cell.text));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = "void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_relu_bf16_64x64_32x6_tn_align8>(Params)";

    fn table() -> HtmlTable {
        HtmlTable {
            columns: vec![
                HtmlColumn::new("Kernel", false, 300),
                HtmlColumn::new("Total", true, 80).help("measured time of all launches"),
            ],
            rows: vec![vec![
                HtmlCell::full(LONG),
                HtmlCell::number("1.20 ms", Some(1.2e6)),
            ]],
            sortable: true,
        }
    }

    #[test]
    fn long_names_are_cut_by_the_column_width_with_the_full_name_on_hover() {
        let mut out = String::new();
        table().write(&mut out);
        // The cell shows the whole escaped name; the fixed layout and the CSS ellipsis cut it, and
        // the title attribute carries it in full.
        let escaped = escape(LONG);
        assert!(
            out.contains(&format!("<td title=\"{escaped}\">{escaped}</td>")),
            "{out}"
        );
        assert!(out.contains("<table class=\"fixed sortable\" style=\"width:380px\">"));
        assert!(out.contains("<col style=\"width:300px\"><col style=\"width:80px\">"));
    }

    #[test]
    fn numbers_carry_their_raw_value_for_sorting() {
        let mut out = String::new();
        table().write(&mut out);
        assert!(
            out.contains("<td class=\"num\" data-v=\"1.2e6\">1.20 ms</td>"),
            "{out}"
        );
        assert!(
            out.contains("<th class=\"num\" title=\"measured time of all launches\">Total</th>")
        );
        assert_eq!(HtmlCell::number("-", Some(f64::NAN)).sort, None);
    }

    #[test]
    fn frames_become_cells_with_titles_and_sort_keys() -> PolarsResult<()> {
        let frame = df!("kernel" => [LONG, "k2"], "total_ns" => [Some(2.0e6), None])?;
        let table = HtmlTable::from_frame(
            &frame,
            &[
                (DisplayColumn::new("kernel", "Kernel", Unit::Text), 200),
                (DisplayColumn::new("total_ns", "Total", Unit::Duration), 70),
            ],
        )?;
        assert_eq!(table.width(), 270);
        assert_eq!(table.rows[0][0].title.as_deref(), Some(LONG));
        assert_eq!(table.rows[0][1].sort, Some(2.0e6));
        assert_eq!(table.rows[0][1].text, "2.00 ms");
        assert_eq!(table.rows[1][1].sort, None);
        Ok(())
    }
}
