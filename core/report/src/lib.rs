//! warpsight-report: everything above the model. Findings and what-if suggestions, per-kernel
//! aggregation, cross-device prediction and diffs ([`analysis`]), and their rendering as
//! terminal tables, markdown, data files and the self-contained HTML review ([`render`]).
//! [`units`] is the leaf both use to print base units as people read them.
//!
//! The dependency order is strict: `units` ← `analysis` ← `render`; analysis computes every number
//! (sweeps, ceilings, findings) and render only draws.
//!
//! # Public API
//!
//! What the `warpsight` binary and a future Python package use:
//!
//! - [`analysis::load::load_paths`] (or [`analysis::read_parts::read_in_parts`] for one large
//!   input part by part): the inputs read and stacked into an [`analysis::load::Loaded`];
//!   [`analysis::batch::analyze_files`]: many inputs read and analysed part by part, as
//!   `warpsight analyze` does;
//! - [`analysis::pipeline::analyze`]: the main entry point, model → what-if → rules → findings,
//!   configured by [`analysis::pipeline::AnalysisConfig`] and giving an
//!   [`analysis::pipeline::Analysis`] (launch groups, per-launch rows, [`analysis::findings::Finding`]s);
//!   [`analysis::AnalysisError`]: why it failed;
//! - [`analysis::aggregate::per_kernel`] / [`analysis::aggregate::per_kernel_all`]: the per-kernel
//!   table (columns in [`analysis::report_columns`]); [`analysis::ranked`]: findings ranked by the
//!   time they could save;
//! - [`analysis::predict`], [`analysis::diff`], [`analysis::accuracy`] and [`analysis::sweep`]:
//!   the `predict`, `diff`, `accuracy` and `occupancy` commands' computations;
//! - [`render::views`] and [`render::table`]: which columns each command shows and how;
//!   [`render::output`]: CSV, JSON, Parquet and Arrow output; [`render::report_page`] and
//!   [`render::html`]: the HTML review;
//! - [`error_text::format_error`]: an error as the user reads it (`error:`, `Caused by:`, `hint:`).
//!
//! # Example
//!
//! Analysing an H100 capture shipped in `traces/` with the shipped plugins (the binary gets its
//! registry from `warpsight_plugin_host::load_registry`) and reading its per-kernel table:
//!
//! ```
//! use std::path::PathBuf;
//! use warpsight_ingest::ReadConfig;
//! use warpsight_report::analysis::pipeline::{AnalysisConfig, analyze};
//! use warpsight_report::analysis::{aggregate, load, report_columns};
//!
//! let path = PathBuf::from(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../traces/h100-80gb-hbm3/sgemm.ncu-raw.csv"
//! ));
//! let loaded = load::load_paths(&[path], &ReadConfig::default(), &|_| {})?;
//! let registry = warpsight_test_support::registry();
//! let analysis = analyze(&loaded, &registry, &AnalysisConfig::default())?;
//! assert!(analysis.launch_count() > 0);
//! let per_kernel = aggregate::per_kernel(&analysis.groups)?;
//! assert!(per_kernel.height() > 0);
//! assert!(per_kernel.column(report_columns::TOTAL_NS).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analysis;
pub mod error_text;
pub mod render;
pub mod units;
