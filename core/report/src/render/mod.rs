//! Human-readable output: tables, SVG charts and the HTML report, drawn from what [`crate::analysis`]
//! computed.
//!
//! - [`table`]: display columns, readable cells and the markdown table;
//! - [`views`]: which columns each command shows, and the derived configuration text;
//! - [`output`]: writing a result as csv, json or parquet;
//! - `svg`: a small SVG writer and axis scales;
//! - `label_layout`: non-overlapping placement of the charts' marker numbers;
//! - `roofline_chart`: the roofline chart;
//! - `scatter_chart`: predicted against measured time;
//! - `bar_chart`: the top kernels by share of GPU time;
//! - [`occupancy_chart`]: occupancy-vs-parameter sweep charts;
//! - `html_table`: fixed-width HTML tables with hover texts and sort keys;
//! - `table_sort`, [`layout_check`]: the page's inline scripts;
//! - [`html`]: the self-contained HTML page;
//! - [`report_page`]: the report's content assembled from an analysis;
//! - [`spec_json`]: architectures, devices and an occupancy result as JSON.

pub(crate) mod bar_chart;
pub mod html;
pub(crate) mod html_table;
pub(crate) mod label_layout;
pub mod layout_check;
pub mod occupancy_chart;
pub mod output;
pub mod report_page;
pub(crate) mod roofline_chart;
pub(crate) mod scatter_chart;
pub mod spec_json;
pub(crate) mod svg;
pub mod table;
pub(crate) mod table_sort;
pub mod views;
