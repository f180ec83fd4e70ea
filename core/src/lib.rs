//! warpsight: explain and predict GPU kernel performance from Nsight Compute and Nsight Systems
//! exports.
//!
//! The library is organised by concept so that a newcomer finds where a number is computed from the
//! folder names alone:
//! - [`launch_table`]: the one table every reader produces (one row per kernel launch, base units);
//! - [`trace`]: what reading one file gives (launches plus side tables such as ncu's rule rows);
//! - [`ingest`]: readers for every supported export, format detection and batch reading;
//! - [`arch`]: the per-architecture and per-device numbers the model needs (filled by plugins);
//! - [`plugin_host`]: discovery, loading and validation of architecture plugins;
//! - [`model`]: occupancy, Little's law, roofline, waves and the predicted time;
//! - [`analysis`]: findings, what-if suggestions, per-kernel aggregation, predict and diff;
//! - [`render`]: human-readable units, terminal tables and the HTML/SVG report.
//!
//! The binary (`src/main.rs` and [`cli`]) is a thin layer over these modules.

pub mod analysis;
pub mod arch;
pub mod cli;
pub mod ingest;
pub mod launch_table;
pub mod model;
pub mod plugin_host;
pub mod render;
pub mod trace;
