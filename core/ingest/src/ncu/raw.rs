//! Reader for Nsight Compute's `--csv --page raw` export (the "wide" page): a header, a units row,
//! then one record per launch with one column per raw metric (FORMATS.md §2).
//!
//! Each column's unit (from the units row) applies to the whole column. Identification columns are
//! the fixed ncu ones (see [`metrics::IDENT_COLUMNS`]); every other column is a metric, kept in
//! the launch table under its native (raw) name, also when it fills a known column. A value that
//! should be a number for a known column but is not is set to null and reported in
//! [`Trace::rejected`] (the rest of the launch is kept).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::csv_records::{self, Piece, Record, RecordReader, StreamConfig, TableContext};
use crate::ncu::details::{finish, role_is_numeric};
use crate::ncu::metrics::{self, Role};
use crate::ncu::table::{RulesBuilder, WideTable};
use crate::ncu::units::{self, Value};
use crate::trace::{RejectedRow, Trace};
use crate::{Format, IngestError, ReadConfig};

/// Column layout of one raw header.
struct Layout {
    id: usize,
    idents: Vec<(usize, String)>,
    metrics: Vec<MetricColumn>,
}

/// One metric column of the raw page.
struct MetricColumn {
    /// Position in the header.
    at: usize,
    /// The metric's raw name.
    name: String,
    /// The factor of the column's unit.
    factor: f64,
    /// The launch-table column the metric fills, if any.
    role: Option<Role>,
    /// Why the column's unit cannot fill that column (an unknown unit, or one of another kind).
    unit_problem: Option<String>,
}

fn validate(ctx: &TableContext) -> Option<String> {
    let missing: Vec<&str> = ["ID", "Kernel Name"]
        .into_iter()
        .filter(|n| ctx.column(n).is_none())
        .collect();
    (!missing.is_empty())
        .then(|| format!("a raw-page header with the columns {}", missing.join(", ")))
}

impl Layout {
    fn new(ctx: &TableContext) -> Option<Layout> {
        let id = ctx.column("ID")?;
        let units = ctx.units.as_deref().unwrap_or(&[]);
        let mut idents = Vec::new();
        let mut metrics = Vec::new();
        for (i, name) in ctx.header.iter().enumerate() {
            if i == id {
                continue;
            }
            if metrics::is_raw_ident_column(name) {
                idents.push((i, name.clone()));
            } else {
                let unit = units.get(i).map_or("", String::as_str);
                let role = metrics::raw_role(name);
                let problem = role.and_then(|role| units::unit_problem(unit, role.column));
                metrics.push(MetricColumn {
                    at: i,
                    name: name.clone(),
                    factor: units::unit_factor(unit),
                    role,
                    unit_problem: problem,
                });
            }
        }
        Some(Layout {
            id,
            idents,
            metrics,
        })
    }
}

/// One launch record of a piece.
struct RawRow {
    id: i64,
    idents: Vec<String>,
    values: Vec<Value>,
}

struct PieceOut {
    table: Arc<TableContext>,
    rows: Vec<RawRow>,
    rejected: Vec<RejectedRow>,
}

fn parse_piece(piece: Piece<'_>) -> PieceOut {
    let mut out = PieceOut {
        table: piece.table.clone(),
        rows: Vec::new(),
        rejected: Vec::new(),
    };
    let Some(layout) = Layout::new(&piece.table) else {
        return out;
    };
    let mut reader = RecordReader::new(piece.data, piece.first_line);
    let mut rec = Record::default();
    while reader.read(&mut rec) {
        let Some(id) = rec.get(layout.id).trim().parse::<i64>().ok() else {
            if rec.len() > 2 {
                out.rejected.push(RejectedRow {
                    line: rec.line,
                    reason: format!(
                        "expected an integer launch `ID`, found `{}`",
                        rec.get(layout.id)
                    ),
                });
            }
            continue;
        };
        // A row whose field count differs from the header's would put values under the wrong
        // metrics: it is rejected, never read shifted.
        if rec.len() != piece.table.header.len() {
            out.rejected.push(RejectedRow {
                line: rec.line,
                reason: format!(
                    "expected {} fields as in the header, found {} (the row is not used)",
                    piece.table.header.len(),
                    rec.len()
                ),
            });
            continue;
        }
        let mut values = Vec::with_capacity(layout.metrics.len());
        for MetricColumn {
            at: i,
            name,
            factor,
            role,
            unit_problem: problem,
        } in &layout.metrics
        {
            let value = units::parse_value(rec.get(*i), *factor);
            // A unit warpsight does not know (or of the wrong kind) would be read with the wrong
            // factor.
            if let (Value::Num(_), Some(problem)) = (&value, problem) {
                out.rejected.push(RejectedRow {
                    line: rec.line,
                    reason: format!(
                        "{problem} in the units row for column `{name}` (value set to null)"
                    ),
                });
                values.push(Value::Null);
                continue;
            }
            if let (Value::Str(text), Some(role)) = (&value, role)
                && role_is_numeric(*role)
            {
                out.rejected.push(RejectedRow {
                    line: rec.line,
                    reason: format!(
                        "expected a number in column `{name}`, found `{text}` (value set to null)"
                    ),
                });
                values.push(Value::Null);
                continue;
            }
            values.push(value);
        }
        out.rows.push(RawRow {
            id,
            idents: layout
                .idents
                .iter()
                .map(|(i, _)| rec.get(*i).to_string())
                .collect(),
            values,
        });
    }
    out
}

/// Reads one raw-page export.
pub(crate) fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_in_blocks(path, config, 0)
}

/// [`read`] with streamed blocks of `block_bytes` (0 for the driver's default), as
/// [`crate::ncu::details::read_in_blocks`].
pub(crate) fn read_in_blocks(
    path: &Path,
    config: &ReadConfig,
    block_bytes: usize,
) -> Result<Trace, IngestError> {
    let source = path.display().to_string();
    let mut table = WideTable::default();
    let mut rejected = Vec::new();
    let mut layouts: HashMap<usize, (Layout, Vec<usize>)> = HashMap::new();
    let mut merge = |piece: PieceOut| {
        let index = piece.table.index;
        if let std::collections::hash_map::Entry::Vacant(slot) = layouts.entry(index) {
            let Some(layout) = Layout::new(&piece.table) else {
                return;
            };
            let cols = layout
                .metrics
                .iter()
                .map(|m| table.metric_column(&m.name, m.role, true))
                .collect();
            slot.insert((layout, cols));
        }
        let Some((layout, cols)) = layouts.get(&index) else {
            return;
        };
        for row in piece.rows {
            let r = table.add_row(row.id);
            for ((_, name), value) in layout.idents.iter().zip(&row.idents) {
                table.set_ident(name, r, value);
            }
            for (col, value) in cols.iter().zip(row.values) {
                table.set_metric(*col, r, value);
            }
        }
        rejected.extend(piece.rejected);
    };
    csv_records::parse_ncu_file(
        path,
        StreamConfig {
            units_row: true,
            block_bytes,
        },
        validate,
        parse_piece,
        &mut merge,
    )?;
    finish(
        path,
        config,
        table,
        RulesBuilder::default(),
        rejected,
        Format::NcuRaw,
        &source,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch_table::column_names as lt;

    /// A Pascal-era raw page (old metric names, `Kernel Time`, thousands separators with two
    /// decimals, a `;` instance list) with console output in front.
    const PASCAL_RAW: &str = concat!(
        "==PROF== Connected to process 5\n",
        "vector add done\n",
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"device__attribute_compute_capability_major\",\"device__attribute_compute_capability_minor\",\"device__attribute_display_name\",\"dram__read_bytes\",\"gpu__time_duration\",\"launch__block_size\",\"launch__grid_size\",\"launch__registers_per_thread\",\"launch__shared_mem_per_block_static\",\"sm__inst_executed_per_pipe\"\n",
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Kbyte\",\"usecond\",\"\",\"\",\"register/thread\",\"Kbyte/block\",\"inst\"\n",
        "\"0\",\"5\",\"vecadd\",\"127.0.0.1\",\"vecAdd(float *, float *, float *, int)\",\"2023-Jan-05 10:00:00\",\"1\",\"7\",\"6.00\",\"1.00\",\"GeForce GTX 1080\",\"7.55\",\"2.72\",\"1,024.00\",\"1.00\",\"8.00\",\"0.00\",\"32.00; 32.00; 0.00\"\n",
        "\"1\",\"5\",\"vecadd\",\"127.0.0.1\",\"vecAdd(float *, float *, float *, int)\",\"2023-Jan-05 10:00:01\",\"1\",\"7\",\"6.00\",\"1.00\",\"GeForce GTX 1080\",\"1,007.55\",\"2.50\",\"1,024.00\",\"100.00\",\"8.00\",\"1.50\",\"32.00; 32.00; 0.00\"\n",
    );

    fn read_text(text: &str) -> Result<Trace, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("raw.csv");
        std::fs::write(&path, text)?;
        Ok(read(&path, &ReadConfig::default())?)
    }

    #[test]
    fn units_row_scales_whole_columns() -> Result<(), Box<dyn std::error::Error>> {
        let trace = read_text(PASCAL_RAW)?;
        let l = &trace.launches;
        assert_eq!(l.height(), 2);
        assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
        assert_eq!(l.column(lt::FORMAT)?.str()?.get(0), Some("ncu-raw"));
        // 7.55 Kbyte = 7550 bytes; "1,007.55" Kbyte = 1007550 bytes; 2.72 usecond = 2720 ns.
        assert_eq!(
            l.column(lt::DRAM_BYTES_READ)?.f64()?.get(1),
            Some(1_007_550.0)
        );
        assert!(
            (l.column(lt::DRAM_BYTES_READ)?.f64()?.get(0).ok_or("read")? - 7550.0).abs() < 1e-9
        );
        assert!((l.column(lt::DURATION_NS)?.f64()?.get(0).ok_or("dur")? - 2720.0).abs() < 1e-9);
        assert_eq!(l.column(lt::STATIC_SMEM_BYTES)?.i64()?.get(1), Some(1500));
        // Block size is a product here: x = 1024, y = z = 1.
        assert_eq!(l.column(lt::BLOCK_X)?.i64()?.get(0), Some(1024));
        assert_eq!(l.column(lt::BLOCK_Z)?.i64()?.get(0), Some(1));
        assert_eq!(l.column(lt::GRID_X)?.i64()?.get(1), Some(100));
        assert_eq!(l.column(lt::CC_MAJOR)?.i64()?.get(0), Some(6));
        assert_eq!(l.column(lt::CC_MINOR)?.i64()?.get(0), Some(1));
        assert_eq!(
            l.column(lt::DEVICE_NAME)?.str()?.get(0),
            Some("GeForce GTX 1080")
        );
        assert_eq!(
            l.column("sm__inst_executed_per_pipe")?.str()?.get(0),
            Some("32.00; 32.00; 0.00")
        );
        assert!(l.column(lt::START_NS)?.i64()?.get(1) > l.column(lt::START_NS)?.i64()?.get(0));
        Ok(())
    }

    #[test]
    fn a_non_numeric_known_value_is_nulled_and_reported() -> Result<(), Box<dyn std::error::Error>>
    {
        let text = PASCAL_RAW.replacen("\"8.00\",\"0.00\"", "\"eight\",\"0.00\"", 1);
        let trace = read_text(&text)?;
        assert_eq!(trace.rejected.len(), 1);
        assert_eq!(trace.rejected[0].line, 5);
        assert!(
            trace.rejected[0]
                .reason
                .contains("launch__registers_per_thread")
        );
        assert_eq!(
            trace
                .launches
                .column(lt::REGISTERS_PER_THREAD)?
                .i64()?
                .get(0),
            None
        );
        assert_eq!(
            trace
                .launches
                .column(lt::REGISTERS_PER_THREAD)?
                .i64()?
                .get(1),
            Some(8)
        );
        Ok(())
    }
}
