//! The container layer of a report: the magic and FileHeader, then the stream of blocks, each a
//! size-prefixed BlockHeader followed by a payload of size-prefixed messages. Nothing here copies
//! payload bytes; `SourceData` messages are skipped by their size prefix.

use crate::error::DecodeError;
use crate::wire::Reader;

/// The four bytes every report starts with.
pub const MAGIC: [u8; 4] = *b"NVR\0";
/// The first four bytes of a zstd frame (`.ncu-repz`).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// The only report version this crate reads.
pub const SUPPORTED_VERSION: u32 = 7;

/// A streaming iterator over the blocks of a report, created by [`blocks`].
///
/// It yields each block as soon as its header has been read; it stops after the first error.
#[derive(Debug, Clone)]
pub struct Blocks<'a> {
    reader: Reader<'a>,
    version: u32,
    failed: bool,
}

/// One block: its decoded header and a borrowed view of its payload.
#[derive(Debug, Clone)]
pub struct Block<'a> {
    /// Absolute offset of the block's u32 header size.
    pub offset: usize,
    /// The decoded BlockHeader.
    pub header: BlockHeader<'a>,
    /// The payload bytes (`PayloadSize` of them), borrowed from the input.
    pub payload: &'a [u8],
    /// Absolute offset of the first payload byte.
    pub payload_offset: usize,
}

/// A protobuf sub-message borrowed from the input, with the absolute offset of its first byte.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawMessage<'a> {
    /// The message bytes.
    pub bytes: &'a [u8],
    /// Absolute offset of `bytes[0]` in the input.
    pub offset: usize,
}

/// The fields of a BlockHeader (field numbers in parentheses). Sub-messages stay undecoded.
#[derive(Debug, Clone, Default)]
pub struct BlockHeader<'a> {
    /// (1) Number of SourceData messages at the start of the payload.
    pub num_sources: u32,
    /// (2) Number of ProfileResult messages (one per profiled launch) after them.
    pub num_results: u32,
    /// (7) Number of RangeResult messages after the results (not decoded by this crate).
    pub num_range_results: u32,
    /// (8) Number of CmdlistResult messages (not decoded by this crate).
    pub num_cmdlist_results: u32,
    /// (9) Number of GraphResult messages (not decoded by this crate).
    pub num_graph_results: u32,
    /// (5) Size of the payload in bytes.
    pub payload_size: u32,
    /// (3) ReportSessionDetails, when present.
    pub session_details: Option<RawMessage<'a>>,
    /// (4) ProfilerStringTable, when present (it may be present and empty).
    pub string_table: Option<RawMessage<'a>>,
    /// (6) ProcessInfo, when present.
    pub process: Option<RawMessage<'a>>,
}

/// Checks the magic and the FileHeader and returns an iterator over the blocks that follow.
///
/// Errors: [`DecodeError::Compressed`] for a zstd frame, [`DecodeError::BadMagic`] for anything
/// else that is not a report, [`DecodeError::UnsupportedVersion`] for a version other than 7.
pub fn blocks(bytes: &[u8]) -> Result<Blocks<'_>, DecodeError> {
    if bytes.starts_with(&ZSTD_MAGIC) {
        return Err(DecodeError::Compressed { offset: 0 });
    }
    if !bytes.starts_with(&MAGIC) {
        let found = if bytes.is_empty() {
            "end of input".to_string()
        } else {
            bytes
                .iter()
                .take(4)
                .map(|b| format!("{b:02X}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        return Err(DecodeError::BadMagic { offset: 0, found });
    }
    let mut reader = Reader::new(bytes, 0);
    reader.skip_sized(4, 0, "magic")?;
    let size_offset = reader.offset();
    let size = reader.read_fixed32("a u32 FileHeader size")?;
    let (header, header_offset) = reader.take_sized(u64::from(size), size_offset, "FileHeader")?;
    let mut version = None;
    let mut hr = Reader::new(header, header_offset);
    while let Some(f) = hr.next_field()? {
        if f.number == 1 {
            version = Some(f.varint("FileHeader.Version")?);
        }
    }
    if version != Some(u64::from(SUPPORTED_VERSION)) {
        return Err(DecodeError::UnsupportedVersion {
            offset: header_offset,
            version,
        });
    }
    Ok(Blocks {
        reader,
        version: SUPPORTED_VERSION,
        failed: false,
    })
}

impl<'a> Blocks<'a> {
    /// The report version from the FileHeader (always 7 once [`blocks`] succeeded).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Reads the next block header and slices its payload.
    fn read_block(&mut self) -> Result<Block<'a>, DecodeError> {
        let offset = self.reader.offset();
        let size = self.reader.read_fixed32("a u32 BlockHeader size")?;
        let (hbytes, hoffset) = self
            .reader
            .take_sized(u64::from(size), offset, "BlockHeader")?;
        let (header, payload_size_offset) = decode_block_header(hbytes, hoffset)?;
        let (payload, payload_offset) = self.reader.take_sized(
            u64::from(header.payload_size),
            payload_size_offset,
            "BlockHeader PayloadSize",
        )?;
        Ok(Block {
            offset,
            header,
            payload,
            payload_offset,
        })
    }
}

impl<'a> Iterator for Blocks<'a> {
    type Item = Result<Block<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.is_empty() {
            return None;
        }
        let r = self.read_block();
        self.failed = r.is_err();
        Some(r)
    }
}

/// Decodes a BlockHeader; also returns the offset of its PayloadSize field for error messages.
fn decode_block_header(bytes: &[u8], base: usize) -> Result<(BlockHeader<'_>, usize), DecodeError> {
    let mut h = BlockHeader::default();
    let mut payload_size_offset = base;
    let mut r = Reader::new(bytes, base);
    while let Some(f) = r.next_field()? {
        match f.number {
            1 => h.num_sources = count(f.varint("BlockHeader.NumSources")?),
            2 => h.num_results = count(f.varint("BlockHeader.NumResults")?),
            3 => h.session_details = Some(raw(f.bytes("BlockHeader.SessionDetails")?)),
            4 => h.string_table = Some(raw(f.bytes("BlockHeader.StringTable")?)),
            5 => {
                h.payload_size = count(f.varint("BlockHeader.PayloadSize")?);
                payload_size_offset = f.offset;
            }
            6 => h.process = Some(raw(f.bytes("BlockHeader.Process")?)),
            7 => h.num_range_results = count(f.varint("BlockHeader.NumRangeResults")?),
            8 => h.num_cmdlist_results = count(f.varint("BlockHeader.NumCmdlistResults")?),
            9 => h.num_graph_results = count(f.varint("BlockHeader.NumGraphResults")?),
            _ => {}
        }
    }
    Ok((h, payload_size_offset))
}

/// Narrows a uint32 field read as a varint the way protobuf does (keep the low 32 bits).
fn count(v: u64) -> u32 {
    v as u32
}

/// Wraps a length-delimited field as a [`RawMessage`].
fn raw<'a>((bytes, offset): (&'a [u8], usize)) -> RawMessage<'a> {
    RawMessage { bytes, offset }
}

impl<'a> Block<'a> {
    /// Iterates over the ProfileResult messages of the payload, skipping the SourceData
    /// messages before them without copying. Stops after the first error.
    pub fn results(&self) -> PayloadResults<'a> {
        PayloadResults {
            reader: Reader::new(self.payload, self.payload_offset),
            sources_left: self.header.num_sources,
            results_left: self.header.num_results,
            failed: false,
        }
    }
}

/// Iterator over a block's ProfileResult messages, created by [`Block::results`].
#[derive(Debug, Clone)]
pub struct PayloadResults<'a> {
    reader: Reader<'a>,
    sources_left: u32,
    results_left: u32,
    failed: bool,
}

impl<'a> PayloadResults<'a> {
    /// Skips the remaining SourceData messages, then reads one size-prefixed ProfileResult.
    fn read_result(&mut self) -> Result<RawMessage<'a>, DecodeError> {
        // Every message costs at least its 4-byte size prefix, so a huge count over a short
        // payload ends with a Truncated error after at most payload/4 steps.
        while self.sources_left > 0 {
            let at = self.reader.offset();
            let size = self.reader.read_fixed32("a u32 SourceData size")?;
            self.reader.skip_sized(u64::from(size), at, "SourceData")?;
            self.sources_left -= 1;
        }
        let at = self.reader.offset();
        let size = self.reader.read_fixed32("a u32 ProfileResult size")?;
        let (bytes, offset) = self
            .reader
            .take_sized(u64::from(size), at, "ProfileResult")?;
        Ok(RawMessage { bytes, offset })
    }
}

impl<'a> Iterator for PayloadResults<'a> {
    type Item = Result<RawMessage<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.results_left == 0 {
            return None;
        }
        self.results_left -= 1;
        let r = self.read_result();
        self.failed = r.is_err();
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.failed {
            return (0, Some(0));
        }
        // A result needs at least 4 bytes, which bounds the count by the payload left.
        let bound = (self.results_left as usize).min(self.reader.remaining() / 4);
        (0, Some(bound))
    }
}
