//! The Nsight Systems readers: `nsys stats` CSV reports (`gpu_trace`, `kern_sum`, which share
//! `stats_csv` and `header` on top of `crate::csv_records`), and the exported tables of
//! SQLite (`sqlite`, whose column builders are `column_builder`) and Parquet/Arrow (`arrow`)
//! files, which share one table-to-trace step ([`tables`]).

pub(crate) mod arrow;
pub(crate) mod column_builder;
pub(crate) mod gpu_trace;
pub(crate) mod header;
pub(crate) mod interner;
pub(crate) mod kern_sum;
pub(crate) mod sqlite;
pub(crate) mod stats_csv;
pub mod tables;
