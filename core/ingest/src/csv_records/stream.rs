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
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::Duration;

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

/// Pieces per worker thread in a block: more pieces than workers even out their parsing times.
const PIECES_PER_WORKER: usize = 4;

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

/// Counts the bytes equal to `needle`. Written so that it vectorises: a byte counter per 255-byte
/// chunk cannot overflow, and the compiler turns the inner loop into wide compares and adds (several
/// times faster than summing into a `usize` per byte, which the driver's scans were bound by).
pub(crate) fn count_byte(haystack: &[u8], needle: u8) -> usize {
    haystack
        .chunks(255)
        .map(|chunk| {
            chunk
                .iter()
                .fold(0u8, |count, &b| count.wrapping_add(u8::from(b == needle)))
                as usize
        })
        .sum()
}

/// The first record boundary at or after `from` in `buf` (which starts at a record boundary):
/// the offset just after a `\n` preceded by an even number of `"` since the start of `buf`.
/// Returns `buf.len()` when there is none.
#[cfg(test)]
pub(crate) fn next_record_boundary(buf: &[u8], from: usize) -> usize {
    let from = from.min(buf.len());
    let odd = count_byte(&buf[..from], b'"') % 2 == 1;
    boundary_after(buf, from, odd)
}

/// The first record boundary at or after `from` in `buf`, given whether an odd number of `"`
/// precedes `from` since the last record boundary; `buf.len()` when there is none.
fn boundary_after(buf: &[u8], from: usize, mut odd: bool) -> usize {
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
#[cfg(test)]
pub(crate) fn last_record_boundary(buf: &[u8]) -> usize {
    last_boundary_with(buf, count_byte(buf, b'"'))
}

/// [`last_record_boundary`] when the number of `"` in `buf` is known.
fn last_boundary_with(buf: &[u8], quotes: usize) -> usize {
    let mut after = 0usize;
    for i in (0..buf.len()).rev() {
        match buf[i] {
            b'"' => after += 1,
            b'\n' if (quotes - after).is_multiple_of(2) => return i + 1,
            _ => {}
        }
    }
    0
}

/// The `"` and `\n` counts of a region, counted once, in parallel, in fixed chunks: the driver's
/// cut, its pieces and their line numbers are all read from them, so that no serial pass over a
/// block remains.
struct Counts {
    /// Chunk starts (relative to the region), then the region's length.
    starts: Vec<usize>,
    /// `"` before each chunk start (and in the whole region, last).
    quotes: Vec<usize>,
    /// `\n` before each chunk start (and in the whole region, last).
    newlines: Vec<usize>,
}

impl Counts {
    /// Counts `region` in `chunks` parts of at least `min_chunk` bytes on the rayon pool.
    fn new(region: &[u8], chunks: usize, min_chunk: usize) -> Counts {
        let chunk = region.len().div_ceil(chunks.max(1)).max(min_chunk).max(1);
        let mut starts: Vec<usize> = (0..region.len()).step_by(chunk).collect();
        let per_chunk: Vec<(usize, usize)> = starts
            .par_iter()
            .map(|&start| {
                let part = &region[start..(start + chunk).min(region.len())];
                (count_byte(part, b'"'), count_byte(part, b'\n'))
            })
            .collect();
        starts.push(region.len());
        let mut quotes = Vec::with_capacity(starts.len());
        let mut newlines = Vec::with_capacity(starts.len());
        let (mut q, mut n) = (0usize, 0usize);
        quotes.push(0);
        newlines.push(0);
        for (cq, cn) in per_chunk {
            q += cq;
            n += cn;
            quotes.push(q);
            newlines.push(n);
        }
        Counts {
            starts,
            quotes,
            newlines,
        }
    }

    /// The `"` and `\n` counts before `offset` of `region` (counting from the nearest chunk start).
    fn before(&self, region: &[u8], offset: usize) -> (usize, usize) {
        let k = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let part = &region[self.starts[k]..offset];
        (
            self.quotes[k] + count_byte(part, b'"'),
            self.newlines[k] + count_byte(part, b'\n'),
        )
    }
}

/// The pieces of the segment `[start, end)` of `region` (which starts and ends at record
/// boundaries): (start, end, line of the first byte), cut at the record boundary after each chunk
/// start of `counts` inside the segment, pieces of at least `min_piece` bytes but the last.
/// `region_line` is the line of the region's first byte.
fn split_segment(
    region: &[u8],
    counts: &Counts,
    (start, end): (usize, usize),
    region_line: u64,
    min_piece: usize,
) -> Vec<(usize, usize, u64)> {
    let (q0, n0) = counts.before(region, start);
    let mut pieces = Vec::new();
    let mut a = start;
    let mut a_line = region_line + n0 as u64;
    let first = counts.starts.partition_point(|&s| s <= start);
    for k in first..counts.starts.len() {
        let c = counts.starts[k];
        if c >= end {
            break;
        }
        // (A record longer than a chunk can reach past the next chunk start.)
        if c < a + min_piece {
            continue;
        }
        let odd = (counts.quotes[k] - q0) % 2 == 1;
        let b = boundary_after(&region[..end], c, odd);
        if b >= end {
            break;
        }
        let line = region_line + (counts.newlines[k] + count_byte(&region[c..b], b'\n')) as u64;
        pieces.push((a, b, a_line));
        a = b;
        a_line = line;
    }
    if a < end {
        pieces.push((a, end, a_line));
    }
    pieces
}

/// A read buffer whose bytes are zeroed once when it grows, not each time it is refilled.
#[derive(Default)]
struct Buffer {
    /// Initialised bytes; `[..len]` holds data.
    bytes: Vec<u8>,
    len: usize,
}

impl Buffer {
    fn data(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Reads `source` until the buffer holds `want` bytes or the source ends (then `eof` is set).
    /// The buffer grows by doubling from 64 KiB, so that a small input never zeroes (and faults
    /// in) a whole block.
    fn fill(&mut self, source: &mut impl Read, want: usize, eof: &mut bool) -> std::io::Result<()> {
        while !*eof && self.len < want {
            let end = want.min(self.len.saturating_mul(2).max(FIRST_READ_BYTES));
            if self.bytes.len() < end {
                self.bytes.resize(end, 0);
            }
            match source.read(&mut self.bytes[self.len..end]) {
                Ok(0) => *eof = true,
                Ok(n) => self.len += n,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Drops the first `n` bytes.
    fn consume(&mut self, n: usize) {
        self.bytes.copy_within(n..self.len, 0);
        self.len -= n;
    }

    /// Replaces the contents with `bytes`.
    fn set(&mut self, bytes: &[u8]) {
        if self.bytes.len() < bytes.len() {
            self.bytes.resize(bytes.len(), 0);
        }
        self.bytes[..bytes.len()].copy_from_slice(bytes);
        self.len = bytes.len();
    }
}

/// Hands `parsed` to `consume` in order; `Break` when it breaks.
fn consume_all<T>(
    parsed: Vec<T>,
    consume: &mut impl FnMut(T) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for result in parsed {
        consume(result)?;
    }
    ControlFlow::Continue(())
}

/// A block whose pieces are being parsed on the pool: its results, and its buffer handed back
/// for the next block, arrive on `done` when every piece is parsed.
struct InFlight<T> {
    done: Receiver<(Vec<T>, Buffer)>,
}

impl<T> InFlight<T> {
    /// Waits for the block's results and buffer; `None` when its job ended without them (it
    /// panicked: the scope resumes the panic when it ends).
    ///
    /// The wait keeps the pool working: on one of its threads (the driver runs inside
    /// `pool.install` in tests, and a thread of a one-thread pool is the only one that can run
    /// the job), it runs pending jobs until the results come, and blocks only when none is left;
    /// elsewhere it blocks at once.
    fn wait(self) -> Option<(Vec<T>, Buffer)> {
        loop {
            match self.done.try_recv() {
                Ok(done) => return Some(done),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => {}
            }
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => {}
                // Nothing to run here: the job runs on another thread of the pool.
                Some(rayon::Yield::Idle) => match self.done.recv_timeout(IDLE_WAIT) {
                    Ok(done) => return Some(done),
                    Err(RecvTimeoutError::Disconnected) => return None,
                    Err(RecvTimeoutError::Timeout) => {}
                },
                // Not a thread of a pool: the pool's own threads run the job.
                None => return self.done.recv().ok(),
            }
        }
    }
}

/// How long a pool thread waiting for a block blocks before it looks for jobs again.
const IDLE_WAIT: Duration = Duration::from_micros(200);

/// The pieces of one block, as byte ranges of its buffer: (start, end, line of the first byte,
/// table).
type PieceRanges<Table> = Vec<(usize, usize, u64, Arc<Table>)>;

/// The tables the driver has found so far: the one in force, how many headers opened one, and
/// the formats whose header starts another (for the parallel header search).
struct Tables<Table> {
    current: Option<Arc<Table>>,
    seen: usize,
    starting: Vec<Format>,
}

/// The part of a block the driver cuts into pieces: `data[pos..end]`, which starts and ends at
/// record boundaries, its first byte on `line`; `eof` when the source ends with it.
#[derive(Clone, Copy)]
struct Region<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
    line: u64,
    eof: bool,
}

/// Splits `region` into segments at its header lines (each opening a table with `rule`), then
/// every segment into pieces at the record boundary after each chunk start of `counts` (the
/// counts of `data[pos..]`). Returns the pieces and where the bytes carried over to the next
/// block start: the region's end, or a header whose records the block does not hold whole.
fn block_pieces<R: TableRule>(
    path: &Path,
    rule: &mut R,
    tables: &mut Tables<R::Table>,
    region: Region<'_>,
    counts: &Counts,
) -> Result<(PieceRanges<R::Table>, usize), IngestError> {
    let Region {
        data,
        pos,
        end,
        line,
        eof,
    } = region;
    let mut segments: Vec<(usize, usize, Arc<R::Table>)> = Vec::new();
    let mut seg_start = pos;
    let mut carry_from = end;
    let mut scan = pos;
    loop {
        let next_header = if tables.current.is_none() {
            // The first header, found by the driver, starts the region.
            crate::detect::header_format(&data[scan..end]).map(|f| (0, f))
        } else {
            crate::detect::find_header_line(&data[scan..end], |format| {
                tables.starting.contains(&format)
            })
        }
        .map(|(at, format)| (scan + at, format));
        let seg_end = next_header.map_or(end, |(at, _)| at);
        if let Some(ctx) = &tables.current
            && seg_end > seg_start
        {
            segments.push((seg_start, seg_end, ctx.clone()));
        }
        let Some((h, format)) = next_header else {
            break;
        };
        let h_line = line + counts.before(&data[pos..], h - pos).1 as u64;
        let mut reader = RecordReader::new(&data[h..end], h_line);
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
            index: tables.seen,
            line: h_line,
            records: &records,
        };
        let opened = rule.open(path, opening, tables.current.as_ref())?;
        tables.seen += 1;
        tables.current = Some(opened);
        seg_start = end - reader.remaining().len();
        scan = seg_start;
    }
    let region = &data[pos..];
    let mut pieces: PieceRanges<R::Table> = Vec::new();
    for (start, seg_end, ctx) in segments {
        for (a, b, first_line) in split_segment(
            region,
            counts,
            (start - pos, seg_end - pos),
            line,
            MIN_PIECE_BYTES,
        ) {
            pieces.push((pos + a, pos + b, first_line, ctx.clone()));
        }
    }
    Ok((pieces, carry_from))
}

/// Reads `source` (named `path` in messages), finds its tables with `rule`, and parses the
/// records in parallel with `parse`, one call per piece. `consume` receives the results
/// sequentially, in source order, block by block, so that memory stays bounded by two blocks'
/// parsed records; when it breaks, the driver stops there (having read at most one block more).
///
/// The blocks are pipelined: a block's pieces are queued on the rayon pool (the job owns the
/// block's buffer), and while they are parsed the calling thread hands the previous block's
/// results to `consume`, reads the next block behind the carried-over bytes, prepares it (its cut,
/// its header lines, its pieces, with its one pass over the bytes in parallel) and queues its
/// pieces too, before it waits for this block's results. No block is a barrier: the pool's threads
/// go on to the next block's pieces while the last pieces of this one are parsed. An error found
/// while preparing a block is returned only after the earlier blocks' results are consumed, and
/// not at all when `consume` breaks on them.
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
    let mut tables = Tables {
        current: None,
        seen: 0,
        starting: Format::ALL
            .iter()
            .copied()
            .filter(|&format| rule.starts_table(format))
            .collect(),
    };
    let parse = &parse;
    // `in_place_scope` keeps the caller's pool, and `consume` on the calling thread.
    rayon::in_place_scope(|scope| {
        let mut buf = Buffer::default();
        let mut buf_line: u64 = 1;
        let mut eof = false;
        let mut want = block;
        // The block queued last, its results not yet consumed.
        let mut in_flight: Option<InFlight<T>> = None;
        // Consumes the block in flight and gives back its buffer for the next block; `Break`
        // when `consume` breaks on it (or its job panicked, which the scope resumes).
        let finish = |in_flight: Option<InFlight<T>>, consume: &mut C| {
            let Some(in_flight) = in_flight else {
                return ControlFlow::Continue(None);
            };
            let Some((parsed, buffer)) = in_flight.wait() else {
                return ControlFlow::Break(());
            };
            consume_all(parsed, consume)?;
            ControlFlow::Continue(Some(buffer))
        };
        // An error of the block being prepared is returned after the block in flight is consumed
        // (and not when `consume` breaks on it).
        let fail =
            |in_flight: Option<InFlight<T>>, consume: &mut C, error: IngestError| match finish(
                in_flight, consume,
            ) {
                ControlFlow::Break(()) => Ok(()),
                ControlFlow::Continue(_) => Err(error),
            };
        loop {
            if let Err(error) = buf.fill(&mut source, want, &mut eof) {
                return fail(in_flight, &mut consume, io(error));
            }
            if buf.len == 0 && eof {
                // Only an empty source gets here without a table; the rule's caller decides
                // whether that is an error.
                break;
            }
            let mut pos = 0usize;
            let mut line = buf_line;
            // Before the first table: skip noise line by line.
            if tables.current.is_none() {
                let data = buf.data();
                let mut found = false;
                while pos < data.len() {
                    let end = match memchr::memchr(b'\n', &data[pos..]) {
                        Some(i) => pos + i + 1,
                        None if eof => data.len(),
                        None => break,
                    };
                    if crate::detect::header_format(&data[pos..end])
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
                        return fail(in_flight, &mut consume, rule.no_header(path, buf_line));
                    }
                    if pos == 0 {
                        // One noise line longer than the buffer: read more.
                        want = buf.len * 2;
                    }
                    buf.consume(pos);
                    buf_line = line;
                    continue;
                }
            }
            let data = buf.data();
            // One parallel pass counts the quotes and line ends of the region from `pos` on.
            let counts = Counts::new(&data[pos..], workers * PIECES_PER_WORKER, MIN_PIECE_BYTES);
            let total_quotes = counts.quotes.last().copied().unwrap_or(0);
            let cut = if eof {
                data.len()
            } else {
                pos + last_boundary_with(&data[pos..], total_quotes)
            };
            if !eof && cut == pos {
                // A single record longer than the block: read more.
                want = buf.len * 2;
                continue;
            }
            if options.open_quote_is_error && eof && total_quotes % 2 == 1 {
                let error = IngestError::Malformed {
                    path: path.to_path_buf(),
                    line: line + counts.newlines.last().copied().unwrap_or(0) as u64,
                    expected: "a closing `\"` for a quoted field".into(),
                    found: "the end of the file".into(),
                };
                return fail(in_flight, &mut consume, error);
            }
            want = block;
            // Segments at the header lines, cut into pieces.
            let found = block_pieces(
                path,
                rule,
                &mut tables,
                Region {
                    data,
                    pos,
                    end: cut,
                    line,
                    eof,
                },
                &counts,
            );
            let (pieces, carry_from) = match found {
                Ok(found) => found,
                Err(error) => return fail(in_flight, &mut consume, error),
            };
            let next_line = line + counts.before(&data[pos..], carry_from - pos).1 as u64;
            let done = eof && carry_from == cut;
            // The bytes after the cut start the next block (usually part of one record).
            let carry = data[carry_from..].to_vec();
            // Queue this block's pieces; the job owns the buffer and hands it back with the
            // results.
            let (sender, receiver) = std::sync::mpsc::sync_channel(1);
            let owned = std::mem::take(&mut buf);
            scope.spawn(move |_| {
                let parsed: Vec<T> = pieces
                    .into_par_iter()
                    .map(|(a, b, first_line, table)| {
                        parse(Piece {
                            data: &owned.data()[a..b],
                            first_line,
                            table,
                        })
                    })
                    .collect();
                // The driver stopped waiting when `consume` broke: nothing to hand back then.
                let _ = sender.send((parsed, owned));
            });
            // While the pool parses this block, consume the previous one.
            let previous = in_flight.replace(InFlight { done: receiver });
            let ControlFlow::Continue(recycled) = finish(previous, &mut consume) else {
                return Ok(());
            };
            if done {
                break;
            }
            buf = recycled.unwrap_or_default();
            buf.set(&carry);
            buf_line = next_line;
        }
        let _ = finish(in_flight, &mut consume);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rule with one kind of table: an ncu header line (`"ID","Process ID",…`) opens it; the
    /// table is its index.
    struct NcuHeaders;

    impl TableRule for NcuHeaders {
        type Table = usize;

        fn is_first_header(&self, format: Format) -> bool {
            matches!(format, Format::NcuDetails | Format::NcuRaw)
        }

        fn starts_table(&self, format: Format) -> bool {
            self.is_first_header(format)
        }

        fn open(
            &mut self,
            _path: &Path,
            opening: Opening<'_>,
            _previous: Option<&Arc<usize>>,
        ) -> Result<Arc<usize>, IngestError> {
            Ok(Arc::new(opening.index))
        }

        fn no_header(&self, path: &Path, line: u64) -> IngestError {
            IngestError::Malformed {
                path: path.to_path_buf(),
                line,
                expected: "a header".into(),
                found: "none".into(),
            }
        }
    }

    /// An ncu page of `records` one- and two-line records, each numbered in its first field.
    fn numbered_page(records: usize) -> String {
        let mut text = String::from("\"ID\",\"Process ID\",\"X\"\n");
        for i in 0..records {
            if i % 2 == 0 {
                text.push_str(&format!("\"{i}\",\"1\",\"plain\"\n"));
            } else {
                text.push_str(&format!("\"{i}\",\"1\",\"two\nlines\"\n"));
            }
        }
        text
    }

    /// The first field of every record of a piece.
    fn first_fields(piece: Piece<'_, usize>) -> Vec<String> {
        let mut reader = RecordReader::new(piece.data, piece.first_line);
        let mut record = Record::default();
        let mut out = Vec::new();
        while reader.read(&mut record) {
            out.push(record.get(0).to_string());
        }
        out
    }

    /// Drives `text` in blocks of `block` bytes on a pool of `threads`, `consume` breaking after
    /// `stop_after` results; returns the records consumed, the bytes read and the driver's result.
    fn drive(
        text: &str,
        block: usize,
        threads: usize,
        stop_after: usize,
    ) -> (Vec<String>, usize, Result<(), IngestError>) {
        struct Counting<'a> {
            bytes: &'a [u8],
            read: usize,
        }
        impl Read for Counting<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = out.len().min(self.bytes.len() - self.read);
                out[..n].copy_from_slice(&self.bytes[self.read..self.read + n]);
                self.read += n;
                Ok(n)
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let mut source = Counting {
            bytes: text.as_bytes(),
            read: 0,
        };
        let mut records = Vec::new();
        let mut results = 0usize;
        let options = StreamOptions {
            block_bytes: block,
            open_quote_is_error: true,
        };
        let outcome = pool.install(|| {
            stream_tables(
                Path::new("x.csv"),
                &mut source,
                options,
                &mut NcuHeaders,
                first_fields,
                |fields| {
                    records.extend(fields);
                    results += 1;
                    if results >= stop_after {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            )
        });
        (records, source.read, outcome)
    }

    #[test]
    fn pipelined_blocks_are_consumed_in_order_on_any_pool() {
        let text = numbered_page(3000);
        let expected: Vec<String> = (0..3000).map(|i| i.to_string()).collect();
        for threads in [1, 2, 3, 8] {
            for block in [300, 4096, 0] {
                let (records, read, outcome) = drive(&text, block, threads, usize::MAX);
                assert!(outcome.is_ok(), "{threads} threads, block {block}");
                assert_eq!(records, expected, "{threads} threads, block {block}");
                assert_eq!(read, text.len());
            }
        }
    }

    #[test]
    fn a_consumer_that_breaks_stops_the_reading_within_two_blocks() {
        let text = numbered_page(20_000);
        for threads in [1, 2] {
            let (records, read, outcome) = drive(&text, 2000, threads, 1);
            assert!(outcome.is_ok());
            assert!(!records.is_empty() && records[0] == "0");
            // The block consumed and the one prepared behind it, each at most a block of bytes.
            assert!(read <= 2 * 2000, "{threads} threads: {read} bytes read");
        }
    }

    #[test]
    fn an_error_of_a_late_block_comes_after_the_earlier_blocks_are_consumed() {
        let mut text = numbered_page(500);
        text.push_str("\"500\",\"1\",\"open\n");
        for threads in [1, 2] {
            let (records, _, outcome) = drive(&text, 300, threads, usize::MAX);
            assert!(
                matches!(&outcome, Err(IngestError::Malformed { expected, .. }) if expected.contains("closing")),
                "{threads} threads: {outcome:?}"
            );
            // Every block before the one with the open quote (a block of 300 bytes holds fewer
            // than 20 records), in order.
            let expected: Vec<String> = (0..records.len()).map(|i| i.to_string()).collect();
            assert_eq!(records, expected, "{threads} threads");
            assert!(records.len() > 480, "{threads} threads: {}", records.len());
            // A consumer that stops early never sees the error.
            let (_, _, outcome) = drive(&text, 300, threads, 3);
            assert!(outcome.is_ok(), "{threads} threads: {outcome:?}");
        }
    }

    #[test]
    fn a_parser_that_panics_reaches_the_caller_without_a_hang() {
        let text = numbered_page(2000);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            let options = StreamOptions {
                block_bytes: 500,
                open_quote_is_error: true,
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    stream_tables(
                        Path::new("x.csv"),
                        text.as_bytes(),
                        options,
                        &mut NcuHeaders,
                        |piece| {
                            let fields = first_fields(piece);
                            assert!(!fields.iter().any(|f| f == "700"), "record 700");
                            fields
                        },
                        |_| ControlFlow::Continue(()),
                    )
                })
            }));
            assert!(outcome.is_err(), "{threads} threads: the panic was lost");
        }
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
    fn bytes_are_counted_like_one_by_one() {
        let text: Vec<u8> = (0..3000u32)
            .map(|i| [b'"', b'\n', b'a'][(i * i % 7 % 3) as usize])
            .collect();
        for len in [0, 1, 254, 255, 256, 1000, 3000] {
            for needle in [b'"', b'\n', b'x'] {
                let expected = text[..len].iter().filter(|&&b| b == needle).count();
                assert_eq!(count_byte(&text[..len], needle), expected, "{len} {needle}");
            }
        }
    }

    #[test]
    fn pieces_start_at_records_and_know_their_lines() {
        // Records of one to three lines (quoted newlines), some with doubled quotes.
        let mut text = String::new();
        for i in 0..200 {
            match i % 3 {
                0 => text.push_str(&format!("\"{i}\",\"plain\"\n")),
                1 => text.push_str(&format!("\"{i}\",\"a \"\"b\"\"\nc\"\n")),
                _ => text.push_str(&format!("\"{i}\",\"x\ny\nz\"\n")),
            }
        }
        let region = text.as_bytes();
        // The records' starts and lines, read one by one.
        let mut starts = std::collections::HashMap::new();
        let mut reader = RecordReader::new(region, 10);
        let mut record = Record::default();
        let mut at = 0;
        while reader.read(&mut record) {
            starts.insert(at, record.line);
            at = region.len() - reader.remaining().len();
        }
        let segment = (next_record_boundary(region, 100), region.len());
        for chunks in [1, 2, 3, 7, 50, 400] {
            let counts = Counts::new(region, chunks, 1);
            let pieces = split_segment(region, &counts, segment, 10, 16);
            assert_eq!(pieces.first().map(|p| p.0), Some(segment.0));
            assert_eq!(pieces.last().map(|p| p.1), Some(segment.1));
            for (k, &(a, b, line)) in pieces.iter().enumerate() {
                assert!(a < b, "{chunks} chunks: empty piece {k}");
                assert_eq!(
                    starts.get(&a),
                    Some(&line),
                    "{chunks} chunks: piece {k} at {a}"
                );
                assert!(
                    k + 1 == pieces.len() || b - a >= 16,
                    "{chunks} chunks: piece {k} is short"
                );
            }
            assert!(pieces.windows(2).all(|w| w[0].1 == w[1].0));
            if chunks >= 7 {
                assert!(
                    pieces.len() > 2,
                    "{chunks} chunks gave {} pieces",
                    pieces.len()
                );
            }
            let (quotes, newlines) = counts.before(region, 777);
            assert_eq!(quotes, count_byte(&region[..777], b'"'));
            assert_eq!(newlines, count_byte(&region[..777], b'\n'));
        }
    }
}
