//! Tests of the Arrow IPC check on crafted files: a small frame written by polars, then one length
//! field changed at an offset computed from the file's own flatbuffers, so that each check is
//! tested apart from the mutation loops (`tests/mutants.rs`).

use polars::prelude::*;
use polars_arrow::io::ipc::format::ipc;
use polars_arrow::io::ipc::format::ipc::planus::ReadAsRoot;

use super::{Depth, Finding, Probe, ipc::check};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Rows of the test frame (an odd count, so that its lengths are not confused with offsets).
const ROWS: usize = 37;

/// A frame of `rows` rows: integers with nulls, strings, and lists of integers.
fn frame(rows: usize) -> PolarsResult<DataFrame> {
    let numbers: Vec<Option<i64>> = (0..rows as i64)
        .map(|i| (i % 5 != 0).then_some(i * 1_000_003))
        .collect();
    let names: Vec<String> = (0..rows)
        .map(|i| format!("kernel_with_a_long_name_{}", i % 7))
        .collect();
    let lists: Vec<Series> = (0..rows as i64)
        .map(|i| Series::new("".into(), vec![i; (i % 3) as usize]))
        .collect();
    DataFrame::new_infer_height(vec![
        Column::new("n".into(), numbers),
        Column::new("s".into(), names),
        Column::new("l".into(), lists),
    ])
}

/// `frame` written as an IPC file, compressed or not.
fn ipc_file(frame: &mut DataFrame, compression: Option<IpcCompression>) -> PolarsResult<Vec<u8>> {
    let mut bytes = Vec::new();
    IpcWriter::new(&mut bytes)
        .with_compression(compression)
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

/// Where the pieces of the first record batch are: its block, and its buffers and field nodes
/// as the message lists them.
struct FirstBatch {
    footer_start: usize,
    block_offset: usize,
    meta: usize,
    body: usize,
    buffers: Vec<(i64, i64)>,
    nodes: Vec<(i64, i64)>,
}

fn first_batch(bytes: &[u8]) -> Result<FirstBatch, Box<dyn std::error::Error>> {
    let len = bytes.len();
    let footer_len = i32::from_le_bytes(bytes[len - 10..len - 6].try_into()?) as usize;
    let footer_start = len - 10 - footer_len;
    let footer = ipc::FooterRef::read_as_root(&bytes[footer_start..len - 10])?;
    let block = footer
        .record_batches()?
        .ok_or("no batches")?
        .get(0)
        .ok_or("no batch")?;
    let (block_offset, meta, body) = (
        block.offset() as usize,
        block.meta_data_length() as usize,
        block.body_length() as usize,
    );
    let message_len =
        i32::from_le_bytes(bytes[block_offset + 4..block_offset + 8].try_into()?) as usize;
    let message =
        ipc::MessageRef::read_as_root(&bytes[block_offset + 8..block_offset + 8 + message_len])?;
    let Some(ipc::MessageHeaderRef::RecordBatch(batch)) = message.header()? else {
        return Err("not a record batch".into());
    };
    let buffers = batch
        .buffers()?
        .ok_or("no buffers")?
        .iter()
        .map(|b| (b.offset(), b.length()))
        .collect();
    let nodes = batch
        .nodes()?
        .ok_or("no nodes")?
        .iter()
        .map(|n| (n.length(), n.null_count()))
        .collect();
    Ok(FirstBatch {
        footer_start,
        block_offset,
        meta,
        body,
        buffers,
        nodes,
    })
}

/// Replaces the only occurrence of `from` in `bytes[range]` by `to` (of the same length).
fn patch_once(
    bytes: &mut [u8],
    range: std::ops::Range<usize>,
    from: &[u8],
    to: &[u8],
) -> TestResult {
    let start = range.start;
    let found: Vec<usize> = bytes[range]
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from)
        .map(|(i, _)| i)
        .collect();
    let [at] = found[..] else {
        return Err(format!("{} occurrences of the pattern", found.len()).into());
    };
    bytes[start + at..start + at + to.len()].copy_from_slice(to);
    Ok(())
}

/// A pair of little-endian i64 (a buffer or a field node as the message stores it).
fn pair(a: i64, b: i64) -> Vec<u8> {
    [a.to_le_bytes(), b.to_le_bytes()].concat()
}

#[test]
fn files_written_by_polars_pass() -> TestResult {
    for compression in [
        None,
        Some(IpcCompression::default()),
        Some(IpcCompression::LZ4),
    ] {
        let bytes = ipc_file(&mut frame(ROWS)?, compression)?;
        assert!(
            check_bytes(&bytes, Some(1 << 30)).is_ok(),
            "{compression:?}: {:?}",
            check_bytes(&bytes, Some(1 << 30))
        );
    }
    Ok(())
}

#[test]
fn files_written_by_arrow_cpp_pass_and_read() -> TestResult {
    // pyarrow 26 (`tests/fixtures/arrow_cpp/make.py`): zstd with string views and a null column,
    // and lz4 with V4 metadata.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/arrow_cpp");
    for name in ["zstd_v5_views.arrow", "lz4_v4.arrow"] {
        let bytes = std::fs::read(dir.join(name))?;
        assert!(
            check_bytes(&bytes, Some(1 << 30)).is_ok(),
            "{name}: {:?}",
            check_bytes(&bytes, Some(1 << 30))
        );
        let frame = IpcReader::new(std::io::Cursor::new(bytes)).finish()?;
        assert_eq!(frame.height(), 300, "{name}");
    }
    Ok(())
}

#[test]
fn a_buffer_past_its_batch_body_is_refused() -> TestResult {
    let mut bytes = ipc_file(&mut frame(ROWS)?, None)?;
    let batch = first_batch(&bytes)?;
    // The last buffer that has bytes, grown past the body.
    let (index, &(offset, length)) = batch
        .buffers
        .iter()
        .enumerate()
        .rev()
        .find(|(_, b)| b.1 > 0)
        .ok_or("no buffer")?;
    let claimed = batch.body as i64 - offset + 1;
    let message = batch.block_offset..batch.block_offset + batch.meta;
    patch_once(
        &mut bytes,
        message,
        &pair(offset, length),
        &pair(offset, claimed),
    )?;
    let err = check_bytes(&bytes, None).unwrap_err();
    assert_eq!(
        err,
        format!(
            "record batch 0 (block at byte {}), buffer {index}: claims {claimed} bytes at offset {offset} of the batch body, but the body has {} bytes",
            batch.block_offset, batch.body
        )
    );
    Ok(())
}

#[test]
fn a_negative_buffer_offset_is_refused() -> TestResult {
    let mut bytes = ipc_file(&mut frame(ROWS)?, None)?;
    let batch = first_batch(&bytes)?;
    let (index, &(offset, length)) = batch
        .buffers
        .iter()
        .enumerate()
        .rev()
        .find(|(_, b)| b.1 > 0)
        .ok_or("no buffer")?;
    let message = batch.block_offset..batch.block_offset + batch.meta;
    patch_once(
        &mut bytes,
        message,
        &pair(offset, length),
        &pair(-8, length),
    )?;
    let err = check_bytes(&bytes, None).unwrap_err();
    assert!(
        err.contains(&format!(
            "buffer {index}: claims {length} bytes at offset -8 of the batch body"
        )),
        "{err}"
    );
    Ok(())
}

#[test]
fn a_block_past_the_footer_is_refused() -> TestResult {
    let mut bytes = ipc_file(&mut frame(ROWS)?, None)?;
    let batch = first_batch(&bytes)?;
    // A footer block: offset (i64), metadata length (i32), 4 bytes of padding, body length (i64).
    let block = |body: usize| {
        [
            (batch.block_offset as i64).to_le_bytes().to_vec(),
            (batch.meta as i32).to_le_bytes().to_vec(),
            vec![0; 4],
            (body as i64).to_le_bytes().to_vec(),
        ]
        .concat()
    };
    let footer = batch.footer_start..bytes.len() - 10;
    patch_once(
        &mut bytes,
        footer,
        &block(batch.body),
        &block(batch.body + 4096),
    )?;
    let err = check_bytes(&bytes, None).unwrap_err();
    assert_eq!(
        err,
        format!(
            "record batch 0 (block at byte {}): its metadata ({} bytes) and body ({} bytes) end past the footer at byte {}",
            batch.block_offset,
            batch.meta,
            batch.body + 4096,
            batch.footer_start
        )
    );
    Ok(())
}

#[test]
fn a_node_longer_than_its_buffers_hold_is_refused() -> TestResult {
    let mut bytes = ipc_file(&mut frame(ROWS)?, None)?;
    let batch = first_batch(&bytes)?;
    // The last node is the list column's values (`n`, `s`, `l`, then `l`'s child).
    let &(length, nulls) = batch.nodes.last().ok_or("no node")?;
    let message = batch.block_offset..batch.block_offset + batch.meta;
    patch_once(
        &mut bytes,
        message,
        &pair(length, nulls),
        &pair(length + 1000, nulls),
    )?;
    let err = check_bytes(&bytes, None).unwrap_err();
    let needed = (length + 1000) * 8;
    assert!(
        err.starts_with(&format!(
            "record batch 0 (block at byte {}), buffer",
            batch.block_offset
        )),
        "{err}"
    );
    assert!(
        err.ends_with(&format!(
            "the values of {} values need {needed} bytes, but the buffer has {}",
            length + 1000,
            length * 8
        )),
        "{err}"
    );
    // A column whose length is not the batch's.
    let mut bytes = ipc_file(&mut frame(ROWS)?, None)?;
    let &(length, nulls) = batch.nodes.first().ok_or("no node")?;
    let message = batch.block_offset..batch.block_offset + batch.meta;
    patch_once(
        &mut bytes,
        message,
        &pair(length, nulls),
        &pair(length + 1, nulls),
    )?;
    let err = check_bytes(&bytes, None).unwrap_err();
    assert!(
        err.ends_with(&format!(
            "column 0 claims {} rows, but the batch has {ROWS}",
            ROWS + 1
        )),
        "{err}"
    );
    Ok(())
}

#[test]
fn a_compressed_buffer_is_held_against_its_node_and_the_budget() -> TestResult {
    let original = ipc_file(&mut frame(ROWS)?, Some(IpcCompression::default()))?;
    let batch = first_batch(&original)?;
    let body_start = batch.block_offset + batch.meta;
    // The integers' values (buffer 1): their decompressed length prefix.
    let (offset, length) = batch.buffers[1];
    assert!(length >= 8, "{length}");
    let prefix = body_start + offset as usize;
    let decompressed = i64::from_le_bytes(original[prefix..prefix + 8].try_into()?);
    assert_eq!(decompressed, ROWS as i64 * 8);
    let with_prefix = |value: i64| {
        let mut bytes = original.clone();
        bytes[prefix..prefix + 8].copy_from_slice(&value.to_le_bytes());
        bytes
    };
    // More than zstd can give from the buffer's bytes.
    let most = (length as u64 - 8) * 32_768;
    let err = check_bytes(&with_prefix(most as i64 + 1), Some(1 << 30)).unwrap_err();
    assert!(
        err.ends_with(&format!("buffer 1: a Zstd buffer of {} compressed bytes claims {} bytes once decompressed, more than the {most} it can give", length - 8, most + 1)),
        "{err}"
    );
    // As much as zstd can give, but more than a budget of 1 MiB.
    let err = check_bytes(&with_prefix(most as i64), Some(1 << 20)).unwrap_err();
    assert!(
        err.starts_with(
            "too large: its 1 record batches (decompressed buffers and columns of nulls) need "
        ),
        "{err}"
    );
    let err = check_bytes(&with_prefix(-5), Some(1 << 30)).unwrap_err();
    assert!(
        err.ends_with("buffer 1: a compressed buffer claims -5 bytes once decompressed"),
        "{err}"
    );
    let err = check_bytes(&with_prefix(ROWS as i64 * 8 - 1), Some(1 << 30)).unwrap_err();
    assert!(
        err.ends_with(&format!(
            "buffer 1: the values of {ROWS} values need {} bytes, but the buffer has {}",
            ROWS * 8,
            ROWS * 8 - 1
        )),
        "{err}"
    );
    // Unchanged, the file fits a budget of 1 GiB but not one of 100 bytes.
    assert!(check_bytes(&original, Some(1 << 30)).is_ok());
    assert!(
        check_bytes(&original, Some(100))
            .unwrap_err()
            .starts_with("too large")
    );
    Ok(())
}

#[test]
fn a_schema_nested_too_deep_is_refused() -> TestResult {
    // A list of lists ... of integers, 70 levels deep: polars converts a schema recursively.
    let mut column = Series::new("deep".into(), [1i64, 2, 3]);
    for _ in 0..70 {
        column = column.implode()?.into_series();
    }
    let bytes = ipc_file(&mut DataFrame::new_infer_height(vec![column.into()])?, None)?;
    let err = check_bytes(&bytes, None).unwrap_err();
    assert!(
        err.ends_with("the schema nests fields more than 64 levels deep"),
        "{err}"
    );
    Ok(())
}

#[test]
fn the_check_reads_only_headers() -> TestResult {
    // 40 batches of 5 000 rows (about 10 MB).
    let mut frame = frame(5_000)?;
    let whole = frame.clone();
    for _ in 1..40 {
        frame.vstack_mut(&whole)?;
    }
    let bytes = ipc_file(&mut frame, None)?;
    let read = check_bytes(&bytes, None)?;
    assert!(
        read * 100 < bytes.len() as u64,
        "read {read} of {} bytes",
        bytes.len()
    );
    Ok(())
}
