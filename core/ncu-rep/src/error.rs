//! The error type of the decoder: every failure names the byte offset in the input and what the
//! decoder expected to find there.

use thiserror::Error;

/// Why a report could not be decoded.
///
/// Every variant carries `offset`, the absolute byte offset in the input where the problem was
/// found, and its message reads "offset N: …". The decoder never panics on malformed input; it
/// returns one of these instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input does not start with the report magic `NVR\0`.
    #[error("offset {offset}: expected the report magic NVR\\0 (4E 56 52 00), found {found}")]
    BadMagic {
        /// Always 0.
        offset: usize,
        /// The first bytes of the input in hex, or "end of input".
        found: String,
    },

    /// The input is a zstd frame (magic 28 B5 2F FD), as in an `.ncu-repz` file.
    #[error(
        "offset {offset}: the input is zstd-compressed (magic 28 B5 2F FD, e.g. an .ncu-repz \
         report); this decoder reads only uncompressed .ncu-rep files: decompress it first \
         (`zstd -d report.ncu-repz -o report.ncu-rep`) or re-export it with \
         `ncu --import report.ncu-repz --export report.ncu-rep`"
    )]
    Compressed {
        /// Always 0.
        offset: usize,
    },

    /// The FileHeader names a report version other than 7.
    #[error(
        "offset {offset}: unsupported report version {}, expected FileHeader version 7",
        version_text(.version)
    )]
    UnsupportedVersion {
        /// Offset of the FileHeader message.
        offset: usize,
        /// The version the file declares (`None` when the header has no Version field).
        version: Option<u64>,
    },

    /// A size or length field is larger than the bytes that remain in its enclosing container.
    #[error("offset {offset}: {what} size {size} exceeds the {remaining} remaining bytes")]
    SizeExceeds {
        /// Offset of the size field.
        offset: usize,
        /// What the size belongs to, e.g. "BlockHeader".
        what: &'static str,
        /// The declared size.
        size: u64,
        /// The bytes that actually remain.
        remaining: usize,
    },

    /// The input ended (or its container ended) in the middle of a fixed-size item.
    #[error("offset {offset}: expected {expected}, but only {remaining} bytes remain")]
    Truncated {
        /// Offset where the item should start.
        offset: usize,
        /// What was expected, e.g. "a u32 ProfileResult size".
        expected: &'static str,
        /// The bytes that actually remain.
        remaining: usize,
    },

    /// The bytes do not follow the protobuf wire format or the report layout.
    #[error("offset {offset}: expected {expected}")]
    Malformed {
        /// Offset of the offending bytes.
        offset: usize,
        /// What the decoder expected there.
        expected: &'static str,
    },

    /// A known field arrived with a wire type its message does not declare.
    #[error("offset {offset}: expected wire type {expected} for {field}, found wire type {found}")]
    WireType {
        /// Offset of the field's key.
        offset: usize,
        /// The field, as `Message.Field`.
        field: &'static str,
        /// The wire type the schema declares.
        expected: u8,
        /// The wire type found.
        found: u8,
    },

    /// A metric's `NameId` points past the end of the string tables of the file, numbered as one
    /// table in file order.
    #[error("offset {offset}: metric NameId {id} is beyond the string table of {len} entries")]
    NameId {
        /// Offset of the ProfileMetricResult message.
        offset: usize,
        /// The index found.
        id: u64,
        /// The number of strings in every string table of the file, numbered as one table.
        len: usize,
    },
}

/// Formats an optional report version for [`DecodeError::UnsupportedVersion`].
fn version_text(version: &Option<u64>) -> String {
    match version {
        Some(v) => v.to_string(),
        None => "(none: the FileHeader has no Version field)".to_string(),
    }
}

impl DecodeError {
    /// The absolute byte offset in the input at which the problem was found.
    pub fn offset(&self) -> usize {
        match self {
            DecodeError::BadMagic { offset, .. }
            | DecodeError::Compressed { offset }
            | DecodeError::UnsupportedVersion { offset, .. }
            | DecodeError::SizeExceeds { offset, .. }
            | DecodeError::Truncated { offset, .. }
            | DecodeError::Malformed { offset, .. }
            | DecodeError::WireType { offset, .. }
            | DecodeError::NameId { offset, .. } => *offset,
        }
    }
}
