//! `warpsight-ncu-rep`: a pure-Rust decoder for Nsight Compute report files (`.ncu-rep`, report
//! version 7), with no dependency on ncu, protobuf code generation or a dataframe library.
//!
//! # Format
//!
//! A report is the magic `NVR\0`, a size-prefixed `FileHeader` message (version 7 is the only
//! one accepted; any other is [`DecodeError::UnsupportedVersion`]), then blocks until the end of
//! the file. Each block is a size-prefixed `BlockHeader` message followed by a payload of
//! size-prefixed `SourceData`, `ProfileResult`, `RangeResult`, `CmdlistResult` and `GraphResult`
//! messages. The messages are protobuf (proto2); this crate reads them with a small hand-written
//! wire reader and hand-written decoders that know only the field numbers they need and skip
//! every other field. The field numbers follow warpsight's `NCU_REP.md` reference.
//!
//! * Each `ProfileResult` becomes one [`Launch`]: identification fields, and every metric under
//!   its native ncu name ([`Metric::name`] is an id into [`Report::names`]) with its exact
//!   [`Value`] and per-instance values.
//! * Each message of each `RuleResult` becomes one [`RuleResult`], a row of ncu's rules table.
//! * `SourceData` payloads (SASS and source, the bulk of a `--set full` report) are skipped by
//!   their size prefix without being read or copied. Range, command-list and graph results are
//!   counted in [`Report::skipped_results`] and not decoded.
//! * The session details that ncu spreads over several blocks are merged: devices
//!   ([`Report::devices`]), versions ([`Report::ncu_version`]), the command line.
//!
//! # Compressed reports
//!
//! zstd-compressed input (`.ncu-repz`, or any input starting with the zstd magic `28 B5 2F FD`)
//! is **refused** with [`DecodeError::Compressed`], whose message says how to decompress it.
//! The container of `.ncu-repz` is not documented and no sample was available to test against,
//! so this crate does not guess at it and does not depend on a C library.
//!
//! # Robustness
//!
//! Decoding never panics and never uses `unsafe`. Every size or length field is checked against
//! the bytes that remain in its container before anything is sliced, so no allocation is driven
//! by an unchecked length; vectors are sized from counts found in the input itself. The decoders
//! are not recursive (each message type has its own fixed-depth decoder). Errors carry the
//! absolute byte offset and what was expected there ([`DecodeError::offset`]). Invalid UTF-8 in
//! a string field is replaced with U+FFFD rather than rejected.
//!
//! # Speed
//!
//! [`decode`] walks the blocks once, borrowing the input, then decodes the `ProfileResult`
//! messages in parallel on rayon's pool (feature `parallel`, on by default) when they total at
//! least 1 MiB. [`LaunchStream`] decodes launches one at a time instead, and [`blocks`] exposes
//! the block layer; [`summary`] reads only the block headers (version, devices, launch count).
//!
//! # Example
//!
//! ```no_run
//! let bytes = std::fs::read("report.ncu-rep").unwrap();
//! let report = warpsight_ncu_rep::decode(&bytes).unwrap();
//! for launch in &report.launches {
//!     let regs = report.value(launch, "launch__registers_per_thread");
//!     println!("{} {:?} {:?}", launch.id, launch.kernel_name(), regs);
//! }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod blocks;
mod error;
mod instances;
mod launch;
mod names;
mod report;
mod rules;
mod session;
mod value;
mod wire;

pub use blocks::{
    Block, BlockHeader, Blocks, MAGIC, PayloadResults, RawMessage, SUPPORTED_VERSION, ZSTD_MAGIC,
    blocks,
};
pub use error::DecodeError;
pub use instances::{Instances, Values};
pub use launch::{ClockStatus, Dim3, Launch, Metric};
pub use names::NameId;
pub use report::{LaunchStream, Report, Summary, decode, summary};
pub use rules::{RuleResult, Severity, Speedup, SpeedupKind, render_markup};
pub use session::{Device, Process, VersionInfo};
pub use value::Value;

/// Whether `bytes` starts with the report magic `NVR\0` (detection by content).
pub fn is_ncu_rep(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Whether `bytes` starts with the zstd frame magic (an `.ncu-repz` report, which
/// [`decode`] refuses with [`DecodeError::Compressed`]).
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&ZSTD_MAGIC)
}
