//! Reader for Nsight Systems Parquet and Arrow exports: `nsys export --type parquetdir` (a
//! directory with one `<TABLE>.parquet` per table), `--type arrowdir` (one `<TABLE>.arrow` IPC file
//! per table), and a single table file (`.parquet` / `.arrow`) holding the kernel table, whose
//! sibling tables (`StringIds`, `TARGET_INFO_GPU`, ...) are used when they sit next to it.
//!
//! The tables and column names are the SQLite export's, so the frames are scanned lazily and handed
//! to [`crate::nsys::tables`] ([`TableFilesSource`] hands on the launch table in batches of
//! kernel rows, for `warpsight ingest`); strings may be `Utf8` or `Utf8View` and integer widths
//! may vary (everything is cast to Int64), and extra columns are tolerated.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::launch_source::{AfterBatches, Batching, LaunchSource, TablesWanted, hand_on_whole};
use crate::nsys::tables::{self, ConstantColumns, NsysTables, table};
use crate::trace::{SideTables, Trace};
use crate::{Format, IngestError, ReadConfig};

/// The file extension of the table files of `format`.
fn extension(format: Format) -> &'static str {
    match format {
        Format::NsysParquet => "parquet",
        _ => "arrow",
    }
}

/// Lazily scans one table file, once its length fields are checked (polars trusts them).
fn scan(path: &Path, format: Format) -> Result<LazyFrame, IngestError> {
    crate::preflight::check(path, format, crate::preflight::Depth::Whole)?;
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    // Read into memory, never mapped: a file cut during the read is an error, not a SIGBUS.
    let bytes = crate::source::read_all(path)?;
    crate::source::scan_bytes(bytes, format == Format::NsysParquet).map_err(polars)
}

/// The container format of a single file, from its magic bytes (`PAR1` or `ARROW1`), else from its
/// extension.
fn container_of(path: &Path) -> Format {
    let mut magic = [0u8; 6];
    let read = crate::source::open(path)
        .ok()
        .and_then(|mut f| std::io::Read::read(&mut f, &mut magic).ok());
    match read {
        Some(n) if magic[..n].starts_with(b"PAR1") => Format::NsysParquet,
        Some(n) if magic[..n].starts_with(b"ARROW1") => Format::NsysArrow,
        _ if path.extension().is_some_and(|e| e == "parquet") => Format::NsysParquet,
        _ => Format::NsysArrow,
    }
}

/// Reads an nsys `parquetdir` / `arrowdir` export directory, or a single kernel-table file.
pub(crate) fn read(path: &Path, format: Format, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_with(path, format, config, ConstantColumns::Scalar)
}

/// Reads an nsys `parquetdir` / `arrowdir` export, with the constant kernel columns kept as
/// `constants` says.
pub(crate) fn read_with(
    path: &Path,
    format: Format,
    config: &ReadConfig,
    constants: ConstantColumns,
) -> Result<Trace, IngestError> {
    let tables = tables_of(path, format, constants)?;
    tables::build_trace(path, format, tables, config)
}

/// The tables of an export directory, or of a single kernel-table file and its sibling tables,
/// scanned lazily.
fn tables_of(
    path: &Path,
    format: Format,
    constants: ConstantColumns,
) -> Result<NsysTables, IngestError> {
    let mut tables = NsysTables {
        constants,
        ..NsysTables::default()
    };
    if path.is_dir() {
        let ext = extension(format);
        for &name in table::ALL {
            let file = path.join(format!("{name}.{ext}"));
            if file.is_file() {
                tables.set(name, scan(&file, format)?);
            }
        }
    } else {
        let container = container_of(path);
        tables.kernels = Some(scan(path, container)?);
        let dir: PathBuf = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let ext = extension(container);
        for &name in table::ALL {
            let sibling = dir.join(format!("{name}.{ext}"));
            if name != table::KERNEL && sibling.is_file() && sibling != path {
                tables.set(name, scan(&sibling, container)?);
            }
        }
    }
    Ok(tables)
}

/// Reads an nsys Parquet / Arrow export of `format` in row slices of the kernel table, of
/// 4 × [`Batching::launches`] kernel rows.
pub(crate) struct TableFilesSource {
    /// [`Format::NsysParquet`] or [`Format::NsysArrow`].
    pub(crate) format: Format,
}

impl LaunchSource for TableFilesSource {
    fn read_launches(
        &self,
        path: &Path,
        config: &ReadConfig,
        batching: Batching,
        wanted: TablesWanted,
        on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
    ) -> Result<AfterBatches, IngestError> {
        // Slices of four batches: 262 144 kernel rows by default, the row group polars writes (a
        // slice that cuts a row group decodes all of it). Each table file is read into memory
        // whole first, so a file cut during the read is an error there, never a shorter table.
        let rows = batching.launches.saturating_mul(4);
        read_launch_batches(path, self.format, config, rows, wanted, on_batch)
    }
}

/// Reads the launch table of an nsys Parquet / Arrow export in batches of `rows` kernel rows (row
/// slices of the kernel table, which polars reads from the row groups or record batches they
/// overlap), each built with the side tables (read once) and handed to `on_batch`, which breaks to
/// stop the reading. The batches stacked are the launch table of [`read`], and the rejected rows
/// returned are its rejected rows, numbered in the whole kernel table; with `--strict` the first
/// one is the error [`read`] gives. The transfers are read, once the last batch is handed on, only
/// with [`TablesWanted::All`]. An export without a kernel table, or with at most `rows` kernel
/// rows, is read whole and handed on as one batch.
fn read_launch_batches(
    path: &Path,
    format: Format,
    config: &ReadConfig,
    rows: usize,
    wanted: TablesWanted,
    on_batch: &mut dyn FnMut(DataFrame) -> ControlFlow<()>,
) -> Result<AfterBatches, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let mut tables = tables_of(path, format, ConstantColumns::Scalar)?;
    let kernel_rows = match &tables.kernels {
        Some(kernels) => {
            let count = kernels.clone().select([len()]).collect().map_err(polars)?;
            count
                .column("len")
                .ok()
                .and_then(|c| c.get(0).ok())
                .and_then(|v| v.extract::<u64>())
                .unwrap_or(0)
        }
        None => 0,
    };
    let rows = rows.max(1) as u64;
    let kernels = match tables.kernels.take() {
        Some(kernels) if kernel_rows > rows => kernels,
        kernels => {
            // One batch, built from the tables already scanned (and checked).
            tables.kernels = kernels;
            let trace = tables::build_trace(path, format, tables, config)?;
            return Ok(hand_on_whole(trace, wanted, on_batch));
        }
    };
    // The transfers' tables (still scans), kept for the end when asked for.
    let transfer_tables = match wanted {
        TablesWanted::LaunchesOnly => NsysTables::default(),
        TablesWanted::All => NsysTables {
            memcpy: tables.memcpy.take(),
            memset: tables.memset.take(),
            memcpy_oper: tables.memcpy_oper.take(),
            mem_kind: tables.mem_kind.take(),
            gpus: tables.gpus.clone(),
            ..NsysTables::default()
        },
    };
    // The side tables the launch table reads, collected once rather than scanned per batch.
    let collected = |frame: Option<LazyFrame>| -> Result<Option<LazyFrame>, IngestError> {
        frame
            .map(|frame| frame.collect().map(DataFrame::lazy).map_err(polars))
            .transpose()
    };
    let tables = NsysTables {
        string_ids: collected(tables.string_ids.take())?,
        gpus: collected(tables.gpus.take())?,
        processes: collected(tables.processes.take())?,
        constants: ConstantColumns::Scalar,
        ..NsysTables::default()
    };
    let source = path.display().to_string();
    let mut rejected = Vec::new();
    let mut offset = 0u64;
    while offset < kernel_rows {
        let length = rows.min(kernel_rows - offset);
        let batch = kernels.clone().slice(
            i64::try_from(offset)
                .map_err(|_| polars(polars_err!(ComputeError: "too many kernel rows")))?,
            IdxSize::try_from(length)
                .map_err(|_| polars(polars_err!(ComputeError: "too many kernel rows")))?,
        );
        let (launches, mut batch_rejected) =
            tables::build_launches(path, format, &source, batch, &tables, offset)?;
        offset += length;
        crate::trace::refuse_rejected(path, config.strict, &batch_rejected)?;
        rejected.append(&mut batch_rejected);
        if on_batch(launches).is_break() {
            break;
        }
    }
    if !rejected.is_empty() {
        tracing::warn!(path = %path.display(), rejected = rejected.len(), "some kernel rows were rejected");
    }
    let side = match wanted {
        TablesWanted::LaunchesOnly => SideTables::default(),
        TablesWanted::All => SideTables {
            transfers: tables::build_transfers(&source, &transfer_tables).map_err(polars)?,
            ..SideTables::default()
        },
    };
    Ok(AfterBatches { rejected, side })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nsys::tables::assert_same_trace;
    use warpsight_test_support::synthetic_nsys::{
        Container, Schema, SyntheticConfig, write_table_dir,
    };

    #[test]
    fn narrow_reads_equal_materialized_reads() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        for schema in [Schema::Old, Schema::New] {
            for (container, format) in [
                (Container::Parquet, Format::NsysParquet),
                (Container::Arrow, Format::NsysArrow),
            ] {
                let path = dir.path().join(format!("{schema:?}_{container:?}"));
                let config = SyntheticConfig {
                    launches: 300,
                    memcpy_every: 5,
                    schema,
                };
                write_table_dir(&path, &config, container)?;
                let read = ReadConfig::default();
                let narrow = read_with(&path, format, &read, ConstantColumns::Scalar)?;
                let full = read_with(&path, format, &read, ConstantColumns::Materialized)?;
                assert_eq!(narrow.launches.height(), 300);
                assert_same_trace(&narrow, &full, &path.display().to_string());
            }
        }
        Ok(())
    }
}
