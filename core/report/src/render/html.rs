//! The self-contained HTML report page: inline CSS, inline SVG charts, no scripts, no fonts, no
//! network (a Content-Security-Policy forbids any fetch), so the file can be mailed or archived
//! and opens the same anywhere.

use std::fmt::Write as _;

use polars::prelude::*;

use super::svg::escape;
use super::table::{DisplayColumn, cells};

/// A table of already formatted cells.
#[derive(Debug, Clone, Default)]
pub struct HtmlTable {
    /// Column headers.
    pub headers: Vec<String>,
    /// Per column, whether to right-align (numbers).
    pub numeric: Vec<bool>,
    /// The rows.
    pub rows: Vec<Vec<String>>,
}

impl HtmlTable {
    /// Formats `frame` with the given display columns.
    pub fn from_frame(frame: &DataFrame, columns: &[DisplayColumn]) -> PolarsResult<Self> {
        Ok(HtmlTable {
            headers: columns.iter().map(|c| c.header.clone()).collect(),
            numeric: columns
                .iter()
                .map(|c| c.unit != super::table::Unit::Text)
                .collect(),
            rows: cells(frame, columns)?,
        })
    }
}

/// One finding line of the report.
#[derive(Debug, Clone)]
pub struct FindingLine {
    /// `info`, `warning` or `error`.
    pub severity: String,
    /// Kernel name.
    pub kernel: String,
    /// Launch id, if any.
    pub launch_id: Option<i64>,
    /// `warpsight`, `ncu` or `plugin:<name>`.
    pub source: String,
    /// Rule id.
    pub rule: String,
    /// Message.
    pub message: String,
}

/// The charts of one kernel.
#[derive(Debug, Clone)]
pub struct KernelCharts {
    /// Heading, e.g. the kernel's name and configuration.
    pub title: String,
    /// Inline SVG documents.
    pub svgs: Vec<String>,
}

/// Everything on the report page.
#[derive(Debug, Clone, Default)]
pub struct HtmlReport {
    /// Page title.
    pub title: String,
    /// The inputs, listed under the title.
    pub inputs: Vec<String>,
    /// Notes (unmodelled launches, rejected rows, transfers).
    pub notes: Vec<String>,
    /// The per-kernel summary table.
    pub summary: HtmlTable,
    /// Roofline charts (one per device).
    pub rooflines: Vec<String>,
    /// Occupancy sweep charts of the top kernels.
    pub kernels: Vec<KernelCharts>,
    /// Findings.
    pub findings: Vec<FindingLine>,
}

const STYLE: &str = "\
body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:24px;color:#1b1b1b;background:#ffffff}\
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}\
h3{font-size:15px;margin:18px 0 6px}\
.inputs,.notes{color:#555;font-size:13px;margin:2px 0}\
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #d0d0d0;padding:3px 6px}\
th{background:#f0f3f7;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}\
tr:nth-child(even) td{background:#fafafa}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #e3e3e3}\
.sev{font-weight:bold;padding:1px 5px;border-radius:3px;font-size:11px}\
.sev-error{background:#fde0e0;color:#a00}.sev-warning{background:#fff1cc;color:#7a5200}.sev-info{background:#e3f0ff;color:#1f4f8a}\
ul.findings{padding-left:18px;font-size:13px}ul.findings li{margin:3px 0}code{font-size:12px}";

/// Renders the page.
pub fn render(report: &HtmlReport) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&report.title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&report.title));
    for input in &report.inputs {
        let _ = writeln!(
            out,
            "<p class=\"inputs\">input: <code>{}</code></p>",
            escape(input)
        );
    }
    for note in &report.notes {
        let _ = writeln!(out, "<p class=\"notes\">{}</p>", escape(note));
    }
    out.push_str("<h2>Kernels</h2>\n");
    table(&mut out, &report.summary);
    if !report.rooflines.is_empty() {
        out.push_str("<h2>Roofline</h2>\n<div class=\"charts\">\n");
        for svg in &report.rooflines {
            out.push_str(svg);
            out.push('\n');
        }
        out.push_str("</div>\n");
    }
    if !report.kernels.is_empty() {
        out.push_str("<h2>Occupancy of the top kernels</h2>\n");
        for kernel in &report.kernels {
            let _ = writeln!(
                out,
                "<h3>{}</h3>\n<div class=\"charts\">",
                escape(&kernel.title)
            );
            for svg in &kernel.svgs {
                out.push_str(svg);
                out.push('\n');
            }
            out.push_str("</div>\n");
        }
    }
    out.push_str("<h2>Findings</h2>\n");
    if report.findings.is_empty() {
        out.push_str("<p class=\"notes\">No findings.</p>\n");
    } else {
        out.push_str("<ul class=\"findings\">\n");
        for finding in &report.findings {
            let launch = finding
                .launch_id
                .map(|id| format!(" #{id}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<li><span class=\"sev sev-{}\">{}</span> <b>{}</b>{} <code>{}</code> ({}) — {}</li>",
                escape(&finding.severity),
                escape(&finding.severity),
                escape(&finding.kernel),
                escape(&launch),
                escape(&finding.rule),
                escape(&finding.source),
                escape(&finding.message)
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// Writes a table.
fn table(out: &mut String, table: &HtmlTable) {
    out.push_str("<table><thead><tr>");
    for header in &table.headers {
        let _ = write!(out, "<th>{}</th>", escape(header));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for (index, cell) in row.iter().enumerate() {
            let class = if table.numeric.get(index).copied().unwrap_or(false) {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_self_contained_and_escaped() {
        let report = HtmlReport {
            title: "warpsight <report>".into(),
            inputs: vec!["a&b.csv".into()],
            summary: HtmlTable {
                headers: vec!["Kernel".into(), "Time".into()],
                numeric: vec![false, true],
                rows: vec![vec!["k<float>".into(), "1.00 ms".into()]],
            },
            rooflines: vec!["<svg></svg>".into()],
            findings: vec![FindingLine {
                severity: "warning".into(),
                kernel: "k".into(),
                launch_id: Some(3),
                source: "warpsight".into(),
                rule: "tail-effect".into(),
                message: "last wave 6 % full".into(),
            }],
            ..HtmlReport::default()
        };
        let page = render(&report);
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<title>warpsight &lt;report&gt;</title>"));
        assert!(page.contains("a&amp;b.csv"));
        assert!(page.contains("<td>k&lt;float&gt;</td><td class=\"num\">1.00 ms</td>"));
        assert!(page.contains("default-src 'none'"));
        assert!(!page.contains("<script"));
        assert!(!page.contains("http://") && !page.contains("https://"));
        assert!(page.contains("sev-warning"));
    }
}
