//! An RFC-4180 record reader for profiler CSV exports, built on `csv-core`, and the streaming,
//! parallel driver the Nsight Compute readers use.
//!
//! What it tolerates (FORMATS.md §0): ragged records (missing trailing fields read as ""), quoted
//! fields with commas, doubled quotes and embedded newlines, `\r\n` line endings, a UTF-8 BOM,
//! noise lines before the first header (application output, `==PROF==` lines, banners), and
//! several header blocks in one file (every `"ID","Process ID"` line starts a new table).
//!
//! Each record carries the 1-based physical line where it starts, for error messages.
//!
//! The driver ([`parse_ncu_file`]) streams the file in blocks (no whole-file copy), cuts each block
//! at a record boundary found by quote parity (an even number of `"` before a `\n` ends a record),
//! splits it into one piece per worker the same way, and parses the pieces in parallel with rayon.
//! Header records are found by the driver itself (a header line starts with `"ID","Process ID"`),
//! so every piece knows the table it belongs to. Limitation (documented in
//! `docs/trace-schema.md`): noise lines *between* two tables must not contain an odd number of `"`.
//! Invalid UTF-8 inside a field reads as U+FFFD.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use crate::IngestError;

/// Size of one streamed block. Big enough to amortise the per-block work, small enough to keep
/// the peak memory low.
const BLOCK_BYTES: usize = 16 << 20;

/// One parsed record: the fields (as bytes) and where it starts.
#[derive(Debug, Default)]
pub struct Record {
    buf: Vec<u8>,
    ends: Vec<usize>,
    nends: usize,
    /// 1-based physical line where the record starts.
    pub line: u64,
}

impl Record {
    /// Number of fields actually present in the record.
    pub fn len(&self) -> usize {
        self.nends
    }


    /// Field `i` as bytes; a missing trailing field reads as empty.
    pub fn bytes(&self, i: usize) -> &[u8] {
        if i >= self.nends {
            return b"";
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }

    /// Field `i` as text (U+FFFD when it is not valid UTF-8); a missing field reads as "".
    pub fn get(&self, i: usize) -> &str {
        std::str::from_utf8(self.bytes(i)).unwrap_or("\u{FFFD}")
    }

    /// Field `i` when the index is known (`Some`), else "".
    pub fn get_opt(&self, i: Option<usize>) -> &str {
        i.map_or("", |i| self.get(i))
    }

    /// All fields as owned strings.
    pub fn to_strings(&self) -> Vec<String> {
        (0..self.nends).map(|i| self.get(i).to_string()).collect()
    }
}

/// Reads records one by one from an in-memory slice of CSV text.
pub struct RecordReader<'a> {
    input: &'a [u8],
    core: csv_core::Reader,
    line: u64,
    finished: bool,
}

impl<'a> RecordReader<'a> {
    /// A reader over `input` whose first byte is on physical line `first_line` (1-based).
    pub fn new(input: &'a [u8], first_line: u64) -> Self {
        RecordReader {
            input,
            core: csv_core::Reader::new(),
            line: first_line,
            finished: false,
        }
    }

    /// Bytes not consumed yet.
    pub fn remaining(&self) -> &'a [u8] {
        self.input
    }

    /// The physical line of the next unread byte.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Reads the next record into `record`. Returns `false` at the end of the input. A record
    /// without a final line terminator at the end of the input is still returned.
    pub fn read(&mut self, record: &mut Record) -> bool {
        if self.finished {
            return false;
        }
        if record.buf.len() < 256 {
            record.buf.resize(4096, 0);
        }
        if record.ends.len() < 8 {
            record.ends.resize(64, 0);
        }
        let (mut out, mut nend) = (0usize, 0usize);
        let mut started = false;
        loop {
            let (res, nin, nout, ne) =
                self.core
                    .read_record(self.input, &mut record.buf[out..], &mut record.ends[nend..]);
            let consumed = &self.input[..nin];
            if !started {
                // Blank lines before the record are skipped by csv-core; do not count them as the
                // record's own start.
                let leading = consumed
                    .iter()
                    .take_while(|&&b| b == b'\n' || b == b'\r')
                    .count();
                self.line += consumed[..leading].iter().filter(|&&b| b == b'\n').count() as u64;
                record.line = self.line;
                self.line += consumed[leading..].iter().filter(|&&b| b == b'\n').count() as u64;
                started = leading < nin;
            } else {
                self.line += consumed.iter().filter(|&&b| b == b'\n').count() as u64;
            }
            self.input = &self.input[nin..];
            out += nout;
            nend += ne;
            match res {
                csv_core::ReadRecordResult::InputEmpty => {
                    // An empty input tells csv-core to flush the final record: loop once more.
                }
                csv_core::ReadRecordResult::OutputFull => {
                    let len = record.buf.len() * 2;
                    record.buf.resize(len, 0);
                }
                csv_core::ReadRecordResult::OutputEndsFull => {
                    let len = record.ends.len() * 2;
                    record.ends.resize(len, 0);
                }
                csv_core::ReadRecordResult::Record => {
                    record.nends = nend;
                    return true;
                }
                csv_core::ReadRecordResult::End => {
                    self.finished = true;
                    return false;
                }
            }
        }
    }
}


/// True when `line` (without its terminator) starts an Nsight Compute header.
fn starts_ncu_header(line: &[u8]) -> bool {
    let line = line
        .strip_prefix(b"\xef\xbb\xbf".as_slice())
        .unwrap_or(line);
    line.starts_with(b"\"ID\",\"Process ID\"") || line.starts_with(b"ID,Process ID,")
}

/// Counts the bytes equal to `needle` (written so that it vectorises).
pub fn count_byte(haystack: &[u8], needle: u8) -> usize {
    haystack
        .chunks(4096)
        .map(|c| c.iter().map(|&b| (b == needle) as usize).sum::<usize>())
        .sum()
}

/// The first record boundary at or after `from` in `buf` (which starts at a record boundary):
/// the offset just after a `\n` preceded by an even number of `"` since the start of `buf`.
/// Returns `buf.len()` when there is none.
pub fn next_record_boundary(buf: &[u8], from: usize) -> usize {
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
pub fn last_record_boundary(buf: &[u8]) -> usize {
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

/// The table a piece of records belongs to: its header (and, for the raw page, its units row).
#[derive(Debug, Clone)]
pub struct TableContext {
    /// 0-based index of the table (header block) in the file.
    pub index: usize,
    /// The header fields.
    pub header: Vec<String>,
    /// The units row (raw page only).
    pub units: Option<Vec<String>>,
    /// Line of the header (kept for error messages about the header itself).
    #[allow(dead_code)]
    pub line: u64,
}

impl TableContext {
    /// Index of the header column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// A slice of complete records of one table, handed to a parser.
#[derive(Debug)]
pub struct Piece<'a> {
    /// The records' bytes.
    pub data: &'a [u8],
    /// Physical line of the first byte.
    pub first_line: u64,
    /// The table the records belong to.
    pub table: Arc<TableContext>,
}

/// How the driver treats header blocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamConfig {
    /// Every header is followed by a units row (`ncu --page raw`).
    pub units_row: bool,
    /// Bytes per streamed block; 0 for the default.
    pub block_bytes: usize,
}

/// Streams `path`, finds the header blocks, and parses the records in parallel with `parse`,
/// one call per piece. `consume` receives the results sequentially, in file order, block by
/// block, so that memory stays bounded by one block's parsed records. `validate` checks each new
/// header and returns a message when it cannot be used (reported as [`IngestError::Malformed`]).
pub fn parse_ncu_file<T, P, V, C>(
    path: &Path,
    config: StreamConfig,
    validate: V,
    parse: P,
    mut consume: C,
) -> Result<(), IngestError>
where
    T: Send,
    P: Fn(Piece<'_>) -> T + Sync,
    V: Fn(&TableContext) -> Option<String>,
    C: FnMut(T),
{
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let block = if config.block_bytes == 0 {
        BLOCK_BYTES
    } else {
        config.block_bytes
    };
    let workers = rayon::current_num_threads().max(1);
    let mut buf: Vec<u8> = Vec::with_capacity(block + (1 << 16));
    let mut buf_line: u64 = 1;
    let mut eof = false;
    let mut table: Option<Arc<TableContext>> = None;
    let mut tables_seen = 0usize;
    let mut want = block;
    loop {
        // Fill the buffer up to `want` bytes (or the end of the file).
        while !eof && buf.len() < want {
            let start = buf.len();
            buf.resize(want, 0);
            let n = file.read(&mut buf[start..]).map_err(io)?;
            buf.truncate(start + n);
            if n == 0 {
                eof = true;
            }
        }
        if buf.is_empty() && eof {
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
                if starts_ncu_header(&buf[pos..end]) {
                    found = true;
                    break;
                }
                line += 1;
                pos = end;
            }
            if !found {
                if eof {
                    return Err(IngestError::Malformed {
                        path: path.to_path_buf(),
                        line: buf_line,
                        expected:
                            "an Nsight Compute CSV header line starting with \"ID\",\"Process ID\""
                                .into(),
                        found: "no such line in the file".into(),
                    });
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
        if eof && count_byte(&buf[pos..cut], b'"') % 2 == 1 {
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
        let mut segments: Vec<(usize, usize, u64, Arc<TableContext>)> = Vec::new();
        let mut seg_start = pos;
        let mut seg_line = line;
        let mut carry_from = region_end;
        let mut scan = pos;
        loop {
            let next_header = find_header_line(&buf[scan..region_end]).map(|i| scan + i);
            let seg_end = next_header.unwrap_or(region_end);
            if let Some(ctx) = &table
                && seg_end > seg_start
            {
                segments.push((seg_start, seg_end, seg_line, ctx.clone()));
            }
            let Some(h) = next_header else { break };
            let h_line = seg_line + count_byte(&buf[seg_start..h], b'\n') as u64;
            let mut reader = RecordReader::new(&buf[h..region_end], h_line);
            let mut header = Record::default();
            let mut units = Record::default();
            let complete =
                reader.read(&mut header) && (!config.units_row || reader.read(&mut units));
            if !complete && !eof {
                carry_from = h;
                break;
            }
            let ctx = TableContext {
                index: tables_seen,
                header: header.to_strings(),
                units: config.units_row.then(|| units.to_strings()),
                line: h_line,
            };
            if let Some(problem) = validate(&ctx) {
                return Err(IngestError::Malformed {
                    path: path.to_path_buf(),
                    line: h_line,
                    expected: problem,
                    found: format!("a header with {} columns", ctx.header.len()),
                });
            }
            tables_seen += 1;
            table = Some(Arc::new(ctx));
            let consumed = region_end - h - reader.remaining().len();
            seg_start = h + consumed;
            seg_line = reader.line();
            scan = seg_start;
        }
        // Pieces: split every segment into about `workers` parts at record boundaries.
        let mut pieces: Vec<Piece<'_>> = Vec::new();
        for (start, end, first_line, ctx) in segments {
            let seg = &buf[start..end];
            let target = seg.len().div_ceil(workers).max(1 << 16);
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
        parsed.into_iter().for_each(&mut consume);
        buf_line = line + count_byte(&buf[pos..carry_from], b'\n') as u64;
        buf.drain(..carry_from);
        if eof && carry_from == region_end {
            break;
        }
    }
    Ok(())
}

/// Offset of the first header line in `region` (which starts at a line start).
fn find_header_line(region: &[u8]) -> Option<usize> {
    if starts_ncu_header(region) {
        return Some(0);
    }
    let quoted = memchr::memmem::find(region, b"\n\"ID\",\"Process ID\"").map(|i| i + 1);
    let plain = memchr::memmem::find(region, b"\nID,Process ID,").map(|i| i + 1);
    match (quoted, plain) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(u64, Vec<String>)> {
        let mut reader = RecordReader::new(text.as_bytes(), 1);
        let mut rec = Record::default();
        let mut out = Vec::new();
        while reader.read(&mut rec) {
            out.push((rec.line, rec.to_strings()));
        }
        out
    }

    #[test]
    fn quoted_commas_doubled_quotes_and_embedded_newlines() {
        let text = "\"a\",\"b, c\"\r\n\"x\",\"see \"\"Local\"\"\nline two\"\n\"last\",\"1,024\"";
        let recs = all(text);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0], (1, vec!["a".to_string(), "b, c".to_string()]));
        assert_eq!(recs[1].0, 2);
        assert_eq!(recs[1].1[1], "see \"Local\"\nline two");
        assert_eq!(recs[2], (4, vec!["last".to_string(), "1,024".to_string()]));
    }

    #[test]
    fn ragged_records_read_missing_fields_as_empty() {
        let mut reader = RecordReader::new(b"\"a\",\"b\",\"c\"\n\"1\",\"2\",\n", 1);
        let mut rec = Record::default();
        assert!(reader.read(&mut rec));
        assert!(reader.read(&mut rec));
        assert_eq!(rec.len(), 3);
        assert_eq!(rec.get(2), "");
        assert_eq!(rec.get(7), "");
    }

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

    #[test]
    fn blank_lines_do_not_shift_record_lines() {
        let recs = all("\"a\"\n\n\"b\"\n");
        assert_eq!(recs.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 3]);
    }

    fn drive(text: &str, block: usize) -> Result<Vec<(usize, u64, String)>, IngestError> {
        let dir = tempfile::tempdir().map_err(|e| IngestError::Io {
            path: "tmp".into(),
            source: e,
        })?;
        let path = dir.path().join("x.csv");
        std::fs::write(&path, text).map_err(|e| IngestError::Io {
            path: path.clone(),
            source: e,
        })?;
        let mut records = Vec::new();
        parse_ncu_file(
            &path,
            StreamConfig {
                units_row: false,
                block_bytes: block,
            },
            |_| None,
            |piece| {
                let mut reader = RecordReader::new(piece.data, piece.first_line);
                let mut rec = Record::default();
                let mut out = Vec::new();
                while reader.read(&mut rec) {
                    out.push((piece.table.index, rec.line, rec.get(0).to_string()));
                }
                out
            },
            |out| records.extend(out),
        )?;
        Ok(records)
    }

    #[test]
    fn noise_lines_and_two_header_blocks_with_tiny_blocks() -> Result<(), IngestError> {
        let mut text = String::from("app says \"hi\n==PROF== Connected\n");
        text.push_str("\"ID\",\"Process ID\",\"X\"\n");
        for i in 0..50 {
            text.push_str(&format!("\"{i}\",\"1\",\"multi\nline\"\n"));
        }
        text.push_str("\"ID\",\"Process ID\",\"X\"\n\"0\",\"2\",\"y\"\n");
        for block in [0, 7, 64] {
            let recs = drive(&text, block)?;
            assert_eq!(recs.len(), 51, "block {block}");
            assert_eq!(recs[0], (0, 4, "0".to_string()));
            assert_eq!(recs[49], (0, 4 + 49 * 2, "49".to_string()));
            assert_eq!(recs[50], (1, 105, "0".to_string()));
        }
        Ok(())
    }

    #[test]
    fn a_file_without_header_is_malformed() {
        match drive("just text\n", 0) {
            Err(IngestError::Malformed { expected, .. }) => assert!(expected.contains("\"ID\"")),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }

    #[test]
    fn an_unterminated_quote_is_malformed() {
        match drive("\"ID\",\"Process ID\"\n\"0\",\"open\n", 0) {
            Err(IngestError::Malformed { expected, .. }) => assert!(expected.contains("closing")),
            other => panic!("expected Malformed, got {other:?}"),
        }
    }
}
