//! Human-readable output: units, terminal and markdown tables, SVG charts and the HTML report.
//!
//! - [`units`]: base units to the units people read (µs, GB/s, TFLOP/s, %, KiB);
//! - [`table`]: the terminal table (comfy-table) and the markdown table;
//! - [`svg`]: a small SVG writer and axis scales;
//! - [`roofline_chart`]: the roofline chart;
//! - [`occupancy_chart`]: occupancy-vs-parameter sweep charts;
//! - [`html`]: the self-contained HTML report page.

pub mod occupancy_chart;
pub mod roofline_chart;
pub mod svg;
pub mod table;
pub mod units;
