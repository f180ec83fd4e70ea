//! The streaming, parallel driver every CSV reader uses: blocks in, tables found, pieces parsed
//! in parallel, results handed back in file order.
//!
//! The driver ([`stream_tables`]) streams its source in blocks (no whole-file copy), cuts each
//! block at a record boundary found by quote parity (an even number of `"` before a `\n` ends a
//! record), splits it into one piece per worker the same way, and parses the pieces in parallel
//! with rayon. Header lines are found by the driver itself, through [`crate::detect`], so that
//! every piece knows the table it belongs to; which headers count, and what a table is, is said by
//! the reader's [`TableRule`]. Limitation (documented in `docs/trace-schema.md`): noise lines
//! *between* two tables must not contain an odd number of `"`.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::record::{Record, RecordReader};
use crate::{Format, IngestError};

/// Size of one streamed block when the rule does not choose one. Big enough to amortise the
/// per-block work, small enough to keep the peak memory low.
const DEFAULT_BLOCK_BYTES: usize = 16 << 20;
/// The first read of an input: the buffer then doubles up to the block size.
const FIRST_READ_BYTES: usize = 64 << 10;

/// Pieces are at least this large, so that small inputs are not split for nothing.
const MIN_PIECE_BYTES: usize = 1 << 16;

/// A header line found by the driver, with the records that make it up.
#[derive(Debug)]
pub(crate) struct Opening<'a> {
    /// The format the header line announces.
    pub(crate) format: Format,
    /// 0-based index of this header among the headers of the source.
    pub(crate) index: usize,
    /// Physical line of the header.
    pub(crate) line: u64,
    /// The header's records ([`TableRule::header_records`] of them, fewer at the end of input).
    pub(crate) records: &'a [Record],
}

/// What one CSV format says about its tables: which header lines start one, and what a table is.
pub(crate) trait TableRule {
    /// What the pieces of one table are parsed with (the parsed header, or "skip these rows").
    type Table: Send + Sync;

    /// Whether a header line of `format` is the one the reader looks for first; everything before
    /// it is noise and skipped line by line.
    fn is_first_header(&self, format: Format) -> bool;

    /// Whether a header line of `format` after the first header starts a new table.
    fn starts_table(&self, format: Format) -> bool;

    /// How many records a header of `format` spans.
    fn header_records(&self, _format: Format) -> usize {
        1
    }

    /// Makes the table a header opens; `previous` is the table in force before it (`None` for the
    /// first header).
    fn open(
        &mut self,
        path: &Path,
        opening: Opening<'_>,
        previous: Option<&Arc<Self::Table>>,
    ) -> Result<Arc<Self::Table>, IngestError>;

    /// The error for a source without the first header; `line` is where the search ended.
    fn no_header(&self, path: &Path, line: u64) -> IngestError;
}

/// How the driver reads its source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamOptions {
    /// Bytes per streamed block; 0 for the default.
    pub(crate) block_bytes: usize,
    /// Whether the source ending inside a quoted field is an error (otherwise the last record
    /// runs to the end of the source).
    pub(crate) open_quote_is_error: bool,
}

/// A slice of complete records of one table, handed to a parser.
#[derive(Debug)]
pub(crate) struct Piece<'a, T> {
    /// The records' bytes.
    pub(crate) data: &'a [u8],
    /// Physical line of the first byte.
    pub(crate) first_line: u64,
    /// The table the records belong to.
    pub(crate) table: Arc<T>,
}

/// Counts the bytes equal to `needle` (written so that it vectorises).
pub(crate) fn count_byte(haystack: &[u8], needle: u8) -> usize {
    haystack
        .chunks(4096)
        .map(|c| c.iter().map(|&b| (b == needle) as usize).sum::<usize>())
        .sum()
}

/// The first record boundary at or after `from` in `buf` (which starts at a record boundary):
/// the offset just after a `\n` preceded by an even number of `"` since the start of `buf`.
/// Returns `buf.len()` when there is none.
pub(crate) fn next_record_boundary(buf: &[u8], from: usize) -> usize {
    let from = from.min(buf.len());
    let mut odd = count_byte(&buf[..from], b'"') % 2 == 1;
    for (i, &b) in buf[from..].iter().enumerate() {
        if b == b'"' {
            odd = !odd;
        } else if b == b'\n' && !odd {
            return from + i + 1;
        }
    }
    buf.len()
}

/// The last record boundary in `buf` (which starts at a record boundary), or 0 when no complete
/// record ends inside it.
pub(crate) fn last_record_boundary(buf: &[u8]) -> usize {
    let total = count_byte(buf, b'"');
    let mut after = 0usize;
    for i in (0..buf.len()).rev() {
        match buf[i] {
            b'"' => after += 1,
            b'\n' if (total - after).is_multiple_of(2) => return i + 1,
            _ => {}
        }
    }
    0
}

/// Reads `source` (named `path` in messages), finds its tables with `rule`, and parses the
/// records in parallel with `parse`, one call per piece. `consume` receives the results
/// sequentially, in source order, block by block, so that memory stays bounded by one block's
/// parsed records; when it breaks, the driver stops there and reads no further.
pub(crate) fn stream_tables<R, T, P, C>(
    path: &Path,
    mut source: impl Read,
    options: StreamOptions,
    rule: &mut R,
    parse: P,
    mut consume: C,
) -> Result<(), IngestError>
where
    R: TableRule,
    T: Send,
    P: Fn(Piece<'_, R::Table>) -> T + Sync,
    C: FnMut(T) -> ControlFlow<()>,
{
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let block = if options.block_bytes == 0 {
        DEFAULT_BLOCK_BYTES
    } else {
        options.block_bytes
    };
    let workers = rayon::current_num_threads().max(1);
    let mut buf: Vec<u8> = Vec::with_capacity(block + (1 << 16));
    let mut buf_line: u64 = 1;
    let mut eof = false;
    let mut table: Option<Arc<R::Table>> = None;
    let mut tables_seen = 0usize;
    let mut want = block;
    loop {
        // Fill the buffer up to `want` bytes (or the end of the source). The buffer grows by
        // doubling from 64 KiB, so that a small input never zeroes (and faults in) a whole block.
        while !eof && buf.len() < want {
            let start = buf.len();
            buf.resize(want.min(start.saturating_mul(2).max(FIRST_READ_BYTES)), 0);
            let n = match source.read(&mut buf[start..]) {
                Ok(n) => n,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {
                    buf.truncate(start);
                    continue;
                }
                Err(error) => return Err(io(error)),
            };
            buf.truncate(start + n);
            if n == 0 {
                eof = true;
            }
        }
        if buf.is_empty() && eof {
            // Only an empty source gets here without a table; the rule's caller decides whether
            // that is an error.
            break;
        }
        let mut pos = 0usize;
        let mut line = buf_line;
        // Before the first table: skip noise line by line.
        if table.is_none() {
            let mut found = false;
            while pos < buf.len() {
                let end = match memchr::memchr(b'\n', &buf[pos..]) {
                    Some(i) => pos + i + 1,
                    None if eof => buf.len(),
                    None => break,
                };
                if crate::detect::header_format(&buf[pos..end])
                    .is_some_and(|format| rule.is_first_header(format))
                {
                    found = true;
                    break;
                }
                line += 1;
                pos = end;
            }
            if !found {
                if eof {
                    return Err(rule.no_header(path, buf_line));
                }
                if pos == 0 {
                    // One noise line longer than the buffer: read more.
                    want = buf.len() * 2;
                }
                buf.drain(..pos);
                buf_line = line;
                continue;
            }
        }
        let cut = if eof {
            buf.len()
        } else {
            pos + last_record_boundary(&buf[pos..])
        };
        if !eof && cut == pos {
            // A single record longer than the block: read more.
            want = buf.len() * 2;
            continue;
        }
        if options.open_quote_is_error && eof && count_byte(&buf[pos..cut], b'"') % 2 == 1 {
            return Err(IngestError::Malformed {
                path: path.to_path_buf(),
                line: line + count_byte(&buf[pos..cut], b'\n') as u64,
                expected: "a closing `\"` for a quoted field".into(),
                found: "the end of the file".into(),
            });
        }
        want = block;
        // Split [pos, cut) into segments at header lines, then into pieces.
        let region_end = cut;
        let mut segments: Vec<(usize, usize, u64, Arc<R::Table>)> = Vec::new();
        let mut seg_start = pos;
        let mut seg_line = line;
        let mut carry_from = region_end;
        let mut scan = pos;
        loop {
            let next_header = if table.is_none() {
                // The first header, found above, starts the region.
                crate::detect::header_format(&buf[scan..region_end]).map(|f| (0, f))
            } else {
                crate::detect::find_header_line(&buf[scan..region_end], |format| {
                    rule.starts_table(format)
                })
            }
            .map(|(at, format)| (scan + at, format));
            let seg_end = next_header.map_or(region_end, |(at, _)| at);
            if let Some(ctx) = &table
                && seg_end > seg_start
            {
                segments.push((seg_start, seg_end, seg_line, ctx.clone()));
            }
            let Some((h, format)) = next_header else {
                break;
            };
            let h_line = seg_line + count_byte(&buf[seg_start..h], b'\n') as u64;
            let mut reader = RecordReader::new(&buf[h..region_end], h_line);
            let wanted = rule.header_records(format);
            let mut records: Vec<Record> = Vec::with_capacity(wanted);
            while records.len() < wanted {
                let mut record = Record::default();
                if !reader.read(&mut record) {
                    break;
                }
                records.push(record);
            }
            if records.len() < wanted && !eof {
                carry_from = h;
                break;
            }
            let opening = Opening {
                format,
                index: tables_seen,
                line: h_line,
                records: &records,
            };
            let opened = rule.open(path, opening, table.as_ref())?;
            tables_seen += 1;
            table = Some(opened);
            let consumed = region_end - h - reader.remaining().len();
            seg_start = h + consumed;
            seg_line = reader.line();
            scan = seg_start;
        }
        // Pieces: split every segment into about `workers` parts at record boundaries.
        let mut pieces: Vec<Piece<'_, R::Table>> = Vec::new();
        for (start, end, first_line, ctx) in segments {
            let seg = &buf[start..end];
            let target = seg.len().div_ceil(workers).max(MIN_PIECE_BYTES);
            let mut a = 0usize;
            let mut a_line = first_line;
            while a < seg.len() {
                let b = if seg.len() - a <= target {
                    seg.len()
                } else {
                    a + next_record_boundary(&seg[a..], target)
                };
                pieces.push(Piece {
                    data: &seg[a..b],
                    first_line: a_line,
                    table: ctx.clone(),
                });
                a_line += count_byte(&seg[a..b], b'\n') as u64;
                a = b;
            }
        }
        let parsed: Vec<T> = pieces.into_par_iter().map(&parse).collect();
        for result in parsed {
            if consume(result).is_break() {
                return Ok(());
            }
        }
        buf_line = line + count_byte(&buf[pos..carry_from], b'\n') as u64;
        buf.drain(..carry_from);
        if eof && carry_from == region_end {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_boundaries_follow_quote_parity() {
        let text = b"\"a\",\"x\ny\"\n\"b\",\"z\"\n";
        // The `\n` inside the quoted field (offset 6) is not a boundary; the one at 9 is.
        assert_eq!(next_record_boundary(text, 0), 10);
        assert_eq!(next_record_boundary(text, 7), 10);
        assert_eq!(last_record_boundary(text), text.len());
        assert_eq!(last_record_boundary(&text[..12]), 10);
        assert_eq!(last_record_boundary(&text[..9]), 0);
    }
}
