//! The synthetic Nsight Systems trace written as a SQLite export and as Parquet/Arrow table files
//! (the documented schema of `nsys export`).

use polars::prelude::*;
use std::path::Path;
use warpsight_ingest::nsys::tables::table;

use super::Schema;
use super::*;

/// Writes an nsys SQLite export of the configuration's schema.
pub fn write_sqlite(path: &Path, config: &SyntheticConfig) -> Result<(), SyntheticError> {
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    let mut conn = rusqlite::Connection::open(path)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    let tx = conn.transaction()?;
    let (meta, version) = match config.schema {
        Schema::Old => ("EXPORT_META_DATA", "3.1.7"),
        Schema::New => ("META_DATA_EXPORT", "3.24.0"),
    };
    tx.execute_batch(&format!(
        "CREATE TABLE {meta} (name TEXT NOT NULL, value TEXT);
         INSERT INTO {meta} VALUES ('EXPORT_SCHEMA_VERSION', '{version}');
         CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
         CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
    ))?;
    {
        let mut strings = tx.prepare("INSERT INTO StringIds VALUES (?1, ?2)")?;
        strings.execute(rusqlite::params![0, "[Unknown]"])?;
        for (k, kernel) in KERNELS.iter().enumerate() {
            strings.execute(rusqlite::params![string_id(k, 0), kernel.demangled])?;
            strings.execute(rusqlite::params![string_id(k, 1), kernel.short])?;
            strings.execute(rusqlite::params![string_id(k, 2), kernel.mangled])?;
        }
        let mut processes = tx.prepare("INSERT INTO PROCESSES VALUES (?1, ?2, ?3)")?;
        processes.execute(rusqlite::params![global_pid(), PROCESS.0, PROCESS.1])?;
        processes.execute(rusqlite::params![(1i64 << 48) + (1 << 24), 1, "init"])?;
    }
    let gpu = gpu_row(config.schema);
    let gpu_decl: Vec<String> = gpu
        .iter()
        .map(|(c, i, _)| format!("{c} {}", if i.is_some() { "INTEGER" } else { "TEXT" }))
        .collect();
    tx.execute_batch(&format!(
        "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, {});",
        gpu_decl.join(", ")
    ))?;
    {
        let placeholders: Vec<String> = (0..=gpu.len()).map(|n| format!("?{}", n + 1)).collect();
        let mut insert = tx.prepare(&format!(
            "INSERT INTO TARGET_INFO_GPU VALUES ({})",
            placeholders.join(", ")
        ))?;
        let mut values: Vec<rusqlite::types::Value> =
            vec![rusqlite::types::Value::Integer(1 << 48)];
        for (_, int, text) in &gpu {
            values.push(match (int, text) {
                (Some(v), _) => rusqlite::types::Value::Integer(*v),
                (None, Some(t)) => rusqlite::types::Value::Text((*t).to_string()),
                _ => rusqlite::types::Value::Null,
            });
        }
        insert.execute(rusqlite::params_from_iter(values))?;
    }
    let columns = kernel_columns(config.schema);
    let decl: Vec<String> = columns.iter().map(|c| format!("{c} INTEGER")).collect();
    tx.execute_batch(&format!(
        "CREATE TABLE {} ({});",
        table::KERNEL,
        decl.join(", ")
    ))?;
    {
        let placeholders: Vec<String> = (1..=columns.len()).map(|n| format!("?{n}")).collect();
        let mut insert = tx.prepare(&format!(
            "INSERT INTO {} VALUES ({})",
            table::KERNEL,
            placeholders.join(", ")
        ))?;
        let mut row: Vec<Option<i64>> = vec![None; columns.len()];
        for i in 0..config.launches {
            for (slot, column) in row.iter_mut().zip(&columns) {
                *slot = kernel_value(column, i);
            }
            insert.execute(rusqlite::params_from_iter(row.iter()))?;
        }
    }
    let all = transfers(config);
    let create_insert = |tx: &rusqlite::Transaction<'_>,
                         name: &str,
                         columns: &[&str],
                         rows: &[&SyntheticTransfer]|
     -> Result<(), rusqlite::Error> {
        let decl: Vec<String> = columns.iter().map(|c| format!("{c} INTEGER")).collect();
        tx.execute_batch(&format!("CREATE TABLE {name} ({});", decl.join(", ")))?;
        let placeholders: Vec<String> = (1..=columns.len()).map(|n| format!("?{n}")).collect();
        let mut insert = tx.prepare(&format!(
            "INSERT INTO {name} VALUES ({})",
            placeholders.join(", ")
        ))?;
        for t in rows {
            insert.execute(rusqlite::params_from_iter(
                columns.iter().map(|c| transfer_value(c, t)),
            ))?;
        }
        Ok(())
    };
    let memcpy: Vec<&SyntheticTransfer> = all.iter().filter(|t| !t.is_memset).collect();
    create_insert(&tx, table::MEMCPY, MEMCPY_COLUMNS, &memcpy)?;
    if config.schema == Schema::New {
        let memset: Vec<&SyntheticTransfer> = all.iter().filter(|t| t.is_memset).collect();
        create_insert(&tx, table::MEMSET, MEMSET_COLUMNS, &memset)?;
        for (name, rows) in [
            (table::ENUM_MEMCPY_OPER, MEMCPY_OPER),
            (table::ENUM_MEM_KIND, MEM_KIND),
        ] {
            tx.execute_batch(&format!(
                "CREATE TABLE {name} (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);"
            ))?;
            let mut insert = tx.prepare(&format!("INSERT INTO {name} VALUES (?1, ?2, ?3)"))?;
            for (id, symbol, label) in rows {
                insert.execute(rusqlite::params![id, symbol, label])?;
            }
        }
    }
    tx.commit()?;
    Ok(())
}

/// The export's tables as polars frames (same tables and columns as [`write_sqlite`]).
pub fn tables(config: &SyntheticConfig) -> PolarsResult<Vec<(&'static str, DataFrame)>> {
    let mut out = Vec::new();
    let columns = kernel_columns(config.schema);
    let mut kernel_cols = Vec::with_capacity(columns.len());
    for column in &columns {
        let values: Int64Chunked = (0..config.launches)
            .map(|i| kernel_value(column, i))
            .collect();
        let mut series = values.with_name((*column).into()).into_series();
        if config.schema == Schema::Old && column.starts_with("grid") && *column != "gridId" {
            series = series.cast(&DataType::Int32)?;
        }
        kernel_cols.push(series.into_column());
    }
    out.push((table::KERNEL, DataFrame::new(config.launches, kernel_cols)?));
    let mut ids = vec![0i64];
    let mut values = vec!["[Unknown]"];
    for (k, kernel) in KERNELS.iter().enumerate() {
        ids.extend([string_id(k, 0), string_id(k, 1), string_id(k, 2)]);
        values.extend([kernel.demangled, kernel.short, kernel.mangled]);
    }
    out.push((table::STRING_IDS, df!("id" => ids, "value" => values)?));
    let gpu = gpu_row(config.schema);
    let gpu_cols: Vec<Column> = gpu
        .iter()
        .map(|(c, int, text)| match text {
            Some(t) => Column::new((*c).into(), [*t]),
            None => Column::new((*c).into(), [*int]),
        })
        .collect();
    out.push((table::TARGET_INFO_GPU, DataFrame::new(1, gpu_cols)?));
    out.push((
        table::PROCESSES,
        df!("globalPid" => [global_pid()], "pid" => [PROCESS.0], "name" => [PROCESS.1])?,
    ));
    let all = transfers(config);
    let frame = |columns: &[&str], rows: &[&SyntheticTransfer]| -> PolarsResult<DataFrame> {
        let cols: Vec<Column> = columns
            .iter()
            .map(|c| {
                Column::new(
                    (*c).into(),
                    rows.iter()
                        .map(|t| transfer_value(c, t))
                        .collect::<Vec<i64>>(),
                )
            })
            .collect();
        DataFrame::new(rows.len(), cols)
    };
    let memcpy: Vec<&SyntheticTransfer> = all.iter().filter(|t| !t.is_memset).collect();
    out.push((table::MEMCPY, frame(MEMCPY_COLUMNS, &memcpy)?));
    if config.schema == Schema::New {
        let memset: Vec<&SyntheticTransfer> = all.iter().filter(|t| t.is_memset).collect();
        out.push((table::MEMSET, frame(MEMSET_COLUMNS, &memset)?));
        for (name, rows) in [
            (table::ENUM_MEMCPY_OPER, MEMCPY_OPER),
            (table::ENUM_MEM_KIND, MEM_KIND),
        ] {
            out.push((
                name,
                df!(
                    "id" => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
                    "name" => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
                    "label" => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
                )?,
            ));
        }
    }
    Ok(out)
}

/// The container of a table-directory export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// `parquetdir`: `<TABLE>.parquet` files.
    Parquet,
    /// `arrowdir`: `<TABLE>.arrow` Arrow IPC files.
    Arrow,
}

/// Writes a `parquetdir` / `arrowdir` export into `dir` (created if needed).
pub fn write_table_dir(
    dir: &Path,
    config: &SyntheticConfig,
    container: Container,
) -> Result<(), SyntheticError> {
    std::fs::create_dir_all(dir)?;
    for (name, mut frame) in tables(config)? {
        match container {
            Container::Parquet => {
                let file = std::fs::File::create(dir.join(format!("{name}.parquet")))?;
                ParquetWriter::new(file).finish(&mut frame)?;
            }
            Container::Arrow => {
                let file = std::fs::File::create(dir.join(format!("{name}.arrow")))?;
                // The old schema is written with plain (large) UTF-8 strings, the new one with
                // string views, so that both Arrow string layouts are exercised.
                let level = match config.schema {
                    Schema::Old => CompatLevel::oldest(),
                    Schema::New => CompatLevel::newest(),
                };
                IpcWriter::new(file)
                    .with_compat_level(level)
                    .finish(&mut frame)?;
            }
        }
    }
    Ok(())
}
