//! The self-contained HTML review page: inline CSS, inline SVG charts, no fonts, no network (a
//! Content-Security-Policy forbids any fetch), so the file can be mailed or archived and opens the
//! same anywhere. Its only script sorts the kernel table by a clicked header; a second one, the
//! layout check, is embedded only when asked.
//!
//! Order: the summary (totals, the top kernels' bar chart), the kernel table, a roofline per device
//! with its numbered legend, predicted against measured time, one section per kernel (launch
//! configuration, occupancy sweeps, findings), then the findings of kernels without a section.
//! Every kernel keeps one number (its rank by time) across the table, the charts and the sections.
//! The layout fits a 1280-pixel window: tables have fixed column widths and cut long text with an
//! ellipsis, the full text on hover.

use std::fmt::Write as _;

use super::html_table::HtmlTable;
use super::svg::escape;
use super::{layout_check, table_sort};

/// One finding line of the report.
#[derive(Debug, Clone)]
pub(crate) struct FindingLine {
    /// `info`, `warning` or `error`.
    pub(crate) severity: String,
    /// Kernel name.
    pub(crate) kernel: String,
    /// Launch id, if any.
    pub(crate) launch_id: Option<i64>,
    /// `warpsight`, `ncu` or `plugin:<name>`.
    pub(crate) source: String,
    /// Rule id.
    pub(crate) rule: String,
    /// Message.
    pub(crate) message: String,
}

/// A chart with the table that explains its numbered markers.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChartBlock {
    /// Inline SVG document.
    pub(crate) svg: String,
    /// One row per numbered marker.
    pub(crate) legend: HtmlTable,
}

/// One kernel's section.
#[derive(Debug, Clone, Default)]
pub(crate) struct KernelSection {
    /// The kernel's number on the page.
    pub(crate) number: usize,
    /// Display name (the short name when the export has one).
    pub(crate) name: String,
    /// Full (demangled) name.
    pub(crate) full_name: String,
    /// The dominant launch configuration and the model's figures for it: (label, value).
    pub(crate) config: Vec<(String, String)>,
    /// Occupancy sweep charts (inline SVG), when the kernel is among the top ones.
    pub(crate) sweeps: Vec<String>,
    /// The kernel's findings (the most severe first).
    pub(crate) findings: Vec<FindingLine>,
    /// How many more findings the kernel has than are listed.
    pub(crate) findings_left_out: usize,
}

/// The summary at the top of the page.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    /// Key figures: (label, value), e.g. ("GPU time", "12.3 ms").
    pub(crate) facts: Vec<(String, String)>,
    /// The top kernels' bar chart (inline SVG).
    pub(crate) bars: String,
    /// A line under the bar chart (what the kernels not shown add up to), if any.
    pub(crate) rest: Option<String>,
}

/// Everything on the report page.
#[derive(Debug, Clone, Default)]
pub struct HtmlReport {
    /// Page title.
    pub(crate) title: String,
    /// The inputs, listed under the title.
    pub(crate) inputs: Vec<String>,
    /// Notes (unmodelled launches, rejected rows, transfers).
    pub(crate) notes: Vec<String>,
    /// The summary.
    pub(crate) summary: Summary,
    /// The kernel table.
    pub(crate) kernels: HtmlTable,
    /// Roofline charts (one per device).
    pub(crate) rooflines: Vec<ChartBlock>,
    /// Predicted against measured time, when any kernel has a prediction.
    pub(crate) prediction: Option<ChartBlock>,
    /// Kernels without a prediction (`#3 name`), listed under the prediction chart.
    pub(crate) unpredicted: Vec<String>,
    /// Per-kernel sections.
    pub(crate) sections: Vec<KernelSection>,
    /// Findings of kernels without a section.
    pub(crate) other_findings: Vec<FindingLine>,
    /// Embed the layout check script ([`layout_check`]).
    pub(crate) layout_check: bool,
}

const STYLE: &str = "\
body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:16px;color:#1b1b1b;background:#ffffff;font-size:14px}\
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}\
h3{font-size:15px;margin:22px 0 4px}\
p,li,code,h3,pre{overflow-wrap:anywhere}\
.inputs,.notes{color:#555;font-size:13px;margin:2px 0}\
.facts{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0 12px}\
.fact{border:1px solid #d8dde5;border-radius:4px;padding:6px 10px;background:#f7f9fc}\
.fact b{display:block;font-size:17px}.fact span{color:#555;font-size:12px}\
table{border-collapse:collapse;font-size:12px;margin:6px 0}th,td{border:1px solid #d0d0d0;padding:3px 5px}\
table.fixed{table-layout:fixed}table.fixed th,table.fixed td{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\
th{background:#f0f3f7;text-align:left}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\
tr:nth-child(even) td{background:#fafafa}\
table.sortable th{cursor:pointer}table.sortable th[data-order=desc]::after{content:' ▼'}table.sortable th[data-order=asc]::after{content:' ▲'}\
table.config th{font-weight:normal;color:#444;background:#f5f7fa}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #e3e3e3}\
.sweeps svg{width:395px;height:auto}\
.sev{font-weight:bold;padding:1px 5px;border-radius:3px;font-size:11px}\
.sev-error{background:#fde0e0;color:#a00}.sev-warning{background:#fff1cc;color:#7a5200}.sev-info{background:#e3f0ff;color:#1f4f8a}\
ul.findings{padding-left:18px;font-size:13px}ul.findings li{margin:3px 0}code{font-size:12px}\
code.full{display:block;color:#444;margin:0 0 6px}\
#layout-check{white-space:pre-wrap;font-size:12px;color:#555}";

/// Renders the page.
pub fn render(report: &HtmlReport) -> String {
    let mut out = String::with_capacity(256 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
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
    summary(&mut out, &report.summary);
    out.push_str("<h2 id=\"kernels\">Kernels</h2>\n");
    out.push_str(
        "<p class=\"notes\">Numbers (#) are the kernels' ranks by GPU time; the charts and sections \
         below use them. Click a header to sort; hover a cut cell for its full text.</p>\n",
    );
    report.kernels.write(&mut out);
    if !report.rooflines.is_empty() {
        out.push_str("<h2 id=\"roofline\">Roofline</h2>\n");
        for block in &report.rooflines {
            chart_block(&mut out, block);
        }
    }
    out.push_str("<h2 id=\"prediction\">Predicted vs measured time</h2>\n");
    match &report.prediction {
        Some(block) => chart_block(&mut out, block),
        None => out.push_str("<p class=\"notes\">No kernel has a predicted time.</p>\n"),
    }
    if !report.unpredicted.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"notes\">Without a prediction (not plotted): {}</p>",
            escape(&report.unpredicted.join(", "))
        );
    }
    if !report.sections.is_empty() {
        out.push_str("<h2 id=\"per-kernel\">Kernels one by one</h2>\n");
        for section in &report.sections {
            kernel_section(&mut out, section);
        }
    }
    if !report.other_findings.is_empty() || report.sections.is_empty() {
        out.push_str("<h2 id=\"findings\">Findings</h2>\n");
        findings(&mut out, &report.other_findings, 0, true);
    }
    let _ = writeln!(out, "<script>{}</script>", table_sort::SCRIPT);
    if report.layout_check {
        let _ = writeln!(
            out,
            "<pre id=\"{}\">pending</pre>\n<script>{}</script>",
            layout_check::RESULT_ID,
            layout_check::SCRIPT
        );
    }
    out.push_str("</body></html>\n");
    out
}

/// Writes the summary: the key figures, then the bar chart.
fn summary(out: &mut String, summary: &Summary) {
    out.push_str("<h2 id=\"summary\">Summary</h2>\n<div class=\"facts\">");
    for (label, value) in &summary.facts {
        let _ = write!(
            out,
            "<div class=\"fact\"><b>{}</b><span>{}</span></div>",
            escape(value),
            escape(label)
        );
    }
    out.push_str("</div>\n");
    if !summary.bars.is_empty() {
        out.push_str(&summary.bars);
        out.push('\n');
    }
    if let Some(rest) = &summary.rest {
        let _ = writeln!(out, "<p class=\"notes\">{}</p>", escape(rest));
    }
}

/// Writes a chart and its legend table.
fn chart_block(out: &mut String, block: &ChartBlock) {
    out.push_str("<div class=\"charts\">");
    out.push_str(&block.svg);
    out.push_str("</div>\n");
    if !block.legend.rows.is_empty() {
        block.legend.write(out);
    }
}

/// Label–value pairs per row of a kernel section's configuration table.
const CONFIG_PAIRS: usize = 3;

/// Writes one kernel's section.
fn kernel_section(out: &mut String, section: &KernelSection) {
    let _ = writeln!(
        out,
        "<h3 id=\"k{}\">#{} {}</h3>",
        section.number,
        section.number,
        escape(&section.name)
    );
    if section.full_name != section.name {
        let _ = writeln!(
            out,
            "<code class=\"full\">{}</code>",
            escape(&section.full_name)
        );
    }
    if !section.config.is_empty() {
        // Three label–value pairs per row, cut with an ellipsis (the whole value on hover).
        out.push_str("<table class=\"fixed config\" style=\"width:1200px\"><colgroup>");
        for _ in 0..CONFIG_PAIRS {
            out.push_str("<col style=\"width:170px\"><col style=\"width:230px\">");
        }
        out.push_str("</colgroup><tbody>\n");
        for pairs in section.config.chunks(CONFIG_PAIRS) {
            out.push_str("<tr>");
            for (label, value) in pairs {
                let _ = write!(
                    out,
                    "<th>{}</th><td title=\"{}\">{}</td>",
                    escape(label),
                    escape(value),
                    escape(value)
                );
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    if !section.sweeps.is_empty() {
        out.push_str("<div class=\"charts sweeps\">");
        for svg in &section.sweeps {
            out.push_str(svg);
        }
        out.push_str("</div>\n");
    }
    findings(out, &section.findings, section.findings_left_out, false);
}

/// Writes a findings list; `with_kernel` names each finding's kernel (a kernel's own section only
/// names the launch).
fn findings(out: &mut String, findings: &[FindingLine], left_out: usize, with_kernel: bool) {
    if findings.is_empty() {
        out.push_str("<p class=\"notes\">No findings.</p>\n");
        return;
    }
    out.push_str("<ul class=\"findings\">\n");
    for finding in findings {
        let launch = finding
            .launch_id
            .map(|id| format!("launch #{id}"))
            .unwrap_or_default();
        let subject = if with_kernel {
            format!("<b>{}</b> {}", escape(&finding.kernel), escape(&launch))
        } else {
            escape(&launch)
        };
        let _ = writeln!(
            out,
            "<li><span class=\"sev sev-{}\">{}</span> {} <code>{}</code> ({}) — {}</li>",
            escape(&finding.severity),
            escape(&finding.severity),
            subject,
            escape(&finding.rule),
            escape(&finding.source),
            escape(&finding.message)
        );
    }
    if left_out > 0 {
        let _ = writeln!(out, "<li>… and {left_out} more</li>");
    }
    out.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::html_table::{HtmlCell, HtmlColumn};

    fn report() -> HtmlReport {
        HtmlReport {
            title: "warpsight <report>".into(),
            inputs: vec!["a&b.csv".into()],
            kernels: HtmlTable {
                columns: vec![
                    HtmlColumn::new("Kernel", false, 300),
                    HtmlColumn::new("Time", true, 80),
                ],
                rows: vec![vec![
                    HtmlCell::full("k<float>"),
                    HtmlCell::number("1.00 ms", Some(1e6)),
                ]],
                sortable: true,
            },
            rooflines: vec![ChartBlock {
                svg: "<svg></svg>".into(),
                legend: HtmlTable::default(),
            }],
            other_findings: vec![FindingLine {
                severity: "warning".into(),
                kernel: "k".into(),
                launch_id: Some(3),
                source: "warpsight".into(),
                rule: "tail-effect".into(),
                message: "last wave 6 % full".into(),
            }],
            ..HtmlReport::default()
        }
    }

    #[test]
    fn the_page_is_self_contained_and_escaped() {
        let page = render(&report());
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<title>warpsight &lt;report&gt;</title>"));
        assert!(page.contains("a&amp;b.csv"));
        assert!(page.contains("<td title=\"k&lt;float&gt;\">k&lt;float&gt;</td>"));
        assert!(page.contains("default-src 'none'"));
        assert!(!page.contains("http://") && !page.contains("https://"));
        assert!(page.contains("sev-warning"));
        // One script (the table sort), none that loads anything.
        assert_eq!(page.matches("<script>").count(), 1);
        assert!(!page.contains("<script src"));
        assert!(!page.contains("id=\"layout-check\""));
    }

    #[test]
    fn the_layout_check_is_embedded_only_when_asked() {
        let page = render(&HtmlReport {
            layout_check: true,
            ..report()
        });
        assert_eq!(page.matches("<script>").count(), 2);
        assert!(page.contains("<pre id=\"layout-check\">pending</pre>"));
        assert!(page.contains("getBoundingClientRect"));
        // The check comes last, after everything it measures.
        let check = page.find("id=\"layout-check\"").unwrap_or(0);
        assert!(check > page.find("<table").unwrap_or(usize::MAX));
        for script in [table_sort::SCRIPT, layout_check::SCRIPT] {
            assert!(!script.contains("</script"));
        }
    }

    #[test]
    fn kernel_sections_show_the_configuration_and_findings() {
        let page = render(&HtmlReport {
            sections: vec![KernelSection {
                number: 2,
                name: "gemm".into(),
                full_name: "void gemm<float>(float*)".into(),
                config: vec![("Grid × block".into(), "(8, 1, 1) × (256, 1, 1)".into())],
                sweeps: vec!["<svg id=\"s\"></svg>".into()],
                findings: report().other_findings,
                findings_left_out: 4,
            }],
            other_findings: Vec::new(),
            ..report()
        });
        assert!(page.contains("<h3 id=\"k2\">#2 gemm</h3>"));
        assert!(page.contains("<code class=\"full\">void gemm&lt;float&gt;(float*)</code>"));
        assert!(page.contains(
            "<tr><th>Grid × block</th><td title=\"(8, 1, 1) × (256, 1, 1)\">(8, 1, 1) × (256, 1, 1)</td></tr>"
        ));
        assert!(page.contains("<div class=\"charts sweeps\"><svg id=\"s\"></svg></div>"));
        assert!(page.contains("<li>… and 4 more</li>"));
        assert!(page.contains("</span> launch #3 <code>tail-effect</code> (warpsight)"));
        // The findings are in the section; no separate findings heading.
        assert!(!page.contains("<h2 id=\"findings\">"));
    }
}
