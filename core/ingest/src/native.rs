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
    // Parquet and Arrow IPC are written a piece at a time: the writers materialise a constant
    // (scalar) column whole, which the launch table of a large nsys export has dozens of.
    match format {
        Format::WarpsightParquet => {
            let mut writer = ParquetWriter::new(file)
                .batched(frame.schema())
                .map_err(polars)?;
            for mut piece in pieces(frame, ROWS_PER_PIECE) {
                piece.rechunk_mut();
                writer.write_batch(&piece).map_err(polars)?;
            }
            writer.finish().map(|_| ()).map_err(polars)?
        }
        Format::WarpsightIpc => {
            let fields = frame
                .schema()
                .to_arrow(CompatLevel::newest())
                .into_iter_values()
                .collect::<Vec<_>>();
            let mut writer = IpcWriter::new(file)
                .batched(
                    frame.schema(),
                    polars_arrow::io::ipc::write::default_ipc_fields(fields.iter()),
                )
                .map_err(polars)?;
            for mut piece in pieces(frame, ROWS_PER_IPC_PIECE) {
                piece.rechunk_mut();
                writer.write_batch(&piece).map_err(polars)?;
            }
            writer.finish().map_err(polars)?
        }
        _ => CsvWriter::new(file)
            .include_header(true)
            .finish(frame)
            .map_err(polars)?,
    }
    Ok(format)
}

/// Rows per piece of a table written as Parquet: polars' row group size, so that the row groups
/// are the ones `ParquetWriter::finish` makes.
const ROWS_PER_PIECE: usize = 512 * 512;

/// Rows per piece (record batch) of a table written as Arrow IPC, whose writer holds a whole
/// batch, uncompressed, while it writes it.
const ROWS_PER_IPC_PIECE: usize = 64 * 1024;

/// `frame` cut into consecutive row ranges as polars cuts a table into Parquet row groups: as many
/// pieces as `rows` fits in the height (at least one), of equal size but for the last, which
/// takes the remainder. A piece shares its columns' buffers; a constant column's piece is
/// materialised only by the writer, one piece at a time.
fn pieces(frame: &DataFrame, rows: usize) -> impl Iterator<Item = DataFrame> + '_ {
    let height = frame.height();
    let count = (height / rows.max(1)).max(1);
    let size = height / count;
    (0..count).map(move |k| {
        let offset = k * size;
        let len = if k + 1 == count { height - offset } else { size };
        frame.slice(offset as i64, len)
    })
}

/// A table written one batch at a time to `out`, so that the whole table is never held: Parquet
/// (a row group per batch, or per piece of a large batch) or CSV (a header, then the rows). `warpsight ingest` of several files
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
        match self {
            // A large batch is written a row group of at most about `ROWS_PER_PIECE` rows at a
            // time (see `pieces`).
            BatchWriter::Parquet(writer) => {
                for mut piece in pieces(batch, ROWS_PER_PIECE) {
                    // The batched writers expect aligned chunks.
                    piece.rechunk_mut();
                    writer.write_batch(&piece)?;
                }
                Ok(())
            }
            BatchWriter::Csv(writer) => {
                let mut batch = batch.clone();
                batch.rechunk_mut();
                writer.write_batch(&batch)
            }
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

    #[test]
    fn pieces_cut_the_rows_as_parquet_row_groups() -> PolarsResult<()> {
        for (height, lengths) in [
            (0, vec![0]),
            (10, vec![10]),
            (ROWS_PER_PIECE, vec![ROWS_PER_PIECE]),
            (2 * ROWS_PER_PIECE + 5, vec![ROWS_PER_PIECE + 2, ROWS_PER_PIECE + 3]),
            (3 * ROWS_PER_PIECE - 1, vec![(3 * ROWS_PER_PIECE - 1) / 2, (3 * ROWS_PER_PIECE - 1) / 2 + 1]),
        ] {
            let frame = df!("x" => (0..height as i64).collect::<Vec<_>>())?;
            let pieces: Vec<DataFrame> = pieces(&frame, ROWS_PER_PIECE).collect();
            let got: Vec<usize> = pieces.iter().map(DataFrame::height).collect();
            assert_eq!(got, lengths, "{height}");
            let mut stacked = pieces.into_iter().reduce(|mut a, b| {
                a.extend(&b).ok();
                a
            });
            assert!(stacked.as_mut().is_some_and(|s| s.equals(&frame)), "{height}");
        }
        Ok(())
    }

    #[test]
    fn a_large_table_with_constant_columns_round_trips_in_pieces()
    -> Result<(), Box<dyn std::error::Error>> {
        // More rows than one piece, with constant (scalar) columns of each kind, as the launch
        // table of a large nsys export has them.
        let rows = ROWS_PER_PIECE + ROWS_PER_PIECE / 2;
        let scalar = |name: &str, dtype: DataType, value: AnyValue<'static>| {
            Column::new_scalar(name.into(), Scalar::new(dtype, value), rows)
        };
        let narrow = DataFrame::new(
            rows,
            vec![
                Column::new(
                    launch_table::col::LAUNCH_ID.into(),
                    (0..rows as i64).collect::<Vec<_>>(),
                ),
                scalar("constant", DataType::Int64, AnyValue::Int64(7)),
                scalar("nulls", DataType::Float64, AnyValue::Null),
                scalar("text", DataType::String, AnyValue::StringOwned("GPU".into())),
            ],
        )?;
        let materialized = DataFrame::new(
            rows,
            narrow
                .columns()
                .iter()
                .map(|c| c.as_materialized_series().clone().into_column())
                .collect(),
        )?;
        assert!(narrow.equals_missing(&materialized));
        let dir = tempfile::tempdir()?;
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let path = dir.path().join(name);
            let mut frame = narrow.clone();
            write(&mut frame, &path)?;
            let file = File::open(&path)?;
            let back = match format_for_extension(&path) {
                Some(Format::WarpsightParquet) => ParquetReader::new(file).finish()?,
                Some(Format::WarpsightIpc) => IpcReader::new(file).finish()?,
                _ => CsvReadOptions::default()
                    .with_has_header(true)
                    .with_schema_overwrite(Some(Arc::new(materialized.schema().as_ref().clone())))
                    .into_reader_with_file_handle(file)
                    .finish()?,
            };
            assert_eq!(back.schema(), materialized.schema(), "{name}");
            assert!(back.equals_missing(&materialized), "{name}");
        }
        // A batch larger than a piece, through the batched writer.
        let path = dir.path().join("batched.parquet");
        let mut writer = create_batch_writer(&path, narrow.schema())?
            .ok_or("Parquet is written in batches")?;
        writer.write(&narrow)?;
        writer.write(&narrow.slice(0, 3))?;
        writer.finish()?;
        let back = ParquetReader::new(File::open(&path)?).finish()?;
        let mut expected = materialized.clone();
        expected.vstack_mut(&materialized.slice(0, 3))?;
        assert!(back.equals_missing(&expected));
        Ok(())
    }
}
