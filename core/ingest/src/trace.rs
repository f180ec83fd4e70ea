//! What reading one export gives: the launch table plus the side tables some formats carry.
//!
//! - `launches`: the launch table ([`crate::launch_table`]), one row per kernel launch.
//! - `side`: the side tables ([`SideTables`]), the same three wherever they are carried (a
//!   [`Trace`], a [`crate::BatchSummary`], the analysis's stacked inputs):
//!   - `rules`: Nsight Compute's own rule results (its advice), one row per (launch, rule); see
//!     [`rules_col`].
//!   - `transfers`: Nsight Systems memcpy / memset rows; see [`transfers_col`].
//!   - `kernel_summary`: Nsight Systems `cuda_gpu_kern_sum` per-name aggregates; see
//!     [`kernel_summary_col`]. These are never turned into fake launches.
//! - `rejected`: rows that could not be used, counted and described (never dropped silently).
//!
//! Every table is a polars `DataFrame`; a format without a table leaves it empty (zero rows, with
//! the documented columns).

use polars::prelude::*;

/// Column names of the `rules` table (ncu rule rows).
pub mod rules_col {
    /// Source file path.
    pub const SOURCE_FILE: &str = "source_file";
    /// Launch id the rule applies to.
    pub const LAUNCH_ID: &str = "launch_id";
    /// Kernel name of that launch.
    pub const KERNEL_NAME: &str = "kernel_name";
    /// Section identifier, e.g. `SpeedOfLight`, `Occupancy`.
    pub const SECTION: &str = "section";
    /// Rule name, e.g. `SOLBottleneck`.
    pub const RULE_NAME: &str = "rule_name";
    /// Rule type: `OPT`, `WRN`, `INF` (or `ERR`).
    pub const RULE_TYPE: &str = "rule_type";
    /// The rule's text, unchanged.
    pub const DESCRIPTION: &str = "description";
    /// `global`, `local` or null.
    pub const SPEEDUP_TYPE: &str = "estimated_speedup_type";
    /// Estimated speedup as a fraction 0–1 (ncu prints percent), or null.
    pub const ESTIMATED_SPEEDUP: &str = "estimated_speedup";
}

/// Column names of the `transfers` table (nsys memcpy / memset rows).
pub mod transfers_col {
    /// Source file path.
    pub const SOURCE_FILE: &str = "source_file";
    /// `memcpy` or `memset`.
    pub const KIND: &str = "kind";
    /// `Host-to-Device`, `Device-to-Host`, `Device-to-Device`, `Peer-to-Peer`, ... (null for memset).
    pub const DIRECTION: &str = "direction";
    /// Bytes moved or set.
    pub const BYTES: &str = "bytes";
    /// Start, ns on the session timeline.
    pub const START_NS: &str = "start_ns";
    /// Duration, ns.
    pub const DURATION_NS: &str = "duration_ns";
    /// Correlation id of the memcpy/memset (`CorrId` in nsys exports), where the export has it.
    pub const CORRELATION_ID: &str = "correlation_id";
    /// Source memory kind (`Pageable`, `Pinned`, `Device`, ...).
    pub const SRC_KIND: &str = "src_kind";
    /// Destination memory kind.
    pub const DST_KIND: &str = "dst_kind";
    /// Device name.
    pub const DEVICE_NAME: &str = "device_name";
    /// Device ordinal.
    pub const DEVICE_ORDINAL: &str = "device_ordinal";
    /// Stream id.
    pub const STREAM: &str = "stream";
}

/// Column names of the `kernel_summary` table (nsys `cuda_gpu_kern_sum`).
pub mod kernel_summary_col {
    /// Source file path.
    pub const SOURCE_FILE: &str = "source_file";
    /// Kernel name as printed by nsys.
    pub const KERNEL_NAME: &str = "kernel_name";
    /// Share of total GPU kernel time, 0–1.
    pub const TIME_SHARE: &str = "time_share";
    /// Total time, ns.
    pub const TOTAL_NS: &str = "total_ns";
    /// Number of launches.
    pub const INSTANCES: &str = "instances";
    /// Mean duration, ns.
    pub const AVG_NS: &str = "avg_ns";
    /// Median duration, ns.
    pub const MED_NS: &str = "med_ns";
    /// Minimum duration, ns.
    pub const MIN_NS: &str = "min_ns";
    /// Maximum duration, ns.
    pub const MAX_NS: &str = "max_ns";
    /// Standard deviation of durations, ns.
    pub const STDDEV_NS: &str = "stddev_ns";
}

/// A row of the input that could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedRow {
    /// 1-based physical line (text formats) or row number (tables) where the record starts; for a
    /// launch with a value out of range (`validate.rs`), its 1-based row in the launch table.
    pub line: u64,
    /// Why it was rejected, e.g. "expected a number in `Metric Value`, found `abc`".
    pub reason: String,
}

impl RejectedRow {
    /// Whether this row is a launch that ncu failed to profile (grid (0, 0, 0), no counter
    /// values; [`crate::PROFILING_FAILED`]) rather than an unusable record.
    pub fn profiling_failed(&self) -> bool {
        self.reason.contains(crate::PROFILING_FAILED)
    }
}

/// With `strict`, the error for the first of `rejected` (which are in line order); otherwise
/// `Ok`, and the rows stay in the trace.
pub(crate) fn refuse_rejected(
    path: &std::path::Path,
    strict: bool,
    rejected: &[RejectedRow],
) -> Result<(), crate::IngestError> {
    match rejected.first() {
        Some(first) if strict => Err(crate::IngestError::StrictRejected {
            path: path.to_path_buf(),
            line: first.line,
            reason: first.reason.clone(),
        }),
        _ => Ok(()),
    }
}

/// An input's tables besides the launch table. A format without one of them leaves it empty.
#[derive(Debug, Clone)]
pub struct SideTables {
    /// ncu rule rows (empty for other formats); see [`rules_col`].
    pub rules: DataFrame,
    /// nsys memcpy / memset rows (empty for other formats); see [`transfers_col`].
    pub transfers: DataFrame,
    /// nsys per-kernel-name aggregates (empty for other formats); see [`kernel_summary_col`].
    pub kernel_summary: DataFrame,
}

impl Default for SideTables {
    fn default() -> Self {
        SideTables {
            rules: DataFrame::empty(),
            transfers: DataFrame::empty(),
            kernel_summary: DataFrame::empty(),
        }
    }
}

/// Everything read from one export.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The detected (or forced) format; [`crate::Format::name`] is its name, e.g. `ncu-details`.
    pub format: crate::Format,
    /// The launch table (see [`crate::launch_table`]).
    pub launches: DataFrame,
    /// The rule rows, transfers and kernel summaries (empty where the format has none).
    pub side: SideTables,
    /// Rows that could not be used. With `--strict` the reader fails instead.
    pub rejected: Vec<RejectedRow>,
}

impl Trace {
    /// A trace of the given format with every table empty.
    pub fn empty(format: crate::Format) -> Self {
        Trace {
            format,
            launches: crate::launch_table::empty(),
            side: SideTables::default(),
            rejected: Vec::new(),
        }
    }

    /// Number of distinct launches (rows of the launch table).
    pub fn launch_count(&self) -> usize {
        self.launches.height()
    }
}
