//! The Nsight Systems readers: `nsys stats` CSV reports ([`gpu_trace`], [`kern_sum`], split by
//! [`csv`]), and the exported tables of SQLite ([`sqlite`]) and Parquet/Arrow ([`arrow`]) files,
//! which share one table-to-trace step ([`tables`]).

pub mod arrow;
pub(crate) mod csv;
pub mod gpu_trace;
pub(crate) mod interner;
pub mod kern_sum;
pub mod sqlite;
pub mod tables;
