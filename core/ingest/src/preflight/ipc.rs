//! The Arrow IPC file check: the footer, then each dictionary and record batch's message, where
//! every length the file declares must lie inside what contains it.
//!
//! The file format (`ARROW1`, the messages, a flatbuffer footer, its length and `ARROW1`) is the
//! only one the readers accept (detection requires the leading magic, and polars' file reader the
//! footer); a stream (`0xFFFFFFFF` and messages, no footer) never reaches polars' stream reader.
//! For each block the footer lists: the block (message and body) must end before the footer; the
//! message's own length must fit in the block; every buffer (offset and length) must lie inside
//! the batch's body; node lengths and null counts must not be negative; and, through
//! [`super::ipc_layout`], each buffer must be large enough for its node. A compressed batch's
//! buffers each start with their decompressed length (8 bytes, read here): that length is what
//! polars allocates, so it is held against the node and counted towards the memory budget.

use std::io::{Read, Seek};

use polars_arrow::io::ipc::format::ipc;
use polars_arrow::io::ipc::format::ipc::planus::ReadAsRoot;

use super::budget::Need;
use super::ipc_layout::{Batch, Layout, Node, SchemaLayout, check_batch, schema_layout};
use super::{Depth, Finding, Probe, damaged};

/// `ARROW1`, at the start and the end of an IPC file.
const MAGIC: &[u8; 6] = b"ARROW1";

/// The footer's length (4 bytes) and the magic after it.
const TRAILER_BYTES: u64 = 10;

/// The continuation marker before a message's length (IPC 0.15 and later).
const CONTINUATION: [u8; 4] = [0xff; 4];

/// Checks the IPC file read by `probe` (`len` bytes) to `depth`, against `budget` bytes of memory.
pub(crate) fn check<R: Read + Seek>(
    probe: &mut Probe<R>,
    len: u64,
    depth: Depth,
    budget: Option<u64>,
) -> Result<(), Finding> {
    let footer_start = footer_start(probe, len)?;
    let footer_len = len - TRAILER_BYTES - footer_start;
    let footer_bytes = probe.read_vec_at(footer_start, footer_len)?;
    let place = format!("footer (byte {footer_start})");
    let flatbuffer =
        |err: ipc::planus::Error| damaged(&place, format!("is not a valid flatbuffer ({err})"));
    let footer = ipc::FooterRef::read_as_root(&footer_bytes).map_err(flatbuffer)?;
    let schema = footer
        .schema()
        .map_err(flatbuffer)?
        .ok_or_else(|| damaged(&place, "has no schema"))?;
    let layout = schema_layout(schema, &place)?;
    if depth == Depth::Footer {
        return Ok(());
    }
    let mut need = Need::default();
    let blocks = Blocks {
        footer_start,
        layout: &layout,
    };
    if let Some(dictionaries) = footer.dictionaries().map_err(flatbuffer)? {
        for (index, block) in dictionaries.iter().enumerate() {
            blocks.check(probe, Kind::Dictionary, index, block, &mut need)?;
        }
    }
    let batches = footer
        .record_batches()
        .map_err(flatbuffer)?
        .ok_or_else(|| damaged(&place, "has no list of record batches"))?;
    for (index, block) in batches.iter().enumerate() {
        blocks.check(probe, Kind::RecordBatch, index, block, &mut need)?;
    }
    need.within(budget)
        .map_err(|(needs, available)| Finding::TooLarge {
            what: format!(
                "its {} record batches (decompressed buffers and columns of nulls)",
                batches.len()
            ),
            needs,
            available,
        })
}

/// Where the footer starts, after checking the trailer (`<footer length> ARROW1`).
fn footer_start<R: Read + Seek>(probe: &mut Probe<R>, len: u64) -> Result<u64, Finding> {
    let place = "trailer";
    if len < TRAILER_BYTES {
        return Err(damaged(
            place,
            format!(
                "the file has {len} bytes, fewer than the {TRAILER_BYTES} of an IPC file's footer length and `ARROW1`"
            ),
        ));
    }
    let trailer: [u8; 10] = probe.read_array_at(len - TRAILER_BYTES)?;
    let (length, magic) = trailer.split_at(4);
    if magic != MAGIC {
        return Err(damaged(
            place,
            "the file does not end with `ARROW1` (it is cut, or not an Arrow IPC file)",
        ));
    }
    let mut length_bytes = [0u8; 4];
    length_bytes.copy_from_slice(length);
    let footer_len = i32::from_le_bytes(length_bytes);
    let room = len - TRAILER_BYTES;
    match u64::try_from(footer_len) {
        Ok(footer_len) if footer_len <= room => Ok(room - footer_len),
        _ => Err(damaged(
            place,
            format!("the footer claims {footer_len} bytes, but {room} bytes precede the trailer"),
        )),
    }
}

/// What a block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dictionary,
    RecordBatch,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Dictionary => "dictionary batch",
            Kind::RecordBatch => "record batch",
        }
    }
}

/// What every block is checked against.
struct Blocks<'a> {
    /// Blocks must end before the footer.
    footer_start: u64,
    /// The columns' layouts.
    layout: &'a SchemaLayout,
}

impl Blocks<'_> {
    /// Checks block `index` of `kind` and the message and batch in it.
    fn check<R: Read + Seek>(
        &self,
        probe: &mut Probe<R>,
        kind: Kind,
        index: usize,
        block: ipc::BlockRef<'_>,
        need: &mut Need,
    ) -> Result<(), Finding> {
        let (offset, meta, body) = (
            block.offset(),
            block.meta_data_length(),
            block.body_length(),
        );
        let place = format!("{} {index} (block at byte {offset})", kind.name());
        let (Ok(offset), Ok(meta), Ok(body)) = (
            u64::try_from(offset),
            u64::try_from(meta),
            u64::try_from(body),
        ) else {
            return Err(damaged(
                &place,
                format!(
                    "the footer gives it a negative offset or length (metadata {meta} bytes, body {body} bytes)"
                ),
            ));
        };
        let end = offset
            .checked_add(meta)
            .and_then(|end| end.checked_add(body));
        match end {
            Some(end) if end <= self.footer_start => {}
            _ => {
                return Err(damaged(
                    &place,
                    format!(
                        "its metadata ({meta} bytes) and body ({body} bytes) end past the footer at byte {}",
                        self.footer_start
                    ),
                ));
            }
        }
        let message_bytes = read_message(probe, offset, meta, &place)?;
        let flatbuffer = |err: ipc::planus::Error| {
            damaged(
                &place,
                format!("its message is not a valid flatbuffer ({err})"),
            )
        };
        let message = ipc::MessageRef::read_as_root(&message_bytes).map_err(flatbuffer)?;
        let v5 = message.version().map_err(flatbuffer)? == ipc::MetadataVersion::V5;
        let header = message
            .header()
            .map_err(flatbuffer)?
            .ok_or_else(|| damaged(&place, "its message has no header"))?;
        let (batch, layouts): (ipc::RecordBatchRef<'_>, &[Layout]) = match (kind, header) {
            (Kind::RecordBatch, ipc::MessageHeaderRef::RecordBatch(batch)) => {
                (batch, &self.layout.columns)
            }
            (Kind::Dictionary, ipc::MessageHeaderRef::DictionaryBatch(dictionary)) => {
                let id = dictionary.id().map_err(flatbuffer)?;
                let batch = dictionary
                    .data()
                    .map_err(flatbuffer)?
                    .ok_or_else(|| damaged(&place, "its dictionary has no data"))?;
                let Some(values) = self.layout.dictionaries.get(&id) else {
                    return Err(damaged(
                        &place,
                        format!("no field of the schema has dictionary id {id}"),
                    ));
                };
                (batch, std::slice::from_ref(values))
            }
            _ => {
                return Err(damaged(
                    &place,
                    format!("its message is not a {}", kind.name()),
                ));
            }
        };
        let body_start = offset + meta;
        check_record_batch(probe, batch, &place, body_start, body, v5, layouts, need)
    }
}

/// Reads the flatbuffer of the message at `offset`: an optional continuation marker, its length,
/// then the bytes, all inside the block's `meta` bytes.
fn read_message<R: Read + Seek>(
    probe: &mut Probe<R>,
    offset: u64,
    meta: u64,
    place: &str,
) -> Result<Vec<u8>, Finding> {
    if meta < 4 {
        return Err(damaged(
            place,
            format!("its metadata has {meta} bytes, fewer than a message length"),
        ));
    }
    let mut prefix = 4;
    let mut length: [u8; 4] = probe.read_array_at(offset)?;
    if length == CONTINUATION {
        if meta < 8 {
            return Err(damaged(
                place,
                format!("its metadata has {meta} bytes, fewer than a message length"),
            ));
        }
        prefix = 8;
        length = probe.read_array_at(offset + 4)?;
    }
    let length = i32::from_le_bytes(length);
    match u64::try_from(length) {
        Ok(length) if length <= meta - prefix => Ok(probe.read_vec_at(offset + prefix, length)?),
        _ => Err(damaged(
            place,
            format!(
                "its message claims {length} bytes, but the block gives it {}",
                meta - prefix
            ),
        )),
    }
}

/// Checks one record batch (of a block or inside a dictionary batch) whose body is the `body`
/// bytes at `body_start`.
#[allow(clippy::too_many_arguments)]
fn check_record_batch<R: Read + Seek>(
    probe: &mut Probe<R>,
    batch: ipc::RecordBatchRef<'_>,
    place: &str,
    body_start: u64,
    body: u64,
    v5: bool,
    layouts: &[Layout],
    need: &mut Need,
) -> Result<(), Finding> {
    let flatbuffer = |err: ipc::planus::Error| {
        damaged(
            place,
            format!("its message is not a valid flatbuffer ({err})"),
        )
    };
    let rows = batch.length().map_err(flatbuffer)?;
    let rows = u64::try_from(rows).map_err(|_| damaged(place, format!("it claims {rows} rows")))?;
    let buffers = batch
        .buffers()
        .map_err(flatbuffer)?
        .ok_or_else(|| damaged(place, "it has no buffer list"))?;
    let mut ranges = Vec::with_capacity(buffers.len());
    for (index, buffer) in buffers.iter().enumerate() {
        let (offset, length) = (buffer.offset(), buffer.length());
        let inside = u64::try_from(offset)
            .ok()
            .zip(u64::try_from(length).ok())
            .filter(|&(offset, length)| offset.checked_add(length).is_some_and(|end| end <= body));
        let Some(range) = inside else {
            return Err(damaged(
                format!("{place}, buffer {index}"),
                format!(
                    "claims {length} bytes at offset {offset} of the batch body, but the body has {body} bytes"
                ),
            ));
        };
        ranges.push(range);
    }
    let codec = match batch.compression().map_err(flatbuffer)? {
        Some(compression) => Some(compression.codec().map_err(flatbuffer)?),
        None => None,
    };
    let mut sizes = Vec::with_capacity(ranges.len());
    for (index, &(offset, length)) in ranges.iter().enumerate() {
        let size = match codec {
            Some(codec) => {
                let place = format!("{place}, buffer {index}");
                let size = decompressed_size(probe, body_start + offset, length, &place)?;
                within_ratio(codec, length, size, &place)?;
                need.add(size);
                size
            }
            None => length,
        };
        sizes.push(size);
    }
    let field_nodes = batch
        .nodes()
        .map_err(flatbuffer)?
        .ok_or_else(|| damaged(place, "it has no field node list"))?;
    let mut nodes = Vec::with_capacity(field_nodes.len());
    for (index, node) in field_nodes.iter().enumerate() {
        let length = node.length();
        let Ok(length) = u64::try_from(length) else {
            return Err(damaged(
                format!("{place}, field node {index}"),
                format!("claims {length} values"),
            ));
        };
        nodes.push(Node {
            length,
            has_nulls: node.null_count() > 0,
        });
    }
    let mut variadic_counts = Vec::new();
    if let Some(counts) = batch.variadic_buffer_counts().map_err(flatbuffer)? {
        for count in counts.iter() {
            let count = u64::try_from(count).map_err(|_| {
                damaged(
                    place,
                    format!("it claims {count} variadic buffers for a view column"),
                )
            })?;
            variadic_counts.push(count);
        }
    }
    let walked = Batch {
        place,
        nodes: &nodes,
        buffer_sizes: &sizes,
        variadic_counts: &variadic_counts,
        v5,
    };
    check_batch(&walked, layouts, rows, need)
}

/// The size a compressed buffer of `length` bytes at `at` has once decompressed: its first 8
/// bytes, or the rest of it when they are -1 (stored uncompressed).
fn decompressed_size<R: Read + Seek>(
    probe: &mut Probe<R>,
    at: u64,
    length: u64,
    place: &str,
) -> Result<u64, Finding> {
    if length == 0 {
        return Ok(0);
    }
    if length < 8 {
        return Err(damaged(
            place,
            format!(
                "a compressed buffer of {length} bytes is shorter than its 8-byte length prefix"
            ),
        ));
    }
    let prefix = i64::from_le_bytes(probe.read_array_at(at)?);
    match prefix {
        -1 => Ok(length - 8),
        _ => u64::try_from(prefix).map_err(|_| {
            damaged(
                place,
                format!("a compressed buffer claims {prefix} bytes once decompressed"),
            )
        }),
    }
}

/// The most a codec can expand its input: an LZ4 frame block gains at most 255 bytes per input
/// byte (a match length grows by 255 per extension byte); a Zstandard block decompresses to at most
/// 128 KiB and takes at least 4 bytes (an RLE block: a 3-byte header and the byte), so 32 768.
fn max_ratio(codec: ipc::CompressionType) -> u64 {
    match codec {
        ipc::CompressionType::Lz4Frame => 256,
        ipc::CompressionType::Zstd => 32_768,
    }
}

/// Checks that a compressed buffer of `length` bytes (its 8-byte length prefix included) can
/// decompress to `size` bytes with `codec`: a larger claim is damage, which polars would allocate
/// (a validity bitmap or a data buffer is sized by the claim alone).
fn within_ratio(
    codec: ipc::CompressionType,
    length: u64,
    size: u64,
    place: &str,
) -> Result<(), Finding> {
    if length == 0 || size == length - 8 {
        // Empty, or stored uncompressed (prefix -1).
        return Ok(());
    }
    let most = (length - 8).saturating_mul(max_ratio(codec));
    if size > most {
        return Err(damaged(
            place,
            format!(
                "a {codec:?} buffer of {} compressed bytes claims {size} bytes once decompressed, more than the {most} it can give",
                length - 8
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check of `bytes` as a whole file, its finding as text.
    fn check_bytes(bytes: &[u8], budget: Option<u64>) -> Result<u64, String> {
        let mut probe = Probe::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
        match check(&mut probe, bytes.len() as u64, Depth::Whole, budget) {
            Ok(()) => Ok(probe.bytes_read()),
            Err(Finding::Damaged { place, problem }) => Err(format!("{place}: {problem}")),
            Err(Finding::TooLarge {
                what,
                needs,
                available,
            }) => Err(format!("{what}: {needs} > {available}")),
            Err(Finding::Io(err)) => Err(format!("io: {err}")),
        }
    }

    #[test]
    fn a_file_without_its_trailer_is_damaged() {
        assert!(
            check_bytes(b"ARROW1", None)
                .unwrap_err()
                .contains("fewer than the 10")
        );
        let err = check_bytes(b"ARROW1\0\0\x10\0\0\0ARROW2", None).unwrap_err();
        assert!(err.contains("does not end with `ARROW1`"), "{err}");
        let err = check_bytes(b"ARROW1\0\0\x10\0\0\0ARROW1", None).unwrap_err();
        assert_eq!(
            err,
            "trailer: the footer claims 16 bytes, but 8 bytes precede the trailer"
        );
        let err = check_bytes(b"ARROW1\0\0\xff\xff\xff\xffARROW1", None).unwrap_err();
        assert!(err.contains("the footer claims -1 bytes"), "{err}");
    }

    #[test]
    fn a_compressed_buffer_cannot_claim_more_than_its_codec_gives() {
        let zstd = ipc::CompressionType::Zstd;
        // 22 compressed bytes give at most 22 * 32 768 bytes.
        assert!(within_ratio(zstd, 30, 22 * 32_768, "b").is_ok());
        let Err(Finding::Damaged { problem, .. }) = within_ratio(zstd, 30, 2_701_131_789, "b")
        else {
            panic!("not refused");
        };
        assert_eq!(
            problem,
            "a Zstd buffer of 22 compressed bytes claims 2701131789 bytes once decompressed, more than the 720896 it can give"
        );
        assert!(within_ratio(ipc::CompressionType::Lz4Frame, 108, 100 * 257, "b").is_err());
        // Stored uncompressed, or empty.
        assert!(within_ratio(zstd, 8 + 100, 100, "b").is_ok());
        assert!(within_ratio(zstd, 0, 0, "b").is_ok());
    }

    #[test]
    fn a_footer_that_is_not_a_flatbuffer_is_damaged() {
        let mut bytes = b"ARROW1\0\0".to_vec();
        bytes.extend_from_slice(&[0xee; 16]);
        bytes.extend_from_slice(&16i32.to_le_bytes());
        bytes.extend_from_slice(MAGIC);
        let err = check_bytes(&bytes, None).unwrap_err();
        assert!(
            err.starts_with("footer (byte 8): is not a valid flatbuffer"),
            "{err}"
        );
    }
}
