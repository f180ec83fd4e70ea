//! The Parquet file check: the footer, then every column chunk's place in the file and the header
//! of each of its pages, before polars decodes a value.
//!
//! The footer is walked as polars decodes it ([`super::parquet_footer`]), then decoded by
//! polars-parquet itself, so that the lengths checked are the ones polars will use. For every
//! row group and column chunk: the chunk's bytes (from its dictionary page, else its first data
//! page, for its compressed size) must lie before the footer; its value count must not be
//! negative and must equal the row group's rows for a flat column (at least the rows for a
//! repeated one). Then its pages are walked the way polars' page reader walks them (an optional
//! dictionary page first, then data pages until the chunk's values are seen): each header must be
//! decodable inside the chunk, its sizes must not be negative, its page must end inside the chunk,
//! its value count must not be negative (a negative one is the 2^61-byte validity bitmap of
//! docs/reliability.md), a v2 page's nulls, rows and level sizes must fit its values and bytes,
//! its values encoding must be one polars knows, its decompressed size (which polars allocates
//! first) must be one its codec can give from its compressed bytes, and the pages' values must
//! add up to the chunk's. A dictionary page's values must fit its bytes. Finally the memory the declared values need must fit the machine (see
//! [`super::budget`]).

use std::io::{Read, Seek};

use polars_parquet::parquet::compression::Compression;
use polars_parquet::parquet::encoding::Encoding;
use polars_parquet::parquet::metadata::{ColumnChunkMetadata, FileMetadata};
use polars_parquet::parquet::page::ParquetPageHeader;
use polars_parquet::parquet::schema::types::PhysicalType;
use polars_parquet_format::PageType;
use polars_parquet_format::thrift::protocol::TCompactInputProtocol;

use super::budget::Need;
use super::{Depth, Finding, Probe, bitmap_bytes, damaged, parquet_footer};

/// `PAR1`, at the start and the end of a Parquet file.
const MAGIC: &[u8; 4] = b"PAR1";

/// The footer's length (4 bytes) and the magic after it.
const TRAILER_BYTES: u64 = 8;

/// Checks the Parquet file read by `probe` (`len` bytes) to `depth`, against `budget` bytes of
/// memory.
pub(crate) fn check<R: Read + Seek>(
    probe: &mut Probe<R>,
    len: u64,
    depth: Depth,
    budget: Option<u64>,
) -> Result<(), Finding> {
    let footer_start = footer_start(probe, len)?;
    // The footer with its trailer, as polars decodes it.
    let footer = probe.read_vec_at(footer_start, len - footer_start)?;
    parquet_footer::walk(&footer, footer_start)?;
    if depth == Depth::Footer {
        return Ok(());
    }
    // polars-parquet's own decoding of the footer (behind the magic it expects in front): where it
    // fails, polars fails the same way when it reads the file and reports it.
    let mut framed = Vec::with_capacity(footer.len().saturating_add(MAGIC.len()));
    framed.extend_from_slice(MAGIC);
    framed.extend_from_slice(&footer);
    let Ok(metadata) =
        polars_parquet::parquet::read::read_metadata(&mut std::io::Cursor::new(framed))
    else {
        return Ok(());
    };
    let mut need = Need::default();
    check_row_groups(probe, &metadata, footer_start, &mut need)?;
    need.within(budget)
        .map_err(|(needs, available)| Finding::TooLarge {
            what: format!(
                "its {} rows of {} columns",
                metadata.num_rows,
                metadata.schema_descr.columns().len()
            ),
            needs,
            available,
        })
}

/// Where the footer starts, after checking the trailer (`<footer length> PAR1`).
fn footer_start<R: Read + Seek>(probe: &mut Probe<R>, len: u64) -> Result<u64, Finding> {
    let place = "trailer";
    if len < 12 {
        return Err(damaged(
            place,
            format!(
                "the file has {len} bytes, fewer than the 12 of `PAR1`, a footer length and `PAR1`"
            ),
        ));
    }
    let trailer: [u8; 8] = probe.read_array_at(len - TRAILER_BYTES)?;
    let (length, magic) = trailer.split_at(4);
    if magic != MAGIC {
        return Err(damaged(
            place,
            "the file does not end with `PAR1` (it is cut, or not a Parquet file)",
        ));
    }
    let mut length_bytes = [0u8; 4];
    length_bytes.copy_from_slice(length);
    let footer_len = u64::from(u32::from_le_bytes(length_bytes));
    let room = len - TRAILER_BYTES;
    if footer_len > room {
        return Err(damaged(
            place,
            format!("the footer claims {footer_len} bytes, but {room} bytes precede the trailer"),
        ));
    }
    Ok(room - footer_len)
}

/// Checks every row group's column chunks and their pages.
fn check_row_groups<R: Read + Seek>(
    probe: &mut Probe<R>,
    metadata: &FileMetadata,
    footer_start: u64,
    need: &mut Need,
) -> Result<(), Finding> {
    let mut rows = 0u64;
    for (group, row_group) in metadata.row_groups.iter().enumerate() {
        let group_rows = row_group.num_rows() as u64;
        rows = rows.saturating_add(group_rows);
        for chunk in row_group.parquet_columns() {
            let name = chunk.descriptor().path_in_schema.join(".");
            let place = format!("row group {group}, column `{name}`");
            check_chunk(probe, chunk, group_rows, footer_start, &place, need)?;
        }
    }
    if rows != metadata.num_rows as u64 {
        return Err(damaged(
            "footer",
            format!(
                "it claims {} rows, but its row groups hold {rows}",
                metadata.num_rows
            ),
        ));
    }
    Ok(())
}

/// Checks one column chunk of a row group of `rows` rows.
fn check_chunk<R: Read + Seek>(
    probe: &mut Probe<R>,
    chunk: &ColumnChunkMetadata,
    rows: u64,
    footer_start: u64,
    place: &str,
    need: &mut Need,
) -> Result<(), Finding> {
    // polars reads the chunk from its dictionary page when it has one, else from its first data
    // page, for its compressed size.
    let start = chunk
        .dictionary_page_offset()
        .unwrap_or(chunk.data_page_offset());
    let size = chunk.compressed_size();
    let range = u64::try_from(start)
        .ok()
        .zip(u64::try_from(size).ok())
        .and_then(|(start, size)| Some((start, start.checked_add(size)?)))
        .filter(|&(_, end)| end <= footer_start);
    let Some((start, end)) = range else {
        return Err(damaged(
            place,
            format!(
                "its chunk claims {size} bytes at byte {start}, but the data ends at byte {footer_start}"
            ),
        ));
    };
    let values = chunk.num_values();
    let descriptor = &chunk.descriptor().descriptor;
    let repeated = descriptor.max_rep_level > 0;
    let fits = match u64::try_from(values) {
        Ok(values) if repeated => values >= rows,
        Ok(values) => values == rows,
        Err(_) => false,
    };
    if !fits {
        let expected = if repeated { "at least" } else { "exactly" };
        return Err(damaged(
            place,
            format!(
                "it claims {values} values, but a row group of {rows} rows needs {expected} {rows}"
            ),
        ));
    }
    let values = values.unsigned_abs();
    let physical = descriptor.primitive_type.physical_type;
    let pages = Pages {
        place,
        start,
        end,
        physical,
        compression: chunk.compression(),
    };
    let walked = pages.walk(probe, values)?;
    need.add_items(values, value_width(physical));
    need.add(bitmap_bytes(values));
    if physical == PhysicalType::ByteArray {
        need.add(walked.data_bytes);
    }
    need.add(walked.dictionary_bytes);
    need.add(walked.largest_page);
    Ok(())
}

/// The bytes polars' arrays spend per value of a physical type (a view for byte arrays, whose
/// data is counted apart).
fn value_width(physical: PhysicalType) -> u64 {
    match physical {
        PhysicalType::Boolean => 0,
        PhysicalType::Int32 | PhysicalType::Float => 4,
        PhysicalType::Int64 | PhysicalType::Double | PhysicalType::Int96 => 8,
        PhysicalType::ByteArray => 16,
        PhysicalType::FixedLenByteArray(width) => width as u64,
    }
}

/// The fewest bytes one value of a dictionary page takes (plain encoding): its width, 4 for a
/// byte array's length, or one bit.
fn plain_bits(physical: PhysicalType) -> u64 {
    match physical {
        PhysicalType::Boolean => 1,
        PhysicalType::ByteArray => 32,
        other => value_width(other).saturating_mul(8),
    }
}

/// An encoding polars knows (it unwraps the conversion of a data page's values encoding, so an
/// unknown one is a panic; it never converts the level encodings).
fn known_encoding(encoding: polars_parquet_format::Encoding, place: &str) -> Result<(), Finding> {
    Encoding::try_from(encoding).map(|_| ()).map_err(|_| {
        damaged(
            place,
            format!("encoding {} is not a Parquet encoding", encoding.0),
        )
    })
}

/// The most a page codec can expand its input, where that bounds anything: Snappy gives at most
/// 64 bytes for a 3-byte copy (21.3), deflate at most 1 032 times its input, an LZ4 match gains
/// at most 255 bytes per byte, and a Zstandard block at most 128 KiB for 4 bytes (32 768).
/// Brotli (whose single copy command can cover megabytes) and LZO (which polars does not read)
/// are bounded by the memory budget alone; uncompressed pages are used as they are stored.
fn max_ratio(compression: Compression) -> Option<u64> {
    match compression {
        Compression::Snappy => Some(32),
        Compression::Gzip => Some(1_032),
        Compression::Lz4 | Compression::Lz4Raw => Some(256),
        Compression::Zstd => Some(32_768),
        Compression::Uncompressed | Compression::Brotli | Compression::Lzo => None,
    }
}

/// One chunk's pages.
struct Pages<'a> {
    place: &'a str,
    start: u64,
    end: u64,
    physical: PhysicalType,
    compression: Compression,
}

/// What the walk over a chunk's pages adds up.
#[derive(Debug, Default)]
struct Walked {
    /// The decompressed bytes of the data pages.
    data_bytes: u64,
    /// What the dictionary's values take in memory.
    dictionary_bytes: u64,
    /// The largest decompressed page (polars decompresses a page at a time).
    largest_page: u64,
}

/// One decoded page header and where its page ends.
struct Page {
    header: ParquetPageHeader,
    at: u64,
    end: u64,
}

impl Pages<'_> {
    /// Walks the pages as polars' page reader does and checks that they hold `values` values.
    fn walk<R: Read + Seek>(&self, probe: &mut Probe<R>, values: u64) -> Result<Walked, Finding> {
        let mut walked = Walked::default();
        let mut at = self.start;
        let mut index = 0usize;
        // The first page may be the dictionary (polars reads it apart).
        if at < self.end {
            let page = self.header(probe, at, index)?;
            if page.header.type_ == PageType::DICTIONARY_PAGE {
                self.dictionary(&page, index, &mut walked)?;
                at = page.end;
                index += 1;
            }
        }
        let mut seen = 0u64;
        while seen < values {
            if at >= self.end {
                return Err(damaged(
                    self.place,
                    format!("its pages hold {seen} values, but the chunk claims {values}"),
                ));
            }
            let page = self.header(probe, at, index)?;
            seen = seen.saturating_add(self.data_page(&page, index, &mut walked)?);
            at = page.end;
            index += 1;
        }
        if seen != values {
            return Err(damaged(
                self.place,
                format!("its pages hold {seen} values, but the chunk claims {values}"),
            ));
        }
        Ok(walked)
    }

    /// The place of page `index` at byte `at`.
    fn page_place(&self, index: usize, at: u64) -> String {
        format!("{}, page {index} (byte {at})", self.place)
    }

    /// Decodes the page header at `at` (as polars does, with polars' thrift reader) and checks
    /// its sizes.
    fn header<R: Read + Seek>(
        &self,
        probe: &mut Probe<R>,
        at: u64,
        index: usize,
    ) -> Result<Page, Finding> {
        let place = self.page_place(index, at);
        probe.seek_to(at)?;
        let mut reader = probe.counted(self.end - at);
        let mut protocol = TCompactInputProtocol::new(&mut reader, usize::MAX);
        let header = ParquetPageHeader::read_from_in_protocol(&mut protocol)
            .map_err(|err| damaged(&place, format!("its header cannot be decoded ({err})")))?;
        let header_end = at.saturating_add(reader.consumed());
        let (compressed, uncompressed) =
            (header.compressed_page_size, header.uncompressed_page_size);
        let (Ok(compressed_bytes), Ok(_)) =
            (u64::try_from(compressed), u64::try_from(uncompressed))
        else {
            return Err(damaged(
                &place,
                format!("it claims {compressed} bytes compressed and {uncompressed} uncompressed"),
            ));
        };
        let end = header_end
            .checked_add(compressed_bytes)
            .filter(|&end| end <= self.end);
        let Some(end) = end else {
            return Err(damaged(
                &place,
                format!(
                    "it claims {compressed} bytes after its header at byte {header_end}, but the chunk ends at byte {}",
                    self.end
                ),
            ));
        };
        Ok(Page { header, at, end })
    }

    /// Checks that the page's `uncompressed` size (polars allocates it before decompressing) is
    /// one its codec can give from its `compressed` bytes, of which the first `levels` (a v2
    /// page's levels) are stored as they are; `stored` when the page says it is not compressed.
    fn decompressed_fits(
        &self,
        header: &ParquetPageHeader,
        levels: u64,
        stored: bool,
        place: &str,
    ) -> Result<(), Finding> {
        let Some(ratio) = max_ratio(self.compression) else {
            return Ok(());
        };
        let ratio = if stored { 1 } else { ratio };
        let compressed = u64::from(header.compressed_page_size.unsigned_abs());
        let uncompressed = u64::from(header.uncompressed_page_size.unsigned_abs());
        let most = compressed
            .saturating_sub(levels)
            .saturating_mul(ratio)
            .saturating_add(levels);
        if uncompressed > most {
            return Err(damaged(
                place,
                format!(
                    "it claims {uncompressed} bytes once decompressed from {compressed} bytes, more than the {most} that {:?} can give",
                    self.compression
                ),
            ));
        }
        Ok(())
    }

    /// Checks a dictionary page: its values must fit its bytes.
    fn dictionary(&self, page: &Page, index: usize, walked: &mut Walked) -> Result<(), Finding> {
        let place = self.page_place(index, page.at);
        let Some(dictionary) = &page.header.dictionary_page_header else {
            return Err(damaged(
                place,
                "a dictionary page without a dictionary page header",
            ));
        };
        self.decompressed_fits(&page.header, 0, false, &place)?;
        let values = dictionary.num_values;
        let bytes = page.header.uncompressed_page_size.unsigned_abs();
        let fits = u64::try_from(values).ok().filter(|&values| {
            values.saturating_mul(plain_bits(self.physical)) <= u64::from(bytes).saturating_mul(8)
        });
        let Some(values) = fits else {
            return Err(damaged(
                place,
                format!(
                    "its dictionary claims {values} values, which do not fit its {bytes} bytes"
                ),
            ));
        };
        walked.dictionary_bytes = values
            .saturating_mul(value_width(self.physical))
            .saturating_add(u64::from(bytes));
        walked.largest_page = walked.largest_page.max(u64::from(bytes));
        Ok(())
    }

    /// Checks a data page and returns its value count.
    fn data_page(&self, page: &Page, index: usize, walked: &mut Walked) -> Result<u64, Finding> {
        let place = self.page_place(index, page.at);
        let header = &page.header;
        let bytes = u64::from(header.uncompressed_page_size.unsigned_abs());
        walked.data_bytes = walked.data_bytes.saturating_add(bytes);
        walked.largest_page = walked.largest_page.max(bytes);
        let values = match header.type_ {
            PageType::DATA_PAGE => {
                let Some(v1) = &header.data_page_header else {
                    return Err(damaged(place, "a v1 data page without a data page header"));
                };
                known_encoding(v1.encoding, &place)?;
                self.decompressed_fits(header, 0, false, &place)?;
                v1.num_values
            }
            PageType::DATA_PAGE_V2 => {
                let Some(v2) = &header.data_page_header_v2 else {
                    return Err(damaged(
                        place,
                        "a v2 data page without a v2 data page header",
                    ));
                };
                known_encoding(v2.encoding, &place)?;
                let levels = i64::from(v2.definition_levels_byte_length)
                    + i64::from(v2.repetition_levels_byte_length);
                let counts_fit = v2.num_values >= 0
                    && (0..=v2.num_values).contains(&v2.num_nulls)
                    && (0..=v2.num_values).contains(&v2.num_rows);
                let levels_fit = v2.definition_levels_byte_length >= 0
                    && v2.repetition_levels_byte_length >= 0
                    && levels <= i64::from(header.compressed_page_size)
                    && levels <= i64::from(header.uncompressed_page_size);
                if !counts_fit || !levels_fit {
                    return Err(damaged(
                        place,
                        format!(
                            "it claims {} values, {} nulls, {} rows and {} + {} bytes of levels in {} bytes",
                            v2.num_values,
                            v2.num_nulls,
                            v2.num_rows,
                            v2.repetition_levels_byte_length,
                            v2.definition_levels_byte_length,
                            header.compressed_page_size
                        ),
                    ));
                }
                self.decompressed_fits(
                    header,
                    levels.unsigned_abs(),
                    v2.is_compressed == Some(false),
                    &place,
                )?;
                v2.num_values
            }
            PageType::DICTIONARY_PAGE => {
                return Err(damaged(
                    place,
                    "a second dictionary page (only the first page may be one)",
                ));
            }
            other => {
                return Err(damaged(
                    place,
                    format!("page type {} is not a data or dictionary page", other.0),
                ));
            }
        };
        u64::try_from(values).map_err(|_| damaged(place, format!("it claims {values} values")))
    }
}
