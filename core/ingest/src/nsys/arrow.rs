//! Reader for Nsight Systems Parquet and Arrow exports: `nsys export --type parquetdir` (a
//! directory with one `<TABLE>.parquet` per table), `--type arrowdir` (one `<TABLE>.arrow` IPC file
//! per table), and a single table file (`.parquet` / `.arrow`) holding the kernel table, whose
//! sibling tables (`StringIds`, `TARGET_INFO_GPU`, ...) are used when they sit next to it.
//!
//! The tables and column names are the SQLite export's, so the frames are scanned lazily and handed
//! to [`crate::nsys::tables`]; strings may be `Utf8` or `Utf8View` and integer widths may vary
//! (everything is cast to Int64), and extra columns are tolerated.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::nsys::tables::{self, Constants, NsysTables, table};
use crate::trace::Trace;
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
    let source = PlRefPath::try_from_path(path).map_err(polars)?;
    match format {
        Format::NsysParquet => LazyFrame::scan_parquet(source, ScanArgsParquet::default()),
        _ => LazyFrame::scan_ipc(source, Default::default(), Default::default()),
    }
    .map_err(polars)
}

/// The container format of a single file, from its magic bytes (`PAR1` or `ARROW1`), else from its
/// extension.
fn container_of(path: &Path) -> Format {
    let mut magic = [0u8; 6];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut magic));
    match read {
        Ok(n) if magic[..n].starts_with(b"PAR1") => Format::NsysParquet,
        Ok(n) if magic[..n].starts_with(b"ARROW1") => Format::NsysArrow,
        _ if path.extension().is_some_and(|e| e == "parquet") => Format::NsysParquet,
        _ => Format::NsysArrow,
    }
}

/// Reads an nsys `parquetdir` / `arrowdir` export directory, or a single kernel-table file.
pub fn read(path: &Path, format: Format, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_with(path, format, config, Constants::Scalar)
}

/// Reads an nsys `parquetdir` / `arrowdir` export, with the constant kernel columns kept as
/// `constants` says.
pub(crate) fn read_with(
    path: &Path,
    format: Format,
    config: &ReadConfig,
    constants: Constants,
) -> Result<Trace, IngestError> {
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
    tables::build_trace(path, format, tables, config)
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
                let narrow = read_with(&path, format, &read, Constants::Scalar)?;
                let full = read_with(&path, format, &read, Constants::Materialized)?;
                assert_eq!(narrow.launches.height(), 300);
                assert_same_trace(&narrow, &full, &path.display().to_string());
            }
        }
        Ok(())
    }
}
