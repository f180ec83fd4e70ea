//! The launch table: one row per kernel launch, in base units, whatever export it came from.
//!
//! Every reader of this crate produces a polars `DataFrame` whose known columns are the ones
//! listed in `COLUMNS` (named by the constants in [`col`]) with exactly the dtypes given there.
//! A reader fills what its export has and leaves the rest null; [`conform`] adds missing columns as
//! nulls and casts the known ones, so every reader's output has the same core schema.
//!
//! Units are base units everywhere: bytes, nanoseconds, hertz, cycles, FLOP, instructions, and
//! ratios in 0–1 (never percent). Metrics of the input that have no column here are kept as extra
//! columns after the known ones (see `docs/trace-schema.md` for their naming), also in base units.
//!
//! The column-by-column documentation lives in `docs/trace-schema.md`; keep the two in step.

use polars::prelude::*;

/// Column names of the launch table. Use these constants, never string literals, in the code.
pub mod column_names {
    /// Path of the export this row was read from, as given on the command line.
    pub const SOURCE_FILE: &str = "source_file";
    /// The detected (or forced) input format, e.g. `ncu-details` (see `ingest::Format::name`).
    pub const FORMAT: &str = "format";
    /// Launch identifier within the source file (ncu `ID`, nsys `CorrId`/`correlationId`).
    pub const LAUNCH_ID: &str = "launch_id";
    /// Operating-system process id.
    pub const PROCESS_ID: &str = "process_id";
    /// Process (executable) name.
    pub const PROCESS_NAME: &str = "process_name";
    /// CUDA device ordinal.
    pub const DEVICE_ORDINAL: &str = "device_ordinal";
    /// Device marketing name, e.g. `NVIDIA H200`.
    pub const DEVICE_NAME: &str = "device_name";
    /// Compute capability, major part.
    pub const CC_MAJOR: &str = "cc_major";
    /// Compute capability, minor part.
    pub const CC_MINOR: &str = "cc_minor";
    /// Demangled kernel name (with template arguments and parameter list when the export has them).
    pub const KERNEL_NAME: &str = "kernel_name";
    /// Short kernel name: the function name without template arguments, namespaces or parameters.
    pub const KERNEL_SHORT_NAME: &str = "kernel_short_name";
    /// Grid dimension x (blocks).
    pub const GRID_X: &str = "grid_x";
    /// Grid dimension y (blocks).
    pub const GRID_Y: &str = "grid_y";
    /// Grid dimension z (blocks).
    pub const GRID_Z: &str = "grid_z";
    /// Block dimension x (threads).
    pub const BLOCK_X: &str = "block_x";
    /// Block dimension y (threads).
    pub const BLOCK_Y: &str = "block_y";
    /// Block dimension z (threads).
    pub const BLOCK_Z: &str = "block_z";
    /// Registers per thread as allocated for the launch.
    pub const REGISTERS_PER_THREAD: &str = "registers_per_thread";
    /// Static shared memory per block, bytes.
    pub const STATIC_SMEM_BYTES: &str = "static_smem_bytes";
    /// Dynamic shared memory per block, bytes.
    pub const DYNAMIC_SMEM_BYTES: &str = "dynamic_smem_bytes";
    /// Shared memory reserved by the driver per block, bytes (1024 on CC >= 8.0 in ncu reports).
    pub const DRIVER_SMEM_BYTES: &str = "driver_smem_bytes";
    /// Shared memory configuration size (the SM carveout the driver chose), bytes.
    pub const SMEM_CONFIG_BYTES: &str = "smem_config_bytes";
    /// Start of the launch, ns. nsys: session timeline; ncu variant A: Unix epoch of `Kernel Time`.
    pub const START_NS: &str = "start_ns";
    /// Measured duration of the launch, ns.
    pub const DURATION_NS: &str = "duration_ns";
    /// CUDA context id.
    pub const CONTEXT: &str = "context";
    /// CUDA stream id.
    pub const STREAM: &str = "stream";
    /// Number of SMs of the device the launch ran on.
    pub const SM_COUNT: &str = "sm_count";
    /// SM clock during the launch, Hz.
    pub const SM_CLOCK_HZ: &str = "sm_clock_hz";
    /// DRAM clock during the launch, Hz.
    pub const DRAM_CLOCK_HZ: &str = "dram_clock_hz";
    /// Whether ncu ran the launch with locked clocks (`.ncu-rep` ClockStatus ExecutedLocked: 1 or
    /// 0). Not a known column: only `.ncu-rep` reports say it, and only they have the column.
    pub const CLOCKS_LOCKED: &str = "ncu_clocks_locked";
    /// Achieved occupancy reported by the profiler, 0–1.
    pub const ACHIEVED_OCCUPANCY: &str = "achieved_occupancy";
    /// Theoretical occupancy as the profiler (ncu) computed it, 0–1; kept for cross-checks.
    pub const NCU_THEORETICAL_OCCUPANCY: &str = "ncu_theoretical_occupancy";
    /// Theoretical active warps per SM as ncu computed it.
    pub const NCU_THEORETICAL_WARPS: &str = "ncu_theoretical_warps";
    /// ncu "Block Limit Registers".
    pub const NCU_BLOCK_LIMIT_REGISTERS: &str = "ncu_block_limit_registers";
    /// ncu "Block Limit Shared Mem".
    pub const NCU_BLOCK_LIMIT_SHARED_MEM: &str = "ncu_block_limit_shared_mem";
    /// ncu "Block Limit Warps".
    pub const NCU_BLOCK_LIMIT_WARPS: &str = "ncu_block_limit_warps";
    /// ncu "Block Limit SM" (the blocks-per-SM slot limit).
    pub const NCU_BLOCK_LIMIT_SM: &str = "ncu_block_limit_sm";
    /// ncu "Block Limit Barriers" (CC >= 9.0 exports).
    pub const NCU_BLOCK_LIMIT_BARRIERS: &str = "ncu_block_limit_barriers";
    /// SM cycles elapsed during the launch (`sm__cycles_elapsed.avg`, else ncu "Elapsed Cycles").
    pub const SM_CYCLES_ELAPSED: &str = "sm_cycles_elapsed";
    /// Bytes read from DRAM.
    pub const DRAM_BYTES_READ: &str = "dram_bytes_read";
    /// Bytes written to DRAM.
    pub const DRAM_BYTES_WRITE: &str = "dram_bytes_write";
    /// Bytes moved at L2 (`lts__t_bytes.sum`).
    pub const L2_BYTES: &str = "l2_bytes";
    /// Bytes moved at L1/TEX (`l1tex__t_bytes.sum`).
    pub const L1_BYTES: &str = "l1_bytes";
    /// Thread-level FP32 add instructions executed (`..._op_fadd_pred_on.sum`).
    pub const INST_FADD: &str = "inst_fadd";
    /// Thread-level FP32 multiply instructions executed.
    pub const INST_FMUL: &str = "inst_fmul";
    /// Thread-level FP32 fused multiply-add instructions executed.
    pub const INST_FFMA: &str = "inst_ffma";
    /// Thread-level FP64 add instructions executed.
    pub const INST_DADD: &str = "inst_dadd";
    /// Thread-level FP64 multiply instructions executed.
    pub const INST_DMUL: &str = "inst_dmul";
    /// Thread-level FP64 fused multiply-add instructions executed.
    pub const INST_DFMA: &str = "inst_dfma";
    /// Thread-level FP16 add instructions executed.
    pub const INST_HADD: &str = "inst_hadd";
    /// Thread-level FP16 multiply instructions executed.
    pub const INST_HMUL: &str = "inst_hmul";
    /// Thread-level FP16 fused multiply-add instructions executed.
    pub const INST_HFMA: &str = "inst_hfma";
    /// Warp-level instructions issued to the tensor pipe (`sm__inst_executed_pipe_tensor.sum`).
    pub const INST_TENSOR: &str = "inst_tensor";
    /// Warp-level instructions executed (`sm__inst_executed.sum` / `smsp__inst_executed.sum`).
    ///
    /// Not `inst_executed`: that is ncu's own SourceCounters metric, which keeps its column under
    /// its native name (see `is_native_ncu_name`).
    pub const INST_EXECUTED: &str = "warp_inst_executed";
}

/// The known columns of the launch table, in order, with their dtypes.
pub(crate) const COLUMNS: &[(&str, ColumnType)] = &[
    (column_names::SOURCE_FILE, ColumnType::Str),
    (column_names::FORMAT, ColumnType::Str),
    (column_names::LAUNCH_ID, ColumnType::I64),
    (column_names::PROCESS_ID, ColumnType::I64),
    (column_names::PROCESS_NAME, ColumnType::Str),
    (column_names::DEVICE_ORDINAL, ColumnType::I64),
    (column_names::DEVICE_NAME, ColumnType::Str),
    (column_names::CC_MAJOR, ColumnType::I64),
    (column_names::CC_MINOR, ColumnType::I64),
    (column_names::KERNEL_NAME, ColumnType::Str),
    (column_names::KERNEL_SHORT_NAME, ColumnType::Str),
    (column_names::GRID_X, ColumnType::I64),
    (column_names::GRID_Y, ColumnType::I64),
    (column_names::GRID_Z, ColumnType::I64),
    (column_names::BLOCK_X, ColumnType::I64),
    (column_names::BLOCK_Y, ColumnType::I64),
    (column_names::BLOCK_Z, ColumnType::I64),
    (column_names::REGISTERS_PER_THREAD, ColumnType::I64),
    (column_names::STATIC_SMEM_BYTES, ColumnType::I64),
    (column_names::DYNAMIC_SMEM_BYTES, ColumnType::I64),
    (column_names::DRIVER_SMEM_BYTES, ColumnType::I64),
    (column_names::SMEM_CONFIG_BYTES, ColumnType::I64),
    (column_names::START_NS, ColumnType::I64),
    (column_names::DURATION_NS, ColumnType::F64),
    (column_names::CONTEXT, ColumnType::I64),
    (column_names::STREAM, ColumnType::I64),
    (column_names::SM_COUNT, ColumnType::I64),
    (column_names::SM_CLOCK_HZ, ColumnType::F64),
    (column_names::DRAM_CLOCK_HZ, ColumnType::F64),
    (column_names::ACHIEVED_OCCUPANCY, ColumnType::F64),
    (column_names::NCU_THEORETICAL_OCCUPANCY, ColumnType::F64),
    (column_names::NCU_THEORETICAL_WARPS, ColumnType::F64),
    (column_names::NCU_BLOCK_LIMIT_REGISTERS, ColumnType::I64),
    (column_names::NCU_BLOCK_LIMIT_SHARED_MEM, ColumnType::I64),
    (column_names::NCU_BLOCK_LIMIT_WARPS, ColumnType::I64),
    (column_names::NCU_BLOCK_LIMIT_SM, ColumnType::I64),
    (column_names::NCU_BLOCK_LIMIT_BARRIERS, ColumnType::I64),
    (column_names::SM_CYCLES_ELAPSED, ColumnType::F64),
    (column_names::DRAM_BYTES_READ, ColumnType::F64),
    (column_names::DRAM_BYTES_WRITE, ColumnType::F64),
    (column_names::L2_BYTES, ColumnType::F64),
    (column_names::L1_BYTES, ColumnType::F64),
    (column_names::INST_FADD, ColumnType::F64),
    (column_names::INST_FMUL, ColumnType::F64),
    (column_names::INST_FFMA, ColumnType::F64),
    (column_names::INST_DADD, ColumnType::F64),
    (column_names::INST_DMUL, ColumnType::F64),
    (column_names::INST_DFMA, ColumnType::F64),
    (column_names::INST_HADD, ColumnType::F64),
    (column_names::INST_HMUL, ColumnType::F64),
    (column_names::INST_HFMA, ColumnType::F64),
    (column_names::INST_TENSOR, ColumnType::F64),
    (column_names::INST_EXECUTED, ColumnType::F64),
];

/// The dtype of a known launch-table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColumnType {
    /// UTF-8 string.
    Str,
    /// 64-bit signed integer (counts, ids, sizes in bytes).
    I64,
    /// 64-bit float (durations, rates, ratios, counters that may be fractional).
    F64,
}

impl ColumnType {
    /// The polars dtype of this column type.
    pub(crate) fn dtype(self) -> DataType {
        match self {
            ColumnType::Str => DataType::String,
            ColumnType::I64 => DataType::Int64,
            ColumnType::F64 => DataType::Float64,
        }
    }
}

/// True when `name` is one of the known launch-table columns.
pub fn is_known_column(name: &str) -> bool {
    COLUMNS.iter().any(|(known, _)| *known == name)
}

/// The native ncu metric names that have no `__`: the SourceCounters section's aggregates
/// (`inst_executed`, `thread_inst_executed`, `thread_inst_executed_true`, `memory_*`) and ncu's
/// temporaries (`derived_*`). Every other native ncu metric name contains `__`
/// (`smsp__inst_executed.sum`), seen over every report of `traces/` and `../shared/traces`.
#[cfg(test)]
const NCU_NAMES_WITHOUT_DOUBLE_UNDERSCORE: &[&str] = &[
    "inst_executed",
    "thread_inst_executed",
    "memory_",
    "derived_",
];

/// True when `name` could be a native Nsight Compute metric name. The known columns never are
/// (a unit test checks it), so a native metric always keeps its own column under its ncu name.
#[cfg(test)]
fn is_native_ncu_name(name: &str) -> bool {
    name.contains("__")
        || NCU_NAMES_WITHOUT_DOUBLE_UNDERSCORE
            .iter()
            .any(|family| name.starts_with(family))
}

/// The ncu metric whose instances are the warp-level instructions executed per SASS opcode (one
/// instance per opcode, its correlation id the opcode name, e.g. `FFMA`). Its own column keeps
/// the aggregate (all opcodes together); the per-opcode counts get one column each, named by
/// [`sass_opcode_column`] (issue #23; `docs/trace-schema.md`, *Per-opcode instruction counts*).
pub const SASS_OPCODE_METRIC: &str = "sass__inst_executed_per_opcode";

/// The start of every per-opcode column name: [`SASS_OPCODE_METRIC`] followed by `[`.
pub(crate) const SASS_OPCODE_PREFIX: &str = "sass__inst_executed_per_opcode[";

/// The end of every per-opcode column name.
pub(crate) const SASS_OPCODE_SUFFIX: &str = "]";

/// The launch-table column holding the warp-level instructions executed with SASS opcode
/// `opcode` (as the report names it, e.g. `FFMA`, `IMAD`, `HMMA`):
/// `sass__inst_executed_per_opcode[FFMA]`.
///
/// The column is Float64. In a launch whose report has the per-opcode instances it is the count
/// (0 for an opcode the launch did not execute but another launch of the same input did); in a
/// launch without them it is null.
pub fn sass_opcode_column(opcode: &str) -> String {
    format!("{SASS_OPCODE_PREFIX}{opcode}{SASS_OPCODE_SUFFIX}")
}

/// The opcode a per-opcode column is for (`sass__inst_executed_per_opcode[FFMA]` → `FFMA`), or
/// `None` when `name` is not such a column: the inverse of [`sass_opcode_column`] for every
/// non-empty opcode.
pub fn sass_opcode_of_column(name: &str) -> Option<&str> {
    name.strip_prefix(SASS_OPCODE_PREFIX)?
        .strip_suffix(SASS_OPCODE_SUFFIX)
        .filter(|opcode| !opcode.is_empty())
}

/// Known columns whose values come from the measured time of the launch (issue #11 item 4).
const TIME_DERIVED_KNOWN: &[&str] = &[
    column_names::DURATION_NS,
    column_names::SM_CYCLES_ELAPSED,
    column_names::SM_CLOCK_HZ,
    column_names::DRAM_CLOCK_HZ,
    column_names::ACHIEVED_OCCUPANCY,
];

/// Parts of an ncu native metric name (lower case) that mark a value computed from the measured
/// time: durations, elapsed or active cycles, rates per second or per cycle, percentages of a peak
/// rate, throughputs, achieved (time-averaged) warps, issue activity, stall and PC-sampling counts.
const TIME_DERIVED_NATIVE: &[&str] = &[
    "gpu__time_",
    "time_duration",
    "cycles_elapsed",
    "cycles_active",
    "per_second",
    "pct_of_peak",
    "per_cycle",
    "throughput",
    "achieved",
    "warps_active",
    "issue_active",
    "stall",
    "pcsamp",
];

/// Parts of an ncu details display label (`Section/Label`, lower case) that mark a value computed
/// from the measured time.
const TIME_DERIVED_LABEL: &[&str] = &[
    "duration",
    "frequency",
    "elapsed cycles",
    "active cycles",
    "throughput",
    "achieved",
    "ipc",
    "busy",
    "eligible",
    "issued warp",
    "warp cycles",
    "bandwidth",
    "stall",
];

/// True when the launch-table column `column` is **measured-time-derived**: its value depends on
/// how long the launch took (or on rates and averages over that time), so a model that predicts
/// the time must not read it (issue #11 item 4; the list is in `docs/trace-schema.md`,
/// *Measured-time-derived columns*).
///
/// It recognises the known columns `duration_ns`, `sm_cycles_elapsed`, `sm_clock_hz`,
/// `dram_clock_hz` and `achieved_occupancy`; ncu native metric names (raw-page columns and the
/// details page's `--metrics` columns) containing `gpu__time_`, `cycles_elapsed`, `cycles_active`,
/// `per_second`, `pct_of_peak`, `per_cycle`, `throughput`, `achieved`, `warps_active`,
/// `issue_active`, `stall` or `pcsamp`; and details display labels (`Section/Label`) mentioning a
/// duration, frequency, elapsed or active cycles, throughput, achieved values, IPC, busy,
/// eligible or issued warps, warp cycles, bandwidth, stalls or measured active warps. Counts,
/// ratios of counts (hit rates) and theoretical values (`sm__maximum_warps_per_active_cycle_pct`,
/// *Occupancy / Theoretical Active Warps per SM*) are not time-derived.
pub fn is_time_derived(column: &str) -> bool {
    if TIME_DERIVED_KNOWN.contains(&column) {
        return true;
    }
    let lower = column.to_ascii_lowercase();
    if lower.contains("__") {
        // A native metric name; the label words below would misfire on it.
        return TIME_DERIVED_NATIVE.iter().any(|part| lower.contains(part));
    }
    // A details label `Section/Label` is judged by its label alone (the section `GPU Speed Of
    // Light Throughput` names every metric of its section); labels may contain `/` themselves.
    let label = lower
        .split_once('/')
        .map_or(lower.as_str(), |(_, label)| label);
    TIME_DERIVED_NATIVE.iter().any(|part| label.contains(part))
        || TIME_DERIVED_LABEL.iter().any(|part| label.contains(part))
        || (label.contains("active warps") && !label.starts_with("theoretical"))
}

/// The polars schema of the known columns.
pub(crate) fn known_schema() -> Schema {
    COLUMNS
        .iter()
        .map(|(name, ty)| Field::new((*name).into(), ty.dtype()))
        .collect()
}

/// Brings a reader's frame to the launch-table schema: adds every missing known column as nulls,
/// casts the known columns to their dtypes, and orders the known columns first (in `COLUMNS`
/// order) followed by the extra columns in their original order.
pub fn conform(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let mut frame = frame;
    let present = frame.collect_schema()?;
    let mut exprs: Vec<Expr> = Vec::with_capacity(present.len() + COLUMNS.len());
    for (name, ty) in COLUMNS {
        let expr = if present.contains(name) {
            col(*name).strict_cast(ty.dtype())
        } else {
            lit(NULL).cast(ty.dtype()).alias(*name)
        };
        exprs.push(expr);
    }
    for name in present.iter_names() {
        if !is_known_column(name.as_str()) {
            exprs.push(col(name.clone()));
        }
    }
    Ok(frame.select(exprs))
}

/// An empty launch table with only the known columns.
pub fn empty() -> DataFrame {
    DataFrame::empty_with_schema(&known_schema())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_known_column_can_shadow_a_native_ncu_metric() {
        for (name, _) in COLUMNS {
            assert!(
                !is_native_ncu_name(name),
                "{name} could be an ncu metric name"
            );
        }
        for native in [
            "inst_executed",
            "thread_inst_executed_true",
            "memory_l2_theoretical_sectors_global",
            "derived_tempMetric0",
            "smsp__inst_executed.sum",
        ] {
            assert!(is_native_ncu_name(native), "{native}");
        }
    }

    #[test]
    fn conform_adds_missing_columns_and_keeps_extras_last() -> PolarsResult<()> {
        let frame = df!(
            "extra / metric" => [1.5f64],
            column_names::LAUNCH_ID => [7i32],
        )?;
        let out = conform(frame.lazy())?.collect()?;
        assert_eq!(out.width(), COLUMNS.len() + 1);
        assert_eq!(
            out.column(column_names::LAUNCH_ID)?.dtype(),
            &DataType::Int64
        );
        assert_eq!(out.column(column_names::LAUNCH_ID)?.i64()?.get(0), Some(7));
        assert_eq!(out.column(column_names::KERNEL_NAME)?.null_count(), 1);
        assert_eq!(
            out.get_column_names().last().map(|n| n.as_str()),
            Some("extra / metric")
        );
        Ok(())
    }

    #[test]
    fn time_derived_columns_are_recognised() {
        // Real names from the H100 kit exports (raw page, details `--metrics` rows and labels).
        let derived = [
            column_names::DURATION_NS,
            column_names::SM_CLOCK_HZ,
            column_names::DRAM_CLOCK_HZ,
            column_names::SM_CYCLES_ELAPSED,
            column_names::ACHIEVED_OCCUPANCY,
            "gpu__time_duration.sum",
            "gpu__time_active.sum",
            "sm__cycles_elapsed.avg",
            "sm__cycles_elapsed.avg.per_second",
            "dram__cycles_elapsed.avg.per_second",
            "gpc__cycles_elapsed.max",
            "sm__cycles_active.avg",
            "smsp__cycles_active.avg",
            "dram__bytes_read.sum.per_second",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed.avg.per_cycle_active",
            "sm__warps_active.avg.pct_of_peak_sustained_active",
            "smsp__warps_active.avg.per_cycle_active",
            "smsp__issue_active.avg.per_cycle_active",
            "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
            "smsp__pcsamp_warps_issue_stalled_long_scoreboard",
            "GPU Speed Of Light Throughput/Duration",
            "GPU Speed Of Light Throughput/SM Frequency",
            "GPU Speed Of Light Throughput/DRAM Frequency",
            "GPU Speed Of Light Throughput/Elapsed Cycles",
            "GPU Speed Of Light Throughput/SM Active Cycles",
            "GPU Speed Of Light Throughput/Memory Throughput",
            "GPU Speed Of Light Throughput/Compute (SM) Throughput",
            "Memory Workload Analysis/Memory Throughput",
            "Memory Workload Analysis/Mem Busy",
            "Memory Workload Analysis/Max Bandwidth",
            "Compute Workload Analysis/Executed Ipc Active",
            "Compute Workload Analysis/SM Busy",
            "Occupancy/Achieved Occupancy",
            "Occupancy/Achieved Active Warps Per SM",
            "Scheduler Statistics/Active Warps Per Scheduler",
            "Scheduler Statistics/Eligible Warps Per Scheduler",
            "Scheduler Statistics/Issued Warp Per Scheduler",
            "Warp State Statistics/Warp Cycles Per Issued Instruction",
            "Command line profiler metrics/gpu__time_duration.sum",
            "Compute Workload Analysis/Executed Ipc Elapsed",
            "Memory Workload Analysis/Mem Pipes Busy",
            "Scheduler Statistics/One or More Eligible",
            "Scheduler Statistics/No Eligible",
            "GPU and Memory Workload Distribution/Average DRAM Active Cycles",
            "GPU and Memory Workload Distribution/Total SM Elapsed Cycles",
        ];
        for name in derived {
            assert!(is_time_derived(name), "{name} should be time-derived");
        }
        let counts = [
            column_names::GRID_X,
            column_names::REGISTERS_PER_THREAD,
            column_names::DRAM_BYTES_READ,
            column_names::INST_EXECUTED,
            column_names::NCU_THEORETICAL_OCCUPANCY,
            column_names::START_NS,
            "smsp__inst_executed.sum",
            "smsp__inst_issued.sum",
            "sm__warps_launched.sum",
            "sm__inst_executed_pipe_fma.sum",
            "sm__inst_executed_pipe_tensor_op_hmma.sum",
            "sass__inst_executed_per_opcode",
            "sass__inst_executed_per_opcode[FFMA]",
            "dram__bytes_read.sum",
            "lts__t_bytes.sum",
            "l1tex__t_bytes.sum",
            "l1tex__t_sector_hit_rate.pct",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
            "smsp__inst_executed_op_branch.sum",
            "sm__maximum_warps_per_active_cycle_pct",
            "sm__maximum_warps_avg_per_active_cycle",
            "launch__occupancy_limit_registers",
            "launch__waves_per_multiprocessor",
            "device__attribute_multiprocessor_count",
            "Occupancy/Theoretical Active Warps per SM",
            "Occupancy/Theoretical Occupancy",
            "Launch Statistics/Waves Per SM",
            "Memory Workload Analysis/L1/TEX Hit Rate",
            "Warp State Statistics/Avg. Active Threads Per Warp",
            "Instruction Statistics/Executed Instructions",
            "Source Counters/Branch Instructions",
            "Source Counters/Branch Efficiency",
            "Memory Workload Analysis/L2 Hit Rate",
            "Launch Statistics/Registers Per Thread",
            "Host Name",
        ];
        for name in counts {
            assert!(!is_time_derived(name), "{name} should not be time-derived");
        }
    }

    #[test]
    fn opcode_columns_round_trip_and_nothing_else_parses() {
        assert_eq!(
            sass_opcode_column("FFMA"),
            "sass__inst_executed_per_opcode[FFMA]"
        );
        for opcode in ["FFMA", "IADD3", "R2UR", "HMMA", "odd]name", "A B"] {
            assert_eq!(
                sass_opcode_of_column(&sass_opcode_column(opcode)),
                Some(opcode)
            );
        }
        for name in [
            SASS_OPCODE_METRIC,
            "sass__inst_executed_per_opcode[]",
            "sass__inst_executed_per_opcode[FFMA",
            "sass__inst_executed_per_opcode_with_modifier_all",
            "sass__inst_executed_per_opcode_category",
            "sm__inst_executed_pipe_fma.sum",
            column_names::INST_FFMA,
        ] {
            assert_eq!(sass_opcode_of_column(name), None, "{name}");
        }
        assert!(SASS_OPCODE_PREFIX.starts_with(SASS_OPCODE_METRIC));
        assert!(is_native_ncu_name(&sass_opcode_column("FFMA")));
        assert!(!is_known_column(&sass_opcode_column("FFMA")));
    }

    #[test]
    fn column_names_are_unique() {
        let mut names: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COLUMNS.len());
    }
}
