//! Human-readable output: tables, SVG charts and the HTML report, drawn from what [`crate::analysis`]
//! computed.
//!
//! - [`table`]: display columns, readable cells and the markdown table;
//! - [`views`]: which columns each command shows, and the derived configuration text;
//! - [`output`]: writing a result as csv, json or parquet;
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
pub mod views;
