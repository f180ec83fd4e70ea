//! The one CSV layer every CSV reader (ncu and nsys) is built on: an RFC-4180 record reader
//! ([`record`]) and a streaming, parallel block driver ([`stream`]) that finds each format's
//! tables through the format's [`TableRule`]; [`ncu_tables`] is the rule of the Nsight Compute
//! pages.
//!
//! What it tolerates (FORMATS.md §0): ragged records, quoted fields with commas, doubled quotes and
//! embedded newlines, `\r\n` line endings, a UTF-8 BOM, noise lines before the first header
//! (application output, `==PROF==` lines, banners), and several header blocks in one file.

pub(crate) mod ncu_tables;
pub(crate) mod record;
pub(crate) mod stream;

pub(crate) use ncu_tables::{Piece, StreamConfig, TableContext, parse_ncu_file};
pub(crate) use record::TextFields;
pub(crate) use record::{Record, RecordReader};
pub(crate) use stream::{Opening, StreamOptions, TableRule, stream_tables};
