//! warpsight's own launch-table files: writing them (`warpsight ingest -o`) and reading them back
//! (Parquet, Arrow IPC or CSV) into the same launch table.
//!
//! Parquet and Arrow IPC keep every dtype. CSV keeps the known columns' dtypes (they are imposed on
//! read from `crate::launch_table::COLUMNS`); extra columns are re-inferred, so an extra column
//! that is entirely null reads back as a string column.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use polars::prelude::*;
use polars_parquet::write::{CompressionOptions, Encoding, StatisticsOptions, WriteOptions};

use crate::launch_table;
use crate::parquet_container::{self, Container, EncodedChunk, Leaf};
use crate::trace::Trace;
use crate::{Format, IngestError, ReadConfig};

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

/// The format `path`'s extension names, or the error saying it names none.
fn output_format(path: &Path) -> Result<Format, WriteError> {
    format_for_extension(path).ok_or_else(|| WriteError::UnknownExtension {
        path: path.to_path_buf(),
    })
}

/// Creates the output `path` once its extension is known to name a format.
fn create_output(path: &Path) -> Result<File, WriteError> {
    output_format(path)?;
    File::create(path).map_err(|source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a launch table to `path` in the container its extension names.
pub fn write(frame: &mut DataFrame, path: &Path) -> Result<Format, WriteError> {
    write_to(frame, path, create_output(path)?)
}

/// Writes a launch table to `out` in the container `path`'s extension names (`path` is named in
/// the errors; `out` may be another file, such as a temporary one renamed to `path` at the end).
pub fn write_to(frame: &mut DataFrame, path: &Path, out: File) -> Result<Format, WriteError> {
    let format = output_format(path)?;
    let polars = |source| WriteError::Polars {
        path: path.to_path_buf(),
        source,
    };
    // Parquet and Arrow IPC are written a piece at a time (see `BatchWriter::write`): the writers
    // materialise a constant (scalar) column whole, which the launch table of a large nsys export
    // has dozens of.
    match format {
        Format::WarpsightParquet | Format::WarpsightIpc => {
            let mut writer = BatchWriter::new(format, frame.schema(), out)
                .map_err(polars)?
                .ok_or_else(|| polars(polars_err!(ComputeError: "not a warpsight table format")))?;
            writer.write(frame).map_err(polars)?;
            writer.finish().map_err(polars)?;
        }
        _ => CsvWriter::new(out)
            .include_header(true)
            .finish(frame)
            .map_err(polars)?,
    }
    Ok(format)
}

/// The most rows a Parquet row group holds: polars' row group size, so that the row groups are
/// the ones `ParquetWriter::finish` makes (a table of one input read whole is handed to the writer
/// as one batch).
pub(crate) const PARQUET_ROW_GROUP_ROWS: usize = 512 * 512;

/// Rows per record batch of a table written as Arrow IPC, whose writer holds a whole batch,
/// uncompressed, while it writes it.
const IPC_BATCH_ROWS: usize = 64 * 1024;

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
        let len = if k + 1 == count {
            height - offset
        } else {
            size
        };
        frame.slice(offset as i64, len)
    })
}

/// A table written one batch at a time to `out`, so that the whole table is never held: Parquet
/// (a row group per batch, or per piece of a larger one, cut as `pieces` cuts it), Arrow IPC
/// (record batches of at most `IPC_BATCH_ROWS` rows) or CSV (a header, then the rows).
/// `warpsight ingest` writes its batches through it, [`write()`] its whole table, and `analyze --per
/// launch` its batches of launches. Read back, the batches give the table [`write()`] gives for them
/// stacked.
pub enum BatchWriter<W: std::io::Write> {
    /// Parquet ([`ParquetBatches`]: the columns of a row group encoded and compressed in
    /// parallel).
    Parquet(Box<ParquetBatches<W>>),
    /// Arrow IPC (file format).
    Ipc(Box<polars::io::ipc::BatchedWriter<W>>),
    /// CSV with a header row.
    Csv(polars::io::csv::write::BatchedWriter<W>),
}

impl<W: std::io::Write> BatchWriter<W> {
    /// A writer of tables with `schema` in `format` (a warpsight Parquet, IPC or CSV format), or
    /// `None` for a format that is not a warpsight table format.
    pub fn new(format: Format, schema: &Schema, out: W) -> PolarsResult<Option<Self>> {
        Ok(match format {
            Format::WarpsightParquet => Some(BatchWriter::Parquet(Box::new(ParquetBatches::new(
                schema, out,
            )?))),
            Format::WarpsightIpc => {
                // The writer's field descriptions are those the whole-table writer derives from
                // the same Arrow schema (no dictionaries in a launch table).
                let arrow = schema.to_arrow(CompatLevel::newest());
                let fields = polars_arrow::io::ipc::write::default_ipc_fields(arrow.iter_values());
                Some(BatchWriter::Ipc(Box::new(
                    IpcWriter::new(out).batched(schema, fields)?,
                )))
            }
            Format::WarpsightCsv => Some(BatchWriter::Csv(
                CsvWriter::new(out).include_header(true).batched(schema)?,
            )),
            _ => None,
        })
    }

    /// Writes one batch (the schema given to [`Self::new`]). A Parquet batch larger than
    /// `PARQUET_ROW_GROUP_ROWS` is written as several row groups, as polars' whole-table writer
    /// cuts them; an IPC batch as record batches of at most `IPC_BATCH_ROWS` rows.
    pub fn write(&mut self, batch: &DataFrame) -> PolarsResult<()> {
        // The batched writers expect aligned chunks (and write a Parquet row group per chunk).
        let aligned = |mut frame: DataFrame| {
            frame.rechunk_mut();
            frame
        };
        match self {
            BatchWriter::Parquet(writer) => {
                for piece in pieces(batch, PARQUET_ROW_GROUP_ROWS) {
                    writer.write_row_group(&aligned(piece))?;
                }
                Ok(())
            }
            BatchWriter::Ipc(writer) => {
                for piece in pieces(batch, IPC_BATCH_ROWS) {
                    writer.write_batch(&aligned(piece))?;
                }
                Ok(())
            }
            BatchWriter::Csv(writer) => writer.write_batch(&aligned(batch.clone())),
        }
    }

    /// Ends the output (Parquet's and IPC's footer; CSV's header when no batch came).
    pub fn finish(self) -> PolarsResult<()> {
        match self {
            BatchWriter::Parquet(writer) => writer.finish(),
            BatchWriter::Ipc(mut writer) => writer.finish(),
            BatchWriter::Csv(mut writer) => writer.finish(),
        }
    }

    /// Ends the output as [`Self::finish`] does, every byte written to `out`, and returns the
    /// spent writer, still holding `out` and what it kept to write the footer (a Parquet writer:
    /// the metadata of every column chunk and page). A command that exits right after need not
    /// free it: for a batch of reports (thousands of columns) that freeing was a serial 3 ms at
    /// the end of the write.
    pub fn end(mut self) -> PolarsResult<Ended<W>> {
        match &mut self {
            BatchWriter::Parquet(writer) => writer.write_footer()?,
            BatchWriter::Ipc(writer) => writer.finish()?,
            BatchWriter::Csv(writer) => writer.finish()?,
        }
        Ok(Ended(self))
    }
}

/// A [`BatchWriter`] whose output has ended ([`BatchWriter::end`]): dropping it frees what the
/// writer held and closes its output.
pub struct Ended<W: std::io::Write>(#[allow(dead_code)] BatchWriter<W>);

/// Row groups with fewer rows than this are written without dictionary encoding.
///
/// polars' encoder decides per column whether a dictionary is worth it from a HyperLogLog
/// estimate of the column's distinct values, a fixed cost of tens of microseconds per column
/// whatever its length, and for at most 128 rows it then builds the dictionary whatever the
/// estimate says. A wide table of a few hundred launches (an `.ncu-rep` batch: thousands of
/// metric columns) spent most of its Parquet write in that estimate, to save a few bytes per
/// column that the compression saves anyway; a long table (an nsys export's row groups of
/// [`PARQUET_ROW_GROUP_ROWS`] launches) keeps the dictionaries, which make its repeated values
/// small. docs/performance.md has the measurements.
pub(crate) const DICTIONARY_MIN_ROWS: usize = 1024;

/// The compression of every Parquet data page: zstd at its default level, polars' own default.
/// Compressing each column on its own core (see [`ParquetBatches`]) makes it cheap enough; see
/// docs/performance.md for the alternatives measured.
const PARQUET_COMPRESSION: CompressionOptions = CompressionOptions::Zstd(None);

/// A Parquet file written one row group at a time, read back by polars and pyarrow as the table
/// polars' own writer writes (the same Arrow schema in the footer, the same values).
///
/// It differs from polars' batched writer in how a row group is made, not in what it holds:
///
/// - every column of a row group is encoded, compressed and laid out as a column chunk (page
///   headers, chunk metadata, merged statistics, column index) on rayon's pool, one column per
///   task, and a wide row group a group of columns at a time while the groups before it are
///   written. polars' writer encodes in parallel but compresses, lays out and indexes column after
///   column on the writing thread; here that thread only places the chunks, and the footer's
///   offset indexes are serialised on the pool ([`crate::parquet_container`], which lays the file
///   out byte for byte as polars' writer does);
/// - a short row group (fewer than `DICTIONARY_MIN_ROWS`, 1024, rows) is written without dictionary
///   encoding (plain encoding, then compressed);
/// - the file is written through a buffer, not with a system call per page header.
///
/// Statistics (min, max, null count per column chunk) and the data page size (1 MiB) are polars'
/// defaults ([`parquet_write_options`]).
///
/// The footer's fixed parts (the schema, and the `ARROW:schema` key that polars' writer would
/// derive when the footer is written) are made when the writer is made: a caller that makes the
/// writer while it builds the table (`warpsight ingest` of a batch of reports) takes them off the
/// serial end of the write.
pub struct ParquetBatches<W: std::io::Write> {
    out: Buffered<W>,
    /// The file's layout: its row groups so far and what its footer needs.
    container: Container,
    /// The Parquet type of each column.
    fields: Vec<polars_parquet::write::ParquetType>,
    /// The encodings polars chooses for each column's leaves.
    encodings: Vec<Vec<Encoding>>,
    /// The leaves of each column (a launch table has no nested column: one each).
    leaves: Vec<Vec<Leaf>>,
    options: WriteOptions,
    /// Columns encoded at a time while the ones before are written ([`ENCODE_GROUP_COLUMNS`]).
    group_columns: usize,
}

/// The options of every Parquet file warpsight writes: polars' default statistics (min, max and
/// null count per page and chunk) and data page size (1 MiB), [`PARQUET_COMPRESSION`], and
/// Parquet's first page version.
pub(crate) fn parquet_write_options() -> WriteOptions {
    WriteOptions {
        statistics: StatisticsOptions::default(),
        compression: PARQUET_COMPRESSION,
        version: polars_parquet::write::Version::V1,
        data_page_size: None,
    }
}

/// The buffer between the Parquet writer and its output.
const PARQUET_BUFFER_BYTES: usize = 1 << 20;

impl<W: std::io::Write> ParquetBatches<W> {
    /// A writer of tables with `schema` to `out`.
    pub fn new(schema: &Schema, out: W) -> PolarsResult<Self> {
        let arrow = schema.to_arrow(CompatLevel::newest());
        let parquet = polars_parquet::write::to_parquet_schema(&arrow)?;
        let fields = parquet.fields().to_vec();
        let leaves = parquet_container::leaves_per_column(&parquet);
        let encodings = arrow
            .iter_values()
            .map(|field| polars_parquet::write::get_dtype_encoding(&field.dtype))
            .collect();
        // The footer's `ARROW:schema` key, the one polars' writer derives when given none.
        let arrow_schema_key = polars_parquet::write::schema_to_metadata_key(&arrow);
        let options = parquet_write_options();
        let container = Container::new(arrow, parquet, options, vec![arrow_schema_key])?;
        Ok(ParquetBatches {
            out: Buffered {
                out,
                buffer: Vec::with_capacity(PARQUET_BUFFER_BYTES),
            },
            container,
            fields,
            encodings,
            leaves,
            options,
            group_columns: ENCODE_GROUP_COLUMNS,
        })
    }

    /// Writes `frame` (the writer's schema, chunks aligned) as one row group per chunk; an
    /// empty frame writes none, as polars' writer does.
    ///
    /// Every column is encoded, compressed and laid out as a column chunk (page headers,
    /// metadata, merged statistics, column index) on rayon's pool, one column per task
    /// ([`parquet_container::encode_chunk`]); this thread only places the chunks in the file. A
    /// row group of more than [`ENCODE_GROUP_COLUMNS`] columns is encoded a group of columns at a
    /// time by a helper thread while this thread writes the groups already encoded, in column
    /// order. (On a thread of rayon's pool, every row group is encoded at once.)
    pub fn write_row_group(&mut self, frame: &DataFrame) -> PolarsResult<()> {
        for (rows, arrays) in record_batches(frame) {
            if rows == 0 {
                continue;
            }
            let columns = arrays.as_slice();
            if columns.len() != self.fields.len() {
                polars_bail!(ShapeMismatch: "a batch of {} columns for a Parquet file of {}",
                    columns.len(), self.fields.len());
            }
            let encoder = ColumnEncoder {
                fields: &self.fields,
                encodings: &self.encodings,
                leaves: &self.leaves,
                options: self.options,
                plain: rows < DICTIONARY_MIN_ROWS,
            };
            let (container, out) = (&mut self.container, &mut self.out);
            let group_columns = self.group_columns.max(1);
            // A thread of rayon's pool encodes the row group at once: waiting there for the
            // helper's groups could wait for work queued behind it on its own pool.
            if columns.len() <= group_columns || rayon::current_thread_index().is_some() {
                let encoded = encoder.encode(columns, 0)?;
                container.write_row_group(
                    out,
                    rows as u64,
                    encoded.into_iter().flatten().map(Ok),
                )?;
                continue;
            }
            std::thread::scope(|scope| -> PolarsResult<()> {
                let (sender, receiver) = std::sync::mpsc::channel();
                scope.spawn(move || {
                    for first in (0..columns.len()).step_by(group_columns) {
                        let last = (first + group_columns).min(columns.len());
                        let group = encoder.encode(&columns[first..last], first);
                        let failed = group.is_err();
                        // The writer stops taking groups when it fails: nothing is left to do.
                        if sender.send(group).is_err() || failed {
                            break;
                        }
                    }
                });
                // A group that failed to encode ends the chunks with its error, which the writer
                // returns.
                let chunks = receiver.into_iter().flat_map(|group| match group {
                    Ok(columns) => columns.into_iter().flatten().map(Ok).collect::<Vec<_>>(),
                    Err(err) => vec![Err(err)],
                });
                container.write_row_group(out, rows as u64, chunks)
            })?;
        }
        Ok(())
    }

    /// Writes the footer (with the Arrow schema, as polars writes it) and flushes the output.
    pub fn finish(mut self) -> PolarsResult<()> {
        self.write_footer()
    }

    /// Writes the footer and flushes the output (the footer's last write flushes
    /// [`Buffered`]'s buffer), leaving the writer spent.
    fn write_footer(&mut self) -> PolarsResult<()> {
        self.container.end(&mut self.out)?;
        Ok(())
    }
}

/// The rows of one record batch and its columns' Arrow arrays.
pub(crate) type RecordBatchArrays = (usize, Vec<Box<dyn polars_arrow::array::Array>>);

/// The rows and Arrow arrays of each chunk of `frame` (its columns' chunks aligned), the record
/// batches `DataFrame::iter_chunks` gives without the Arrow schema it derives for them (thousands
/// of fields for a batch of reports, on the serial part of the write).
pub(crate) fn record_batches(
    frame: &DataFrame,
) -> Box<dyn Iterator<Item = RecordBatchArrays> + '_> {
    if frame.width() == 0 {
        return Box::new(
            frame
                .iter_chunks(CompatLevel::newest(), false)
                .map(|batch| (batch.len(), Vec::new())),
        );
    }
    Box::new((0..frame.first_col_n_chunks()).map(move |chunk| {
        let arrays: Vec<Box<dyn polars_arrow::array::Array>> = frame
            .columns()
            .iter()
            .map(|column| {
                column
                    .as_materialized_series()
                    .to_arrow(chunk, CompatLevel::newest())
            })
            .collect();
        let rows = arrays.first().map_or(0, |array| array.len());
        (rows, arrays)
    }))
}

/// Columns per group that [`ParquetBatches::write_row_group`] encodes at a time while it writes
/// the groups before: small enough that the writing starts early and the last group is short,
/// large enough that each group keeps rayon's pool busy.
const ENCODE_GROUP_COLUMNS: usize = 64;

/// The column chunks of one column's leaves.
type EncodedColumn = Vec<EncodedChunk>;

/// How the columns of one row group are encoded: their Parquet types, encodings and leaves, the
/// write options, and whether dictionaries are left out (a short row group).
#[derive(Clone, Copy)]
struct ColumnEncoder<'a> {
    fields: &'a [polars_parquet::write::ParquetType],
    encodings: &'a [Vec<Encoding>],
    leaves: &'a [Vec<Leaf>],
    options: WriteOptions,
    plain: bool,
}

impl ColumnEncoder<'_> {
    /// The columns `arrays`, the first being column `first` of the row group, each encoded,
    /// compressed and laid out as column chunks on rayon's pool (one column per task).
    fn encode(
        &self,
        arrays: &[Box<dyn polars_arrow::array::Array>],
        first: usize,
    ) -> PolarsResult<Vec<EncodedColumn>> {
        use rayon::prelude::*;
        let (Some(fields), Some(encodings), Some(leaves)) = (
            self.fields.get(first..first + arrays.len()),
            self.encodings.get(first..first + arrays.len()),
            self.leaves.get(first..first + arrays.len()),
        ) else {
            polars_bail!(ShapeMismatch: "columns {first}.. of a Parquet file of {}", self.fields.len());
        };
        let options = self.options;
        let plain = self.plain;
        arrays
            .par_iter()
            .zip(fields.par_iter())
            .zip(encodings.par_iter())
            .zip(leaves.par_iter())
            .map(|(((array, field), encodings), leaves)| {
                let encodings: Vec<Encoding> = encodings
                    .iter()
                    .map(|&encoding| {
                        if plain && encoding == Encoding::RleDictionary {
                            Encoding::Plain
                        } else {
                            encoding
                        }
                    })
                    .collect();
                let pages = polars_parquet::write::array_to_columns(
                    array,
                    field.clone(),
                    options,
                    &encodings,
                )?;
                if pages.len() != leaves.len() {
                    polars_bail!(ShapeMismatch: "{} leaves encoded for a Parquet column of {}", pages.len(), leaves.len());
                }
                pages
                    .into_iter()
                    .zip(leaves)
                    .map(|(pages, leaf)| {
                        parquet_container::encode_chunk(
                            pages,
                            leaf,
                            options.compression,
                            options.has_statistics(),
                        )
                    })
                    .collect::<PolarsResult<EncodedColumn>>()
            })
            .collect()
    }
}

/// The output of [`ParquetBatches`] behind a buffer of [`PARQUET_BUFFER_BYTES`], written out when
/// full and on `flush`. Unlike `std::io::BufWriter` it does not flush when dropped: a writer
/// dropped unfinished (an error) leaves its output to the caller, who removes it, and a borrowed
/// output is free again as soon as the writer is no longer used.
struct Buffered<W: std::io::Write> {
    out: W,
    buffer: Vec<u8>,
}

impl<W: std::io::Write> std::io::Write for Buffered<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.buffer.len() + bytes.len() > PARQUET_BUFFER_BYTES {
            self.out.write_all(&self.buffer)?;
            self.buffer.clear();
        }
        if bytes.len() >= PARQUET_BUFFER_BYTES {
            self.out.write_all(bytes)?;
        } else {
            self.buffer.extend_from_slice(bytes);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.buffer)?;
        self.buffer.clear();
        self.out.flush()
    }
}

/// A [`BatchWriter`] writing to `out` in the format `path`'s extension names (`path` is named in
/// the errors; `out` may be another file, such as a temporary one renamed to `path` at the end).
pub fn batch_writer_for(
    path: &Path,
    schema: &Schema,
    out: File,
) -> Result<BatchWriter<File>, WriteError> {
    let format = output_format(path)?;
    let polars = |source| WriteError::Polars {
        path: path.to_path_buf(),
        source,
    };
    BatchWriter::new(format, schema, out)
        .map_err(polars)?
        .ok_or_else(|| polars(polars_err!(ComputeError: "not a warpsight table format")))
}

/// A [`BatchWriter`] creating `path` in the format its extension names.
#[cfg(test)]
fn create_batch_writer(path: &Path, schema: &Schema) -> Result<BatchWriter<File>, WriteError> {
    batch_writer_for(path, schema, create_output(path)?)
}

/// The columns a warpsight launch table must have (every reader fills them; `warpsight ingest`
/// writes every known column): a table without one is an error naming it.
pub(crate) const REQUIRED_COLUMNS: &[&str] = &[
    launch_table::column_names::SOURCE_FILE,
    launch_table::column_names::FORMAT,
    launch_table::column_names::LAUNCH_ID,
    launch_table::column_names::KERNEL_NAME,
    launch_table::column_names::GRID_X,
    launch_table::column_names::GRID_Y,
    launch_table::column_names::GRID_Z,
    launch_table::column_names::BLOCK_X,
    launch_table::column_names::BLOCK_Y,
    launch_table::column_names::BLOCK_Z,
    launch_table::column_names::DURATION_NS,
];

/// Reads a launch table written by `warpsight ingest`.
pub(crate) fn read(
    path: &Path,
    format: Format,
    _config: &ReadConfig,
) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    if matches!(format, Format::WarpsightParquet | Format::WarpsightIpc) {
        // polars trusts the lengths the file declares: they are checked first.
        crate::preflight::check(path, format, crate::preflight::Depth::Whole)?;
    }
    // The file is read into memory, never mapped: a file cut during the read is an error (not a
    // SIGBUS), and a stream is read from its copy.
    let bytes = std::io::Cursor::new(crate::source::read_all(path)?);
    let frame = match format {
        Format::WarpsightParquet => ParquetReader::new(bytes).finish().map_err(polars)?,
        Format::WarpsightIpc => IpcReader::new(bytes).finish().map_err(polars)?,
        _ => CsvReadOptions::default()
            .with_has_header(true)
            .with_schema_overwrite(Some(Arc::new(launch_table::known_schema())))
            .into_reader_with_file_handle(bytes)
            .finish()
            .map_err(polars)?,
    };
    let frame = if format == Format::WarpsightCsv {
        all_null_strings_as_f64(frame).map_err(polars)?
    } else {
        frame
    };
    // A table without one of the columns every reader fills was not written by warpsight, or was
    // edited: read on, it would give nulls where the values were (a renamed `duration_ns`).
    let missing: Vec<&str> = REQUIRED_COLUMNS
        .iter()
        .copied()
        .filter(|name| frame.column(name).is_err())
        .collect();
    if !missing.is_empty() {
        return Err(IngestError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            expected: format!(
                "a warpsight launch table with the columns {}",
                REQUIRED_COLUMNS
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            found: format!(
                "a table without {}",
                missing
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    let launches = launch_table::conform(frame.lazy())
        .and_then(|f| f.collect())
        .map_err(polars)?;
    let mut trace = Trace::empty(format);
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
        std::fs::write(&details, warpsight_test_support::fixtures::SMALL_DETAILS)?;
        let original = crate::read_path(&details, &ReadConfig::default())?.launches;
        assert_eq!(original.height(), 2);
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let path = dir.path().join(name);
            let mut frame = original.clone();
            let format = write(&mut frame, &path)?;
            let back = crate::read_path(&path, &ReadConfig::default())?;
            assert_eq!(back.format, format);
            assert_eq!(back.launches.schema(), original.schema(), "{name}");
            assert!(back.launches.equals_missing(&original), "{name}: {back:?}");
        }
        Ok(())
    }

    /// The launch table of the small details page fixture, written into `dir` and read.
    fn small_details_launches(dir: &Path) -> Result<DataFrame, Box<dyn std::error::Error>> {
        let details = dir.join("in.csv");
        std::fs::write(&details, warpsight_test_support::fixtures::SMALL_DETAILS)?;
        Ok(crate::read_path(&details, &ReadConfig::default())?.launches)
    }

    #[test]
    fn an_ended_writer_has_written_its_whole_output_before_it_is_dropped()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let original = small_details_launches(dir.path())?;
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let path = dir.path().join(name);
            let mut writer = create_batch_writer(&path, original.schema())?;
            writer.write(&original)?;
            let ended = writer.end()?;
            // Read back while the spent writer (and its open output) is still held.
            let back = crate::read_path(&path, &ReadConfig::default())?.launches;
            assert!(back.equals_missing(&original), "{name}: {back:?}");
            drop(ended);
        }
        Ok(())
    }

    #[test]
    fn batches_read_back_as_the_stacked_table_in_every_container()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let original = small_details_launches(dir.path())?;
        let mut stacked = original.clone();
        stacked.vstack_mut(&original)?;
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let path = dir.path().join(name);
            let mut writer = create_batch_writer(&path, original.schema())?;
            writer.write(&original)?;
            writer.write(&original)?;
            writer.finish()?;
            let back = crate::read_path(&path, &ReadConfig::default())?.launches;
            assert_eq!(back.schema(), original.schema(), "{name}");
            assert!(back.equals_missing(&stacked), "{name}: {back:?}");
        }
        Ok(())
    }

    #[test]
    fn a_large_batch_is_written_as_several_parquet_row_groups()
    -> Result<(), Box<dyn std::error::Error>> {
        let rows = 2 * PARQUET_ROW_GROUP_ROWS + 10;
        let frame =
            df!(launch_table::column_names::LAUNCH_ID => (0..rows as i64).collect::<Vec<_>>())?;
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("big.parquet");
        let mut writer = create_batch_writer(&path, frame.schema())?;
        writer.write(&frame)?;
        writer.finish()?;
        let mut reader = ParquetReader::new(File::open(&path)?);
        let groups: Vec<usize> = reader
            .get_metadata()?
            .row_groups
            .iter()
            .map(|g| g.num_rows())
            .collect();
        // Cut as polars' whole-table writer cuts it: two equal row groups.
        assert_eq!(
            groups,
            [PARQUET_ROW_GROUP_ROWS + 5, PARQUET_ROW_GROUP_ROWS + 5]
        );
        let back = ParquetReader::new(File::open(&path)?).finish()?;
        assert!(back.equals(&frame));
        Ok(())
    }

    #[test]
    fn a_wide_table_round_trips_through_parquet() -> Result<(), Box<dyn std::error::Error>> {
        // As an `.ncu-rep` batch gives it: a few hundred launches, thousands of metric columns
        // with nulls, NaN, repeated and distinct values, text and integer columns beside them;
        // and the same columns over more rows than the plain-encoding limit (dictionaries).
        for rows in [3usize, 300, DICTIONARY_MIN_ROWS + 10] {
            let mut columns = vec![
                Column::new(
                    launch_table::column_names::LAUNCH_ID.into(),
                    (0..rows as i64).collect::<Vec<_>>(),
                ),
                Column::new(
                    launch_table::column_names::KERNEL_NAME.into(),
                    (0..rows)
                        .map(|r| (r % 4 != 3).then(|| format!("kernel<{}>", r % 5)))
                        .collect::<Vec<_>>(),
                ),
            ];
            for c in 0..1500usize {
                columns.push(Column::new(
                    format!("metric__{c}.sum").into(),
                    (0..rows)
                        .map(|r| match (r + c) % 7 {
                            0 => None,
                            1 => Some(f64::NAN),
                            2 | 3 => Some(c as f64),
                            _ => Some((r * c) as f64 * 0.5),
                        })
                        .collect::<Vec<_>>(),
                ));
            }
            let frame = DataFrame::new(rows, columns)?;
            let dir = tempfile::tempdir()?;
            let path = dir.path().join("wide.parquet");
            write(&mut frame.clone(), &path)?;
            let back = ParquetReader::new(File::open(&path)?).finish()?;
            assert_eq!(back.schema(), frame.schema(), "{rows} rows");
            assert!(back.equals_missing(&frame), "{rows} rows");
            // One row group, as polars' writer makes it.
            let groups = ParquetReader::new(File::open(&path)?)
                .get_metadata()?
                .row_groups
                .len();
            assert_eq!(groups, 1, "{rows} rows");
        }
        Ok(())
    }

    #[test]
    fn a_row_group_encoded_in_groups_of_columns_is_the_one_encoded_at_once()
    -> Result<(), Box<dyn std::error::Error>> {
        // 150 columns of several types, nulls among them, over two row groups.
        let rows = 40usize;
        let mut columns = Vec::new();
        for c in 0..150usize {
            columns.push(match c % 3 {
                0 => Column::new(
                    format!("f{c}").into(),
                    (0..rows)
                        .map(|r| ((r + c) % 5 != 0).then_some((r * c) as f64 * 0.25))
                        .collect::<Vec<_>>(),
                ),
                1 => Column::new(
                    format!("i{c}").into(),
                    (0..rows).map(|r| (r * c) as i64 % 11).collect::<Vec<_>>(),
                ),
                _ => Column::new(
                    format!("s{c}").into(),
                    (0..rows)
                        .map(|r| ((r + c) % 4 != 0).then(|| format!("text {}", r % 6)))
                        .collect::<Vec<_>>(),
                ),
            });
        }
        let frame = DataFrame::new(rows, columns)?;
        let written = |group_columns: usize| -> PolarsResult<Vec<u8>> {
            let mut out = Vec::new();
            let mut writer = ParquetBatches::new(frame.schema(), &mut out)?;
            writer.group_columns = group_columns;
            writer.write_row_group(&frame.slice(0, 25))?;
            writer.write_row_group(&frame.slice(25, rows - 25))?;
            writer.finish()?;
            Ok(out)
        };
        let at_once = written(usize::MAX)?;
        // The default groups, and groups of 7 (the last one shorter).
        for group_columns in [ENCODE_GROUP_COLUMNS, 7] {
            assert!(
                written(group_columns)? == at_once,
                "groups of {group_columns} columns"
            );
        }
        // On a thread of a rayon pool, the row group is encoded at once: the same bytes.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
        assert!(pool.install(|| written(ENCODE_GROUP_COLUMNS))? == at_once);
        let back = ParquetReader::new(std::io::Cursor::new(at_once)).finish()?;
        assert!(back.equals_missing(&frame));
        Ok(())
    }

    #[test]
    fn pieces_cut_the_rows_as_parquet_row_groups() -> PolarsResult<()> {
        for (height, lengths) in [
            (0, vec![0]),
            (10, vec![10]),
            (PARQUET_ROW_GROUP_ROWS, vec![PARQUET_ROW_GROUP_ROWS]),
            (
                2 * PARQUET_ROW_GROUP_ROWS + 5,
                vec![PARQUET_ROW_GROUP_ROWS + 2, PARQUET_ROW_GROUP_ROWS + 3],
            ),
            (
                3 * PARQUET_ROW_GROUP_ROWS - 1,
                vec![
                    (3 * PARQUET_ROW_GROUP_ROWS - 1) / 2,
                    (3 * PARQUET_ROW_GROUP_ROWS - 1) / 2 + 1,
                ],
            ),
        ] {
            let frame = df!("x" => (0..height as i64).collect::<Vec<_>>())?;
            let pieces: Vec<DataFrame> = pieces(&frame, PARQUET_ROW_GROUP_ROWS).collect();
            let got: Vec<usize> = pieces.iter().map(DataFrame::height).collect();
            assert_eq!(got, lengths, "{height}");
            let mut stacked = pieces.into_iter().reduce(|mut a, b| {
                a.extend(&b).ok();
                a
            });
            assert!(
                stacked.as_mut().is_some_and(|s| s.equals(&frame)),
                "{height}"
            );
        }
        Ok(())
    }

    #[test]
    fn a_large_table_with_constant_columns_round_trips_in_pieces()
    -> Result<(), Box<dyn std::error::Error>> {
        // More rows than one piece, with constant (scalar) columns of each kind, as the launch
        // table of a large nsys export has them.
        let rows = PARQUET_ROW_GROUP_ROWS + PARQUET_ROW_GROUP_ROWS / 2;
        let scalar = |name: &str, dtype: DataType, value: AnyValue<'static>| {
            Column::new_scalar(name.into(), Scalar::new(dtype, value), rows)
        };
        let narrow = DataFrame::new(
            rows,
            vec![
                Column::new(
                    launch_table::column_names::LAUNCH_ID.into(),
                    (0..rows as i64).collect::<Vec<_>>(),
                ),
                scalar("constant", DataType::Int64, AnyValue::Int64(7)),
                scalar("nulls", DataType::Float64, AnyValue::Null),
                scalar(
                    "text",
                    DataType::String,
                    AnyValue::StringOwned("GPU".into()),
                ),
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
        let mut writer = create_batch_writer(&path, narrow.schema())?;
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
