//! Tests of the Parquet check on crafted files: a small frame written by polars, then one length
//! field changed (a page header rewritten in place at the same length, or the footer decoded,
//! changed and written again at the end), so that each check is tested apart from the mutation
//! loops (`tests/mutants.rs`).

use polars::prelude::*;
use polars_parquet_format::thrift::protocol::{TCompactInputProtocol, TCompactOutputProtocol};
use polars_parquet_format::{FileMetaData, PageHeader, PageType};

use super::{Depth, Finding, Probe, parquet::check};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Rows of the test frame (an odd count, so that its lengths are not confused with offsets).
const ROWS: usize = 37;

/// A frame of `rows` rows: integers `a` with nulls and strings `s`.
fn frame(rows: usize) -> PolarsResult<DataFrame> {
    let numbers: Vec<Option<i64>> = (0..rows as i64)
        .map(|i| (i % 5 != 0).then_some((i * 2_654_435_761) % 1_000_003))
        .collect();
    let names: Vec<String> = (0..rows)
        .map(|i| format!("kernel_{}", (i * 7919) % 1009))
        .collect();
    DataFrame::new_infer_height(vec![
        Column::new("a".into(), numbers),
        Column::new("s".into(), names),
    ])
}

/// `frame` written as a Parquet file, uncompressed, in row groups of `group` rows.
fn parquet_file(frame: &mut DataFrame, group: usize) -> PolarsResult<Vec<u8>> {
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_compression(ParquetCompression::Uncompressed)
        .with_row_group_size(Some(group))
        .finish(frame)?;
    Ok(bytes)
}

/// The check of `bytes` with `budget`, its finding as text.
fn check_bytes(bytes: &[u8], budget: Option<u64>) -> Result<u64, String> {
    let mut probe = Probe::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    match check(&mut probe, bytes.len() as u64, Depth::Whole, budget) {
        Ok(()) => Ok(probe.bytes_read()),
        Err(Finding::Damaged { place, problem }) => Err(format!("{place}: {problem}")),
        Err(Finding::TooLarge {
            what,
            needs,
            available,
        }) => Err(format!("too large: {what} need {needs} > {available}")),
        Err(Finding::Io(err)) => Err(format!("io: {err}")),
    }
}

/// Where the footer starts.
fn footer_start(bytes: &[u8]) -> Result<usize, Box<dyn std::error::Error>> {
    let len = bytes.len();
    Ok(len - 8 - u32::from_le_bytes(bytes[len - 8..len - 4].try_into()?) as usize)
}

/// The file's footer, decoded.
fn footer(bytes: &[u8]) -> Result<FileMetaData, Box<dyn std::error::Error>> {
    let start = footer_start(bytes)?;
    let mut protocol = TCompactInputProtocol::new(&bytes[start..bytes.len() - 8], usize::MAX);
    Ok(FileMetaData::read_from_in_protocol(&mut protocol)?)
}

/// A file of `data` (its `PAR1` and pages) and `metadata` as its footer.
fn with_footer(
    data: &[u8],
    metadata: &FileMetaData,
) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut out = data.to_vec();
    let mut encoded = Vec::new();
    metadata.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut encoded))?;
    out.extend_from_slice(&encoded);
    out.extend_from_slice(&u32::try_from(encoded.len())?.to_le_bytes());
    out.extend_from_slice(b"PAR1");
    Ok(out)
}

/// The file with the first data page header of column `column` (of row group 0) rewritten by
/// `change`, and the header's offset. A header of another length moves what follows it: the
/// chunk's sizes and every later offset in the footer move with it.
fn rewrite_first_data_page(
    bytes: &[u8],
    column: usize,
    change: impl FnOnce(&mut PageHeader),
) -> Result<(Vec<u8>, usize), Box<dyn std::error::Error>> {
    let mut metadata = footer(bytes)?;
    let chunk = metadata.row_groups[0].columns[column]
        .meta_data
        .as_ref()
        .ok_or("no column metadata")?;
    let at = usize::try_from(chunk.data_page_offset)?;
    let mut rest = &bytes[at..];
    let mut header =
        PageHeader::read_from_in_protocol(&mut TCompactInputProtocol::new(&mut rest, usize::MAX))?;
    let old_len = bytes.len() - at - rest.len();
    assert_eq!(header.type_, PageType::DATA_PAGE);
    let encode = |header: &PageHeader| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        let mut encoded = Vec::new();
        header.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut encoded))?;
        Ok(encoded)
    };
    assert_eq!(
        encode(&header)?,
        bytes[at..at + old_len],
        "the header does not encode back to itself"
    );
    change(&mut header);
    let new = encode(&header)?;
    let delta = new.len() as i64 - old_len as i64;
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(&new);
    out.extend_from_slice(&bytes[at + old_len..footer_start(bytes)?]);
    let moved = |offset: &mut i64| {
        if *offset > at as i64 {
            *offset += delta;
        }
    };
    for (group, row_group) in metadata.row_groups.iter_mut().enumerate() {
        for (index, chunk) in row_group.columns.iter_mut().enumerate() {
            let meta = chunk.meta_data.as_mut().ok_or("no column metadata")?;
            moved(&mut meta.data_page_offset);
            if let Some(offset) = meta.dictionary_page_offset.as_mut() {
                moved(offset);
            }
            if group == 0 && index == column {
                meta.total_compressed_size += delta;
                meta.total_uncompressed_size += delta;
            }
            if let Some(offset) = chunk.offset_index_offset.as_mut() {
                moved(offset);
            }
            if let Some(offset) = chunk.column_index_offset.as_mut() {
                moved(offset);
            }
        }
    }
    Ok((with_footer(&out, &metadata)?, at))
}

#[test]
fn files_written_by_polars_pass() -> TestResult {
    for group in [ROWS, 10] {
        let bytes = parquet_file(&mut frame(ROWS)?, group)?;
        assert!(
            check_bytes(&bytes, Some(1 << 30)).is_ok(),
            "{:?}",
            check_bytes(&bytes, Some(1 << 30))
        );
    }
    Ok(())
}

#[test]
fn files_written_by_arrow_cpp_pass_and_read() -> TestResult {
    // pyarrow 26 (`tests/fixtures/arrow_cpp/make.py`): data page v2 with dictionary pages in row
    // groups of 100 rows, and delta encodings.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/arrow_cpp");
    for name in ["zstd_v2_pages.parquet", "snappy_delta.parquet"] {
        let bytes = std::fs::read(dir.join(name))?;
        assert!(
            check_bytes(&bytes, Some(1 << 30)).is_ok(),
            "{name}: {:?}",
            check_bytes(&bytes, Some(1 << 30))
        );
        let frame = ParquetReader::new(std::io::Cursor::new(bytes)).finish()?;
        assert_eq!(frame.height(), 300, "{name}");
    }
    Ok(())
}

#[test]
fn a_negative_page_value_count_is_refused() -> TestResult {
    // The damage that made polars reserve 2^61 bytes for a page's validity bitmap.
    let original = parquet_file(&mut frame(ROWS)?, ROWS)?;
    let (bytes, at) = rewrite_first_data_page(&original, 0, |header| {
        if let Some(v1) = header.data_page_header.as_mut() {
            v1.num_values = -15;
        }
    })?;
    let err = check_bytes(&bytes, None).unwrap_err();
    assert!(err.starts_with("row group 0, column `a`, page "), "{err}");
    assert!(
        err.ends_with(&format!("(byte {at}): it claims -15 values")),
        "{err}"
    );
    Ok(())
}

#[test]
fn page_values_that_do_not_add_up_to_the_chunk_are_refused() -> TestResult {
    for (values, pages_hold) in [(ROWS as i32 - 1, ROWS - 1), (ROWS as i32 + 1, ROWS + 1)] {
        let original = parquet_file(&mut frame(ROWS)?, ROWS)?;
        let (bytes, _) = rewrite_first_data_page(&original, 0, |header| {
            if let Some(v1) = header.data_page_header.as_mut() {
                v1.num_values = values;
            }
        })?;
        let err = check_bytes(&bytes, None).unwrap_err();
        assert_eq!(
            err,
            format!(
                "row group 0, column `a`: its pages hold {pages_hold} values, but the chunk claims {ROWS}"
            )
        );
    }
    Ok(())
}

#[test]
fn a_page_past_its_chunk_is_refused() -> TestResult {
    let original = parquet_file(&mut frame(ROWS)?, ROWS)?;
    // The page is the chunk's last: one byte more runs past it.
    let mut claimed = 0;
    let (bytes, _) = rewrite_first_data_page(&original, 0, |header| {
        header.compressed_page_size += 1;
        claimed = header.compressed_page_size;
    })?;
    let err = check_bytes(&bytes, None).unwrap_err();
    let Some((_, tail)) = err.split_once(&format!(
        "it claims {claimed} bytes after its header at byte "
    )) else {
        return Err(err.into());
    };
    let (header_end, chunk_end) = tail
        .split_once(", but the chunk ends at byte ")
        .ok_or("no chunk end")?;
    assert_eq!(
        header_end.parse::<i64>()? + i64::from(claimed) - 1,
        chunk_end.parse::<i64>()?,
        "{err}"
    );
    // An unknown encoding, which polars unwraps.
    let (bytes, _) = rewrite_first_data_page(&original, 0, |header| {
        if let Some(v1) = header.data_page_header.as_mut() {
            v1.encoding.0 = 40;
        }
    })?;
    assert!(
        check_bytes(&bytes, None)
            .unwrap_err()
            .ends_with("encoding 40 is not a Parquet encoding")
    );
    Ok(())
}

#[test]
fn a_decompressed_size_beyond_the_codec_is_refused() -> TestResult {
    // Snappy gives at most 32 times its input (21.3 in fact): one byte more than that is refused.
    let mut original = Vec::new();
    ParquetWriter::new(&mut original)
        .with_compression(ParquetCompression::Snappy)
        .finish(&mut frame(ROWS)?)?;
    assert!(check_bytes(&original, None).is_ok());
    // A header rewritten unchanged and one longer (with a checksum, which nothing reads) pass.
    assert!(check_bytes(&rewrite_first_data_page(&original, 0, |_| {})?.0, None).is_ok());
    let longer = rewrite_first_data_page(&original, 0, |header| header.crc = Some(0x1234_5678))?.0;
    assert!(
        longer.len() > original.len(),
        "{} {}",
        longer.len(),
        original.len()
    );
    assert!(
        check_bytes(&longer, None).is_ok(),
        "{:?}",
        check_bytes(&longer, None)
    );
    let mut claimed = (0, 0);
    let (bytes, _) = rewrite_first_data_page(&original, 0, |header| {
        header.uncompressed_page_size = header.compressed_page_size * 32 + 1;
        claimed = (header.uncompressed_page_size, header.compressed_page_size);
    })?;
    let err = check_bytes(&bytes, None).unwrap_err();
    let (uncompressed, compressed) = claimed;
    let most = compressed * 32;
    assert!(
        err.ends_with(&format!("it claims {uncompressed} bytes once decompressed from {compressed} bytes, more than the {most} that Snappy can give")),
        "{err}"
    );
    Ok(())
}

#[test]
fn column_chunks_must_fit_the_file_and_their_row_group() -> TestResult {
    let original = parquet_file(&mut frame(ROWS)?, ROWS)?;
    let start = footer_start(&original)?;
    let data = &original[..start];
    // A chunk claiming more bytes than there are before the footer.
    let mut metadata = footer(&original)?;
    let chunk = metadata.row_groups[0].columns[1]
        .meta_data
        .as_mut()
        .ok_or("no column metadata")?;
    chunk.total_compressed_size += 10_000;
    let (size, first) = (
        chunk.total_compressed_size,
        chunk
            .dictionary_page_offset
            .unwrap_or(chunk.data_page_offset),
    );
    let err = check_bytes(&with_footer(data, &metadata)?, None).unwrap_err();
    assert_eq!(
        err,
        format!(
            "row group 0, column `s`: its chunk claims {size} bytes at byte {first}, but the data ends at byte {start}"
        )
    );
    // A chunk with more values than its row group has rows.
    let mut metadata = footer(&original)?;
    metadata.row_groups[0].columns[0]
        .meta_data
        .as_mut()
        .ok_or("no column metadata")?
        .num_values += 1;
    let err = check_bytes(&with_footer(data, &metadata)?, None).unwrap_err();
    assert_eq!(
        err,
        format!(
            "row group 0, column `a`: it claims {} values, but a row group of {ROWS} rows needs exactly {ROWS}",
            ROWS + 1
        )
    );
    // A file whose row count is not its row groups'.
    let mut metadata = footer(&original)?;
    metadata.num_rows += 1;
    let err = check_bytes(&with_footer(data, &metadata)?, None).unwrap_err();
    assert_eq!(
        err,
        format!(
            "footer: it claims {} rows, but its row groups hold {ROWS}",
            ROWS + 1
        )
    );
    // The footer written again unchanged passes.
    assert!(check_bytes(&with_footer(data, &footer(&original)?)?, None).is_ok());
    Ok(())
}

#[test]
fn the_memory_the_values_need_is_held_against_the_budget() -> TestResult {
    let bytes = parquet_file(&mut frame(ROWS)?, ROWS)?;
    assert!(check_bytes(&bytes, Some(1 << 30)).is_ok());
    let err = check_bytes(&bytes, Some(100)).unwrap_err();
    assert!(
        err.starts_with(&format!("too large: its {ROWS} rows of 2 columns need ")),
        "{err}"
    );
    Ok(())
}

#[test]
fn the_check_reads_only_headers() -> TestResult {
    // 200 000 rows in row groups of 50 000 (about 2 MB).
    let bytes = parquet_file(&mut frame(200_000)?, 50_000)?;
    let read = check_bytes(&bytes, None)?;
    assert!(
        read * 50 < bytes.len() as u64,
        "read {read} of {} bytes",
        bytes.len()
    );
    Ok(())
}
