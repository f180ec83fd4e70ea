//! Human-readable output: units, terminal and markdown tables, SVG charts and the HTML report.
//!
//! - [`units`]: base units to the units people read (µs, GB/s, TFLOP/s, %, KiB);
//! - [`table`]: the terminal table (comfy-table) and the markdown table;
//! - [`views`]: which columns each command shows, and the derived configuration text;
//! - [`output`]: writing a result in table, md, csv, json or parquet;
//! - [`svg`]: a small SVG writer and axis scales;
//! - [`roofline_chart`]: the roofline chart;
//! - [`occupancy_chart`]: occupancy-vs-parameter sweep charts;
//! - [`html`]: the self-contained HTML page;
//! - [`report_page`]: the report's content assembled from an analysis.

pub mod html;
pub mod occupancy_chart;
pub mod output;
pub mod report_page;
pub mod roofline_chart;
pub mod svg;
pub mod table;
pub mod units;
pub mod views;
