//! The rows of a `cuda_gpu_trace` report: one piece of records parsed straight into column
//! vectors (kernel rows become launches, memcpy/memset rows transfers, anything else a rejected
//! row), with names and labels interned, and the pieces merged in file order.

use crate::csv_records::{Record, RecordReader, TextFields, stream::Piece};
use crate::nsys::interner::Interner;
use crate::nsys::stats_csv::{self, StatsTable};
use crate::trace::RejectedRow;

use super::header::Header;
use super::transfers::transfer_kind;

/// The rows parsed from one piece of the body, column by column.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub(crate) launch_id: Vec<i64>,
    pub(crate) start_ns: Vec<i64>,
    pub(crate) duration_ns: Vec<f64>,
    pub(crate) grid: [Vec<i64>; 3],
    pub(crate) block: [Vec<i64>; 3],
    pub(crate) registers: Vec<i64>,
    pub(crate) static_smem: Vec<i64>,
    pub(crate) dynamic_smem: Vec<i64>,
    pub(crate) context: Vec<Option<i64>>,
    pub(crate) green_context: Vec<Option<i64>>,
    pub(crate) stream: Vec<Option<i64>>,
    pub(crate) device: Vec<Option<u32>>,
    pub(crate) name: Vec<u32>,
    pub(crate) transfers: TransferRows,
    pub(crate) names: Interner,
    pub(crate) devices: Interner,
    pub(crate) labels: Interner,
    pub(crate) rejected: Vec<RejectedRow>,
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
pub(crate) struct TransferRows {
    pub(crate) is_memset: Vec<bool>,
    pub(crate) direction: Vec<Option<u32>>,
    pub(crate) bytes: Vec<Option<i64>>,
    pub(crate) throughput: Vec<Option<f64>>,
    pub(crate) start_ns: Vec<i64>,
    pub(crate) duration_ns: Vec<f64>,
    pub(crate) src_kind: Vec<Option<u32>>,
    pub(crate) dst_kind: Vec<Option<u32>>,
    pub(crate) device: Vec<Option<u32>>,
    pub(crate) stream: Vec<Option<i64>>,
    pub(crate) correlation_id: Vec<Option<i64>>,
}

/// Parses one piece of records; rows of another nsys table are skipped.
pub(crate) fn parse_piece(piece: Piece<'_, StatsTable<Header>>) -> Parsed {
    let StatsTable::Report(header) = &*piece.table else {
        return Parsed::default();
    };
    // Rows are at least ~40 bytes; room that is reserved but never written costs no memory (the
    // pages are never touched), and `merge` gives it back.
    let mut parsed = Parsed::with_capacity(piece.data.len() / 40 + 16);
    let mut reader = RecordReader::new(piece.data, piece.first_line);
    let mut record = Record::default();
    while reader.read(&mut record) {
        let fields = match record.text() {
            Ok(fields) => fields,
            Err(error) => {
                parsed.rejected.push(RejectedRow {
                    line: record.line,
                    reason: format!("the row is not valid UTF-8 ({error})"),
                });
                continue;
            }
        };
        if stats_csv::is_not_data(&fields) {
            continue;
        }
        if let Err(reason) = parse_row(&fields, header, &mut parsed) {
            parsed.rejected.push(RejectedRow {
                line: record.line,
                reason,
            });
        }
    }
    parsed
}

/// The text of cell `index` (empty when the record is shorter).
fn cell<'a>(fields: &TextFields<'a>, index: usize) -> &'a str {
    fields.get(index)
}

fn int(fields: &TextFields<'_>, index: usize, header: &Header) -> Result<i64, String> {
    let text = cell(fields, index);
    stats_csv::parse_i64(text).ok_or_else(|| {
        format!(
            "expected an integer in `{}`, found `{}`",
            header.labels[index], text
        )
    })
}

fn optional_int(
    fields: &TextFields<'_>,
    index: Option<usize>,
    header: &Header,
) -> Result<Option<i64>, String> {
    match index {
        Some(index) if !stats_csv::trim(cell(fields, index)).is_empty() => {
            int(fields, index, header).map(Some)
        }
        _ => Ok(None),
    }
}

fn scaled(
    fields: &TextFields<'_>,
    index: usize,
    scale: f64,
    header: &Header,
) -> Result<f64, String> {
    let text = cell(fields, index);
    stats_csv::parse_f64(text)
        .map(|value| value * scale)
        .ok_or_else(|| {
            format!(
                "expected a number in `{}`, found `{}`",
                header.labels[index], text
            )
        })
}

fn start_ns(fields: &TextFields<'_>, header: &Header) -> Result<i64, String> {
    if header.start_ns_per_unit == 1.0
        && let Ok(value) = stats_csv::trim(cell(fields, header.start)).parse::<i64>()
    {
        return Ok(value);
    }
    scaled(fields, header.start, header.start_ns_per_unit, header).map(|v| v.round() as i64)
}

fn bytes(
    fields: &TextFields<'_>,
    (index, scale): (usize, f64),
    header: &Header,
) -> Result<i64, String> {
    scaled(fields, index, scale, header).map(|v| v.round() as i64)
}

/// Parses one data row into `parsed`, or says why it cannot be used.
pub(crate) fn parse_row(
    fields: &TextFields<'_>,
    header: &Header,
    parsed: &mut Parsed,
) -> Result<(), String> {
    let is_kernel = !stats_csv::trim(cell(fields, header.grid[0])).is_empty();
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
        if stats_csv::trim(name).is_empty() {
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
            .filter(|d| !stats_csv::trim(d).is_empty());
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
        Some(spec) if !stats_csv::trim(cell(fields, spec.0)).is_empty() => {
            Some(bytes(fields, spec, header)?)
        }
        _ => None,
    };
    let throughput = match header.throughput {
        Some((index, scale)) if !stats_csv::trim(cell(fields, index)).is_empty() => {
            Some(scaled(fields, index, scale, header)?)
        }
        _ => None,
    };
    let stream = optional_int(fields, header.stream, header)?;
    let correlation = optional_int(fields, Some(header.corr_id), header)?;
    let rows = &mut parsed.transfers;
    let mut label = |index: Option<usize>| {
        index
            .map(|i| stats_csv::trim(cell(fields, i)))
            .filter(|s| !s.is_empty())
            .map(|s| parsed.labels.intern(s))
    };
    let src = label(header.src_kind);
    let dst = label(header.dst_kind);
    let direction = kind.direction.map(|d| parsed.labels.intern(&d));
    let device = header
        .device
        .map(|i| cell(fields, i))
        .filter(|d| !stats_csv::trim(d).is_empty());
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

/// Merges per-piece results into one, remapping interned indices.
pub(crate) fn merge(chunks: Vec<Parsed>) -> Parsed {
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
    }
    merged
}
