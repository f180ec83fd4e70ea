//! Reader for Nsight Compute report files (`ncu -o report` → `report.ncu-rep`, report version 7),
//! decoded by the polars-free `warpsight-ncu-rep` crate (in parallel over the report's results).
//!
//! Each launch becomes the row the raw page (`ncu --import report.ncu-rep --csv --page raw
//! --print-units base`) of the same report gives, because it goes through the raw reader's path:
//! the same `WideTable`, the same identification columns, and every metric under its native
//! name with the raw reader's role (`metrics::raw_role`). What the CSV page adds on the way is
//! reproduced here:
//!
//! - units: the report stores values in the metric's own unit; the raw page labels percentages
//!   `%` (and `%/register`, `%/byte`), which warpsight stores as fractions, so every metric whose
//!   name contains `pct` is scaled by 0.01, except the one the page prints without a unit
//!   (`percent_factor`); every other unit of the page is a base unit (factor 1);
//! - non-finite values: kept as the floats they are (the page prints `nan` / `inf`, which the raw
//!   reader also reads as floats), so a metric column with a NaN stays Float64;
//! - instance lists: the column holds the metric's aggregate value, as on the raw page; a metric
//!   with instances but no aggregate, or with neither, is null (an empty / `no data` cell);
//! - except for one metric, whose instances are also kept: `sass__inst_executed_per_opcode`
//!   (warp-level instructions executed per SASS opcode, the correlation id being the opcode name)
//!   gets one Float64 column per opcode any launch of the report executed, named by
//!   [`launch_table::sass_opcode_column`] (`sass__inst_executed_per_opcode[FFMA]`), which no page
//!   prints: 0 for an opcode the launch did not execute, null in a launch without the metric
//!   (`OpcodeColumns` below has the whole rule);
//! - ncu's internal helper metrics `breakdown:*` and `group:*`, which no page prints, are dropped;
//! - metric columns are created in name order, the raw page's column order;
//! - `ncu_clocks_locked` ([`launch_table::column_names::CLOCKS_LOCKED`]): 1 when ncu ran the launch with
//!   locked clocks (the launch's ClockStatus ExecutedLocked), 0 when it did not, only in reports
//!   that record it; no page prints it.
//!
//! Kernel names are the names the report stores (renamed, else demangled, else function, else
//! mangled name). The CSV pages print demangled names *simplified* (`(bool)0` → `0`,
//! `at::native::` → `at::`), a rewrite the report does not store and warpsight does not guess.
//!
//! Rule results become [`SideTables::rules`](crate::trace::SideTables::rules) with the columns of the details reader's rule rows.

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use warpsight_ncu_rep::{Instances, Launch, NameId, Report, Value as RepValue, Values};

use crate::launch_table;
use crate::ncu::details::{finish, role_is_numeric};
use crate::ncu::metrics;
use crate::ncu::table::{RuleRow, RulesBuilder, WideTable};
use crate::ncu::units::{self, Value};
use crate::trace::{RejectedRow, Trace};
use crate::{Format, IngestError, ReadConfig};

/// Metrics whose name contains `pct` but which the raw page prints without the `%` unit.
const PCT_WITHOUT_UNIT: &[&str] = &["derived__pct_occupancy_per_barrier_count"];

/// The factor that turns a stored value of metric `name` into warpsight's base unit: 0.01 for
/// percentages (ncu's `pct` metrics, printed in `%`, `%/register` or `%/byte`), else 1.
pub(crate) fn percent_factor(name: &str) -> f64 {
    if name.contains("pct") && !PCT_WITHOUT_UNIT.contains(&name) {
        0.01
    } else {
        1.0
    }
}

/// Whether the raw page prints metric `name` (ncu's internal section helpers it does not).
fn on_raw_page(name: &str) -> bool {
    !(name.starts_with("breakdown:") || name.starts_with("group:"))
}

/// The launch-table value of a stored metric value, as the raw reader would parse the page's cell.
fn cell_value(value: Option<&RepValue>, factor: f64) -> Value {
    match value {
        None => Value::Null,
        Some(RepValue::String(s)) => units::parse_value(s, factor),
        Some(v) => match v.as_f64() {
            Some(x) => Value::Num(x * factor),
            None => Value::Null,
        },
    }
}

/// Reads the report's bytes ([`report_bytes`]) and decodes them, the decoder's error wrapped with
/// the file's path.
fn decode_file(path: &Path) -> Result<Report, IngestError> {
    let bytes = report_bytes(path)?;
    warpsight_ncu_rep::decode(&bytes).map_err(|source| IngestError::NcuRep {
        path: path.to_path_buf(),
        source,
    })
}

/// The bytes of the report `path` the decoder needs, read into memory once their sizes are
/// checked against the file's.
///
/// The container is walked first from the file itself through a 64 KiB buffer ([`content_end`]):
/// the FileHeader and every BlockHeader are read, each payload is skipped by its declared size.
/// Only then is the file read, up to the end of its last block, so that memory is the report's
/// own blocks (which the decoded table is built from) and never more than the file holds:
///
/// - a declared size larger than the rest of the file is the decoder's error, given without
///   reading the file into memory;
/// - a tail of zero bytes (a sparse or zero-filled end, which decodes as empty blocks) is not
///   read: the report is the same without it.
fn report_bytes(path: &Path) -> Result<Vec<u8>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(crate::source::real_path(path)?).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut reader = std::io::BufReader::with_capacity(SCAN_BUFFER_BYTES, file);
    match content_end(&mut reader, len).map_err(io)? {
        Walk::End(end) => {
            if end < len {
                tracing::debug!(
                    file = %path.display(),
                    bytes = len - end,
                    "a tail of zero bytes after the report's last block is not read"
                );
            }
            crate::source::read_prefix(path, end)
        }
        Walk::Fails(source) => Err(IngestError::NcuRep {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The buffer the container walk reads the file through.
const SCAN_BUFFER_BYTES: usize = 64 << 10;

/// What the container walk found.
#[derive(Debug)]
enum Walk {
    /// The decoder needs the first this many bytes (it reports any error inside them itself).
    End(u64),
    /// A declared size runs past the end of the file: the decoder's error for it.
    Fails(warpsight_ncu_rep::DecodeError),
}

/// Walks the report's container in `reader` (a file of `len` bytes) as the decoder does, reading
/// headers and skipping payloads: see [`report_bytes`].
fn content_end<R: Read + Seek>(reader: &mut BufReader<R>, len: u64) -> std::io::Result<Walk> {
    use warpsight_ncu_rep::DecodeError;
    let remaining = |at: u64| usize::try_from(len.saturating_sub(at)).unwrap_or(usize::MAX);
    let mut magic = [0u8; 4];
    if len < 8 || reader.read_exact(&mut magic).is_err() || magic != warpsight_ncu_rep::MAGIC {
        // Not a report, or too short for a FileHeader: the decoder's error, from a small prefix.
        return Ok(Walk::End(len.min(64)));
    }
    let header_size = u64::from(read_u32(reader)?);
    if header_size > len - 8 {
        return Ok(Walk::Fails(DecodeError::SizeExceeds {
            offset: 4,
            what: "FileHeader",
            size: header_size,
            remaining: remaining(8),
        }));
    }
    let mut at = 8 + header_size;
    // Relative seeks within the buffer keep it: small blocks are skipped without reading again.
    reader.seek_relative(header_size as i64)?;
    let mut header = Vec::new();
    while at < len {
        if len - at < 4 {
            // A truncated block size: the decoder says so from the last bytes.
            return Ok(Walk::End(len));
        }
        let size = read_u32(reader)?;
        if size == 0 {
            // An empty block (four zero bytes): skip the run of zero bytes it starts.
            let Some(nonzero) = next_nonzero(reader, at + 4, len)? else {
                return Ok(Walk::End(at));
            };
            // The zero run is empty blocks up to the last whole one before the non-zero byte.
            at += 4 + (nonzero - at - 4) / 4 * 4;
            reader.seek(SeekFrom::Start(at))?;
            continue;
        }
        let size = u64::from(size);
        if size > len - at - 4 {
            return Ok(Walk::Fails(DecodeError::SizeExceeds {
                offset: offset_of(at),
                what: "BlockHeader",
                size,
                remaining: remaining(at + 4),
            }));
        }
        header.clear();
        reader.by_ref().take(size).read_to_end(&mut header)?;
        let header_end = at + 4 + size;
        let Some((payload_size, field_offset)) = payload_size(&header) else {
            // A header the decoder cannot parse: its error, from the bytes up to there.
            return Ok(Walk::End(header_end));
        };
        if payload_size > len - header_end {
            return Ok(Walk::Fails(DecodeError::SizeExceeds {
                offset: field_offset.map_or(offset_of(at + 4), |f| offset_of(at + 4 + f as u64)),
                what: "BlockHeader PayloadSize",
                size: payload_size,
                remaining: remaining(header_end),
            }));
        }
        at = header_end + payload_size;
        // The payload fits in the file, so its size fits in an i64.
        reader.seek_relative(payload_size as i64)?;
    }
    Ok(Walk::End(len))
}

/// A file offset as the decoder's `usize` offsets.
fn offset_of(at: u64) -> usize {
    usize::try_from(at).unwrap_or(usize::MAX)
}

fn read_u32(reader: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    reader.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// The offset of the first non-zero byte at or after `from` (and before `len`), reading on.
fn next_nonzero(reader: &mut impl BufRead, from: u64, len: u64) -> std::io::Result<Option<u64>> {
    let mut at = from;
    while at < len {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        if let Some(i) = buf.iter().position(|&b| b != 0) {
            return Ok(Some(at + i as u64));
        }
        let n = buf.len();
        reader.consume(n);
        at += n as u64;
    }
    Ok(None)
}

/// The PayloadSize (field 5) of an encoded BlockHeader, as the decoder reads it (the low 32 bits
/// of the last occurrence, 0 when absent), with the offset of its key in the header; `None`
/// when the header is not a well-formed message.
fn payload_size(header: &[u8]) -> Option<(u64, Option<usize>)> {
    let mut pos = 0usize;
    let mut found = (0u64, None);
    while pos < header.len() {
        let key_at = pos;
        let key = varint(header, &mut pos)?;
        match key & 7 {
            0 => {
                let value = varint(header, &mut pos)?;
                if key >> 3 == 5 {
                    found = (u64::from(value as u32), Some(key_at));
                }
            }
            1 => pos = pos.checked_add(8).filter(|&p| p <= header.len())?,
            2 => {
                let n = usize::try_from(varint(header, &mut pos)?).ok()?;
                pos = pos.checked_add(n).filter(|&p| p <= header.len())?;
            }
            5 => pos = pos.checked_add(4).filter(|&p| p <= header.len())?,
            _ => return None,
        }
    }
    Some(found)
}

/// A protobuf varint at `pos`, which moves past it.
fn varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        // The tenth byte may only give the top bit of a u64 (the decoder refuses more).
        if shift == 63 && b > 1 {
            return None;
        }
        value |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

/// Reads one `.ncu-rep` report.
pub(crate) fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    let source = path.display().to_string();
    let mut report = decode_file(path)?;
    let launches = std::mem::take(&mut report.launches);
    let names = report.names();

    // One column per metric name any launch has, created in name order (the raw page's order);
    // `columns[name id]` is the column and unit factor, `None` for names no launch uses or the
    // page never prints.
    let mut used = vec![false; names.len()];
    for launch in &launches {
        for m in &launch.metrics {
            if let Some(u) = used.get_mut(m.name.index()) {
                *u = true;
            }
        }
    }
    // The per-opcode columns are created among them, in the same name order (right after
    // `sass__inst_executed_per_opcode` itself, since `[` sorts before `_`).
    let mut opcodes = OpcodeColumns::collect(
        &launches,
        report.name_id(launch_table::SASS_OPCODE_METRIC),
        names,
    );
    let mut ordered: Vec<(&str, Slot)> = (0..names.len())
        .filter(|&i| used[i] && on_raw_page(&names[i]))
        .map(|i| (names[i].as_str(), Slot::Metric(i)))
        .chain(
            opcodes
                .names
                .iter()
                .enumerate()
                .map(|(k, name)| (name.as_str(), Slot::Opcode(k))),
        )
        .collect();
    ordered.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut table = WideTable::default();
    let mut columns: Vec<Option<(usize, f64, bool)>> = vec![None; names.len()];
    for (name, slot) in ordered {
        match slot {
            Slot::Metric(i) => {
                let role = metrics::raw_role(name);
                let column = table.metric_column(name, role, true);
                let numeric = role.is_some_and(role_is_numeric);
                columns[i] = Some((column, percent_factor(name), numeric));
            }
            Slot::Opcode(k) => opcodes.columns[k] = table.metric_column(name, None, true),
        }
    }

    let cc_ids = [
        report.name_id("device__attribute_compute_capability_major"),
        report.name_id("device__attribute_compute_capability_minor"),
    ];
    let mut rules = RulesBuilder::default();
    let mut rejected = Vec::new();
    let mut kernel_names: Vec<(usize, Option<String>)> = Vec::with_capacity(launches.len());
    // Whether ncu ran each launch with locked clocks (ClockStatus ExecutedLocked, 1 or 0): the
    // model's clock falls back to the base clock for such launches (`warpsight_model::clock`).
    let clocks_locked = launches
        .iter()
        .any(|l| l.clock_status.and_then(|c| c.executed_locked).is_some())
        .then(|| table.metric_column(launch_table::column_names::CLOCKS_LOCKED, None, true));
    for launch in launches {
        let row = table.add_row(launch.id as i64);
        if let Some(column) = clocks_locked {
            let locked = launch.clock_status.and_then(|c| c.executed_locked);
            table.set_metric(
                column,
                row,
                locked.map_or(Value::Null, |l| Value::Num(if l { 1.0 } else { 0.0 })),
            );
        }
        let mut ident = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                table.set_ident(name, row, &value);
            }
        };
        ident("Process ID", launch.process_id.map(|p| p.to_string()));
        ident(
            "Process Name",
            launch.process_display_name().map(str::to_string),
        );
        ident("Host Name", launch.host_name.clone());
        ident("Kernel Name", launch.kernel_name().map(str::to_string));
        ident("Context", launch.context_id.map(|c| c.to_string()));
        ident("Stream", launch.stream_id.map(|s| s.to_string()));
        ident("Block Size", launch.block.map(|b| b.to_csv()));
        ident("Grid Size", launch.grid.map(|g| g.to_csv()));
        ident("Device", launch.device.map(|d| d.to_string()));
        let cc = |id: Option<NameId>| {
            id.and_then(|id| launch.metric(id))
                .and_then(|m| m.value.as_ref())
                .and_then(RepValue::as_f64)
                .filter(|v| v.is_finite())
                .map(|v| v.round() as i64)
        };
        if let (Some(major), Some(minor)) = (cc(cc_ids[0]), cc(cc_ids[1])) {
            ident("CC", Some(format!("{major}.{minor}")));
        }
        for m in &launch.metrics {
            let Some(&Some((column, factor, numeric))) = columns.get(m.name.index()) else {
                continue;
            };
            let mut value = cell_value(m.value.as_ref(), factor);
            if numeric && let Value::Str(text) = &value {
                rejected.push(RejectedRow {
                    line: launch.id as u64 + 1,
                    reason: format!(
                        "launch {}: expected a number for `{}`, found `{text}` (value set to null)",
                        launch.id,
                        names[m.name.index()]
                    ),
                });
                value = Value::Null;
            }
            table.set_metric(column, row, value);
        }
        opcodes.fill_row(&launch, row, &mut table, &mut rejected);
        kernel_names.push((launch.id, launch.kernel_name().map(str::to_string)));
    }

    for rule in std::mem::take(&mut report.rules) {
        let kernel_name = kernel_names
            .binary_search_by_key(&rule.launch_id, |(id, _)| *id)
            .ok()
            .and_then(|i| kernel_names[i].1.clone());
        let speedup_type = rule
            .speedup
            .map(|s| s.kind.csv_code())
            .filter(|code| !code.is_empty())
            .map(str::to_string);
        rules.push(RuleRow {
            launch_id: rule.launch_id as i64,
            kernel_name,
            section: rule.section.unwrap_or_default(),
            rule_name: rule.rule_id,
            rule_type: rule.severity.csv_code().to_string(),
            description: rule.message,
            speedup_type,
            speedup: rule.speedup.and_then(|s| s.value).map(|v| v / 100.0),
        });
    }
    finish(
        path,
        config,
        table,
        rules,
        rejected,
        Format::NcuRep,
        &source,
    )
}

/// What a metric-column slot of the wide table is created for.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// The metric with this name id.
    Metric(usize),
    /// The per-opcode column with this index in [`OpcodeColumns::names`].
    Opcode(usize),
}

/// The per-opcode columns of one report: the instances of `sass__inst_executed_per_opcode`
/// ([`launch_table::SASS_OPCODE_METRIC`]) spread over one column per opcode.
///
/// The rule, documented in `docs/trace-schema.md` (*Per-opcode instruction counts*):
///
/// - an instance is attributed to an opcode when its correlation id is a string (the opcode name,
///   as NVIDIA's `ncu_report` gives it with `correlation_ids().as_string(i)`), leading and
///   trailing white space removed and not empty; a numeric or missing id names no opcode
///   (`ncu_report` gives no string for it either), so its value is left out of every column;
/// - a launch whose metric has at least one attributed instance has a breakdown: its cell in
///   every per-opcode column of the report is the sum of the values of that opcode's instances
///   (one instance per opcode in every report seen), 0 for an opcode it did not execute;
/// - a launch without the metric, or whose metric has no attributed instance, is null in every
///   per-opcode column (its instructions are not broken down, not 0);
/// - an instance value that is not a number (a string) makes that cell null, with a rejected-row
///   note, as a non-numeric value of a numeric known column does; NaN stays NaN.
#[derive(Debug, Default)]
struct OpcodeColumns {
    /// The metric's name id in the report (`None` when its string tables lack the name).
    metric: Option<NameId>,
    /// Column names (`sass__inst_executed_per_opcode[OPCODE]`), in opcode order.
    names: Vec<String>,
    /// The opcode of each column, in the same order.
    opcodes: Vec<String>,
    /// The index of each opcode in `opcodes` / `names`.
    index: HashMap<String, usize>,
    /// The wide-table column of each, set once the columns are created.
    columns: Vec<usize>,
    /// The cells of the row being filled (reused from launch to launch).
    counts: Vec<Option<f64>>,
}

impl OpcodeColumns {
    /// The opcodes of every launch's `metric` instances, in name order, except those whose
    /// column name is the name of a metric of the report (`metric_names`), which keeps its own
    /// column (no ncu metric name seen has a `[`: this only guards against mixing two sources in
    /// one column).
    fn collect(
        launches: &[Launch],
        metric: Option<NameId>,
        metric_names: &[String],
    ) -> OpcodeColumns {
        let mut found: BTreeSet<String> = BTreeSet::new();
        if let Some(id) = metric {
            for launch in launches {
                for (opcode, _) in opcode_instances(launch, id) {
                    if let Some(opcode) = opcode
                        && !found.contains(opcode)
                    {
                        found.insert(opcode.to_string());
                    }
                }
            }
        }
        found.retain(|opcode| {
            let column = launch_table::sass_opcode_column(opcode);
            let taken = metric_names.contains(&column);
            if taken {
                tracing::warn!(
                    %column,
                    "an ncu metric has the name of a per-opcode column; the per-opcode column is not made"
                );
            }
            !taken
        });
        let opcodes: Vec<String> = found.into_iter().collect();
        OpcodeColumns {
            metric,
            names: opcodes
                .iter()
                .map(|o| launch_table::sass_opcode_column(o))
                .collect(),
            index: opcodes
                .iter()
                .enumerate()
                .map(|(k, o)| (o.clone(), k))
                .collect(),
            columns: vec![0; opcodes.len()],
            counts: vec![None; opcodes.len()],
            opcodes,
        }
    }

    /// Fills row `row` of every per-opcode column from `launch` (see the rule above).
    fn fill_row(
        &mut self,
        launch: &Launch,
        row: usize,
        table: &mut WideTable,
        rejected: &mut Vec<RejectedRow>,
    ) {
        let Some(id) = self.metric else {
            return;
        };
        if self.names.is_empty() {
            return;
        }
        self.counts.fill(Some(0.0));
        let mut attributed = false;
        for (opcode, value) in opcode_instances(launch, id) {
            let Some(&k) = opcode.and_then(|o| self.index.get(o)) else {
                continue;
            };
            attributed = true;
            match value {
                Some(v) => self.counts[k] = self.counts[k].map(|sum| sum + v),
                None => {
                    if self.counts[k].is_some() {
                        rejected.push(RejectedRow {
                            line: launch.id as u64 + 1,
                            reason: format!(
                                "launch {}: expected a number for opcode `{}` of `{}` (value set to null)",
                                launch.id,
                                self.opcodes[k],
                                launch_table::SASS_OPCODE_METRIC
                            ),
                        });
                    }
                    self.counts[k] = None;
                }
            }
        }
        if !attributed {
            return;
        }
        for (k, count) in self.counts.iter().enumerate() {
            table.set_metric(self.columns[k], row, count.map_or(Value::Null, Value::Num));
        }
    }
}

/// The (opcode, value) pairs of the instances of metric `id` of `launch`: the opcode is the
/// correlation id when it is a non-empty string (trimmed), the value is `None` when it is not a
/// number. Empty when the launch lacks the metric or its instances.
fn opcode_instances(
    launch: &Launch,
    id: NameId,
) -> impl Iterator<Item = (Option<&str>, Option<f64>)> {
    let instances: Option<&Instances> = launch.metric(id).and_then(|m| m.instances.as_deref());
    instances.into_iter().flat_map(|inst| {
        let ids: &[Option<RepValue>] = match &inst.correlation_ids {
            Values::Mixed(ids) => ids,
            // Numeric ids only: no instance names an opcode.
            Values::Uint64(_) | Values::Double(_) => &[],
        };
        ids.iter().zip(inst.values.iter_f64()).map(|(id, value)| {
            let opcode = id
                .as_ref()
                .and_then(RepValue::as_str)
                .map(str::trim)
                .filter(|o| !o.is_empty());
            (opcode, value)
        })
    })
}

/// What `warpsight inspect` shows about a report beyond its launch table.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInfo {
    /// The report (FileHeader) version, 7.
    pub report_version: u32,
    /// The Nsight Compute version that wrote it, verbatim
    /// (e.g. `2025.3.1.0 (build 36398880) (public-release)`).
    pub ncu_version: Option<String>,
    /// Launches announced by the block headers.
    pub(crate) launches: usize,
    /// Device names of the session.
    pub(crate) devices: Vec<String>,
}

/// Reads only the report's headers (no launch is decoded): version, ncu version, launch count
/// and devices.
pub fn info(path: &Path) -> Result<ReportInfo, IngestError> {
    let bytes = report_bytes(path)?;
    let summary = warpsight_ncu_rep::summary(&bytes).map_err(|source| IngestError::NcuRep {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(ReportInfo {
        report_version: summary.report_version,
        ncu_version: summary.ncu_version,
        launches: summary.launch_count,
        devices: summary
            .devices
            .into_iter()
            .map(|d| d.name.unwrap_or_else(|| format!("device {}", d.ordinal)))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use polars::prelude::*;

    use super::*;

    #[test]
    fn percentages_become_fractions_like_the_raw_page_units() {
        assert_eq!(
            percent_factor("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            0.01
        );
        assert_eq!(
            percent_factor("sm__maximum_warps_per_active_cycle_pct"),
            0.01
        );
        assert_eq!(
            percent_factor("derived__pct_occupancy_per_register_count"),
            0.01
        );
        assert_eq!(
            percent_factor("derived__pct_occupancy_per_barrier_count"),
            1.0
        );
        assert_eq!(percent_factor("gpu__time_duration.sum"), 1.0);
    }

    #[test]
    fn stored_values_parse_like_page_cells() {
        assert_eq!(cell_value(None, 1.0), Value::Null);
        assert!(
            matches!(cell_value(Some(&RepValue::Double(f64::NAN)), 1.0), Value::Num(v) if v.is_nan())
        );
        assert!(matches!(units::parse_value("nan", 1.0), Value::Num(v) if v.is_nan()));
        assert_eq!(
            cell_value(Some(&RepValue::Double(f64::NEG_INFINITY)), 0.01),
            Value::Num(f64::NEG_INFINITY)
        );
        assert_eq!(
            cell_value(Some(&RepValue::Uint64(65)), 1.0),
            Value::Num(65.0)
        );
        assert_eq!(
            cell_value(Some(&RepValue::Double(50.0)), 0.01),
            Value::Num(0.5)
        );
        assert_eq!(
            cell_value(Some(&RepValue::String(Box::new("NVIDIA H100".into()))), 1.0),
            Value::Str("NVIDIA H100".into())
        );
        assert_eq!(
            cell_value(Some(&RepValue::String(Box::default())), 1.0),
            Value::Null
        );
    }

    /// A launch with `sass__inst_executed_per_opcode` (name id 0) instances `(id, value)`.
    fn launch_with(id: usize, instances: Vec<(Option<RepValue>, Option<RepValue>)>) -> Launch {
        let (mut ids, mut values): (Vec<_>, Vec<_>) = instances.into_iter().unzip();
        let column = |items: &mut Vec<Option<RepValue>>| {
            if items.iter().all(|v| matches!(v, Some(RepValue::Uint64(_)))) {
                Values::Uint64(items.iter().filter_map(|v| v.as_ref()?.as_u64()).collect())
            } else {
                Values::Mixed(std::mem::take(items).into_boxed_slice())
            }
        };
        Launch {
            id,
            metrics: vec![warpsight_ncu_rep::Metric {
                name: NameId(0),
                category: None,
                value: None,
                instances: Some(Box::new(Instances {
                    correlation_ids: column(&mut ids),
                    values: column(&mut values),
                })),
            }],
            ..Launch::default()
        }
    }

    fn text(s: &str) -> Option<RepValue> {
        Some(RepValue::String(Box::new(s.to_string())))
    }

    #[test]
    fn opcode_instances_become_columns_zero_when_absent_null_without_a_breakdown()
    -> Result<(), Box<dyn std::error::Error>> {
        let count = |n: u64| Some(RepValue::Uint64(n));
        let launches = vec![
            launch_with(0, vec![(text("FFMA"), count(10)), (text("IMAD"), count(4))]),
            // Padded and repeated names, a string value, a missing id.
            launch_with(
                1,
                vec![
                    (text(" IMAD "), count(1)),
                    (text("IMAD"), count(2)),
                    (text("BRA"), text("many")),
                    (None, count(99)),
                    (text(""), count(98)),
                ],
            ),
            // Numeric ids name no opcode: no breakdown.
            launch_with(2, vec![(count(0), count(7)), (count(1), count(8))]),
            // No such metric.
            Launch {
                id: 3,
                ..Launch::default()
            },
            launch_with(4, vec![(text("FFMA"), Some(RepValue::Double(f64::NAN)))]),
        ];
        let names = vec![launch_table::SASS_OPCODE_METRIC.to_string()];
        let mut opcodes = OpcodeColumns::collect(&launches, Some(NameId(0)), &names);
        assert_eq!(opcodes.opcodes, ["BRA", "FFMA", "IMAD"]);
        let mut table = WideTable::default();
        for k in 0..opcodes.names.len() {
            opcodes.columns[k] = table.metric_column(&opcodes.names[k], None, true);
        }
        let mut rejected = Vec::new();
        for launch in &launches {
            let row = table.add_row(launch.id as i64);
            opcodes.fill_row(launch, row, &mut table, &mut rejected);
        }
        assert_eq!(rejected.len(), 1, "{rejected:?}");
        assert!(rejected[0].reason.contains("`BRA`"), "{rejected:?}");
        let frame = table.finish("synthetic.ncu-rep", "ncu-rep")?;
        let cells = |opcode: &str| -> Result<Vec<Option<f64>>, PolarsError> {
            Ok(frame
                .column(&launch_table::sass_opcode_column(opcode))?
                .f64()?
                .iter()
                .collect())
        };
        assert_eq!(cells("FFMA")?[..4], [Some(10.0), Some(0.0), None, None]);
        assert!(cells("FFMA")?[4].is_some_and(f64::is_nan));
        assert_eq!(
            cells("IMAD")?,
            [Some(4.0), Some(3.0), None, None, Some(0.0)]
        );
        assert_eq!(cells("BRA")?, [Some(0.0), None, None, None, Some(0.0)]);
        Ok(())
    }

    #[test]
    fn an_opcode_column_named_like_a_metric_is_not_made() {
        let launches = vec![launch_with(
            0,
            vec![(text("FFMA"), Some(RepValue::Uint64(1)))],
        )];
        let names = vec![
            launch_table::SASS_OPCODE_METRIC.to_string(),
            launch_table::sass_opcode_column("FFMA"),
        ];
        let opcodes = OpcodeColumns::collect(&launches, Some(NameId(0)), &names);
        assert!(opcodes.names.is_empty());
        let none = OpcodeColumns::collect(&launches, None, &names);
        assert!(none.names.is_empty());
    }

    #[test]
    fn a_corrupt_report_is_an_error_naming_the_file_and_offset()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("cut.ncu-rep");
        // The magic, then a FileHeader size far beyond the end of the file.
        std::fs::write(&path, b"NVR\0\xff\xff\xff\x7f")?;
        let err = read(&path, &ReadConfig::default())
            .err()
            .ok_or("accepted")?;
        let text = format!(
            "{err}: {}",
            std::error::Error::source(&err).ok_or("source")?
        );
        assert!(
            text.contains("cut.ncu-rep") && text.contains("offset 4"),
            "{text}"
        );
        Ok(())
    }
}
