//! Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`, also written by
//! `nsys stats`).
//!
//! Each table warpsight needs is read with one SQL query into column builders (no per-row
//! structs), in parallel row ranges for large tables, and handed to [`crate::nsys::tables`], which
//! builds the launch table and the transfers. Both the old schema (`EXPORT_META_DATA`, 27 kernel
//! columns, nsys ≈2023) and the new one (`META_DATA_EXPORT`, `greenContextId` and cluster
//! columns) are read the same way: columns are looked up by name, and missing optional columns
//! or tables are simply absent. `StringIds` is limited to the ids the kernel table references.

use std::path::Path;

use polars::prelude::*;
use rayon::prelude::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::nsys::tables::{self, NsysTables, table};
use crate::trace::Trace;
use crate::{Format, IngestError, ReadConfig};

/// Tables with more rows than this are read in one row range per thread.
const PARALLEL_ROWS: i64 = 200_000;

/// Reads an nsys SQLite export.
pub fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    let sqlite = |source| IngestError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let conn = open(path).map_err(sqlite)?;
    let existing = table_names(&conn).map_err(sqlite)?;
    if let Some(version) = schema_version(&conn, &existing) {
        tracing::debug!(path = %path.display(), schema = %version, "nsys SQLite export");
    }
    let mut tables = NsysTables::default();
    for &name in table::ALL {
        if !existing.iter().any(|t| t == name) {
            continue;
        }
        let filter = if name == table::STRING_IDS {
            string_ids_filter(&conn, &existing).map_err(sqlite)?
        } else {
            None
        };
        let frame = load_table(path, &conn, name, filter.as_deref()).map_err(sqlite)?;
        tables.set(name, frame.lazy());
    }
    tables::build_trace(path, Format::NsysSqlite, tables, config)
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(
        path,
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

/// How a column's values are stored, from its declared type (SQLite type affinity).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Affinity {
    Integer,
    Real,
    Text,
}

fn affinity(declared: &str) -> Affinity {
    let declared = declared.to_ascii_uppercase();
    if declared.contains("INT") {
        Affinity::Integer
    } else if declared.contains("REAL") || declared.contains("FLOA") || declared.contains("DOUB") {
        Affinity::Real
    } else {
        Affinity::Text
    }
}

/// A column being filled.
enum Builder {
    Integer(PrimitiveChunkedBuilder<Int64Type>),
    Real(PrimitiveChunkedBuilder<Float64Type>),
    Text(StringChunkedBuilder),
}

impl Builder {
    fn new(name: &str, affinity: Affinity, capacity: usize) -> Self {
        match affinity {
            Affinity::Integer => {
                Builder::Integer(PrimitiveChunkedBuilder::new(name.into(), capacity))
            }
            Affinity::Real => Builder::Real(PrimitiveChunkedBuilder::new(name.into(), capacity)),
            Affinity::Text => Builder::Text(StringChunkedBuilder::new(name.into(), capacity)),
        }
    }

    fn push(&mut self, value: ValueRef<'_>) {
        match self {
            Builder::Integer(b) => match value {
                ValueRef::Integer(v) => b.append_value(v),
                ValueRef::Real(v) if v.fract() == 0.0 => b.append_value(v as i64),
                ValueRef::Text(t) => b.append_option(parse_text(t)),
                _ => b.append_null(),
            },
            Builder::Real(b) => match value {
                ValueRef::Integer(v) => b.append_value(v as f64),
                ValueRef::Real(v) => b.append_value(v),
                ValueRef::Text(t) => b.append_option(parse_text(t)),
                _ => b.append_null(),
            },
            Builder::Text(b) => match value {
                ValueRef::Text(t) => b.append_value(String::from_utf8_lossy(t)),
                ValueRef::Integer(v) => b.append_value(v.to_string()),
                ValueRef::Real(v) => b.append_value(v.to_string()),
                _ => b.append_null(),
            },
        }
    }

    fn finish(self) -> Column {
        match self {
            Builder::Integer(b) => b.finish().into_column(),
            Builder::Real(b) => b.finish().into_column(),
            Builder::Text(b) => b.finish().into_column(),
        }
    }
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
) -> rusqlite::Result<DataFrame> {
    let columns = columns(conn, table)?;
    let bounds: Option<(i64, i64)> = conn
        .query_row(
            &format!("SELECT min(rowid), max(rowid) FROM \"{table}\""),
            [],
            |row| Ok((row.get::<_, Option<i64>>(0)?, row.get::<_, Option<i64>>(1)?)),
        )
        .ok()
        .and_then(|(min, max)| min.zip(max));
    let threads = rayon::current_num_threads().max(1) as i64;
    // The rowid span comes from the file: checked arithmetic (a rowid of i64::MIN must not
    // overflow), and capacities are hints capped at MAX_CAPACITY_HINT rows (sparse rowids must not
    // reserve memory for rows that do not exist).
    let span = bounds.and_then(|(min, max)| max.checked_sub(min)?.checked_add(1));
    let hint = |rows: i64| rows.clamp(0, MAX_CAPACITY_HINT) as usize;
    let frame = match (bounds, span) {
        (Some((min, max)), Some(span)) if filter.is_none() && span > PARALLEL_ROWS && threads > 1 => {
            let per_thread = span / threads + 1;
            let ranges: Vec<(i64, i64)> = (0..threads)
                .map(|k| {
                    let lo = min.saturating_add(k.saturating_mul(per_thread));
                    let hi = lo.saturating_add(per_thread - 1).min(max);
                    (lo, hi)
                })
                .filter(|(lo, hi)| lo <= hi)
                .collect();
            let parts = ranges
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
                    )
                })
                .collect::<rusqlite::Result<Vec<DataFrame>>>()?;
            let mut parts = parts.into_iter();
            let mut frame = parts.next().unwrap_or_default();
            for part in parts {
                frame.vstack_mut_owned(part).map_err(polars_to_sqlite)?;
            }
            frame
        }
        (Some(_), span) => {
            let capacity = match (filter, span) {
                (None, Some(span)) => hint(span),
                _ => 0,
            };
            query_columns(conn, table, &columns, filter, capacity)?
        }
        (None, _) => query_columns(conn, table, &columns, filter, 0)?,
    };
    Ok(frame)
}

fn polars_to_sqlite(error: PolarsError) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(error))
}

/// Runs one `SELECT` over `columns` of `table` and fills one builder per column.
fn query_columns(
    conn: &Connection,
    table: &str,
    columns: &[(String, String)],
    filter: Option<&str>,
    capacity: usize,
) -> rusqlite::Result<DataFrame> {
    let list: Vec<String> = columns
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
        .map(|(name, declared)| Builder::new(name, affinity(declared), capacity))
        .collect();
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let mut height = 0usize;
    while let Some(row) = rows.next()? {
        for (index, builder) in builders.iter_mut().enumerate() {
            builder.push(row.get_ref(index)?);
        }
        height += 1;
    }
    let columns: Vec<Column> = builders.into_iter().map(Builder::finish).collect();
    DataFrame::new(height, columns).map_err(polars_to_sqlite)
}

/// A number stored as text in a numeric column (`" 12 "`), or `None` when it is not one.
fn parse_text<T: std::str::FromStr>(text: &[u8]) -> Option<T> {
    std::str::from_utf8(text).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_to_affinities() {
        assert_eq!(affinity("INTEGER"), Affinity::Integer);
        assert_eq!(affinity("int"), Affinity::Integer);
        assert_eq!(affinity("REAL"), Affinity::Real);
        assert_eq!(affinity("TEXT"), Affinity::Text);
        assert_eq!(affinity(""), Affinity::Text);
    }
}
