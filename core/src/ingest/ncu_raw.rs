//! Reader for Nsight Compute's `--csv --page raw` export (the "wide" page): a header, a units row,
//! then one record per launch with one column per raw metric (FORMATS.md §2).
//!
//! Each column's unit (from the units row) applies to the whole column. Identification columns are
//! the fixed ncu ones (see [`ncu_metrics::IDENT_COLUMNS`]); every other column is a metric, named
//! by its raw name in the launch table when it fills no known column. A value that should be a
//! number for a known column but is not is set to null and reported in [`Trace::rejected`] (the
//! rest of the launch is kept).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::csv_records::{self, Piece, Record, RecordReader, StreamConfig, TableContext};
use super::ncu_details::{finish, role_is_numeric};
use super::ncu_metrics::{self, Role};
use super::ncu_table::{RulesBuilder, WideTable};
use super::ncu_units::{self, Value};
use super::{Format, IngestError, ReadConfig};
use crate::trace::{RejectedRow, Trace};

/// Column layout of one raw header.
struct Layout {
    id: usize,
    idents: Vec<(usize, String)>,
    /// (header position, raw name, unit factor, role).
    metrics: Vec<(usize, String, f64, Option<Role>)>,
}

fn validate(ctx: &TableContext) -> Option<String> {
    let missing: Vec<&str> = ["ID", "Kernel Name"].into_iter().filter(|n| ctx.column(n).is_none()).collect();
    (!missing.is_empty()).then(|| format!("a raw-page header with the columns {}", missing.join(", ")))
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
            if ncu_metrics::is_raw_ident_column(name) {
                idents.push((i, name.clone()));
            } else {
                let unit = units.get(i).map_or("", String::as_str);
                metrics.push((i, name.clone(), ncu_units::unit_factor(unit), ncu_metrics::raw_role(name)));
            }
        }
        Some(Layout { id, idents, metrics })
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
    let mut out = PieceOut { table: piece.table.clone(), rows: Vec::new(), rejected: Vec::new() };
    let Some(layout) = Layout::new(&piece.table) else { return out };
    let mut reader = RecordReader::new(piece.data, piece.first_line);
    let mut rec = Record::default();
    while reader.read(&mut rec) {
        let Some(id) = rec.get(layout.id).trim().parse::<i64>().ok() else {
            if rec.len() > 2 {
                out.rejected.push(RejectedRow {
                    line: rec.line,
                    reason: format!("expected an integer launch `ID`, found `{}`", rec.get(layout.id)),
                });
            }
            continue;
        };
        let mut values = Vec::with_capacity(layout.metrics.len());
        for (i, name, factor, role) in &layout.metrics {
            let value = ncu_units::parse_value(rec.get(*i), *factor);
            if let (Value::Str(text), Some(role)) = (&value, role)
                && role_is_numeric(*role)
            {
                out.rejected.push(RejectedRow {
                    line: rec.line,
                    reason: format!("expected a number in column `{name}`, found `{text}` (value set to null)"),
                });
                values.push(Value::Null);
                continue;
            }
            values.push(value);
        }
        out.rows.push(RawRow {
            id,
            idents: layout.idents.iter().map(|(i, _)| rec.get(*i).to_string()).collect(),
            values,
        });
    }
    out
}

/// Reads one raw-page export.
pub fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    let pieces = csv_records::parse_ncu_file(
        path,
        StreamConfig { units_row: true, block_bytes: 0 },
        validate,
        parse_piece,
    )?;
    let source = path.display().to_string();
    let mut table = WideTable::default();
    let mut rejected = Vec::new();
    let mut layouts: HashMap<usize, (Layout, Vec<usize>)> = HashMap::new();
    for piece in pieces {
        let index = piece.table.index;
        if !layouts.contains_key(&index) {
            let Some(layout) = Layout::new(&piece.table) else { continue };
            let cols = layout.metrics.iter().map(|(_, name, _, role)| table.metric_column(name, *role)).collect();
            layouts.insert(index, (layout, cols));
        }
        let Some((layout, cols)) = layouts.get(&index) else { continue };
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
    }
    finish(path, config, table, RulesBuilder::default(), rejected, Format::NcuRaw, &source)
}
