//! Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`, also written by
//! `nsys stats`).
//!
//! Each table warpsight needs is read with one SQL query into column builders (no per-row
//! structs), in parallel row ranges for large tables, and handed to [`crate::nsys::tables`], which
//! builds the launch table and the transfers. Both the old schema (`EXPORT_META_DATA`, 27 kernel
//! columns, nsys ≈2023) and the new one (`META_DATA_EXPORT`, `greenContextId` and cluster
//! columns) are read the same way: columns are looked up by name, and missing optional columns
//! or tables are simply absent. `StringIds` is limited to the ids the kernel table references.
//!
//! [`SqliteSource`] reads the kernel table in rowid ranges instead and hands on each range's
//! launch table as it is built (`warpsight ingest` of an export of tens of millions of launches).
//!
//! A column that is entirely null or holds a single value (about half of a 2025 export's kernel
//! columns: `deviceId`, `contextId`, `globalPid`, `gridZ`, `graphId`, the `qmd*` columns, ...)
//! becomes a constant (scalar) polars column, which holds no value per row; the other columns are
//! single-chunk ([`crate::nsys::column_builder`] builds them).

use std::ops::ControlFlow;
use std::path::Path;

use polars::prelude::*;
use rayon::prelude::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::launch_source::{AfterBatches, Batching, LaunchSource, TablesWanted, hand_on_whole};
use crate::nsys::column_builder::{Affinity, Builder, Part, affinity, combine, unconverted};
use crate::nsys::tables::{self, ConstantColumns, NsysTables, table};
use crate::trace::{SideTables, Trace};
use crate::{Format, IngestError, ReadConfig};

/// Tables with more rows than this are read in one row range per thread.
const PARALLEL_ROWS: i64 = 200_000;

/// Reads an nsys SQLite export.
pub(crate) fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_with(path, config, ConstantColumns::Scalar)
}

/// Reads an nsys SQLite export, with its constant columns kept as `constants` says.
pub(crate) fn read_with(
    path: &Path,
    config: &ReadConfig,
    constants: ConstantColumns,
) -> Result<Trace, IngestError> {
    let sqlite = |source| IngestError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let conn = open(path).map_err(sqlite)?;
    let existing = table_names(&conn).map_err(sqlite)?;
    if let Some(version) = schema_version(&conn, &existing) {
        tracing::debug!(path = %path.display(), schema = %version, "nsys SQLite export");
    }
    let mut tables = NsysTables {
        constants,
        ..NsysTables::default()
    };
    // The kernel table is read first (`table::ALL`): the names it references limit `StringIds`.
    let mut kernel: Option<DataFrame> = None;
    for &name in table::ALL {
        if !existing.iter().any(|t| t == name) {
            continue;
        }
        let filter = if name == table::STRING_IDS {
            match kernel.as_ref().and_then(listed_string_ids) {
                Some(filter) => Some(filter),
                None => string_ids_filter(&conn, &existing).map_err(sqlite)?,
            }
        } else {
            None
        };
        let frame = load_table(path, &conn, name, filter.as_deref(), constants).map_err(sqlite)?;
        if name == table::KERNEL {
            kernel = Some(frame.clone());
        }
        tables.set(name, frame.lazy());
    }
    drop(kernel);
    tables::build_trace(path, Format::NsysSqlite, tables, config)
}

/// Reads an nsys SQLite export's kernel table in ranges of [`Batching::launches`] rowids.
pub(crate) struct SqliteSource;

impl LaunchSource for SqliteSource {
    fn read_launches(
        &self,
        path: &Path,
        config: &ReadConfig,
        batching: Batching,
        wanted: TablesWanted,
        on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
    ) -> Result<AfterBatches, IngestError> {
        // A file cut while it is read is noted at the end, as `crate::read_as` notes it.
        let before = crate::source::length(path);
        let mut after = read_launch_batches(path, config, batching.launches, wanted, on_batch)?;
        after
            .rejected
            .extend(crate::source::shrink_check(path, before, config.strict)?);
        Ok(after)
    }
}

/// Reads an nsys SQLite export's launch table in batches: the kernel table in rowid ranges of
/// `rows` rowids (its rows in rowid order, the order a whole read gives), each range's launch
/// table built with the side tables (read once) and handed to `on_batch`, which breaks to stop
/// the reading. Every batch is a conformed launch table; the batches stacked are the launch table
/// of [`read`], and the rejected rows returned are its rejected rows, numbered in the whole
/// kernel table; with `--strict` the first one is the error [`read`] gives. The transfers are
/// read, once the last batch is handed on, only with [`TablesWanted::All`]. An export without a
/// kernel table, with no kernel row, or whose kernel table has no rowid is read whole ([`read`])
/// and handed on as one batch.
fn read_launch_batches(
    path: &Path,
    config: &ReadConfig,
    rows: usize,
    wanted: TablesWanted,
    on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
) -> Result<AfterBatches, IngestError> {
    let sqlite = |source| IngestError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let conn = open(path).map_err(sqlite)?;
    let existing = table_names(&conn).map_err(sqlite)?;
    let bounds = if existing.iter().any(|t| t == table::KERNEL) {
        rowid_bounds(&conn, table::KERNEL)
    } else {
        None
    };
    let Some((min, max)) = bounds else {
        return Ok(hand_on_whole(read(path, config)?, wanted, on_batch));
    };
    if let Some(version) = schema_version(&conn, &existing) {
        tracing::debug!(path = %path.display(), schema = %version, "nsys SQLite export");
    }
    // The side tables the launch table reads (names, devices, processes, the enumerations), read
    // once; the transfers' tables only at the end, when asked for.
    let mut tables = NsysTables {
        constants: ConstantColumns::Scalar,
        ..NsysTables::default()
    };
    for &name in table::ALL {
        if [table::KERNEL, table::MEMCPY, table::MEMSET].contains(&name)
            || !existing.iter().any(|t| t == name)
        {
            continue;
        }
        // `StringIds` is read per batch, for the names the batch references.
        if name == table::STRING_IDS {
            continue;
        }
        let frame = load_table(path, &conn, name, None, ConstantColumns::Scalar).map_err(sqlite)?;
        tables.set(name, frame.lazy());
    }
    let has_string_ids = existing.iter().any(|t| t == table::STRING_IDS);
    // The names of every kernel row, read once, for a batch that references too many to list.
    let mut all_referenced: Option<DataFrame> = None;
    let source = path.display().to_string();
    let span = i64::try_from(rows.max(1)).unwrap_or(i64::MAX);
    let mut rejected = Vec::new();
    let mut rows_before = 0u64;
    // The kernel rows are read range after range on a thread of their own (one range ahead of
    // the consumer, through a channel of one) while this thread builds and hands on the previous
    // range's launches. When this thread stops early, the channel closes and the reader stops at
    // its next range.
    std::thread::scope(|scope| -> Result<(), IngestError> {
        let (ranges, received) = std::sync::mpsc::sync_channel::<rusqlite::Result<DataFrame>>(1);
        scope.spawn(move || {
            let conn = match open(path) {
                Ok(conn) => conn,
                Err(error) => {
                    let _ = ranges.send(Err(error));
                    return;
                }
            };
            let mut low = min;
            loop {
                // Checked arithmetic on rowids from the file: a range never wraps around.
                let high = low.saturating_add(span - 1).min(max);
                let range = format!("rowid BETWEEN {low} AND {high}");
                let kernels = load_table(
                    path,
                    &conn,
                    table::KERNEL,
                    Some(&range),
                    ConstantColumns::Scalar,
                );
                let failed = kernels.is_err();
                if ranges.send(kernels).is_err() || failed || high >= max {
                    return;
                }
                low = high + 1;
            }
        });
        for kernels in received {
            let kernels = kernels.map_err(sqlite)?;
            let height = kernels.height() as u64;
            if height == 0 {
                continue;
            }
            if has_string_ids {
                let names = match listed_string_ids(&kernels) {
                    // A few ids per range, looked up by primary key.
                    Some(filter) => load_table(
                        path,
                        &conn,
                        table::STRING_IDS,
                        Some(&filter),
                        ConstantColumns::Scalar,
                    )
                    .map_err(sqlite)?,
                    None => match &all_referenced {
                        Some(names) => names.clone(),
                        None => {
                            let filter = string_ids_filter(&conn, &existing).map_err(sqlite)?;
                            let names = load_table(
                                path,
                                &conn,
                                table::STRING_IDS,
                                filter.as_deref(),
                                ConstantColumns::Scalar,
                            )
                            .map_err(sqlite)?;
                            all_referenced = Some(names.clone());
                            names
                        }
                    },
                };
                tables.set(table::STRING_IDS, names.lazy());
            }
            let (launches, mut batch_rejected) = tables::build_launches(
                path,
                Format::NsysSqlite,
                &source,
                kernels.lazy(),
                &tables,
                rows_before,
            )?;
            rows_before += height;
            crate::trace::refuse_rejected(path, config.strict, &batch_rejected)?;
            rejected.append(&mut batch_rejected);
            if on_batch(launches).is_break() {
                break;
            }
        }
        Ok(())
    })?;
    if rows_before == 0 {
        // Rowids but no row (a table emptied by deletes): the whole reader's empty launch table.
        return Ok(hand_on_whole(read(path, config)?, wanted, on_batch));
    }
    if !rejected.is_empty() {
        tracing::warn!(path = %path.display(), rejected = rejected.len(), "some kernel rows were rejected");
    }
    let side = match wanted {
        TablesWanted::LaunchesOnly => SideTables::default(),
        TablesWanted::All => {
            for name in [table::MEMCPY, table::MEMSET] {
                if existing.iter().any(|t| t == name) {
                    let frame = load_table(path, &conn, name, None, ConstantColumns::Scalar)
                        .map_err(sqlite)?;
                    tables.set(name, frame.lazy());
                }
            }
            let transfers = tables::build_transfers(&source, &tables).map_err(|source| {
                IngestError::Polars {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
            SideTables {
                transfers,
                ..SideTables::default()
            }
        }
    };
    Ok(AfterBatches { rejected, side })
}

/// The smallest and largest rowid of `table`, `None` when it has no row or no rowid. Two
/// subqueries: SQLite answers a lone `min(rowid)` or `max(rowid)` from the b-tree's ends, but
/// `SELECT min(rowid), max(rowid)` scans the whole table.
fn rowid_bounds(conn: &Connection, table: &str) -> Option<(i64, i64)> {
    conn.query_row(
        &format!(
            "SELECT (SELECT min(rowid) FROM \"{table}\"), (SELECT max(rowid) FROM \"{table}\")"
        ),
        [],
        |row| Ok((row.get::<_, Option<i64>>(0)?, row.get::<_, Option<i64>>(1)?)),
    )
    .ok()
    .and_then(|(min, max)| min.zip(max))
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    // A stream is opened by its copy (`source.rs`); the real path of a file is itself.
    let real = crate::source::real_path(path).unwrap_or_else(|_| path.to_path_buf());
    Connection::open_with_flags(
        real,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

fn table_names(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")?;
    let names = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(names)
}

/// The export schema version (`EXPORT_SCHEMA_VERSION` in `META_DATA_EXPORT`, or in the older
/// `EXPORT_META_DATA`), when present.
fn schema_version(conn: &Connection, existing: &[String]) -> Option<String> {
    ["META_DATA_EXPORT", "EXPORT_META_DATA"]
        .iter()
        .find(|t| existing.iter().any(|e| e == *t))
        .and_then(|t| {
            conn.query_row(
                &format!("SELECT value FROM {t} WHERE name = 'EXPORT_SCHEMA_VERSION'"),
                [],
                |row| row.get::<_, String>(0),
            )
            .ok()
        })
}

/// Column names and declared types of a table.
fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    let columns = stmt
        .query_map([], |row| {
            Ok((row.get::<_, String>(1)?, row.get::<_, String>(2)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(columns)
}

/// `WHERE` clause limiting `StringIds` to the names the kernel table references.
fn string_ids_filter(conn: &Connection, existing: &[String]) -> rusqlite::Result<Option<String>> {
    if !existing.iter().any(|t| t == table::KERNEL) {
        return Ok(Some("0".to_string()));
    }
    let kernel_columns = columns(conn, table::KERNEL)?;
    let selects: Vec<String> = ["demangledName", "shortName", "mangledName"]
        .iter()
        .filter(|c| kernel_columns.iter().any(|(name, _)| name == *c))
        .map(|c| format!("SELECT \"{c}\" FROM {}", table::KERNEL))
        .collect();
    if selects.is_empty() {
        return Ok(Some("0".to_string()));
    }
    Ok(Some(format!("id IN ({})", selects.join(" UNION "))))
}

/// The most string ids [`listed_string_ids`] lists in a query.
const MAX_LISTED_STRING_IDS: usize = 10_000;

/// `WHERE` clause limiting `StringIds` to the ids of the name columns of the kernel table already
/// read, listed (much faster than [`string_ids_filter`]'s subquery over millions of kernel rows).
/// `None` when a name column holds neither ids nor text, or when there are more than
/// [`MAX_LISTED_STRING_IDS`] ids: the subquery is used then. Name columns holding text do not need
/// `StringIds`.
fn listed_string_ids(kernel: &DataFrame) -> Option<String> {
    let mut ids: std::collections::BTreeSet<i64> = std::collections::BTreeSet::new();
    for name in ["demangledName", "shortName", "mangledName"] {
        let Ok(column) = kernel.column(name) else {
            continue;
        };
        match column.dtype() {
            DataType::String => continue,
            DataType::Int64 => {}
            _ => return None,
        }
        match column {
            Column::Scalar(scalar) => {
                if let AnyValue::Int64(id) = scalar.scalar().value() {
                    ids.insert(*id);
                }
            }
            Column::Series(series) => {
                ids.extend(series.i64().ok()?.unique().ok()?.iter().flatten());
            }
        }
        if ids.len() > MAX_LISTED_STRING_IDS {
            return None;
        }
    }
    if ids.is_empty() {
        return Some("0".to_string());
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    Some(format!("id IN ({})", list.join(", ")))
}

/// The most rows a table's reader reserves room for up front (a hint; tables grow past it).
const MAX_CAPACITY_HINT: i64 = 1 << 22;

/// Loads a whole table (or the rows matching `filter`) column-wise. Large tables are split into
/// rowid ranges read in parallel, each on its own read-only connection.
fn load_table(
    path: &Path,
    conn: &Connection,
    table: &str,
    filter: Option<&str>,
    constants: ConstantColumns,
) -> rusqlite::Result<DataFrame> {
    let mut columns = columns(conn, table)?;
    if table == crate::nsys::tables::table::KERNEL {
        // Not a column of the export: filled while reading (see `query_columns`).
        columns.push((PROBLEM_COLUMN.to_string(), "TEXT".to_string()));
    }
    let bounds = rowid_bounds(conn, table);
    let threads = rayon::current_num_threads().max(1) as i64;
    // The rowid span comes from the file: checked arithmetic (a rowid of i64::MIN must not
    // overflow), and capacities are hints capped at MAX_CAPACITY_HINT rows (sparse rowids must not
    // reserve memory for rows that do not exist).
    let span = bounds.and_then(|(min, max)| max.checked_sub(min)?.checked_add(1));
    let hint = |rows: i64| rows.clamp(0, MAX_CAPACITY_HINT) as usize;
    let ranges: Vec<(Vec<Part>, usize)> = match (bounds, span) {
        (Some((min, max)), Some(span))
            if filter.is_none() && span > PARALLEL_ROWS && threads > 1 =>
        {
            let per_thread = span / threads + 1;
            let ranges: Vec<(i64, i64)> = (0..threads)
                .map(|k| {
                    let lo = min.saturating_add(k.saturating_mul(per_thread));
                    let hi = lo.saturating_add(per_thread - 1).min(max);
                    (lo, hi)
                })
                .filter(|(lo, hi)| lo <= hi)
                .collect();
            ranges
                .par_iter()
                .map(|&(lo, hi)| {
                    let conn = open(path)?;
                    let filter = format!("rowid BETWEEN {lo} AND {hi}");
                    query_columns(
                        &conn,
                        table,
                        &columns,
                        Some(&filter),
                        hint(hi.saturating_sub(lo).saturating_add(1)),
                        constants,
                    )
                })
                .collect::<rusqlite::Result<Vec<(Vec<Part>, usize)>>>()?
        }
        (Some(_), span) => {
            let capacity = match (filter, span) {
                (None, Some(span)) => hint(span),
                _ => 0,
            };
            vec![query_columns(
                conn, table, &columns, filter, capacity, constants,
            )?]
        }
        (None, _) => vec![query_columns(conn, table, &columns, filter, 0, constants)?],
    };
    let height: usize = ranges.iter().map(|(_, rows)| rows).sum();
    // The parts are regrouped by column, and each column's parts are combined (and freed) before
    // the next column's.
    let mut by_column: Vec<Vec<Part>> = (0..columns.len())
        .map(|_| Vec::with_capacity(ranges.len()))
        .collect();
    for (parts, _) in ranges {
        for (index, part) in parts.into_iter().enumerate() {
            if let Some(column) = by_column.get_mut(index) {
                column.push(part);
            }
        }
    }
    let columns = by_column
        .into_iter()
        .map(|parts| combine(parts, constants))
        .collect::<PolarsResult<Vec<Column>>>()
        .map_err(polars_to_sqlite)?;
    DataFrame::new(height, columns).map_err(polars_to_sqlite)
}

fn polars_to_sqlite(error: PolarsError) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(error))
}

/// Runs one `SELECT` over `columns` of `table` and fills one builder per column; returns one part
/// per column and the number of rows.
fn query_columns(
    conn: &Connection,
    table: &str,
    columns: &[(String, String)],
    filter: Option<&str>,
    capacity: usize,
    constants: ConstantColumns,
) -> rusqlite::Result<(Vec<Part>, usize)> {
    // The problem column is filled here, not selected.
    let selected: Vec<&(String, String)> = columns
        .iter()
        .filter(|(name, _)| name != PROBLEM_COLUMN)
        .collect();
    let checked = selected.len() < columns.len();
    let affinities: Vec<Affinity> = selected.iter().map(|(_, d)| affinity(d)).collect();
    let list: Vec<String> = selected
        .iter()
        .map(|(name, _)| format!("\"{name}\""))
        .collect();
    let mut sql = format!("SELECT {} FROM \"{table}\"", list.join(", "));
    if let Some(filter) = filter {
        sql.push_str(" WHERE ");
        sql.push_str(filter);
    }
    let mut builders: Vec<Builder> = columns
        .iter()
        .map(|(name, declared)| Builder::new(name, affinity(declared), capacity, constants))
        .collect();
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let mut height = 0usize;
    let (builders_read, problem_builder) = builders.split_at_mut(selected.len());
    while let Some(row) = rows.next()? {
        let mut problem: Option<String> = None;
        for (index, builder) in builders_read.iter_mut().enumerate() {
            let value = row.get_ref(index)?;
            if checked
                && problem.is_none()
                && let Some(found) = affinities
                    .get(index)
                    .and_then(|&affinity| unconverted(affinity, value))
            {
                let name = selected.get(index).map_or("", |(name, _)| name.as_str());
                problem = Some(format!("`{name}` holds {found}, not a number"));
            }
            builder.push(value);
        }
        if let Some(builder) = problem_builder.first_mut() {
            builder.push(
                problem
                    .as_deref()
                    .map_or(ValueRef::Null, |text| ValueRef::Text(text.as_bytes())),
            );
        }
        height += 1;
    }
    Ok((builders.into_iter().map(Builder::finish).collect(), height))
}

/// The column of the kernel table read from SQLite that says, for each row, the first value of a
/// numeric column that is no number (`registersPerThread` = `'abc'`), else null: such a value
/// would read as null, so the row is rejected with this note instead
/// ([`crate::nsys::tables`]).
pub(crate) const PROBLEM_COLUMN: &str = "__sqlite_problem";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nsys::tables::assert_same_trace;
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_sqlite};

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    fn is_scalar(frame: &DataFrame, name: &str) -> PolarsResult<bool> {
        Ok(matches!(frame.column(name)?, Column::Scalar(_)))
    }

    #[test]
    fn a_table_read_in_parallel_ranges_keeps_its_values_with_constant_columns_as_scalars()
    -> TestResult {
        // More rows than PARALLEL_ROWS, so that the rows are read in one range per thread: `b` is
        // constant in the first range only, `h` is constant in each range of two but not across
        // them, `g` is null in its first row only.
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("t.sqlite");
        let conn = Connection::open(&path)?;
        let rows = PARALLEL_ROWS + 50_000;
        let half = rows / 2 + 1;
        conn.execute_batch(&format!(
            "CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER, d INTEGER, e TEXT, f REAL, g INTEGER,
                             h INTEGER, i TEXT, j REAL);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
             INSERT INTO t SELECT 7, CASE WHEN i > {rows} - 1000 THEN i ELSE 3 END, NULL, i, 'same',
                 1.5, CASE WHEN i = 1 THEN NULL ELSE 5 END, CASE WHEN i <= {half} THEN 1 ELSE 2 END,
                 NULL, CASE WHEN i = {rows} THEN 2.5 ELSE 1.5 END FROM n;"
        ))?;
        let narrow = load_table(&path, &conn, "t", None, ConstantColumns::Scalar)?;
        let full = load_table(&path, &conn, "t", None, ConstantColumns::Materialized)?;
        assert_eq!(narrow.height(), rows as usize);
        assert_eq!(narrow.schema(), full.schema());
        assert!(narrow.equals_missing(&full));
        for name in ["a", "c", "e", "f", "i"] {
            assert!(is_scalar(&narrow, name)?, "{name}");
        }
        for name in ["b", "d", "g", "h", "j"] {
            assert!(!is_scalar(&narrow, name)?, "{name}");
            assert_eq!(narrow.column(name)?.n_chunks(), 1, "{name}");
        }
        for column in full.columns() {
            assert!(!matches!(column, Column::Scalar(_)), "{}", column.name());
        }
        assert_eq!(narrow.column("a")?.i64()?.get(12), Some(7));
        assert_eq!(narrow.column("c")?.null_count(), rows as usize);
        assert_eq!(narrow.column("e")?.str()?.get(0), Some("same"));
        assert_eq!(narrow.column("g")?.i64()?.get(0), None);
        assert_eq!(narrow.column("h")?.i64()?.get(rows as usize - 1), Some(2));
        assert_eq!(narrow.column("j")?.f64()?.get(rows as usize - 1), Some(2.5));
        // A filtered read (one range) and an empty result give the same dtypes.
        let empty = load_table(&path, &conn, "t", Some("0"), ConstantColumns::Scalar)?;
        assert_eq!(empty.height(), 0);
        assert_eq!(empty.schema(), full.schema());
        Ok(())
    }

    /// The synthetic exports (both schemas) written into `dir`, and the real one when present.
    fn sqlite_exports(dir: &Path) -> Result<Vec<std::path::PathBuf>, Box<dyn std::error::Error>> {
        let mut paths = Vec::new();
        for schema in [Schema::Old, Schema::New] {
            let path = dir.join(format!("{schema:?}.sqlite"));
            let config = SyntheticConfig {
                launches: 400,
                memcpy_every: 7,
                schema,
            };
            write_sqlite(&path, &config)?;
            paths.push(path);
        }
        if let Some(shared) = warpsight_test_support::paths::shared_traces() {
            paths.push(shared.join("cuda-perf-sandbox__report1.sqlite"));
        }
        Ok(paths)
    }

    #[test]
    fn listed_string_ids_select_the_rows_the_subquery_selects() -> TestResult {
        let dir = tempfile::tempdir()?;
        for path in sqlite_exports(dir.path())? {
            let conn = open(&path)?;
            let existing = table_names(&conn)?;
            let kernel = load_table(&path, &conn, table::KERNEL, None, ConstantColumns::Scalar)?;
            let listed =
                listed_string_ids(&kernel).ok_or("the kernel table names strings by id")?;
            assert!(listed.starts_with("id IN ("), "{listed}");
            let subquery = string_ids_filter(&conn, &existing)?;
            let strings = |filter: Option<&str>| -> Result<DataFrame, Box<dyn std::error::Error>> {
                Ok(load_table(
                    &path,
                    &conn,
                    table::STRING_IDS,
                    filter,
                    ConstantColumns::Materialized,
                )?
                .sort(["id"], Default::default())?)
            };
            let by_list = strings(Some(&listed))?;
            assert!(by_list.height() > 0, "{}", path.display());
            assert!(
                by_list.equals_missing(&strings(subquery.as_deref())?),
                "{}",
                path.display()
            );
        }
        // Text names need no `StringIds`; names of another type are left to the subquery.
        let text = df!("demangledName" => ["k"], "shortName" => ["k"])?;
        assert_eq!(listed_string_ids(&text).as_deref(), Some("0"));
        let reals = df!("demangledName" => [1.0f64])?;
        assert_eq!(listed_string_ids(&reals), None);
        let many = df!("shortName" => (0..=MAX_LISTED_STRING_IDS as i64).collect::<Vec<_>>())?;
        assert_eq!(listed_string_ids(&many), None);
        Ok(())
    }

    #[test]
    fn narrow_reads_equal_materialized_reads() -> TestResult {
        let dir = tempfile::tempdir()?;
        for path in &sqlite_exports(dir.path())? {
            let config = ReadConfig::default();
            let narrow = read_with(path, &config, ConstantColumns::Scalar)?;
            let full = read_with(path, &config, ConstantColumns::Materialized)?;
            assert!(narrow.launches.height() > 0, "{}", path.display());
            assert_same_trace(&narrow, &full, &path.display().to_string());
        }
        Ok(())
    }
}
