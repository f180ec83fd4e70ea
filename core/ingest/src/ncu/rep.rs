//! Reader for Nsight Compute report files (`ncu -o report` → `report.ncu-rep`, report version 7),
//! decoded by the polars-free `warpsight-ncu-rep` crate (in parallel over the report's results).
//!
//! Each launch becomes the row the raw page (`ncu --import report.ncu-rep --csv --page raw
//! --print-units base`) of the same report gives, because it goes through the raw reader's path:
//! the same [`WideTable`], the same identification columns, and every metric under its native
//! name with the raw reader's role ([`metrics::raw_role`]). What the CSV page adds on the way is
//! reproduced here:
//!
//! - units: the report stores values in the metric's own unit; the raw page labels percentages
//!   `%` (and `%/register`, `%/byte`), which warpsight stores as fractions, so every metric whose
//!   name contains `pct` is scaled by 0.01, except the one the page prints without a unit
//!   ([`percent_factor`]); every other unit of the page is a base unit (factor 1);
//! - non-finite values: kept as the floats they are (the page prints `nan` / `inf`, which the raw
//!   reader also reads as floats), so a metric column with a NaN stays Float64;
//! - instance lists: the column holds the metric's aggregate value, as on the raw page; a metric
//!   with instances but no aggregate, or with neither, is null (an empty / `no data` cell);
//! - ncu's internal helper metrics `breakdown:*` and `group:*`, which no page prints, are dropped;
//! - metric columns are created in name order, the raw page's column order.
//!
//! Kernel names are the names the report stores (renamed, else demangled, else function, else
//! mangled name). The CSV pages print demangled names *simplified* (`(bool)0` → `0`,
//! `at::native::` → `at::`), a rewrite the report does not store and warpsight does not guess.
//!
//! Rule results become [`Trace::rules`] with the columns of the details reader's rule rows.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use warpsight_ncu_rep::{NameId, Report, Value as RepValue};

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
pub fn percent_factor(name: &str) -> f64 {
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
pub fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
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
    let mut ordered: Vec<usize> = (0..names.len())
        .filter(|&i| used[i] && on_raw_page(&names[i]))
        .collect();
    ordered.sort_unstable_by(|&a, &b| names[a].cmp(&names[b]));
    let mut table = WideTable::default();
    let mut columns: Vec<Option<(usize, f64, bool)>> = vec![None; names.len()];
    for i in ordered {
        let name = names[i].as_str();
        let role = metrics::raw_role(name);
        let column = table.metric_column(name, role, true);
        let numeric = role.is_some_and(role_is_numeric);
        columns[i] = Some((column, percent_factor(name), numeric));
    }

    let cc_ids = [
        report.name_id("device__attribute_compute_capability_major"),
        report.name_id("device__attribute_compute_capability_minor"),
    ];
    let mut rules = RulesBuilder::default();
    let mut rejected = Vec::new();
    let mut kernel_names: Vec<(usize, Option<String>)> = Vec::with_capacity(launches.len());
    for launch in launches {
        let row = table.add_row(launch.id as i64);
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

/// What `warpsight inspect` shows about a report beyond its launch table.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInfo {
    /// The report (FileHeader) version, 7.
    pub report_version: u32,
    /// The Nsight Compute version that wrote it, verbatim
    /// (e.g. `2025.3.1.0 (build 36398880) (public-release)`).
    pub ncu_version: Option<String>,
    /// Launches announced by the block headers.
    pub launches: usize,
    /// Device names of the session.
    pub devices: Vec<String>,
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
