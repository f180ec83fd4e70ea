//! Reader for `nsys stats --report cuda_gpu_trace --format csv` (older name `gputrace`): one row
//! per kernel, memcpy or memset on the GPU, sorted by start time.
//!
//! - Units come from the header (`Start (ns)`, `Duration (us)`, `StcSMem (MB)`, `Bytes (MB)`,
//!   `Throughput (MB/s)` or the older `(MBps)`); nsys memory units are decimal (1 MB = 1e6 B) and
//!   are rounded to whole bytes.
//! - Kernel rows have a launch configuration (`GrdX` set) and become launches; memcpy / memset
//!   rows (`GrdX` empty, `Name` like `[CUDA memcpy Host-to-Device]`) go to `Trace::transfers`.
//!   Any other row is rejected with its line and the reason.
//! - Noise before the header (`Processing [...]`, `NOTICE:`, application output) is skipped, as
//!   are other nsys reports concatenated after the table (until the next `cuda_gpu_trace` header).
//! - Large files are parsed in parallel chunks split at line boundaries; kernel and device names
//!   are interned so that millions of rows share a few distinct strings.

use std::borrow::Cow;
use std::path::Path;

use polars::prelude::*;
use rayon::prelude::*;

use crate::nsys::csv::{self, Records, split_fields};
use crate::nsys::interner::{Interner, gather_strings, gather_strings_dense};
use crate::kernel_names::{short_name, split_device_label};
use crate::{Format, IngestError, ReadConfig};
use crate::launch_table::{self, col};
use crate::trace::{RejectedRow, Trace, transfers_col};

/// Name of the extra launch-table column holding nsys's green-context id (`GreenCtx`).
pub const GREEN_CONTEXT_COLUMN: &str = "nsys_green_context_id";
/// Name of the extra transfers column holding the correlation id (`CorrId`) of a memcpy/memset.
pub use crate::trace::transfers_col::CORRELATION_ID as TRANSFER_CORRELATION_COLUMN;
/// Name of the extra transfers column holding nsys's throughput, bytes per second.
pub const TRANSFER_THROUGHPUT_COLUMN: &str = "throughput_bytes_per_s";

/// Inputs smaller than this are parsed on one thread; larger ones in one chunk per thread.
const PARALLEL_THRESHOLD_BYTES: usize = 4 << 20;

/// The file is read and parsed in blocks of this size, so that its bytes are never all in memory.
const BLOCK_BYTES: usize = 32 << 20;

/// Reads a `cuda_gpu_trace` CSV export.
pub fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_in_blocks(path, config, BLOCK_BYTES)
}

/// Reads the file `block_bytes` at a time: each block is parsed (in parallel pieces) up to its last
/// complete record, and the rest is carried over to the next block.
fn read_in_blocks(
    path: &Path,
    config: &ReadConfig,
    block_bytes: usize,
) -> Result<Trace, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut pending: Vec<u8> = Vec::new();
    let mut eof;
    let (header, mut line) = loop {
        eof = fill(&mut file, &mut pending, block_bytes).map_err(io)?;
        let complete = if eof {
            pending.len()
        } else {
            last_line_end(&pending)
        };
        if let Some((header, body_start, body_line)) = locate_header(path, &pending[..complete])? {
            pending.drain(..body_start);
            break (header, body_line);
        }
        if eof {
            return Err(no_header(path));
        }
    };
    let mut state = ParseState::new(header.clone());
    let mut chunks = Vec::new();
    loop {
        let cut = if eof {
            pending.len()
        } else {
            safe_cut(&pending)
        };
        if cut > 0 {
            let parsed = parse_body(&pending[..cut], line, &mut state);
            line += parsed.iter().map(|chunk| chunk.lines).sum::<u64>();
            chunks.extend(parsed);
            pending.drain(..cut);
        }
        if eof {
            break;
        }
        eof = fill(&mut file, &mut pending, block_bytes).map_err(io)?;
    }
    drop(pending);
    let parsed = finish(path, chunks, config)?;
    build_trace(path, parsed, &header)
}

/// Appends up to `bytes` bytes of `file` to `buffer`; true at the end of the file.
fn fill(file: &mut std::fs::File, buffer: &mut Vec<u8>, bytes: usize) -> std::io::Result<bool> {
    use std::io::Read;
    let start = buffer.len();
    buffer.resize(start + bytes, 0);
    let mut filled = 0;
    while filled < bytes {
        match file.read(&mut buffer[start + filled..]) {
            Ok(0) => {
                buffer.truncate(start + filled);
                return Ok(true);
            }
            Ok(n) => filled += n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => {
                buffer.truncate(start + filled);
                return Err(error);
            }
        }
    }
    Ok(false)
}

/// The length of `data` up to and including its last newline (0 when it has none).
fn last_line_end(data: &[u8]) -> usize {
    memchr::memrchr(b'\n', data).map_or(0, |at| at + 1)
}

/// Where a block can be cut: after its last newline, provided no quoted field is open there;
/// 0 (read more first) otherwise.
fn safe_cut(data: &[u8]) -> usize {
    let cut = last_line_end(data);
    if memchr::memchr_iter(b'"', &data[..cut]).count() % 2 == 1 {
        0
    } else {
        cut
    }
}

fn no_header(path: &Path) -> IngestError {
    IngestError::Malformed {
        path: path.to_path_buf(),
        line: 1,
        expected: "a cuda_gpu_trace CSV header (`Start (ns),Duration (ns),CorrId,GrdX,...`)".into(),
        found: "no such header in the file".into(),
    }
}

/// Parses the bytes of a `cuda_gpu_trace` CSV export read from `path`.
pub fn parse(path: &Path, data: &[u8], config: &ReadConfig) -> Result<Trace, IngestError> {
    let (header, body_start, body_line) =
        locate_header(path, data)?.ok_or_else(|| no_header(path))?;
    let mut state = ParseState::new(header.clone());
    let chunks = parse_body(&data[body_start..], body_line, &mut state);
    let parsed = finish(path, chunks, config)?;
    build_trace(path, parsed, &header)
}

/// Merges the parsed chunks; fails with `--strict` on the first rejected row.
fn finish(path: &Path, chunks: Vec<Parsed>, config: &ReadConfig) -> Result<Parsed, IngestError> {
    let mut parsed = merge(chunks);
    parsed.rejected.sort_by_key(|row| row.line);
    if config.strict
        && let Some(first) = parsed.rejected.first()
    {
        return Err(IngestError::StrictRejected {
            path: path.to_path_buf(),
            line: first.line,
            reason: first.reason.clone(),
        });
    }
    if !parsed.rejected.is_empty() {
        tracing::warn!(
            path = %path.display(),
            rejected = parsed.rejected.len(),
            "some cuda_gpu_trace rows were rejected (see `Trace::rejected`)"
        );
    }
    Ok(parsed)
}

/// Builds the trace from the parsed columns (moving them into the frames).
fn build_trace(path: &Path, mut parsed: Parsed, header: &Header) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let source = path.display().to_string();
    let transfers = build_transfers(&parsed, &source).map_err(polars)?;
    let launches = build_launches(&mut parsed, header, &source).map_err(polars)?;
    Ok(Trace {
        format: Format::NsysGpuTrace.name().to_string(),
        launches,
        rules: DataFrame::empty(),
        transfers,
        kernel_summary: DataFrame::empty(),
        rejected: parsed.rejected,
    })
}

/// Where each column of the header is, and the scale of its unit.
#[derive(Debug, Clone)]
struct Header {
    labels: Vec<String>,
    start: usize,
    start_ns_per_unit: f64,
    duration: usize,
    duration_ns_per_unit: f64,
    corr_id: usize,
    grid: [usize; 3],
    block: [usize; 3],
    registers: usize,
    static_smem: (usize, f64),
    dynamic_smem: (usize, f64),
    bytes: Option<(usize, f64)>,
    throughput: Option<(usize, f64)>,
    src_kind: Option<usize>,
    dst_kind: Option<usize>,
    device: Option<usize>,
    context: Option<usize>,
    green_context: Option<usize>,
    stream: Option<usize>,
    name: usize,
}

impl Header {
    fn parse(path: &Path, line: u64, fields: &[Cow<'_, str>]) -> Result<Header, IngestError> {
        let labels: Vec<String> = fields.iter().map(|f| f.trim().to_string()).collect();
        let malformed = |expected: String, found: String| IngestError::Malformed {
            path: path.to_path_buf(),
            line,
            expected,
            found,
        };
        let find = |name: &str| {
            labels
                .iter()
                .position(|l| csv::label_and_unit(l).0 == name)
        };
        let require = |name: &str| {
            find(name).ok_or_else(|| {
                malformed(
                    format!("a `{name}` column in the cuda_gpu_trace header"),
                    format!("the header `{}`", labels.join(",")),
                )
            })
        };
        let time = |name: &str| -> Result<(usize, f64), IngestError> {
            let index = require(name)?;
            let unit = csv::label_and_unit(&labels[index]).1.unwrap_or("ns");
            let scale = csv::ns_per_unit(unit).ok_or_else(|| {
                malformed(
                    format!("a time unit (ns, us, ms, s) in `{}`", labels[index]),
                    format!("`{unit}`"),
                )
            })?;
            Ok((index, scale))
        };
        let memory = |index: usize| -> Result<(usize, f64), IngestError> {
            let unit = csv::label_and_unit(&labels[index]).1.unwrap_or("B");
            let scale = csv::bytes_per_unit(unit).ok_or_else(|| {
                malformed(
                    format!("a memory unit (B, KB, MB, GB) in `{}`", labels[index]),
                    format!("`{unit}`"),
                )
            })?;
            Ok((index, scale))
        };
        let (start, start_ns_per_unit) = time("Start")?;
        let (duration, duration_ns_per_unit) = time("Duration")?;
        let throughput = match find("Throughput") {
            Some(index) => {
                let unit = csv::label_and_unit(&labels[index]).1.unwrap_or("B/s");
                let scale = csv::bytes_per_second_per_unit(unit).ok_or_else(|| {
                    malformed(
                        format!(
                            "a throughput unit (MB/s, MBps, GB/s, ...) in `{}`",
                            labels[index]
                        ),
                        format!("`{unit}`"),
                    )
                })?;
                Some((index, scale))
            }
            None => None,
        };
        Ok(Header {
            start,
            start_ns_per_unit,
            duration,
            duration_ns_per_unit,
            corr_id: require("CorrId")?,
            grid: [require("GrdX")?, require("GrdY")?, require("GrdZ")?],
            block: [require("BlkX")?, require("BlkY")?, require("BlkZ")?],
            registers: require("Reg/Trd")?,
            static_smem: memory(require("StcSMem")?)?,
            dynamic_smem: memory(require("DymSMem")?)?,
            bytes: find("Bytes").map(memory).transpose()?,
            throughput,
            src_kind: find("SrcMemKd"),
            dst_kind: find("DstMemKd"),
            device: find("Device"),
            context: find("Ctx"),
            green_context: find("GreenCtx"),
            stream: find("Strm"),
            name: require("Name")?,
            labels,
        })
    }
}

/// Finds the first `cuda_gpu_trace` header in `data`; returns it with the byte offset and line
/// number of the record after it, or `None` when `data` has no header.
fn locate_header(path: &Path, data: &[u8]) -> Result<Option<(Header, usize, u64)>, IngestError> {
    let mut records = Records::new(data, 1);
    let mut fields = Vec::new();
    while let Some(record) = records.next() {
        let text = String::from_utf8_lossy(record.bytes);
        if crate::detect::classify_header_line(&text) == Some(Format::NsysGpuTrace) {
            split_fields(&text, &mut fields);
            let header = Header::parse(path, record.line, &fields)?;
            return Ok(Some((header, records.position(), records.next_line())));
        }
    }
    Ok(None)
}

/// The parser's state between records: the header in force and whether the rows belong to another
/// nsys table (skipped until the next `cuda_gpu_trace` header).
#[derive(Debug, Clone)]
struct ParseState {
    header: Header,
    skipping: bool,
}

impl ParseState {
    fn new(header: Header) -> Self {
        ParseState {
            header,
            skipping: false,
        }
    }
}

/// The rows parsed from one chunk of the body.
#[derive(Debug, Default)]
struct Parsed {
    launch_id: Vec<i64>,
    start_ns: Vec<i64>,
    duration_ns: Vec<f64>,
    grid: [Vec<i64>; 3],
    block: [Vec<i64>; 3],
    registers: Vec<i64>,
    static_smem: Vec<i64>,
    dynamic_smem: Vec<i64>,
    context: Vec<Option<i64>>,
    green_context: Vec<Option<i64>>,
    stream: Vec<Option<i64>>,
    device: Vec<Option<u32>>,
    name: Vec<u32>,
    transfers: TransferRows,
    names: Interner,
    devices: Interner,
    labels: Interner,
    rejected: Vec<RejectedRow>,
    /// Physical lines in the chunk (to renumber the following chunks).
    lines: u64,
}

impl Parsed {
    /// Empty columns with room for `rows` launches.
    fn with_capacity(rows: usize) -> Self {
        let mut parsed = Parsed::default();
        parsed.reserve(rows);
        parsed
    }

    /// Makes room for `rows` more launches in every launch column.
    fn reserve(&mut self, rows: usize) {
        self.launch_id.reserve(rows);
        self.start_ns.reserve(rows);
        self.duration_ns.reserve(rows);
        for axis in 0..3 {
            self.grid[axis].reserve(rows);
            self.block[axis].reserve(rows);
        }
        self.registers.reserve(rows);
        self.static_smem.reserve(rows);
        self.dynamic_smem.reserve(rows);
        self.context.reserve(rows);
        self.green_context.reserve(rows);
        self.stream.reserve(rows);
        self.device.reserve(rows);
        self.name.reserve(rows);
    }

    /// Gives back the room reserved for rows that turned out not to be launches.
    fn shrink(&mut self) {
        self.launch_id.shrink_to_fit();
        self.start_ns.shrink_to_fit();
        self.duration_ns.shrink_to_fit();
        for axis in 0..3 {
            self.grid[axis].shrink_to_fit();
            self.block[axis].shrink_to_fit();
        }
        self.registers.shrink_to_fit();
        self.static_smem.shrink_to_fit();
        self.dynamic_smem.shrink_to_fit();
        self.context.shrink_to_fit();
        self.green_context.shrink_to_fit();
        self.stream.shrink_to_fit();
        self.device.shrink_to_fit();
        self.name.shrink_to_fit();
    }
}

/// memcpy / memset rows.
#[derive(Debug, Default)]
struct TransferRows {
    is_memset: Vec<bool>,
    direction: Vec<Option<u32>>,
    bytes: Vec<Option<i64>>,
    throughput: Vec<Option<f64>>,
    start_ns: Vec<i64>,
    duration_ns: Vec<f64>,
    src_kind: Vec<Option<u32>>,
    dst_kind: Vec<Option<u32>>,
    device: Vec<Option<u32>>,
    stream: Vec<Option<i64>>,
    correlation_id: Vec<Option<i64>>,
}

/// Splits the body into per-thread chunks at line boundaries when that is safe (no quoted field
/// spans a boundary, no second table follows) and parses them.
fn parse_body(body: &[u8], first_line: u64, state: &mut ParseState) -> Vec<Parsed> {
    let threads = rayon::current_num_threads().max(1);
    if body.len() < PARALLEL_THRESHOLD_BYTES || threads == 1 || has_other_tables(body) {
        return vec![parse_chunk(body, first_line, state)];
    }
    let mut bounds = vec![0usize];
    for k in 1..threads {
        let target = body.len() * k / threads;
        let last = *bounds.last().unwrap_or(&0);
        if target <= last {
            continue;
        }
        match memchr::memchr(b'\n', &body[target..]) {
            Some(offset) => bounds.push(target + offset + 1),
            None => break,
        }
    }
    bounds.push(body.len());
    bounds.dedup();
    let pieces: Vec<&[u8]> = bounds.windows(2).map(|w| &body[w[0]..w[1]]).collect();
    // A boundary inside a quoted field (an embedded newline) would split a record: fall back to
    // one chunk when any piece holds an odd number of quotes.
    if pieces
        .iter()
        .any(|p| memchr::memchr_iter(b'"', p).count() % 2 == 1)
    {
        return vec![parse_chunk(body, first_line, state)];
    }
    // Without another table inside the body the state cannot change, so every piece starts from
    // (a copy of) the current one.
    let start: &ParseState = state;
    let mut chunks: Vec<Parsed> = pieces
        .par_iter()
        .map(|piece| parse_chunk(piece, 0, &mut start.clone()))
        .collect();
    let mut line = first_line;
    for chunk in &mut chunks {
        for row in &mut chunk.rejected {
            row.line += line;
        }
        line += chunk.lines;
    }
    chunks
}

/// True when the body contains the start of another nsys table or console output (a concatenated
/// `nsys stats` stdout), which needs the sequential parser's state.
fn has_other_tables(body: &[u8]) -> bool {
    // `\nStart` covers `Start (` and `Start(`, `\nTime` covers `Time (` and `Time(`.
    const MARKERS: &[&[u8]] = &[b"\nStart", b"\nTime", b"\nProcessing ["];
    MARKERS
        .iter()
        .any(|marker| memchr::memmem::find(body, marker).is_some())
}

/// Parses one chunk of records starting at physical line `first_line`.
fn parse_chunk(chunk: &[u8], first_line: u64, state: &mut ParseState) -> Parsed {
    // Rows are at least ~40 bytes; room that is reserved but never written costs no memory (the
    // pages are never touched), and `merge` gives it back.
    let mut parsed = Parsed::with_capacity(chunk.len() / 40 + 16);
    let mut records = Records::new(chunk, first_line);
    let mut fields: Vec<Cow<'_, str>> = Vec::with_capacity(state.header.labels.len() + 1);
    for record in records.by_ref() {
        let text = match std::str::from_utf8(record.bytes) {
            Ok(text) => text,
            Err(error) => {
                parsed.rejected.push(RejectedRow {
                    line: record.line,
                    reason: format!("the row is not valid UTF-8 ({error})"),
                });
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match crate::detect::classify_header_line(text) {
            Some(Format::NsysGpuTrace) => {
                split_fields(text, &mut fields);
                match Header::parse(Path::new(""), record.line, &fields) {
                    Ok(next) => {
                        state.header = next;
                        state.skipping = false;
                    }
                    Err(error) => parsed.rejected.push(RejectedRow {
                        line: record.line,
                        reason: format!(
                            "a second cuda_gpu_trace header that cannot be used: {error}"
                        ),
                    }),
                }
                continue;
            }
            Some(other) => {
                tracing::debug!(
                    line = record.line,
                    format = other.name(),
                    "skipping another nsys table"
                );
                state.skipping = true;
                continue;
            }
            None => {}
        }
        if state.skipping || csv::is_nsys_console_line(text) {
            continue;
        }
        split_fields(text, &mut fields);
        if let Err(reason) = parse_row(&fields, &state.header, &mut parsed) {
            parsed.rejected.push(RejectedRow {
                line: record.line,
                reason,
            });
        }
    }
    parsed.lines = records.next_line() - first_line;
    parsed
}

/// The text of cell `index` (empty when the record is shorter).
fn cell<'a>(fields: &'a [Cow<'_, str>], index: usize) -> &'a str {
    fields.get(index).map_or("", |c| c.as_ref())
}

fn int(fields: &[Cow<'_, str>], index: usize, header: &Header) -> Result<i64, String> {
    let text = cell(fields, index);
    csv::parse_i64(text).ok_or_else(|| {
        format!(
            "expected an integer in `{}`, found `{}`",
            header.labels[index], text
        )
    })
}

fn optional_int(
    fields: &[Cow<'_, str>],
    index: Option<usize>,
    header: &Header,
) -> Result<Option<i64>, String> {
    match index {
        Some(index) if !cell(fields, index).trim().is_empty() => {
            int(fields, index, header).map(Some)
        }
        _ => Ok(None),
    }
}

fn scaled(
    fields: &[Cow<'_, str>],
    index: usize,
    scale: f64,
    header: &Header,
) -> Result<f64, String> {
    let text = cell(fields, index);
    csv::parse_f64(text)
        .map(|value| value * scale)
        .ok_or_else(|| {
            format!(
                "expected a number in `{}`, found `{}`",
                header.labels[index], text
            )
        })
}

fn start_ns(fields: &[Cow<'_, str>], header: &Header) -> Result<i64, String> {
    if header.start_ns_per_unit == 1.0
        && let Ok(value) = cell(fields, header.start).trim().parse::<i64>()
    {
        return Ok(value);
    }
    scaled(fields, header.start, header.start_ns_per_unit, header).map(|v| v.round() as i64)
}

fn bytes(
    fields: &[Cow<'_, str>],
    (index, scale): (usize, f64),
    header: &Header,
) -> Result<i64, String> {
    scaled(fields, index, scale, header).map(|v| v.round() as i64)
}

/// Parses one data row into `parsed`, or says why it cannot be used.
fn parse_row(fields: &[Cow<'_, str>], header: &Header, parsed: &mut Parsed) -> Result<(), String> {
    let is_kernel = !cell(fields, header.grid[0]).trim().is_empty();
    let name = cell(fields, header.name);
    if is_kernel {
        // Parse everything before pushing so that a rejected row leaves no partial columns.
        let launch_id = int(fields, header.corr_id, header)?;
        let start = start_ns(fields, header)?;
        let duration = scaled(fields, header.duration, header.duration_ns_per_unit, header)?;
        let grid = [
            int(fields, header.grid[0], header)?,
            int(fields, header.grid[1], header)?,
            int(fields, header.grid[2], header)?,
        ];
        let block = [
            int(fields, header.block[0], header)?,
            int(fields, header.block[1], header)?,
            int(fields, header.block[2], header)?,
        ];
        let registers = int(fields, header.registers, header)?;
        let static_smem = bytes(fields, header.static_smem, header)?;
        let dynamic_smem = bytes(fields, header.dynamic_smem, header)?;
        let context = optional_int(fields, header.context, header)?;
        let green_context = optional_int(fields, header.green_context, header)?;
        let stream = optional_int(fields, header.stream, header)?;
        if name.trim().is_empty() {
            return Err("a kernel row (GrdX set) without a `Name`".to_string());
        }
        parsed.launch_id.push(launch_id);
        parsed.start_ns.push(start);
        parsed.duration_ns.push(duration);
        for axis in 0..3 {
            parsed.grid[axis].push(grid[axis]);
            parsed.block[axis].push(block[axis]);
        }
        parsed.registers.push(registers);
        parsed.static_smem.push(static_smem);
        parsed.dynamic_smem.push(dynamic_smem);
        parsed.context.push(context);
        parsed.green_context.push(green_context);
        parsed.stream.push(stream);
        let device = header
            .device
            .map(|i| cell(fields, i))
            .filter(|d| !d.trim().is_empty());
        parsed.device.push(device.map(|d| parsed.devices.intern(d)));
        parsed.name.push(parsed.names.intern(name));
        return Ok(());
    }
    let kind = transfer_kind(name).ok_or_else(|| {
        format!(
            "neither a kernel row (`{}` is empty) nor a memcpy/memset row (`Name` is `{}`)",
            header.labels[header.grid[0]], name
        )
    })?;
    let start = start_ns(fields, header)?;
    let duration = scaled(fields, header.duration, header.duration_ns_per_unit, header)?;
    let size = match header.bytes {
        Some(spec) if !cell(fields, spec.0).trim().is_empty() => Some(bytes(fields, spec, header)?),
        _ => None,
    };
    let throughput = match header.throughput {
        Some((index, scale)) if !cell(fields, index).trim().is_empty() => {
            Some(scaled(fields, index, scale, header)?)
        }
        _ => None,
    };
    let stream = optional_int(fields, header.stream, header)?;
    let correlation = optional_int(fields, Some(header.corr_id), header)?;
    let rows = &mut parsed.transfers;
    let mut label = |index: Option<usize>| {
        index
            .map(|i| cell(fields, i).trim())
            .filter(|s| !s.is_empty())
            .map(|s| parsed.labels.intern(s))
    };
    let src = label(header.src_kind);
    let dst = label(header.dst_kind);
    let direction = kind.direction.map(|d| parsed.labels.intern(&d));
    let device = header
        .device
        .map(|i| cell(fields, i))
        .filter(|d| !d.trim().is_empty());
    rows.is_memset.push(kind.is_memset);
    rows.direction.push(direction);
    rows.bytes.push(size);
    rows.throughput.push(throughput);
    rows.start_ns.push(start);
    rows.duration_ns.push(duration);
    rows.src_kind.push(src);
    rows.dst_kind.push(dst);
    rows.device.push(device.map(|d| parsed.devices.intern(d)));
    rows.stream.push(stream);
    rows.correlation_id.push(correlation);
    Ok(())
}

/// What a memcpy / memset row's `Name` says.
#[derive(Debug, Clone, PartialEq)]
struct TransferKind {
    is_memset: bool,
    direction: Option<String>,
}

/// Classifies `[CUDA memcpy Host-to-Device]`, `[CUDA memcpy HtoD]` (older nsys), `[CUDA memset]`,
/// `[CUDA Unified Memory memcpy DtoH]` and the like; `None` for anything else.
fn transfer_kind(name: &str) -> Option<TransferKind> {
    let inner = name.trim().strip_prefix('[')?.strip_suffix(']')?;
    let lower = inner.to_ascii_lowercase();
    if lower.contains("memset") {
        return Some(TransferKind {
            is_memset: true,
            direction: None,
        });
    }
    let at = lower.find("memcpy")?;
    let tail = inner[at + "memcpy".len()..].trim();
    let direction = if tail.is_empty() {
        None
    } else {
        Some(expand_direction(tail))
    };
    Some(TransferKind {
        is_memset: false,
        direction,
    })
}

/// Expands the older short directions (`HtoD`) to the spelling nsys uses since 2021
/// (`Host-to-Device`); other text is kept as printed.
fn expand_direction(direction: &str) -> String {
    fn part(p: &str) -> &str {
        match p {
            "H" => "Host",
            "D" => "Device",
            "A" => "Array",
            "P" => "Peer",
            other => other,
        }
    }
    if let Some((from, to)) = direction.split_once("to")
        && from.len() == 1
        && to.len() == 1
    {
        return format!("{}-to-{}", part(from), part(to));
    }
    direction.to_string()
}

/// Merges per-chunk results into one, remapping interned indices.
fn merge(chunks: Vec<Parsed>) -> Parsed {
    let total: usize = chunks.iter().map(|chunk| chunk.launch_id.len()).sum();
    let mut chunks = chunks.into_iter();
    let Some(mut merged) = chunks.next() else {
        return Parsed::default();
    };
    merged.shrink();
    merged.reserve(total - merged.launch_id.len());
    for mut chunk in chunks {
        let names = merged.names.absorb(&chunk.names);
        let devices = merged.devices.absorb(&chunk.devices);
        let labels = merged.labels.absorb(&chunk.labels);
        let remap = |map: &[u32], id: u32| map[id as usize];
        merged.launch_id.append(&mut chunk.launch_id);
        merged.start_ns.append(&mut chunk.start_ns);
        merged.duration_ns.append(&mut chunk.duration_ns);
        for axis in 0..3 {
            merged.grid[axis].append(&mut chunk.grid[axis]);
            merged.block[axis].append(&mut chunk.block[axis]);
        }
        merged.registers.append(&mut chunk.registers);
        merged.static_smem.append(&mut chunk.static_smem);
        merged.dynamic_smem.append(&mut chunk.dynamic_smem);
        merged.context.append(&mut chunk.context);
        merged.green_context.append(&mut chunk.green_context);
        merged.stream.append(&mut chunk.stream);
        merged
            .device
            .extend(chunk.device.iter().map(|d| d.map(|d| remap(&devices, d))));
        merged
            .name
            .extend(chunk.name.iter().map(|&n| remap(&names, n)));
        let (to, from) = (&mut merged.transfers, &mut chunk.transfers);
        to.is_memset.append(&mut from.is_memset);
        to.direction
            .extend(from.direction.iter().map(|d| d.map(|d| remap(&labels, d))));
        to.bytes.append(&mut from.bytes);
        to.throughput.append(&mut from.throughput);
        to.start_ns.append(&mut from.start_ns);
        to.duration_ns.append(&mut from.duration_ns);
        to.src_kind
            .extend(from.src_kind.iter().map(|d| d.map(|d| remap(&labels, d))));
        to.dst_kind
            .extend(from.dst_kind.iter().map(|d| d.map(|d| remap(&labels, d))));
        to.device
            .extend(from.device.iter().map(|d| d.map(|d| remap(&devices, d))));
        to.stream.append(&mut from.stream);
        to.correlation_id.append(&mut from.correlation_id);
        merged.rejected.append(&mut chunk.rejected);
        merged.lines += chunk.lines;
    }
    merged
}

fn i64_column(name: &str, values: Vec<i64>) -> Column {
    Int64Chunked::from_vec(name.into(), values).into_column()
}

fn opt_i64_column(name: &str, values: &[Option<i64>]) -> Column {
    let mut ca: Int64Chunked = values.iter().copied().collect();
    ca.rename(name.into());
    ca.into_column()
}

/// Device names and ordinals of the distinct device labels.
fn split_devices(devices: &Interner) -> (Vec<String>, Vec<Option<i64>>) {
    devices
        .values()
        .iter()
        .map(|label| {
            let (name, ordinal) = split_device_label(label);
            (name.to_string(), ordinal)
        })
        .unzip()
}

fn build_launches(parsed: &mut Parsed, header: &Header, source: &str) -> PolarsResult<DataFrame> {
    let height = parsed.launch_id.len();
    let short: Vec<&str> = parsed
        .names
        .values()
        .iter()
        .map(|n| short_name(n))
        .collect();
    let (device_names, device_ordinals) = split_devices(&parsed.devices);
    let ordinals: Int64Chunked = parsed
        .device
        .iter()
        .map(|d| d.and_then(|d| device_ordinals[d as usize]))
        .collect();
    let mut columns = vec![
        i64_column(col::LAUNCH_ID, std::mem::take(&mut parsed.launch_id)),
        gather_strings(
            col::DEVICE_NAME,
            &device_names,
            parsed.device.iter().copied(),
        )?,
        ordinals.with_name(col::DEVICE_ORDINAL.into()).into_column(),
        gather_strings_dense(col::KERNEL_NAME, parsed.names.values(), &parsed.name)?,
        gather_strings_dense(col::KERNEL_SHORT_NAME, &short, &parsed.name)?,
        i64_column(col::GRID_X, std::mem::take(&mut parsed.grid[0])),
        i64_column(col::GRID_Y, std::mem::take(&mut parsed.grid[1])),
        i64_column(col::GRID_Z, std::mem::take(&mut parsed.grid[2])),
        i64_column(col::BLOCK_X, std::mem::take(&mut parsed.block[0])),
        i64_column(col::BLOCK_Y, std::mem::take(&mut parsed.block[1])),
        i64_column(col::BLOCK_Z, std::mem::take(&mut parsed.block[2])),
        i64_column(
            col::REGISTERS_PER_THREAD,
            std::mem::take(&mut parsed.registers),
        ),
        i64_column(
            col::STATIC_SMEM_BYTES,
            std::mem::take(&mut parsed.static_smem),
        ),
        i64_column(
            col::DYNAMIC_SMEM_BYTES,
            std::mem::take(&mut parsed.dynamic_smem),
        ),
        i64_column(col::START_NS, std::mem::take(&mut parsed.start_ns)),
        Float64Chunked::from_vec(
            col::DURATION_NS.into(),
            std::mem::take(&mut parsed.duration_ns),
        )
        .into_column(),
        opt_i64_column(col::CONTEXT, &parsed.context),
        opt_i64_column(col::STREAM, &parsed.stream),
    ];
    if header.green_context.is_some() {
        columns.push(opt_i64_column(GREEN_CONTEXT_COLUMN, &parsed.green_context));
    }
    let frame = DataFrame::new(height, columns)?.lazy().with_columns([
        lit(source).alias(col::SOURCE_FILE),
        lit(Format::NsysGpuTrace.name()).alias(col::FORMAT),
    ]);
    launch_table::conform(frame)?.collect()
}

fn build_transfers(parsed: &Parsed, source: &str) -> PolarsResult<DataFrame> {
    let rows = &parsed.transfers;
    let height = rows.start_ns.len();
    let (device_names, device_ordinals) = split_devices(&parsed.devices);
    let labels = parsed.labels.values();
    let kinds: StringChunked = rows
        .is_memset
        .iter()
        .map(|&m| Some(if m { "memset" } else { "memcpy" }))
        .collect();
    let ordinals: Int64Chunked = rows
        .device
        .iter()
        .map(|d| d.and_then(|d| device_ordinals[d as usize]))
        .collect();
    let bytes: Int64Chunked = rows.bytes.iter().copied().collect();
    let throughput: Float64Chunked = rows.throughput.iter().copied().collect();
    let columns = vec![
        Column::new_scalar(
            transfers_col::SOURCE_FILE.into(),
            Scalar::from(PlSmallStr::from(source)),
            height,
        ),
        kinds.with_name(transfers_col::KIND.into()).into_column(),
        gather_strings(
            transfers_col::DIRECTION,
            labels,
            rows.direction.iter().copied(),
        )?,
        bytes.with_name(transfers_col::BYTES.into()).into_column(),
        i64_column(transfers_col::START_NS, rows.start_ns.clone()),
        Float64Chunked::from_vec(transfers_col::DURATION_NS.into(), rows.duration_ns.clone())
            .into_column(),
        gather_strings(
            transfers_col::SRC_KIND,
            labels,
            rows.src_kind.iter().copied(),
        )?,
        gather_strings(
            transfers_col::DST_KIND,
            labels,
            rows.dst_kind.iter().copied(),
        )?,
        gather_strings(
            transfers_col::DEVICE_NAME,
            &device_names,
            rows.device.iter().copied(),
        )?,
        ordinals
            .with_name(transfers_col::DEVICE_ORDINAL.into())
            .into_column(),
        opt_i64_column(transfers_col::STREAM, &rows.stream),
        opt_i64_column(TRANSFER_CORRELATION_COLUMN, &rows.correlation_id),
        throughput
            .with_name(TRANSFER_THROUGHPUT_COLUMN.into())
            .into_column(),
    ];
    DataFrame::new(height, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/nsys");

    fn read_fixture(name: &str, strict: bool) -> Result<Trace, IngestError> {
        read(
            &Path::new(FIXTURES).join(name),
            &ReadConfig {
                strict,
                format: None,
            },
        )
    }

    #[test]
    fn transfer_names_give_kind_and_direction() {
        let memcpy = |d: &str| {
            Some(TransferKind {
                is_memset: false,
                direction: Some(d.to_string()),
            })
        };
        assert_eq!(
            transfer_kind("[CUDA memcpy Host-to-Device]"),
            memcpy("Host-to-Device")
        );
        assert_eq!(
            transfer_kind("[CUDA memcpy HtoD]"),
            memcpy("Host-to-Device")
        );
        assert_eq!(
            transfer_kind("[CUDA memcpy DtoA]"),
            memcpy("Device-to-Array")
        );
        assert_eq!(transfer_kind("[CUDA memcpy PtoP]"), memcpy("Peer-to-Peer"));
        assert_eq!(
            transfer_kind("[CUDA Unified Memory memcpy DtoH]"),
            memcpy("Device-to-Host")
        );
        assert_eq!(
            transfer_kind("[CUDA memset]"),
            Some(TransferKind {
                is_memset: true,
                direction: None
            })
        );
        assert_eq!(transfer_kind("scale"), None);
    }

    #[test]
    fn older_header_with_preamble_microseconds_and_mbps() -> Result<(), Box<dyn std::error::Error>>
    {
        // The fixture has `Processing [...]` and `NOTICE:` lines before an older header (no
        // GreenCtx, `Throughput (MBps)`), times in microseconds and a CRLF line ending.
        let trace = read_fixture("gpu_trace_old_header_us.csv", true)?;
        let launches = &trace.launches;
        assert_eq!(launches.height(), 2);
        assert!(trace.rejected.is_empty());
        // `Start (us)` 1.5 -> 1500 ns; `Duration (us)` 2.25 -> 2250 ns.
        assert_eq!(launches.column(col::START_NS)?.i64()?.get(0), Some(1500));
        assert_eq!(
            launches.column(col::DURATION_NS)?.f64()?.get(0),
            Some(2250.0)
        );
        // `StcSMem (MB)` 0.019 is 19 000 bytes; `DymSMem (MB)` 0.049 is 49 000 bytes.
        assert_eq!(
            launches.column(col::STATIC_SMEM_BYTES)?.i64()?.get(1),
            Some(19_000)
        );
        assert_eq!(
            launches.column(col::DYNAMIC_SMEM_BYTES)?.i64()?.get(1),
            Some(49_000)
        );
        assert_eq!(
            launches.column(col::KERNEL_NAME)?.str()?.get(1),
            Some("void gemm<float, 128>(float *, int)")
        );
        assert_eq!(
            launches.column(col::KERNEL_SHORT_NAME)?.str()?.get(1),
            Some("gemm")
        );
        assert_eq!(
            launches.column(col::DEVICE_NAME)?.str()?.get(0),
            Some("Tesla V100-SXM2-16GB")
        );
        assert_eq!(launches.column(col::DEVICE_ORDINAL)?.i64()?.get(0), Some(1));
        assert_eq!(
            launches.column(col::FORMAT)?.str()?.get(0),
            Some("nsys-gpu-trace")
        );
        assert!(launches.column(GREEN_CONTEXT_COLUMN).is_err());
        let transfers = &trace.transfers;
        assert_eq!(transfers.height(), 1);
        assert_eq!(
            transfers.column(transfers_col::DIRECTION)?.str()?.get(0),
            Some("Host-to-Device")
        );
        // `Bytes (MB)` 4.194 -> 4 194 000 bytes; 2 000 MBps -> 2e9 B/s.
        assert_eq!(
            transfers.column(transfers_col::BYTES)?.i64()?.get(0),
            Some(4_194_000)
        );
        assert_eq!(
            transfers.column(TRANSFER_THROUGHPUT_COLUMN)?.f64()?.get(0),
            Some(2.0e9)
        );
        Ok(())
    }

    #[test]
    fn the_preamble_does_not_hide_the_header_from_detection() -> Result<(), IngestError> {
        let path = Path::new(FIXTURES).join("gpu_trace_old_header_us.csv");
        assert_eq!(crate::detect(&path)?, Format::NsysGpuTrace);
        Ok(())
    }

    #[test]
    fn bad_rows_are_rejected_with_line_and_reason() -> Result<(), Box<dyn std::error::Error>> {
        let trace = read_fixture("gpu_trace_bad_rows.csv", false)?;
        assert_eq!(trace.launches.height(), 1);
        let lines: Vec<u64> = trace.rejected.iter().map(|r| r.line).collect();
        assert_eq!(lines, [3, 4]);
        assert!(
            trace.rejected[0].reason.contains("`GrdY`"),
            "{}",
            trace.rejected[0].reason
        );
        assert!(
            trace.rejected[0].reason.contains("`x`"),
            "{}",
            trace.rejected[0].reason
        );
        assert!(
            trace.rejected[1].reason.contains("neither a kernel row"),
            "{}",
            trace.rejected[1].reason
        );
        match read_fixture("gpu_trace_bad_rows.csv", true) {
            Err(IngestError::StrictRejected { line, .. }) => assert_eq!(line, 3),
            other => panic!("expected StrictRejected, got {other:?}"),
        }
        Ok(())
    }

    #[test]
    fn a_file_without_header_is_malformed() {
        let result = parse(
            Path::new("x.csv"),
            b"hello\nworld\n",
            &ReadConfig::default(),
        );
        assert!(
            matches!(result, Err(IngestError::Malformed { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn reading_in_small_blocks_gives_the_same_trace() -> Result<(), Box<dyn std::error::Error>> {
        // Blocks of 97 bytes cut the preamble, the header and rows (a quoted name included) at
        // arbitrary places; the rejected row must keep its line number.
        let path = Path::new(FIXTURES).join("gpu_trace_old_header_us.csv");
        let mut text = std::fs::read_to_string(&path)?;
        text.push_str(
            "9.0,1.0,14,1,z,1,32,1,1,8,0.000,0.000,,,,,Tesla V100-SXM2-16GB (1),1,7,bad\n",
        );
        let dir = tempfile::tempdir()?;
        let copy = dir.path().join("trace.csv");
        std::fs::write(&copy, &text)?;
        let whole = parse(&copy, text.as_bytes(), &ReadConfig::default())?;
        let blocks = read_in_blocks(&copy, &ReadConfig::default(), 97)?;
        assert!(whole.launches.equals_missing(&blocks.launches));
        assert!(whole.transfers.equals_missing(&blocks.transfers));
        assert_eq!(whole.rejected, blocks.rejected);
        assert_eq!(blocks.rejected.len(), 1);
        assert_eq!(blocks.rejected[0].line, 8);
        assert_eq!(blocks.launches.height(), 2);
        Ok(())
    }

    #[test]
    fn chunked_parsing_matches_one_chunk() -> Result<(), Box<dyn std::error::Error>> {
        let mut text = String::from(
            "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n",
        );
        let rows = 60_000;
        for i in 0..rows {
            if i % 7 == 3 {
                text.push_str(&format!("{},100,{i},,,,,,,,,,0.131,1310.0,Pinned,Device,NVIDIA H100 (0),1,,7,[CUDA memcpy Host-to-Device]\n", i * 10));
            } else if i == 40_000 {
                text.push_str("1,2,3,4,x,1,1,1,1,1,0,0,,,,,NVIDIA H100 (0),1,,7,bad\n");
            } else {
                text.push_str(&format!("{},{},{i},{},1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,\"void k<int, {}>(int)\"\n", i * 10, 5 + i % 3, 1 + i % 5, i % 4));
            }
        }
        let path = Path::new("chunked.csv");
        let (header, start, line) =
            locate_header(path, text.as_bytes())?.ok_or("the test input has a header")?;
        let body = &text.as_bytes()[start..];
        assert!(
            body.len() > PARALLEL_THRESHOLD_BYTES,
            "the test input must be large enough to be chunked"
        );
        let chunked = merge(parse_body(body, line, &mut ParseState::new(header.clone())));
        let single = parse_chunk(body, line, &mut ParseState::new(header));
        assert_eq!(chunked.launch_id, single.launch_id);
        assert_eq!(chunked.rejected, single.rejected);
        // Line 1 is the header, so row i is on line i + 2.
        assert_eq!(
            single.rejected.iter().map(|r| r.line).collect::<Vec<_>>(),
            [40_002]
        );
        let names = |p: &Parsed| {
            p.name
                .iter()
                .map(|&n| p.names.values()[n as usize].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&chunked), names(&single));
        assert_eq!(chunked.transfers.start_ns, single.transfers.start_ns);
        Ok(())
    }
}
