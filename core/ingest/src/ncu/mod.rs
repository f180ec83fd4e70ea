//! The Nsight Compute readers: the `--csv` details page (long), the `--page raw` page (wide) and
//! the report file itself (`.ncu-rep`, [`rep`]), which pivot into the same wide table ([`table`])
//! with the same metric-to-column mapping (`metrics`) and unit handling (`units`).

pub(crate) mod details;
pub(crate) mod metrics;
pub(crate) mod raw;
pub mod rep;
pub mod table;
pub(crate) mod units;
