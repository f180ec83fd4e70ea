//! The Parquet file around the column chunks that [`crate::native::ParquetBatches`] encodes: the
//! page headers, each chunk's metadata, the row groups, the column and offset indexes and the
//! footer, laid out byte for byte as polars' own `FileWriter` lays them out.
//!
//! polars' writer does all of that on the thread that writes the file: per page it serialises the
//! header and decodes the page's statistics again; per chunk it merges them; at the end it builds
//! every chunk's column index and offset index and clones the row groups' metadata into the
//! footer. For a batch of `.ncu-rep` reports (thousands of columns) that was the serial end of the
//! write. Here everything that does not depend on where a chunk lands in the file (the page
//! headers and pages, the chunk's metadata, its merged statistics, its column index) is made by
//! [`encode_chunk`] where the chunk is encoded, on rayon's pool; the writing thread only places the
//! chunks ([`Container::write_row_group`]), and the footer's offset indexes, the one part that
//! holds absolute offsets, are serialised on the pool too ([`Container::end`]).
//!
//! The layout mirrors polars-parquet 0.55's `parquet::write` (`page.rs`, `column_chunk.rs`,
//! `row_group.rs`, `file.rs`, `statistics.rs` and `indexes/serialize.rs`), whose parts are
//! private to that crate. A test writes the same pages through polars' writer and through this
//! one and compares the files byte for byte.

use std::io::Write;

use polars::prelude::{PolarsError, PolarsResult, polars_bail, polars_err};
use polars_parquet::parquet::compression::{Compression, CompressionOptions};
use polars_parquet::parquet::error::ParquetError;
use polars_parquet::parquet::metadata::{KeyValue, SchemaDescriptor, ThriftFileMetadata};
use polars_parquet::parquet::page::{DataPageHeader, Page};
use polars_parquet::parquet::schema::types::ParquetType;
use polars_parquet::parquet::statistics::{
    BinaryStatistics, BooleanStatistics, FixedLenStatistics, PrimitiveStatistics, Statistics,
};
use polars_parquet::parquet::types::NativeType;
use polars_parquet::parquet::write::ColumnOffsetsMetadata;
use polars_parquet_format::thrift::protocol::TCompactOutputProtocol;
use polars_parquet_format::{
    BoundaryOrder, ColumnChunk, ColumnIndex, ColumnMetaData, DictionaryPageHeader, Encoding,
    OffsetIndex, PageHeader, PageLocation, PageType, RowGroup, Type,
};

/// The bytes that open and close a Parquet file.
const PARQUET_MAGIC: [u8; 4] = *b"PAR1";

/// What a column chunk's metadata says about its leaf: the physical type and the path.
#[derive(Debug, Clone)]
pub(crate) struct Leaf {
    physical_type: Type,
    path_in_schema: Vec<String>,
}

/// The leaves of each of `schema`'s columns (one for a column that is not nested), in the order
/// of the file's column chunks.
pub(crate) fn leaves_per_column(schema: &SchemaDescriptor) -> Vec<Vec<Leaf>> {
    let mut leaves = schema.columns().iter().map(|column| {
        let (physical_type, _): (Type, Option<i32>) =
            column.descriptor.primitive_type.physical_type.into();
        Leaf {
            physical_type,
            path_in_schema: column
                .path_in_schema
                .iter()
                .map(ToString::to_string)
                .collect(),
        }
    });
    schema
        .fields()
        .iter()
        .map(|field| leaves.by_ref().take(leaf_count(field)).collect())
        .collect()
}

/// The leaves (primitive columns) of a Parquet type.
fn leaf_count(field: &ParquetType) -> usize {
    match field {
        ParquetType::PrimitiveType(_) => 1,
        ParquetType::GroupType { fields, .. } => fields.iter().map(leaf_count).sum(),
    }
}

/// One column chunk, encoded and compressed, with everything that does not depend on where it is
/// placed in the file.
pub(crate) struct EncodedChunk {
    /// The page headers and the pages, in order.
    bytes: Vec<u8>,
    /// The chunk's metadata, its page offsets counted from the chunk's first byte.
    meta: ColumnMetaData,
    /// The serialised column index, when statistics are written.
    column_index: Option<Vec<u8>>,
    /// The data pages' locations, their offsets counted from the chunk's first byte (none: the
    /// chunk has no data page, and polars writes a data page offset of 0).
    pages: Vec<PageLocation>,
}

/// What a page contributes to its chunk's metadata and indexes.
struct PageSpec {
    kind: PageType,
    /// The page's first byte (its header's), from the chunk's first byte.
    offset: u64,
    header_size: u64,
    compressed_size: i32,
    uncompressed_size: i32,
    /// The values of a data page (0 for a dictionary page).
    num_values: i64,
    num_rows: usize,
    /// The encodings the page adds to its chunk's list.
    encodings: [Option<Encoding>; 2],
    statistics: Option<Statistics>,
}

/// The errors of polars-parquet and of the Thrift serialiser, as polars errors.
fn parquet_error(err: impl Into<ParquetError>) -> PolarsError {
    PolarsError::from(err.into())
}

/// A page size as the page header holds it.
fn page_size(bytes: usize, what: &str) -> PolarsResult<i32> {
    i32::try_from(bytes).map_err(|_| {
        polars_err!(ComputeError: "a Parquet page holds at most i32::MAX {what} bytes; this one holds {bytes}")
    })
}

/// Encodes one leaf's `pages` into a column chunk, compressed with `compression`: each page's
/// header and bytes (the header as polars' `write_page` makes it), the chunk's metadata (as
/// `build_column_chunk` makes it) and, when `statistics` is set, its column index.
pub(crate) fn encode_chunk(
    pages: impl Iterator<Item = PolarsResult<Page>>,
    leaf: &Leaf,
    compression: CompressionOptions,
    statistics: bool,
) -> PolarsResult<EncodedChunk> {
    let mut bytes = Vec::new();
    let mut specs: Vec<PageSpec> = Vec::new();
    let mut compressed = Vec::new();
    for page in pages {
        let page = page?;
        let offset = bytes.len() as u64;
        compressed.clear();
        let (header, body, num_values, num_rows, encodings, page_statistics) = match &page {
            Page::Data(page) => {
                let buffer = page.buffer();
                let body: &[u8] = match (compression, page.header()) {
                    (CompressionOptions::Uncompressed, _) => buffer,
                    (_, DataPageHeader::V1(_)) => {
                        polars_parquet::parquet::compression::compress(
                            compression,
                            buffer,
                            &mut compressed,
                        )
                        .map_err(parquet_error)?;
                        &compressed
                    }
                    (_, DataPageHeader::V2(header)) => {
                        // The levels of a version 2 page are not compressed.
                        let levels = (header.repetition_levels_byte_length
                            + header.definition_levels_byte_length)
                            as usize;
                        let Some((levels, values)) = buffer.split_at_checked(levels) else {
                            polars_bail!(ComputeError: "a Parquet page's levels are longer than the page");
                        };
                        compressed.extend_from_slice(levels);
                        polars_parquet::parquet::compression::compress(
                            compression,
                            values,
                            &mut compressed,
                        )
                        .map_err(parquet_error)?;
                        &compressed
                    }
                };
                let (kind, data_page_header, data_page_header_v2, encoding) = match page.header() {
                    DataPageHeader::V1(header) => (
                        PageType::DATA_PAGE,
                        Some(header.clone()),
                        None,
                        header.encoding,
                    ),
                    DataPageHeader::V2(header) => (
                        PageType::DATA_PAGE_V2,
                        None,
                        Some(header.clone()),
                        header.encoding,
                    ),
                };
                let header = PageHeader {
                    type_: kind,
                    uncompressed_page_size: page_size(buffer.len(), "uncompressed")?,
                    compressed_page_size: page_size(body.len(), "compressed")?,
                    crc: None,
                    data_page_header,
                    index_page_header: None,
                    dictionary_page_header: None,
                    data_page_header_v2,
                };
                let num_rows = page.num_rows().ok_or_else(
                    || polars_err!(ComputeError: "a Parquet data page to write has no row count"),
                )?;
                let page_statistics = page.statistics().transpose().map_err(parquet_error)?;
                (
                    header,
                    body,
                    page.header().num_values() as i64,
                    num_rows,
                    [Some(encoding), Some(Encoding::RLE)],
                    page_statistics,
                )
            }
            Page::Dict(page) => {
                let buffer: &[u8] = &page.buffer;
                let body: &[u8] = if compression == CompressionOptions::Uncompressed {
                    buffer
                } else {
                    polars_parquet::parquet::compression::compress(
                        compression,
                        buffer,
                        &mut compressed,
                    )
                    .map_err(parquet_error)?;
                    &compressed
                };
                let num_values = i32::try_from(page.num_values).map_err(|_| {
                    polars_err!(ComputeError: "a Parquet dictionary page holds at most i32::MAX values; this one holds {}", page.num_values)
                })?;
                let header = PageHeader {
                    type_: PageType::DICTIONARY_PAGE,
                    uncompressed_page_size: page_size(buffer.len(), "uncompressed")?,
                    compressed_page_size: page_size(body.len(), "compressed")?,
                    crc: None,
                    data_page_header: None,
                    index_page_header: None,
                    dictionary_page_header: Some(DictionaryPageHeader {
                        num_values,
                        encoding: Encoding::PLAIN,
                        is_sorted: None,
                    }),
                    data_page_header_v2: None,
                };
                (header, body, 0, 0, [Some(Encoding::PLAIN), None], None)
            }
        };
        let header_size = header
            .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut bytes))
            .map_err(parquet_error)? as u64;
        bytes.extend_from_slice(body);
        specs.push(PageSpec {
            kind: header.type_,
            offset,
            header_size,
            compressed_size: header.compressed_page_size,
            uncompressed_size: header.uncompressed_page_size,
            num_values,
            num_rows,
            encodings,
            statistics: page_statistics,
        });
    }
    let meta = chunk_metadata(&specs, leaf, compression)?;
    let is_data = |spec: &&PageSpec| spec.kind != PageType::DICTIONARY_PAGE;
    let column_index = if statistics {
        let index = column_index(specs.iter().filter(is_data))?;
        let mut serialised = Vec::new();
        index
            .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut serialised))
            .map_err(parquet_error)?;
        Some(serialised)
    } else {
        None
    };
    let mut first_row_index = 0i64;
    let pages = specs
        .iter()
        .filter(is_data)
        .map(|spec| {
            let location = PageLocation {
                offset: spec.offset as i64,
                compressed_page_size: page_size(
                    (spec.header_size + spec.compressed_size as u64) as usize,
                    "written",
                )?,
                first_row_index,
            };
            first_row_index += spec.num_rows as i64;
            Ok(location)
        })
        .collect::<PolarsResult<Vec<_>>>()?;
    Ok(EncodedChunk {
        bytes,
        meta,
        column_index,
        pages,
    })
}

/// A chunk's metadata from its pages, its offsets counted from the chunk's first byte (polars'
/// `build_column_chunk`).
fn chunk_metadata(
    specs: &[PageSpec],
    leaf: &Leaf,
    compression: CompressionOptions,
) -> PolarsResult<ColumnMetaData> {
    let total_compressed_size = specs
        .iter()
        .map(|spec| spec.header_size as i64 + i64::from(spec.compressed_size))
        .sum();
    let total_uncompressed_size = specs
        .iter()
        .map(|spec| spec.header_size as i64 + i64::from(spec.uncompressed_size))
        .sum();
    // A dictionary page, when there is one, is the chunk's first page.
    let dictionary_page_offset = specs
        .first()
        .filter(|spec| spec.kind == PageType::DICTIONARY_PAGE)
        .map(|spec| spec.offset as i64);
    let data_page = if dictionary_page_offset.is_some() {
        specs.get(1)
    } else {
        specs.first()
    };
    let data_page_offset = data_page.map_or(0, |spec| spec.offset as i64);
    let num_values = specs.iter().map(|spec| spec.num_values).sum();
    let mut encodings: Vec<Encoding> = specs
        .iter()
        .flat_map(|spec| spec.encodings.iter().flatten().copied())
        .collect();
    encodings.sort();
    encodings.dedup();
    let statistics = merged_statistics(specs.iter().map(|spec| spec.statistics.as_ref()))?
        .map(|merged| merged.serialize());
    let codec = if specs.is_empty() {
        Compression::Uncompressed
    } else {
        compression.into()
    };
    Ok(ColumnMetaData {
        type_: leaf.physical_type,
        encodings,
        path_in_schema: leaf.path_in_schema.clone(),
        codec: codec.into(),
        num_values,
        total_uncompressed_size,
        total_compressed_size,
        key_value_metadata: None,
        data_page_offset,
        index_page_offset: None,
        dictionary_page_offset,
        statistics,
        encoding_stats: None,
        bloom_filter_offset: None,
        bloom_filter_length: None,
        size_statistics: None,
    })
}

/// A chunk's column index from its data pages (polars' `serialize_column_index`).
fn column_index<'a>(data_pages: impl Iterator<Item = &'a PageSpec>) -> PolarsResult<ColumnIndex> {
    let mut null_pages = Vec::new();
    let mut min_values = Vec::new();
    let mut max_values = Vec::new();
    let mut null_counts = Vec::new();
    for spec in data_pages {
        let Some(statistics) = &spec.statistics else {
            polars_bail!(ComputeError: "statistics are written but a Parquet page has none");
        };
        let statistics = statistics.serialize();
        let Some(null_count) = statistics.null_count else {
            polars_bail!(ComputeError: "a Parquet page's statistics have no null count");
        };
        null_counts.push(null_count);
        match statistics.min_value {
            Some(min) => {
                let Some(max) = statistics.max_value else {
                    polars_bail!(ComputeError: "a Parquet page's statistics have a minimum and no maximum");
                };
                min_values.push(min);
                max_values.push(max);
                null_pages.push(false);
            }
            None => {
                min_values.push(vec![0]);
                max_values.push(vec![0]);
                null_pages.push(true);
            }
        }
    }
    Ok(ColumnIndex {
        null_pages,
        min_values,
        max_values,
        boundary_order: BoundaryOrder::UNORDERED,
        null_counts: Some(null_counts),
        repetition_level_histograms: None,
        definition_level_histograms: None,
    })
}

/// The statistics of a chunk from its pages' (polars' `reduce`): the least minimum, the greatest
/// maximum and the sum of the null counts, with no distinct count once two pages are merged;
/// `None` when no page has statistics. A floating-point minimum of zero is written as -0.0 and a
/// maximum as +0.0, as polars writes them.
fn merged_statistics<'a>(
    pages: impl Iterator<Item = Option<&'a Statistics>>,
) -> PolarsResult<Option<Statistics>> {
    let mut pages = pages.flatten();
    let Some(first) = pages.next() else {
        return Ok(None);
    };
    let mut merged = cloned(first);
    for page in pages {
        merged = match (merged, page) {
            (Statistics::Binary(acc), Statistics::Binary(new)) => {
                Statistics::Binary(merge_bytes(acc, new))
            }
            (Statistics::FixedLen(acc), Statistics::FixedLen(new)) => {
                Statistics::FixedLen(merge_fixed_len(acc, new))
            }
            (Statistics::Boolean(acc), Statistics::Boolean(new)) => {
                Statistics::Boolean(merge_boolean(acc, new))
            }
            (Statistics::Int32(acc), Statistics::Int32(new)) => {
                Statistics::Int32(merge_primitive(acc, new))
            }
            (Statistics::Int64(acc), Statistics::Int64(new)) => {
                Statistics::Int64(merge_primitive(acc, new))
            }
            (Statistics::Float(acc), Statistics::Float(new)) => {
                Statistics::Float(merge_primitive(acc, new))
            }
            (Statistics::Double(acc), Statistics::Double(new)) => {
                Statistics::Double(merge_primitive(acc, new))
            }
            (Statistics::Int96(_), Statistics::Int96(_)) => {
                polars_bail!(ComputeError: "the statistics of INT96 Parquet pages cannot be merged")
            }
            _ => {
                polars_bail!(ComputeError: "the statistics of a Parquet column's pages differ in type")
            }
        };
    }
    // polars normalises the zeros of a primitive chunk's extremes, and refuses INT96 even for one
    // page.
    Ok(Some(match merged {
        Statistics::Int32(stats) => Statistics::Int32(normalised(stats)),
        Statistics::Int64(stats) => Statistics::Int64(normalised(stats)),
        Statistics::Float(stats) => Statistics::Float(normalised(stats)),
        Statistics::Double(stats) => Statistics::Double(normalised(stats)),
        Statistics::Int96(_) => {
            polars_bail!(ComputeError: "the statistics of INT96 Parquet pages cannot be merged")
        }
        other => other,
    }))
}

/// A copy of `stats` (polars' `Statistics` is not `Clone`; each variant's statistics are).
fn cloned(stats: &Statistics) -> Statistics {
    match stats {
        Statistics::Binary(s) => Statistics::Binary(s.clone()),
        Statistics::Boolean(s) => Statistics::Boolean(s.clone()),
        Statistics::FixedLen(s) => Statistics::FixedLen(s.clone()),
        Statistics::Int32(s) => Statistics::Int32(s.clone()),
        Statistics::Int64(s) => Statistics::Int64(s.clone()),
        Statistics::Int96(s) => Statistics::Int96(s.clone()),
        Statistics::Float(s) => Statistics::Float(s.clone()),
        Statistics::Double(s) => Statistics::Double(s.clone()),
    }
}

/// `a` and `b` merged by `op`, or whichever is there.
fn merge_option<T>(a: Option<T>, b: Option<T>, op: impl Fn(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(op(a, b)),
        (a, b) => a.or(b),
    }
}

/// The lesser (`max` false) or greater of two byte strings, or whichever is there.
fn merge_byte_values(acc: Option<Vec<u8>>, new: &Option<Vec<u8>>, max: bool) -> Option<Vec<u8>> {
    match (acc, new) {
        (Some(acc), Some(new)) => Some(if (&acc <= new) != max {
            acc
        } else {
            new.clone()
        }),
        (acc, new) => acc.or_else(|| new.clone()),
    }
}

fn merge_bytes(mut acc: BinaryStatistics, new: &BinaryStatistics) -> BinaryStatistics {
    acc.min_value = merge_byte_values(acc.min_value, &new.min_value, false);
    acc.max_value = merge_byte_values(acc.max_value, &new.max_value, true);
    acc.null_count = merge_option(acc.null_count, new.null_count, |a, b| a + b);
    acc.distinct_count = None;
    acc
}

fn merge_fixed_len(mut acc: FixedLenStatistics, new: &FixedLenStatistics) -> FixedLenStatistics {
    acc.min_value = merge_byte_values(acc.min_value, &new.min_value, false);
    acc.max_value = merge_byte_values(acc.max_value, &new.max_value, true);
    acc.null_count = merge_option(acc.null_count, new.null_count, |a, b| a + b);
    acc.distinct_count = None;
    acc
}

fn merge_boolean(mut acc: BooleanStatistics, new: &BooleanStatistics) -> BooleanStatistics {
    acc.min_value = merge_option(acc.min_value, new.min_value, |a, b| a && b);
    acc.max_value = merge_option(acc.max_value, new.max_value, |a, b| a || b);
    acc.null_count = merge_option(acc.null_count, new.null_count, |a, b| a + b);
    acc.distinct_count = None;
    acc
}

fn merge_primitive<T: NativeType + PartialOrd>(
    mut acc: PrimitiveStatistics<T>,
    new: &PrimitiveStatistics<T>,
) -> PrimitiveStatistics<T> {
    acc.min_value = merge_option(
        acc.min_value,
        new.min_value,
        |a, b| if a > b { b } else { a },
    );
    acc.max_value = merge_option(
        acc.max_value,
        new.max_value,
        |a, b| if a > b { a } else { b },
    );
    acc.null_count = merge_option(acc.null_count, new.null_count, |a, b| a + b);
    acc.distinct_count = None;
    acc
}

fn normalised<T: NativeType>(mut stats: PrimitiveStatistics<T>) -> PrimitiveStatistics<T> {
    stats.min_value = stats.min_value.map(NativeType::norm_min);
    stats.max_value = stats.max_value.map(NativeType::norm_max);
    stats
}

/// Where each data page of a placed chunk is, from the chunk's first byte in the file.
struct PlacedPages {
    start: u64,
    pages: Vec<PageLocation>,
}

/// A Parquet file being written: the bytes written so far, the row groups' metadata, and what
/// the footer's indexes need.
pub(crate) struct Container {
    /// The bytes written so far; 0 before the file's first magic.
    offset: u64,
    /// The footer polars writes for the schema with no row group: the schema's elements, the
    /// writer's name, the column orders and the key-value metadata (taken by [`Container::end`]).
    template: Option<ThriftFileMetadata>,
    /// Whether column indexes are written (polars: when statistics are).
    column_indexes: bool,
    row_groups: Vec<RowGroup>,
    /// Per row group and chunk: the serialised column index and the data pages' places.
    indexes: Vec<Vec<(Option<Vec<u8>>, PlacedPages)>>,
}

impl Container {
    /// A file of `schema` with `key_value_metadata` in its footer, written with `options` (the
    /// footer's fixed parts are those polars' writer gives that schema).
    pub(crate) fn new(
        arrow: polars_arrow::datatypes::ArrowSchema,
        schema: SchemaDescriptor,
        options: polars_parquet::write::WriteOptions,
        key_value_metadata: Vec<KeyValue>,
    ) -> PolarsResult<Self> {
        let mut empty = polars_parquet::write::FileWriter::new_with_parquet_schema(
            Vec::new(),
            arrow,
            schema,
            options,
        );
        empty.end(Some(key_value_metadata))?;
        let (_, template) = empty.into_inner_and_metadata();
        Ok(Container {
            offset: 0,
            template: Some(template),
            column_indexes: options.has_statistics(),
            row_groups: Vec::new(),
            indexes: Vec::new(),
        })
    }

    /// Writes the file's first magic when nothing is written yet.
    fn start(&mut self, out: &mut impl Write) -> PolarsResult<()> {
        if self.offset == 0 {
            out.write_all(&PARQUET_MAGIC)?;
            self.offset = PARQUET_MAGIC.len() as u64;
        }
        Ok(())
    }

    /// Writes a row group of `rows` rows from its `chunks` (one per leaf, in order): each chunk's
    /// pages and then its metadata, its offsets now those of the file (polars'
    /// `write_row_group`). An error of a chunk ends the row group with it.
    pub(crate) fn write_row_group(
        &mut self,
        out: &mut impl Write,
        rows: u64,
        chunks: impl Iterator<Item = PolarsResult<EncodedChunk>>,
    ) -> PolarsResult<()> {
        self.start(out)?;
        let mut columns = Vec::new();
        let mut indexes = Vec::new();
        for chunk in chunks {
            let EncodedChunk {
                bytes,
                mut meta,
                column_index,
                pages,
            } = chunk?;
            let start = self.offset;
            out.write_all(&bytes)?;
            self.offset += bytes.len() as u64;
            if !pages.is_empty() {
                meta.data_page_offset += start as i64;
            }
            if let Some(offset) = &mut meta.dictionary_page_offset {
                *offset += start as i64;
            }
            self.offset += meta
                .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut *out))
                .map_err(parquet_error)? as u64;
            columns.push(ColumnChunk {
                file_path: None,
                file_offset: meta.data_page_offset + meta.total_compressed_size,
                meta_data: Some(meta),
                offset_index_offset: None,
                offset_index_length: None,
                column_index_offset: None,
                column_index_length: None,
                crypto_metadata: None,
                encrypted_column_metadata: None,
            });
            indexes.push((column_index, PlacedPages { start, pages }));
        }
        let file_offset = columns.first().and_then(|first| {
            ColumnOffsetsMetadata::from_column_chunk(first).calc_row_group_file_offset()
        });
        let sizes = |total: fn(&ColumnMetaData) -> i64| -> i64 {
            columns
                .iter()
                .filter_map(|column| column.meta_data.as_ref())
                .map(total)
                .sum()
        };
        let total_byte_size = sizes(|meta| meta.total_uncompressed_size);
        let total_compressed_size = sizes(|meta| meta.total_compressed_size);
        let Ok(num_rows) = i64::try_from(rows) else {
            polars_bail!(ComputeError: "a Parquet row group of {rows} rows");
        };
        let ordinal = self.row_groups.len().try_into().ok();
        self.row_groups.push(RowGroup {
            columns,
            total_byte_size,
            num_rows,
            sorting_columns: None,
            file_offset,
            total_compressed_size: Some(total_compressed_size),
            ordinal,
        });
        self.indexes.push(indexes);
        Ok(())
    }

    /// Writes the footer: the column indexes (when statistics are written), the offset indexes
    /// (serialised on rayon's pool), the file metadata and the closing magic, then flushes `out`
    /// (polars' `FileWriter::end`). Returns the file's size.
    pub(crate) fn end(&mut self, out: &mut impl Write) -> PolarsResult<u64> {
        use rayon::prelude::*;
        let Some(mut metadata) = self.template.take() else {
            polars_bail!(ComputeError: "a Parquet file's footer is written once");
        };
        self.start(out)?;
        let indexes = std::mem::take(&mut self.indexes);
        if self.column_indexes {
            for (group, chunks) in self.row_groups.iter_mut().zip(&indexes) {
                for (column, (index, _)) in group.columns.iter_mut().zip(chunks) {
                    let Some(index) = index else {
                        polars_bail!(ComputeError: "statistics are written but a Parquet column chunk has no column index");
                    };
                    column.column_index_offset = Some(self.offset as i64);
                    column.column_index_length = Some(page_size(index.len(), "column index")?);
                    out.write_all(index)?;
                    self.offset += index.len() as u64;
                }
            }
        }
        let offset_indexes: Vec<Vec<Vec<u8>>> = indexes
            .par_iter()
            .map(|chunks| {
                chunks
                    .iter()
                    .map(|(_, placed)| {
                        let index = OffsetIndex {
                            page_locations: placed
                                .pages
                                .iter()
                                .map(|page| PageLocation {
                                    offset: page.offset + placed.start as i64,
                                    compressed_page_size: page.compressed_page_size,
                                    first_row_index: page.first_row_index,
                                })
                                .collect(),
                            unencoded_byte_array_data_bytes: None,
                        };
                        let mut serialised = Vec::new();
                        index
                            .write_to_out_protocol(&mut TCompactOutputProtocol::new(
                                &mut serialised,
                            ))
                            .map_err(parquet_error)?;
                        Ok(serialised)
                    })
                    .collect::<PolarsResult<Vec<_>>>()
            })
            .collect::<PolarsResult<_>>()?;
        for (group, chunks) in self.row_groups.iter_mut().zip(&offset_indexes) {
            for (column, index) in group.columns.iter_mut().zip(chunks) {
                column.offset_index_offset = Some(self.offset as i64);
                column.offset_index_length = Some(page_size(index.len(), "offset index")?);
                out.write_all(index)?;
                self.offset += index.len() as u64;
            }
        }
        metadata.num_rows = self.row_groups.iter().map(|group| group.num_rows).sum();
        metadata.row_groups = std::mem::take(&mut self.row_groups);
        let metadata_len = metadata
            .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut *out))
            .map_err(parquet_error)?;
        let Ok(footer_len) = i32::try_from(metadata_len) else {
            polars_bail!(ComputeError: "a Parquet footer of {metadata_len} bytes");
        };
        out.write_all(&footer_len.to_le_bytes())?;
        out.write_all(&PARQUET_MAGIC)?;
        out.flush()?;
        self.offset += metadata_len as u64 + 8;
        Ok(self.offset)
    }
}

#[cfg(test)]
mod tests;
