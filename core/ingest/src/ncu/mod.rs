//! The Nsight Compute readers: the `--csv` details page (long), the `--page raw` page (wide) and
//! the report file itself (`.ncu-rep`, [`rep`]), which pivot into the same wide table ([`table`])
//! with the same metric-to-column mapping ([`metrics`]) and unit handling ([`units`]).

pub mod details;
pub mod metrics;
pub mod raw;
pub mod rep;
pub(crate) mod table;
pub mod units;
