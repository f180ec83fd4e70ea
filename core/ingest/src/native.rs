//! warpsight's own launch-table files: writing them (`warpsight ingest -o`) and reading them back
//! (Parquet, Arrow IPC or CSV) into the same launch table.
//!
//! Parquet and Arrow IPC keep every dtype. CSV keeps the known columns' dtypes (they are imposed on
//! read from [`crate::launch_table::COLUMNS`]); extra columns are re-inferred, so an extra column
//! that is entirely null reads back as a string column.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use polars::prelude::*;

use crate::{Format, IngestError, ReadConfig};
use crate::launch_table;
use crate::trace::Trace;

/// Why a launch table could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The extension does not name a supported container.
    #[error("cannot tell the output format of `{}` from its extension", path.display())]
    UnknownExtension {
        /// The output path.
        path: std::path::PathBuf,
    },
    /// The file could not be created.
    #[error("cannot create `{}`", path.display())]
    Io {
        /// The output path.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// polars failed while writing.
    #[error("cannot write `{}`", path.display())]
    Polars {
        /// The output path.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: PolarsError,
    },
}

/// The warpsight format an output path's extension asks for: `.parquet`, `.arrow` / `.ipc` /
/// `.feather`, or `.csv`.
pub fn format_for_extension(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "parquet" | "pq" => Some(Format::WarpsightParquet),
        "arrow" | "ipc" | "feather" => Some(Format::WarpsightIpc),
        "csv" => Some(Format::WarpsightCsv),
        _ => None,
    }
}

/// Writes a launch table to `path` in the container its extension names.
pub fn write(frame: &mut DataFrame, path: &Path) -> Result<Format, WriteError> {
    let format = format_for_extension(path).ok_or_else(|| WriteError::UnknownExtension {
        path: path.to_path_buf(),
    })?;
    let file = File::create(path).map_err(|source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let polars = |source| WriteError::Polars {
        path: path.to_path_buf(),
        source,
    };
    match format {
        Format::WarpsightParquet => ParquetWriter::new(file)
            .finish(frame)
            .map(|_| ())
            .map_err(polars)?,
        Format::WarpsightIpc => IpcWriter::new(file).finish(frame).map_err(polars)?,
        _ => CsvWriter::new(file)
            .include_header(true)
            .finish(frame)
            .map_err(polars)?,
    }
    Ok(format)
}

/// A table written one batch at a time to `out`, so that the whole table is never held: Parquet
/// (a row group per batch) or CSV (a header, then the rows). `warpsight ingest` of several files
/// writes a file per batch (Arrow IPC is written whole by [`write`]); `analyze --per launch` writes
/// its batches of launches through it.
pub enum BatchWriter<W: std::io::Write> {
    /// Parquet.
    Parquet(Box<polars::io::parquet::write::BatchedWriter<W>>),
    /// CSV with a header row.
    Csv(polars::io::csv::write::BatchedWriter<W>),
}

impl<W: std::io::Write> BatchWriter<W> {
    /// A writer of tables with `schema` in `format` (a warpsight Parquet or CSV format), or
    /// `None` for a format written whole.
    pub fn new(format: Format, schema: &Schema, out: W) -> PolarsResult<Option<Self>> {
        Ok(match format {
            Format::WarpsightParquet => Some(BatchWriter::Parquet(Box::new(
                ParquetWriter::new(out).batched(schema)?,
            ))),
            Format::WarpsightCsv => Some(BatchWriter::Csv(
                CsvWriter::new(out).include_header(true).batched(schema)?,
            )),
            _ => None,
        })
    }

    /// Writes one batch (the schema given to [`Self::new`]).
    pub fn write(&mut self, batch: &DataFrame) -> PolarsResult<()> {
        // The batched writers expect aligned chunks.
        let mut batch = batch.clone();
        batch.rechunk_mut();
        match self {
            BatchWriter::Parquet(writer) => writer.write_batch(&batch),
            BatchWriter::Csv(writer) => writer.write_batch(&batch),
        }
    }

    /// Ends the output (Parquet's footer; CSV's header when no batch came).
    pub fn finish(self) -> PolarsResult<()> {
        match self {
            BatchWriter::Parquet(writer) => writer.finish().map(|_| ()),
            BatchWriter::Csv(mut writer) => writer.finish(),
        }
    }
}

/// A [`BatchWriter`] creating `path` in the format its extension names, or `None` for a format
/// written whole (Arrow IPC).
pub fn create_batch_writer(
    path: &Path,
    schema: &Schema,
) -> Result<Option<BatchWriter<File>>, WriteError> {
    let format = format_for_extension(path).ok_or_else(|| WriteError::UnknownExtension {
        path: path.to_path_buf(),
    })?;
    if !matches!(format, Format::WarpsightParquet | Format::WarpsightCsv) {
        return Ok(None);
    }
    let file = File::create(path).map_err(|source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    BatchWriter::new(format, schema, file).map_err(|source| WriteError::Polars {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a launch table written by `warpsight ingest`.
pub fn read(path: &Path, format: Format, _config: &ReadConfig) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    if matches!(format, Format::WarpsightParquet | Format::WarpsightIpc) {
        // polars trusts the lengths the file declares: they are checked first.
        crate::preflight::check(path, format, crate::preflight::Depth::Whole)?;
    }
    let frame = match format {
        Format::WarpsightParquet => ParquetReader::new(File::open(path).map_err(io)?)
            .finish()
            .map_err(polars)?,
        Format::WarpsightIpc => IpcReader::new(File::open(path).map_err(io)?)
            .finish()
            .map_err(polars)?,
        _ => CsvReadOptions::default()
            .with_has_header(true)
            .with_schema_overwrite(Some(Arc::new(launch_table::known_schema())))
            .try_into_reader_with_file_path(Some(path.to_path_buf()))
            .and_then(|reader| reader.finish())
            .map_err(polars)?,
    };
    let frame = if format == Format::WarpsightCsv {
        all_null_strings_as_f64(frame).map_err(polars)?
    } else {
        frame
    };
    if frame.column(launch_table::col::LAUNCH_ID).is_err() {
        return Err(IngestError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            expected: format!(
                "a warpsight launch table with a `{}` column",
                launch_table::col::LAUNCH_ID
            ),
            found: "a table without it".into(),
        });
    }
    let launches = launch_table::conform(frame.lazy())
        .and_then(|f| f.collect())
        .map_err(polars)?;
    let mut trace = Trace::empty(format.name());
    trace.launches = launches;
    Ok(trace)
}

/// CSV carries no dtypes: an extra column with no value at all is read as a string column. The
/// readers build such columns as Float64 (a metric that was never available), so read them so.
fn all_null_strings_as_f64(frame: DataFrame) -> PolarsResult<DataFrame> {
    let casts: Vec<Expr> = frame
        .columns()
        .iter()
        .filter(|c| {
            c.dtype() == &DataType::String
                && c.null_count() == c.len()
                && !launch_table::is_known_column(c.name().as_str())
        })
        .map(|c| col(c.name().clone()).cast(DataType::Float64))
        .collect();
    if casts.is_empty() {
        return Ok(frame);
    }
    frame.lazy().with_columns(casts).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_container_round_trips_with_dtypes() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let details = dir.path().join("in.csv");
        std::fs::write(
            &details,
            warpsight_test_support::fixtures::SMALL_DETAILS,
        )?;
        let original = crate::read_path(&details, &ReadConfig::default())?.launches;
        assert_eq!(original.height(), 2);
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let path = dir.path().join(name);
            let mut frame = original.clone();
            let format = write(&mut frame, &path)?;
            let back = crate::read_path(&path, &ReadConfig::default())?;
            assert_eq!(back.format, format.name());
            assert_eq!(back.launches.schema(), original.schema(), "{name}");
            assert!(back.launches.equals_missing(&original), "{name}: {back:?}");
        }
        Ok(())
    }
}
