//! Nsight Systems export tables (SQLite, Parquet, Arrow) turned into a [`Trace`].
//!
//! The SQLite, `parquetdir` and `arrowdir` exports hold the same tables with the same column names;
//! each reader loads them as polars frames ([`NsysTables`]) and this module does the rest with
//! lazy expressions and joins:
//! - `CUPTI_ACTIVITY_KIND_KERNEL` rows become launches; names come from `StringIds`, the device's
//!   name, SM count, clock, compute capability and limits from `TARGET_INFO_GPU`, process names
//!   from `PROCESSES`. Kernel columns beyond the ones mapped are kept as `nsys_<snake_case>` extra
//!   columns, so both the 27-column (2023) and the 38-column (2025+) schemas work.
//! - `CUPTI_ACTIVITY_KIND_MEMCPY` / `_MEMSET` rows become transfers, with labels from
//!   `ENUM_CUDA_MEMCPY_OPER` / `ENUM_CUDA_MEM_KIND` (or the documented values when those tables
//!   are missing).
//! - Kernel rows missing a timestamp or launch dimension are rejected with their row number.

use std::path::Path;

use polars::prelude::*;

use crate::{Format, IngestError, ReadConfig};
use crate::launch_table::{self, col};
use crate::trace::{RejectedRow, Trace, transfers_col};

/// Table names of the nsys export that warpsight reads.
pub mod table {
    /// Kernel launches.
    pub const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
    /// memcpy activity.
    pub const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
    /// memset activity.
    pub const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
    /// Interned strings (`id`, `value`).
    pub const STRING_IDS: &str = "StringIds";
    /// Per-GPU properties and limits.
    pub const TARGET_INFO_GPU: &str = "TARGET_INFO_GPU";
    /// Process names (`globalPid`, `pid`, `name`).
    pub const PROCESSES: &str = "PROCESSES";
    /// memcpy direction labels.
    pub const ENUM_MEMCPY_OPER: &str = "ENUM_CUDA_MEMCPY_OPER";
    /// Memory kind labels.
    pub const ENUM_MEM_KIND: &str = "ENUM_CUDA_MEM_KIND";
    /// Every table the readers load, in loading order.
    pub const ALL: &[&str] = &[
        KERNEL,
        MEMCPY,
        MEMSET,
        STRING_IDS,
        TARGET_INFO_GPU,
        PROCESSES,
        ENUM_MEMCPY_OPER,
        ENUM_MEM_KIND,
    ];
}

/// The tables of one export; a missing table is `None`.
#[derive(Default, Clone)]
pub struct NsysTables {
    /// `CUPTI_ACTIVITY_KIND_KERNEL`.
    pub kernels: Option<LazyFrame>,
    /// `CUPTI_ACTIVITY_KIND_MEMCPY`.
    pub memcpy: Option<LazyFrame>,
    /// `CUPTI_ACTIVITY_KIND_MEMSET`.
    pub memset: Option<LazyFrame>,
    /// `StringIds` (may be limited to the ids the other tables reference).
    pub string_ids: Option<LazyFrame>,
    /// `TARGET_INFO_GPU`.
    pub gpus: Option<LazyFrame>,
    /// `PROCESSES`.
    pub processes: Option<LazyFrame>,
    /// `ENUM_CUDA_MEMCPY_OPER`.
    pub memcpy_oper: Option<LazyFrame>,
    /// `ENUM_CUDA_MEM_KIND`.
    pub mem_kind: Option<LazyFrame>,
}

impl NsysTables {
    /// Stores `frame` as the table called `name` (ignored when warpsight does not read it).
    pub fn set(&mut self, name: &str, frame: LazyFrame) {
        let slot = match name {
            table::KERNEL => &mut self.kernels,
            table::MEMCPY => &mut self.memcpy,
            table::MEMSET => &mut self.memset,
            table::STRING_IDS => &mut self.string_ids,
            table::TARGET_INFO_GPU => &mut self.gpus,
            table::PROCESSES => &mut self.processes,
            table::ENUM_MEMCPY_OPER => &mut self.memcpy_oper,
            table::ENUM_MEM_KIND => &mut self.mem_kind,
            _ => return,
        };
        *slot = Some(frame);
    }
}

/// Kernel columns that fill launch-table columns (or are consumed as lookup keys).
const MAPPED_KERNEL_COLUMNS: &[&str] = &[
    "start",
    "end",
    "deviceId",
    "contextId",
    "streamId",
    "correlationId",
    "globalPid",
    "demangledName",
    "shortName",
    "mangledName",
    "registersPerThread",
    "gridX",
    "gridY",
    "gridZ",
    "blockX",
    "blockY",
    "blockZ",
    "staticSharedMemory",
    "dynamicSharedMemory",
    "sharedMemoryExecuted",
];

/// Extra launch-table column with the mangled kernel name (`mangledName` through `StringIds`).
pub const MANGLED_NAME_COLUMN: &str = "nsys_mangled_name";

/// Kernel columns without which a row is not a usable launch.
const REQUIRED_KERNEL_COLUMNS: &[&str] = &[
    "start", "end", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
];

/// `TARGET_INFO_GPU` columns copied onto launches: (nsys column, launch-table column, is text).
const GPU_COLUMNS: &[(&str, &str, bool)] = &[
    ("name", col::DEVICE_NAME, true),
    ("smCount", col::SM_COUNT, false),
    ("computeMajor", col::CC_MAJOR, false),
    ("computeMinor", col::CC_MINOR, false),
    ("chipName", "device_chip_name", true),
    ("maxShmemPerSm", "device_max_shmem_per_sm", false),
    ("maxShmemPerBlock", "device_max_shmem_per_block", false),
    (
        "maxShmemPerBlockOptin",
        "device_max_shmem_per_block_optin",
        false,
    ),
    ("maxRegistersPerSm", "device_max_registers_per_sm", false),
    (
        "maxRegistersPerBlock",
        "device_max_registers_per_block",
        false,
    ),
    ("maxWarpsPerSm", "device_max_warps_per_sm", false),
    ("maxBlocksPerSm", "device_max_blocks_per_sm", false),
    ("maxThreadsPerBlock", "device_max_threads_per_block", false),
    ("threadsPerWarp", "device_threads_per_warp", false),
    ("l2CacheSize", "device_l2_cache_bytes", false),
    ("totalMemory", "device_memory_bytes", false),
    (
        "memoryBandwidth",
        "device_memory_bandwidth_bytes_per_s",
        false,
    ),
];

/// The documented `ENUM_CUDA_MEMCPY_OPER` labels, used when the export lacks that table.
const MEMCPY_OPER_LABELS: &[(i64, &str)] = &[
    (0, "Unknown"),
    (1, "Host-to-Device"),
    (2, "Device-to-Host"),
    (3, "Host-to-Array"),
    (4, "Array-to-Host"),
    (5, "Array-to-Array"),
    (6, "Array-to-Device"),
    (7, "Device-to-Array"),
    (8, "Device-to-Device"),
    (9, "Host-to-Host"),
    (10, "Peer-to-Peer"),
];

/// The documented `ENUM_CUDA_MEM_KIND` labels, used when the export lacks that table.
const MEM_KIND_LABELS: &[(i64, &str)] = &[
    (0, "Pageable"),
    (1, "Pinned"),
    (2, "Device"),
    (3, "Array"),
    (4, "Managed"),
    (5, "Device Static"),
    (6, "Managed Static"),
    (7, "Unknown"),
];

/// `camelCase` to `snake_case` (`sharedMemoryLimitConfig` -> `shared_memory_limit_config`).
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The extra launch-table column name of an nsys kernel column that has no launch-table column.
pub fn extra_kernel_column(name: &str) -> String {
    format!("nsys_{}", snake_case(name))
}

/// Builds the trace of an nsys table export read from `path` as `format`.
pub fn build_trace(
    path: &Path,
    format: Format,
    tables: NsysTables,
    config: &ReadConfig,
) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let source = path.display().to_string();
    let mut trace = Trace::empty(format.name());
    if let Some(kernels) = tables.kernels.clone() {
        let (launches, rejected) = build_launches(path, format, &source, kernels, &tables)?;
        if config.strict
            && let Some(first) = rejected.first()
        {
            return Err(IngestError::StrictRejected {
                path: path.to_path_buf(),
                line: first.line,
                reason: first.reason.clone(),
            });
        }
        if !rejected.is_empty() {
            tracing::warn!(path = %path.display(), rejected = rejected.len(), "some kernel rows were rejected");
        }
        trace.launches = launches;
        trace.rejected = rejected;
    } else {
        tracing::info!(path = %path.display(), "no {} table: the export holds no kernel launches", table::KERNEL);
    }
    trace.transfers = build_transfers(&source, &tables).map_err(polars)?;
    Ok(trace)
}

/// The names of the columns of a lazy frame.
fn column_names(frame: &mut LazyFrame) -> PolarsResult<Vec<String>> {
    Ok(frame
        .collect_schema()?
        .iter_names()
        .map(|n| n.to_string())
        .collect())
}

/// Left join that keeps the left order.
fn left_join(left: LazyFrame, right: LazyFrame, left_on: &str, right_on: &str) -> LazyFrame {
    left.join_builder()
        .with(right)
        .how(JoinType::Left)
        .left_on([col(left_on)])
        .right_on([col(right_on)])
        .maintain_order(MaintainOrderJoin::Left)
        .finish()
}

/// A two-column lookup table (`key` Int64, `value`) from `frame`'s `key_column` and
/// `value_column`, one row per key.
fn lookup(frame: LazyFrame, key_column: &str, value: Expr, key: &str) -> LazyFrame {
    frame
        .select([col(key_column).cast(DataType::Int64).alias(key), value])
        .unique_stable_generic(Some(vec![col(key)]), UniqueKeepStrategy::First)
}

/// For each row of `keys`, the row of `table_keys` holding the same value (the first one when it
/// repeats), or null. Lookups against the small side tables (`StringIds`, `TARGET_INFO_GPU`,
/// `PROCESSES`) are done this way rather than by joining the large kernel frame, so that the
/// kernel columns are never copied; the gathered string columns share the side table's bytes.
fn lookup_indices(keys: &Column, table_keys: &Column) -> PolarsResult<IdxCa> {
    let table_keys = table_keys.cast(&DataType::Int64)?;
    let mut positions: PlHashMap<i64, IdxSize> = PlHashMap::with_capacity(table_keys.len());
    for (position, key) in table_keys.i64()?.iter().enumerate() {
        if let Some(key) = key {
            positions.entry(key).or_insert(position as IdxSize);
        }
    }
    let keys = keys.cast(&DataType::Int64)?;
    let mut last: Option<(i64, Option<IdxSize>)> = None;
    let indices: IdxCa = keys
        .i64()?
        .iter()
        .map(|key| {
            let key = key?;
            if let Some((previous, found)) = last
                && previous == key
            {
                return found;
            }
            let found = positions.get(&key).copied();
            last = Some((key, found));
            found
        })
        .collect();
    Ok(indices)
}

/// The columns looked up from the side tables for every kernel row: names, device properties and
/// process names. Returns the columns and the names of the device columns among them.
fn side_columns(
    path: &Path,
    kernel: &DataFrame,
    tables: &NsysTables,
) -> Result<(Vec<Column>, Vec<String>), IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let mut columns = Vec::new();

    // Names: text columns are used as they are; id columns go through `StringIds`.
    let string_ids = match &tables.string_ids {
        Some(ids) => Some(
            ids.clone()
                .select([
                    col("id").cast(DataType::Int64),
                    col("value").cast(DataType::String),
                ])
                .collect()
                .map_err(polars)?,
        ),
        None => None,
    };
    for (id_column, output) in [
        ("demangledName", col::KERNEL_NAME),
        ("shortName", col::KERNEL_SHORT_NAME),
        ("mangledName", MANGLED_NAME_COLUMN),
    ] {
        let Ok(ids) = kernel.column(id_column) else {
            continue;
        };
        if ids.dtype() == &DataType::String {
            columns.push(ids.clone().with_name(output.into()));
        } else if let Some(strings) = &string_ids {
            let indices =
                lookup_indices(ids, strings.column("id").map_err(polars)?).map_err(polars)?;
            let names = strings
                .column("value")
                .map_err(polars)?
                .take(&indices)
                .map_err(polars)?;
            columns.push(names.with_name(output.into()));
        }
    }

    // Device properties, by `deviceId`.
    let mut gpu_outputs: Vec<String> = Vec::new();
    if let (Ok(device_ids), Some(gpus)) = (kernel.column("deviceId"), tables.gpus.clone()) {
        let mut gpus = gpus;
        let gpu_present = column_names(&mut gpus).map_err(polars)?;
        if gpu_present.iter().any(|c| c == "id") {
            let mut selected = vec![col("id").cast(DataType::Int64).alias("__gpu_id")];
            for (nsys, output, text) in GPU_COLUMNS {
                if gpu_present.iter().any(|c| c == nsys) {
                    let dtype = if *text {
                        DataType::String
                    } else {
                        DataType::Int64
                    };
                    selected.push(col(*nsys).cast(dtype).alias(*output));
                    gpu_outputs.push((*output).to_string());
                }
            }
            if gpu_present.iter().any(|c| c == "clockRate") {
                // The schema documents `clockRate` in Hz; CUDA's own attribute is in kHz, so a value
                // below 10 MHz is taken to be kHz.
                let clock = col("clockRate").cast(DataType::Float64);
                selected.push(
                    when(clock.clone().lt(lit(1.0e7)))
                        .then(clock.clone() * lit(1.0e3))
                        .otherwise(clock)
                        .alias(col::SM_CLOCK_HZ),
                );
                gpu_outputs.push(col::SM_CLOCK_HZ.to_string());
            }
            let gpus = gpus.select(selected).collect().map_err(polars)?;
            let indices = lookup_indices(device_ids, gpus.column("__gpu_id").map_err(polars)?)
                .map_err(polars)?;
            for output in &gpu_outputs {
                let values = gpus
                    .column(output)
                    .map_err(polars)?
                    .take(&indices)
                    .map_err(polars)?;
                columns.push(values);
            }
        }
    }

    // Process names, by `globalPid` (or by the pid it encodes).
    if let (Ok(global_pids), Some(processes)) =
        (kernel.column("globalPid"), tables.processes.clone())
    {
        let mut processes = processes;
        let names = column_names(&mut processes).map_err(polars)?;
        let has = |c: &str| names.iter().any(|n| n == c);
        let key = if has("globalPid") {
            Some(("globalPid", global_pids.clone()))
        } else if has("pid") {
            let pids = kernel
                .clone()
                .lazy()
                .select([process_id_expr()])
                .collect()
                .map_err(polars)?
                .column(col::PROCESS_ID)
                .map_err(polars)?
                .clone();
            Some(("pid", pids))
        } else {
            None
        };
        if let Some((table_key, keys)) = key
            && has("name")
        {
            let processes = processes
                .select([
                    col(table_key).cast(DataType::Int64),
                    col("name").cast(DataType::String),
                ])
                .collect()
                .map_err(polars)?;
            let indices = lookup_indices(&keys, processes.column(table_key).map_err(polars)?)
                .map_err(polars)?;
            let values = processes
                .column("name")
                .map_err(polars)?
                .take(&indices)
                .map_err(polars)?;
            columns.push(values.with_name(col::PROCESS_NAME.into()));
        }
    }
    Ok((columns, gpu_outputs))
}

/// The process id nsys encodes in `globalPid`.
fn process_id_expr() -> Expr {
    ((col("globalPid").cast(DataType::Int64) / lit(0x100_0000i64)) % lit(0x100_0000i64))
        .alias(col::PROCESS_ID)
}

fn build_launches(
    path: &Path,
    format: Format,
    source: &str,
    mut kernels: LazyFrame,
    tables: &NsysTables,
) -> Result<(DataFrame, Vec<RejectedRow>), IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let schema = kernels.collect_schema().map_err(polars)?;
    let present: Vec<String> = schema.iter_names().map(|n| n.to_string()).collect();
    let has = |name: &str| present.iter().any(|c| c == name);
    if let Some(missing) = REQUIRED_KERNEL_COLUMNS.iter().find(|c| !has(c)) {
        return Err(IngestError::Malformed {
            path: path.to_path_buf(),
            line: 0,
            expected: format!("a `{missing}` column in table {}", table::KERNEL),
            found: format!("the columns {}", present.join(", ")),
        });
    }
    let kernel = kernels.collect().map_err(polars)?;
    let (side, gpu_outputs) = side_columns(path, &kernel, tables)?;
    let side_names: Vec<String> = side.iter().map(|c| c.name().to_string()).collect();
    let frame = kernel
        .hstack(&side)
        .map_err(polars)?
        .lazy()
        .with_row_index("__row", Some(1));
    let has_side = |name: &str| side_names.iter().any(|n| n == name);

    let int = |nsys: &str| col(nsys).cast(DataType::Int64);
    let mut selected: Vec<Expr> = vec![
        col("__row"),
        lit(source).alias(col::SOURCE_FILE),
        lit(format.name()).alias(col::FORMAT),
    ];
    let mut map = |nsys: &str, output: &str| {
        if has(nsys) {
            selected.push(int(nsys).alias(output));
        }
    };
    map("correlationId", col::LAUNCH_ID);
    map("deviceId", col::DEVICE_ORDINAL);
    map("gridX", col::GRID_X);
    map("gridY", col::GRID_Y);
    map("gridZ", col::GRID_Z);
    map("blockX", col::BLOCK_X);
    map("blockY", col::BLOCK_Y);
    map("blockZ", col::BLOCK_Z);
    map("registersPerThread", col::REGISTERS_PER_THREAD);
    map("staticSharedMemory", col::STATIC_SMEM_BYTES);
    map("dynamicSharedMemory", col::DYNAMIC_SMEM_BYTES);
    map("sharedMemoryExecuted", col::SMEM_CONFIG_BYTES);
    map("start", col::START_NS);
    map("contextId", col::CONTEXT);
    map("streamId", col::STREAM);
    selected.push(
        (int("end") - int("start"))
            .cast(DataType::Float64)
            .alias(col::DURATION_NS),
    );
    if has("globalPid") {
        selected.push(process_id_expr());
    }
    for name in [
        col::PROCESS_NAME,
        col::KERNEL_NAME,
        col::KERNEL_SHORT_NAME,
        MANGLED_NAME_COLUMN,
    ] {
        if has_side(name) {
            selected.push(col(name));
        }
    }
    for output in &gpu_outputs {
        selected.push(col(output.as_str()));
    }
    for name in &present {
        if !MAPPED_KERNEL_COLUMNS.contains(&name.as_str()) {
            selected.push(col(name.as_str()).alias(extra_kernel_column(name)));
        }
    }
    // A row is usable when its timestamps and launch dimensions are all present.
    let bad = REQUIRED_KERNEL_COLUMNS
        .iter()
        .map(|c| col(*c).is_null())
        .fold(
            int("end").lt(int("start")).fill_null(lit(false)),
            |acc, e| acc.or(e),
        );
    selected.push(bad.alias("__bad"));
    for c in REQUIRED_KERNEL_COLUMNS {
        selected.push(int(c).alias(format!("__req_{c}")));
    }
    let mut all = frame.select(selected).collect().map_err(polars)?;

    let bad_mask = all
        .column("__bad")
        .map_err(polars)?
        .bool()
        .map_err(polars)?
        .clone();
    let mut rejected = Vec::new();
    if bad_mask.any() {
        let bad = all.filter(&bad_mask).map_err(polars)?;
        rejected = describe_rejected(&bad).map_err(polars)?;
        all = all.filter(&!&bad_mask).map_err(polars)?;
    }
    let mut helpers = vec!["__row".to_string(), "__bad".to_string()];
    helpers.extend(REQUIRED_KERNEL_COLUMNS.iter().map(|c| format!("__req_{c}")));
    let all = all.drop_many(helpers);
    let launches = launch_table::conform(all.lazy())
        .and_then(LazyFrame::collect)
        .map_err(polars)?;
    Ok((launches, rejected))
}

/// Says, for each rejected kernel row, which required values are missing or inconsistent.
fn describe_rejected(bad: &DataFrame) -> PolarsResult<Vec<RejectedRow>> {
    let rows = bad.column("__row")?.idx()?.clone();
    let mut values = Vec::new();
    for c in REQUIRED_KERNEL_COLUMNS {
        values.push((*c, bad.column(&format!("__req_{c}"))?.i64()?.clone()));
    }
    let value_of = |name: &str, i: usize| {
        values
            .iter()
            .find(|(c, _)| *c == name)
            .and_then(|(_, v)| v.get(i))
    };
    let mut out = Vec::with_capacity(bad.height());
    for (i, row) in rows.iter().enumerate() {
        let mut problems: Vec<String> = values
            .iter()
            .filter(|(_, v)| v.get(i).is_none())
            .map(|(c, _)| format!("`{c}` is null"))
            .collect();
        if let (Some(start), Some(end)) = (value_of("start", i), value_of("end", i))
            && end < start
        {
            problems.push(format!("`end` ({end}) is before `start` ({start})"));
        }
        let row = row.map_or(0, u64::from);
        out.push(RejectedRow {
            line: row,
            reason: format!("{} row {row}: {}", table::KERNEL, problems.join(", ")),
        });
    }
    Ok(out)
}

/// A label lookup from an enum table, or from the documented labels when the table is missing.
fn enum_labels(
    table: Option<&LazyFrame>,
    fallback: &[(i64, &str)],
    key: &str,
    output: &str,
) -> PolarsResult<LazyFrame> {
    if let Some(mut frame) = table.cloned() {
        let names = column_names(&mut frame)?;
        if names.iter().any(|c| c == "id") && names.iter().any(|c| c == "label") {
            return Ok(lookup(
                frame,
                "id",
                col("label").cast(DataType::String).alias(output),
                key,
            ));
        }
    }
    let frame = df!(
        key => fallback.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        output => fallback.iter().map(|(_, label)| *label).collect::<Vec<_>>(),
    )?;
    Ok(frame.lazy())
}

/// Device names by device id, from `TARGET_INFO_GPU`.
fn device_names(tables: &NsysTables) -> PolarsResult<Option<LazyFrame>> {
    let Some(mut gpus) = tables.gpus.clone() else {
        return Ok(None);
    };
    let names = column_names(&mut gpus)?;
    if !(names.iter().any(|c| c == "id") && names.iter().any(|c| c == "name")) {
        return Ok(None);
    }
    Ok(Some(lookup(
        gpus,
        "id",
        col("name")
            .cast(DataType::String)
            .alias(transfers_col::DEVICE_NAME),
        "__dev",
    )))
}

/// One transfers frame from a memcpy or memset table.
fn transfer_frame(
    source: &str,
    mut frame: LazyFrame,
    is_memset: bool,
    tables: &NsysTables,
) -> PolarsResult<LazyFrame> {
    let present = column_names(&mut frame)?;
    let has = |c: &str| present.iter().any(|p| p == c);
    let int = |c: &str| col(c).cast(DataType::Int64);
    let mut frame = frame;
    if has("deviceId")
        && let Some(devices) = device_names(tables)?
    {
        frame = left_join(
            frame.with_column(int("deviceId").alias("__dev")),
            devices,
            "__dev",
            "__dev",
        );
    }
    let kinds = |frame: LazyFrame, column: &str, output: &str| -> PolarsResult<LazyFrame> {
        if !has(column) {
            return Ok(frame.with_column(lit(NULL).cast(DataType::String).alias(output)));
        }
        let key = format!("__{output}");
        let labels = enum_labels(tables.mem_kind.as_ref(), MEM_KIND_LABELS, &key, output)?;
        Ok(left_join(
            frame.with_column(int(column).alias(key.as_str())),
            labels,
            &key,
            &key,
        ))
    };
    if is_memset {
        frame = kinds(frame, "memKind", transfers_col::SRC_KIND)?;
        frame = frame.with_columns([
            lit(NULL)
                .cast(DataType::String)
                .alias(transfers_col::DST_KIND),
            lit(NULL)
                .cast(DataType::String)
                .alias(transfers_col::DIRECTION),
        ]);
    } else {
        frame = kinds(frame, "srcKind", transfers_col::SRC_KIND)?;
        frame = kinds(frame, "dstKind", transfers_col::DST_KIND)?;
        if has("copyKind") {
            let labels = enum_labels(
                tables.memcpy_oper.as_ref(),
                MEMCPY_OPER_LABELS,
                "__dir",
                transfers_col::DIRECTION,
            )?;
            frame = left_join(
                frame.with_column(int("copyKind").alias("__dir")),
                labels,
                "__dir",
                "__dir",
            );
        } else {
            frame = frame.with_column(
                lit(NULL)
                    .cast(DataType::String)
                    .alias(transfers_col::DIRECTION),
            );
        }
    }
    let or_null = |c: &str, output: &str, dtype: DataType| {
        if has(c) {
            col(c).cast(dtype.clone()).alias(output)
        } else {
            lit(NULL).cast(dtype).alias(output)
        }
    };
    let device_name = if has("deviceId") && device_names(tables)?.is_some() {
        col(transfers_col::DEVICE_NAME)
    } else {
        lit(NULL)
            .cast(DataType::String)
            .alias(transfers_col::DEVICE_NAME)
    };
    Ok(frame.select([
        lit(source).alias(transfers_col::SOURCE_FILE),
        lit(if is_memset { "memset" } else { "memcpy" }).alias(transfers_col::KIND),
        col(transfers_col::DIRECTION),
        or_null("bytes", transfers_col::BYTES, DataType::Int64),
        or_null("start", transfers_col::START_NS, DataType::Int64),
        (int("end") - int("start"))
            .cast(DataType::Float64)
            .alias(transfers_col::DURATION_NS),
        col(transfers_col::SRC_KIND),
        col(transfers_col::DST_KIND),
        device_name,
        or_null("deviceId", transfers_col::DEVICE_ORDINAL, DataType::Int64),
        or_null("streamId", transfers_col::STREAM, DataType::Int64),
        or_null(
            "correlationId",
            crate::trace::transfers_col::CORRELATION_ID,
            DataType::Int64,
        ),
    ]))
}

fn build_transfers(source: &str, tables: &NsysTables) -> PolarsResult<DataFrame> {
    let mut parts = Vec::new();
    if let Some(memcpy) = tables.memcpy.clone() {
        parts.push(transfer_frame(source, memcpy, false, tables)?);
    }
    if let Some(memset) = tables.memset.clone() {
        parts.push(transfer_frame(source, memset, true, tables)?);
    }
    if parts.is_empty() {
        return Ok(DataFrame::empty());
    }
    let all = concat(parts, UnionArgs::default())?;
    all.sort(
        [transfers_col::START_NS],
        SortMultipleOptions::default().with_maintain_order(true),
    )
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_columns_become_snake_case_extras() {
        assert_eq!(
            extra_kernel_column("sharedMemoryLimitConfig"),
            "nsys_shared_memory_limit_config"
        );
        assert_eq!(
            extra_kernel_column("greenContextId"),
            "nsys_green_context_id"
        );
        assert_eq!(extra_kernel_column("clusterX"), "nsys_cluster_x");
        assert_eq!(
            extra_kernel_column("qmdLastCtaDone"),
            "nsys_qmd_last_cta_done"
        );
        assert_eq!(
            snake_case("localMemoryPerThread"),
            "local_memory_per_thread"
        );
    }

    #[test]
    fn a_kilohertz_clock_rate_is_converted_and_strings_already_in_the_kernel_table_are_used()
    -> Result<(), Box<dyn std::error::Error>> {
        // A single-file export may carry the names as text; `clockRate` 1 980 000 is CUDA's kHz.
        let kernels = df!(
            "start" => [100i64], "end" => [350i64], "deviceId" => [0i64],
            "gridX" => [2i64], "gridY" => [1i64], "gridZ" => [1i64],
            "blockX" => [64i64], "blockY" => [1i64], "blockZ" => [1i64],
            "demangledName" => ["void k<int>(int)"], "shortName" => ["k"], "futureColumn" => [9i64],
        )?;
        let gpus = df!("id" => [0i64, 0], "name" => ["GPU A", "GPU A (duplicate row)"], "clockRate" => [1_980_000i64, 1])?;
        let tables = NsysTables {
            kernels: Some(kernels.lazy()),
            gpus: Some(gpus.lazy()),
            ..Default::default()
        };
        let trace = build_trace(
            Path::new("t.parquet"),
            Format::NsysParquet,
            tables,
            &ReadConfig::default(),
        )?;
        let l = &trace.launches;
        assert_eq!(l.height(), 1);
        assert_eq!(l.column(col::SM_CLOCK_HZ)?.f64()?.get(0), Some(1.98e9));
        assert_eq!(l.column(col::DEVICE_NAME)?.str()?.get(0), Some("GPU A"));
        assert_eq!(l.column(col::KERNEL_SHORT_NAME)?.str()?.get(0), Some("k"));
        assert_eq!(l.column(col::DURATION_NS)?.f64()?.get(0), Some(250.0));
        assert_eq!(l.column("nsys_future_column")?.i64()?.get(0), Some(9));
        assert_eq!(trace.transfers.height(), 0);
        Ok(())
    }
}
