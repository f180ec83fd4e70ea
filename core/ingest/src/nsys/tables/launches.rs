//! The launch table of an nsys export: kernel rows mapped onto launch-table columns, side-table
//! columns attached, unknown kernel columns kept as `nsys_*` extras, unusable rows rejected.

use std::path::Path;

use polars::prelude::*;

use super::columns::{
    MANGLED_NAME_COLUMN, MAPPED_KERNEL_COLUMNS, REQUIRED_KERNEL_COLUMNS, extra_kernel_column,
};
use super::export::{NsysTables, table};
use super::narrow::{ConstantColumns, narrow};
use super::side::{process_id_expr, side_columns};
use crate::launch_table::{self, column_names as lt};
use crate::nsys::sqlite::PROBLEM_COLUMN;
use crate::trace::RejectedRow;
use crate::{Format, IngestError};

/// The launch table of the kernel rows, and the rows rejected for missing or inconsistent
/// timestamps and launch dimensions. `rows_before` kernel rows of the table came before these
/// (a table read in row ranges): rejected rows are numbered in the whole table.
pub(crate) fn build_launches(
    path: &Path,
    format: Format,
    source: &str,
    mut kernels: LazyFrame,
    tables: &NsysTables,
    rows_before: u64,
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
    let kernel = collect_narrow(kernels, &present, tables.constants).map_err(polars)?;
    let (side, gpu_outputs) = side_columns(path, &kernel, tables)?;
    let side_names: Vec<String> = side.iter().map(|c| c.name().to_string()).collect();
    let mut frame = kernel;
    frame.hstack_mut(&side).map_err(polars)?;
    drop(side);
    let first_row = IdxSize::try_from(rows_before.saturating_add(1)).map_err(|_| {
        polars(polars_err!(ComputeError: "more kernel rows than a row number holds"))
    })?;
    let frame = frame.lazy().with_row_index("__row", Some(first_row));
    let has_side = |name: &str| side_names.iter().any(|n| n == name);

    let int = |nsys: &str| col(nsys).cast(DataType::Int64);
    let mut selected: Vec<Expr> = vec![
        col("__row"),
        lit(source).alias(lt::SOURCE_FILE),
        lit(format.name()).alias(lt::FORMAT),
    ];
    let mut map = |nsys: &str, output: &str| {
        if has(nsys) {
            selected.push(int(nsys).alias(output));
        }
    };
    map("correlationId", lt::LAUNCH_ID);
    map("deviceId", lt::DEVICE_ORDINAL);
    map("gridX", lt::GRID_X);
    map("gridY", lt::GRID_Y);
    map("gridZ", lt::GRID_Z);
    map("blockX", lt::BLOCK_X);
    map("blockY", lt::BLOCK_Y);
    map("blockZ", lt::BLOCK_Z);
    map("registersPerThread", lt::REGISTERS_PER_THREAD);
    map("staticSharedMemory", lt::STATIC_SMEM_BYTES);
    map("dynamicSharedMemory", lt::DYNAMIC_SMEM_BYTES);
    map("sharedMemoryExecuted", lt::SMEM_CONFIG_BYTES);
    map("start", lt::START_NS);
    map("contextId", lt::CONTEXT);
    map("streamId", lt::STREAM);
    selected.push(
        (int("end") - int("start"))
            .cast(DataType::Float64)
            .alias(lt::DURATION_NS),
    );
    if has("globalPid") {
        selected.push(process_id_expr());
    }
    for name in [
        lt::PROCESS_NAME,
        lt::KERNEL_NAME,
        lt::KERNEL_SHORT_NAME,
        MANGLED_NAME_COLUMN,
    ] {
        if has_side(name) {
            selected.push(col(name));
        }
    }
    for output in &gpu_outputs {
        selected.push(col(output.as_str()));
    }
    let problems = has(PROBLEM_COLUMN);
    if problems {
        selected.push(col(PROBLEM_COLUMN).alias("__problem"));
    }
    for name in &present {
        if !MAPPED_KERNEL_COLUMNS.contains(&name.as_str()) && name != PROBLEM_COLUMN {
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
    // A value that is no number (SQLite) is a rejected row, named as such, not a null.
    let bad = if problems {
        bad.or(col(PROBLEM_COLUMN).is_not_null())
    } else {
        bad
    };
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
    if problems {
        helpers.push("__problem".to_string());
    }
    helpers.extend(REQUIRED_KERNEL_COLUMNS.iter().map(|c| format!("__req_{c}")));
    let all = all.drop_many(helpers);
    let launches = launch_table::conform(all.lazy())
        .and_then(LazyFrame::collect)
        .map_err(polars)?;
    Ok((launches, rejected))
}

/// Kernel columns collected (and narrowed) at a time.
const COLUMNS_PER_COLLECT: usize = 4;

/// The kernel table, collected a few columns at a time, each group narrowed
/// ([`narrow`]) before the next is read: a scanned file's decoded columns and their narrowed
/// forms never all exist at once. With [`ConstantColumns::Materialized`], the table collected whole.
fn collect_narrow(
    kernels: LazyFrame,
    names: &[String],
    constants: ConstantColumns,
) -> PolarsResult<DataFrame> {
    if constants == ConstantColumns::Materialized {
        return kernels.collect();
    }
    let mut columns = Vec::with_capacity(names.len());
    let mut height = 0;
    for group in names.chunks(COLUMNS_PER_COLLECT) {
        let part = kernels
            .clone()
            .select(
                group
                    .iter()
                    .map(|name| col(name.as_str()))
                    .collect::<Vec<_>>(),
            )
            .collect()?;
        let part = narrow(part, constants)?;
        height = part.height();
        columns.extend(part.into_columns());
    }
    DataFrame::new(height, columns)
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
    let found = match bad.column("__problem") {
        Ok(column) => Some(column.str()?.clone()),
        Err(_) => None,
    };
    let mut out = Vec::with_capacity(bad.height());
    for (i, row) in rows.iter().enumerate() {
        let found = found.as_ref().and_then(|f| f.get(i));
        // A column whose value is no number is named by that, not as null.
        let mut problems: Vec<String> = found.map(str::to_string).into_iter().collect();
        problems.extend(
            values
                .iter()
                .filter(|(c, v)| {
                    v.get(i).is_none() && !found.is_some_and(|f| f.contains(&format!("`{c}`")))
                })
                .map(|(c, _)| format!("`{c}` is null")),
        );
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
