//! Reader for Nsight Compute's `--csv` details page (the default, "long" page): one record per
//! (launch, section, metric) plus one per rule result, pivoted to one row per launch.
//!
//! Header variants A–D, D′ and NVTX columns are handled by looking columns up by name (FORMATS.md
//! §1.1). Metric rows are keyed by (Section Name, Metric Name); rule rows (empty Metric Name) go to
//! [`Trace::rules`]. Unmapped metrics become extra columns named `"{Section Name}/{Metric Name}"`,
//! except the `Command line profiler metrics` rows (the `--metrics` requests), which are named by
//! their native metric name like the raw page's columns and are kept even when they fill a known
//! column.
//! The file is parsed in parallel pieces (see [`crate::csv_records::parse_ncu_file`]); each piece
//! interns its own (section, metric) keys and launches, and the pieces are merged in file order.
//!
//! ncu writes the records of one launch as one block. A launch id whose records come back after
//! another launch's (in the same table or in a later one: a file concatenated with itself, two
//! launches given the same id) is [`IngestError::DuplicateLaunchId`] naming both lines, never
//! merged into one launch; this is what the raw page gives for an id on two rows.

// Polars' hash map (foldhash) rather than std's (SipHash): these maps are looked up per record.
use polars::prelude::PlHashMap as HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::csv_records::{self, Piece, Record, RecordReader, StreamConfig, TableContext};
use crate::ncu::metrics::{self, Role};
use crate::ncu::table::{RuleRow, RulesBuilder, WideTable};
use crate::ncu::units::{self, UnitCache, Value};
use crate::trace::{RejectedRow, Trace};
use crate::{Format, IngestError, ReadConfig};

/// The section in which ncu prints the metrics requested with `--metrics`, one row per metric
/// with `Metric Name` = the native metric name. Its rows become launch-table columns named by
/// that native name, exactly as the raw page names them.
pub(crate) const COMMAND_LINE_SECTION: &str = "Command line profiler metrics";

/// Column positions of one details header.
#[derive(Debug)]
struct Layout {
    id: usize,
    section: usize,
    metric: usize,
    unit: usize,
    value: usize,
    rule_name: Option<usize>,
    rule_type: Option<usize>,
    rule_description: Option<usize>,
    speedup_type: Option<usize>,
    speedup: Option<usize>,
    /// Identification columns: (header position, header name).
    idents: Vec<(usize, String)>,
    kernel_name: Option<usize>,
}

const REQUIRED: &[&str] = &[
    "ID",
    "Kernel Name",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
];

fn validate(ctx: &TableContext) -> Option<String> {
    let missing: Vec<&str> = REQUIRED
        .iter()
        .copied()
        .filter(|name| ctx.column(name).is_none())
        .collect();
    (!missing.is_empty())
        .then(|| format!("a details header with the columns {}", missing.join(", ")))
}

impl Layout {
    fn new(ctx: &TableContext) -> Option<Layout> {
        let section = ctx.column("Section Name")?;
        let idents = ctx
            .header
            .iter()
            .enumerate()
            .filter(|(i, name)| {
                name.as_str() != "ID"
                    && (*i < section || metrics::IDENT_COLUMNS.contains(&name.as_str()))
            })
            .map(|(i, name)| (i, name.clone()))
            .collect();
        Some(Layout {
            id: ctx.column("ID")?,
            section,
            metric: ctx.column("Metric Name")?,
            unit: ctx.column("Metric Unit")?,
            value: ctx.column("Metric Value")?,
            rule_name: ctx.column("Rule Name"),
            rule_type: ctx.column("Rule Type"),
            rule_description: ctx.column("Rule Description"),
            speedup_type: ctx.column("Estimated Speedup Type"),
            speedup: ctx.column("Estimated Speedup"),
            idents,
            kernel_name: ctx.column("Kernel Name"),
        })
    }
}

/// A launch as first seen in a piece.
struct PieceLaunch {
    table: usize,
    id: i64,
    /// Physical line of the launch's first record in the piece.
    line: u64,
    idents: Vec<String>,
}

/// A launch id whose records come back after another launch's: (id, line of its first record,
/// line where it comes back). Nsight Compute writes each launch's records as one block.
type Repeat = (i64, u64, u64);

/// A rule row of a piece, before its kernel name is attached.
struct PieceRule {
    launch: u32,
    section: String,
    rule_name: String,
    rule_type: String,
    description: String,
    speedup_type: Option<String>,
    speedup: Option<f64>,
}

/// What one piece parses to.
struct PieceOut {
    table: Arc<TableContext>,
    launches: Vec<PieceLaunch>,
    keys: Vec<(String, String, Option<Role>)>,
    cells: Vec<(u32, u32, Value)>,
    rules: Vec<PieceRule>,
    rejected: Vec<RejectedRow>,
    noise_lines: usize,
    /// The launch of the piece's last record, whose block may go on in the next piece.
    last_launch: Option<u32>,
    /// The first launch id of the piece that comes back after another launch's records.
    repeat: Option<Repeat>,
}

/// True when a known column filled by `role` holds numbers.
pub(crate) fn role_is_numeric(role: Role) -> bool {
    crate::launch_table::COLUMNS
        .iter()
        .find(|(name, _)| *name == role.column)
        .is_none_or(|(_, ty)| *ty != crate::launch_table::ColumnType::Str)
}

/// True when `key` (`section\0metric`) is the key of `section` and `metric`.
fn is_key(key: &[u8], section: &[u8], metric: &[u8]) -> bool {
    key.len() == section.len() + 1 + metric.len()
        && key[..section.len()] == *section
        && key[section.len() + 1..] == *metric
}

fn parse_piece(piece: Piece<'_>) -> PieceOut {
    let mut out = PieceOut {
        table: piece.table.clone(),
        launches: Vec::new(),
        keys: Vec::new(),
        cells: Vec::new(),
        rules: Vec::new(),
        rejected: Vec::new(),
        noise_lines: 0,
        last_launch: None,
        repeat: None,
    };
    let Some(layout) = Layout::new(&piece.table) else {
        return out;
    };
    let mut reader = RecordReader::new(piece.data, piece.first_line);
    let mut rec = Record::default();
    let mut units = UnitCache::default();
    let mut key_index: HashMap<Vec<u8>, u32> = HashMap::default();
    let mut key_buf: Vec<u8> = Vec::with_capacity(128);
    // The `section\0metric` bytes of every key, by index, and the index guessed for the next record.
    let mut key_bytes: Vec<Vec<u8>> = Vec::new();
    let mut next_key: u32 = 0;
    let mut launch_index: HashMap<i64, u32> = HashMap::default();
    let mut last: Option<(Vec<u8>, u32)> = None;
    while reader.read(&mut rec) {
        let id_bytes = rec.bytes(layout.id);
        // Fast path: the same launch as the previous record.
        let launch = match &last {
            Some((bytes, idx)) if bytes.as_slice() == id_bytes => *idx,
            _ => {
                let Some(id) = std::str::from_utf8(id_bytes)
                    .ok()
                    .and_then(|s| s.trim().parse::<i64>().ok())
                else {
                    if rec.len() <= 2 {
                        // Application output or `==PROF==` lines between or after tables.
                        out.noise_lines += 1;
                    } else {
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
                let idx = match launch_index.get(&id) {
                    // The same launch spelled differently (` 0` after `0`): still its block.
                    Some(&idx) if last.as_ref().is_some_and(|(_, l)| *l == idx) => idx,
                    // The launch's records come back after another launch's: two launches share
                    // the id (files concatenated, or an edited export). The piece stops here; the
                    // reader turns the first such repeat into an error.
                    Some(&idx) => {
                        out.repeat = Some((id, out.launches[idx as usize].line, rec.line));
                        break;
                    }
                    None => {
                        out.launches.push(PieceLaunch {
                            table: piece.table.index,
                            id,
                            line: rec.line,
                            idents: layout
                                .idents
                                .iter()
                                .map(|(i, _)| rec.get(*i).to_string())
                                .collect(),
                        });
                        let idx = (out.launches.len() - 1) as u32;
                        launch_index.insert(id, idx);
                        idx
                    }
                };
                last = Some((id_bytes.to_vec(), idx));
                idx
            }
        };
        let metric = rec.bytes(layout.metric);
        if metric.is_empty() {
            let rule_name = rec.get_opt(layout.rule_name);
            if rule_name.is_empty() && rec.get_opt(layout.rule_description).is_empty() {
                out.rejected.push(RejectedRow {
                    line: rec.line,
                    reason:
                        "expected a metric (`Metric Name`) or a rule (`Rule Name`), found neither"
                            .into(),
                });
                continue;
            }
            let speedup_type = rec.get_opt(layout.speedup_type);
            out.rules.push(PieceRule {
                launch,
                section: rec.get(layout.section).to_string(),
                rule_name: rule_name.to_string(),
                rule_type: rec.get_opt(layout.rule_type).to_string(),
                description: rec.get_opt(layout.rule_description).to_string(),
                speedup_type: (!speedup_type.is_empty()).then(|| speedup_type.to_string()),
                speedup: units::parse_number(rec.get_opt(layout.speedup).trim()).map(|v| v / 100.0),
            });
            continue;
        }
        // Every launch lists its metrics in the same order: the key after the previous record's
        // is tried first, and the map only when that guess fails.
        let section_bytes = rec.bytes(layout.section);
        let key = match key_bytes.get(next_key as usize) {
            Some(guess) if is_key(guess, section_bytes, metric) => next_key,
            _ => {
                key_buf.clear();
                key_buf.extend_from_slice(section_bytes);
                key_buf.push(0);
                key_buf.extend_from_slice(metric);
                match key_index.get(key_buf.as_slice()) {
                    Some(&k) => k,
                    None => {
                        let section = rec.get(layout.section).to_string();
                        let metric = rec.get(layout.metric).to_string();
                        let role = metrics::details_role(&section, &metric);
                        out.keys.push((section, metric, role));
                        let k = (out.keys.len() - 1) as u32;
                        key_index.insert(key_buf.clone(), k);
                        key_bytes.push(key_buf.clone());
                        k
                    }
                }
            }
        };
        next_key = key + 1;
        let unit = rec.get(layout.unit);
        let factor = units.factor(unit);
        let value = units::parse_value(rec.get(layout.value), factor);
        let (section, metric_name, role) = &out.keys[key as usize];
        // A unit warpsight does not know (or of the wrong kind) would be read with the wrong
        // factor: the row is rejected, naming the unit.
        if let (Value::Num(_), Some(role)) = (&value, role)
            && let Some(problem) = units.problem(unit, role.column)
        {
            out.rejected.push(RejectedRow {
                line: rec.line,
                reason: format!("{problem} in `Metric Unit` for `{section}/{metric_name}`"),
            });
            continue;
        }
        if let (Value::Str(text), Some(role)) = (&value, role)
            && role_is_numeric(*role)
        {
            out.rejected.push(RejectedRow {
                line: rec.line,
                reason: format!("expected a number in `Metric Value` for `{section}/{metric_name}`, found `{text}`"),
            });
            continue;
        }
        out.cells.push((launch, key, value));
    }
    out.last_launch = last.map(|(_, idx)| idx);
    out
}

/// Reads one details-page export.
pub(crate) fn read(path: &Path, config: &ReadConfig) -> Result<Trace, IngestError> {
    read_in_blocks(path, config, 0)
}

/// [`read`] with streamed blocks of `block_bytes` (0 for the driver's default): the tests read
/// with small blocks, so that launches span blocks as well as pieces.
pub(crate) fn read_in_blocks(
    path: &Path,
    config: &ReadConfig,
    block_bytes: usize,
) -> Result<Trace, IngestError> {
    let source = path.display().to_string();
    let mut table = WideTable::default();
    let mut rules = RulesBuilder::default();
    let mut rejected = Vec::new();
    // Every launch id seen so far: its launch-table row and the line of its first record.
    let mut rows: HashMap<i64, (usize, u64)> = HashMap::default();
    // The kernel name of every launch-table row, as its launch's first record gives it: a rule
    // row takes its launch's, whichever piece the rule row is in.
    let mut row_kernels: Vec<Option<String>> = Vec::new();
    let mut columns: HashMap<(String, String), usize> = HashMap::default();
    let mut noise = 0usize;
    // The (table, id) of the previous piece's last record: the next piece may go on with its
    // block. Any other launch id seen before is a second launch with that id.
    let mut previous_last: Option<(usize, i64)> = None;
    let mut repeat: Option<Repeat> = None;
    let mut merge = |piece: PieceOut| {
        noise += piece.noise_lines;
        if repeat.is_some() {
            return;
        }
        let Some(layout) = Layout::new(&piece.table) else {
            return;
        };
        let across = piece.launches.iter().enumerate().find_map(|(i, l)| {
            let &(_, first_line) = rows.get(&l.id)?;
            let continues = i == 0 && previous_last == Some((l.table, l.id));
            (!continues).then_some((l.id, first_line, l.line))
        });
        // The earliest of the repeats found across pieces and inside this piece.
        if let Some(found) = [across, piece.repeat]
            .into_iter()
            .flatten()
            .min_by_key(|r| r.2)
        {
            repeat = Some(found);
            return;
        }
        if let Some(last) = piece.last_launch {
            let launch = &piece.launches[last as usize];
            previous_last = Some((launch.table, launch.id));
        }
        let kernel_slot = layout
            .kernel_name
            .and_then(|k| layout.idents.iter().position(|(i, _)| *i == k));
        let key_cols: Vec<usize> = piece
            .keys
            .iter()
            .map(|(section, metric, role)| {
                *columns
                    .entry((section.clone(), metric.clone()))
                    .or_insert_with(|| {
                        if section == COMMAND_LINE_SECTION {
                            table.metric_column(metric, *role, true)
                        } else {
                            table.metric_column(&format!("{section}/{metric}"), *role, false)
                        }
                    })
            })
            .collect();
        let launch_rows: Vec<usize> = piece
            .launches
            .iter()
            .map(|l| {
                rows.entry(l.id)
                    .or_insert_with(|| {
                        let row = table.add_row(l.id);
                        for ((_, name), value) in layout.idents.iter().zip(&l.idents) {
                            table.set_ident(name, row, value);
                        }
                        row_kernels.push(kernel_slot.map(|k| l.idents[k].clone()));
                        (row, l.line)
                    })
                    .0
            })
            .collect();
        for (launch, key, value) in piece.cells {
            table.set_metric(key_cols[key as usize], launch_rows[launch as usize], value);
        }
        for rule in piece.rules {
            let launch = &piece.launches[rule.launch as usize];
            let row = launch_rows.get(rule.launch as usize);
            rules.push(RuleRow {
                launch_id: launch.id,
                kernel_name: row.and_then(|&row| row_kernels.get(row).cloned().flatten()),
                section: rule.section,
                rule_name: rule.rule_name,
                rule_type: rule.rule_type,
                description: rule.description,
                speedup_type: rule.speedup_type,
                speedup: rule.speedup,
            });
        }
        rejected.extend(piece.rejected);
    };
    csv_records::parse_ncu_file(
        path,
        StreamConfig {
            units_row: false,
            block_bytes,
        },
        validate,
        parse_piece,
        &mut merge,
    )?;
    if let Some((launch_id, first, again)) = repeat {
        return Err(IngestError::DuplicateLaunchId {
            path: path.to_path_buf(),
            launch_id,
            first: format!("line {first}"),
            again: format!("line {again}"),
        });
    }
    if noise > 0 {
        tracing::debug!(path = %path.display(), noise, "skipped non-CSV lines inside the table");
    }
    finish(
        path,
        config,
        table,
        rules,
        rejected,
        Format::NcuDetails,
        &source,
    )
}

/// Shared ending of both ncu readers: strictness, frame building, the trace.
pub(crate) fn finish(
    path: &Path,
    config: &ReadConfig,
    table: WideTable,
    rules: RulesBuilder,
    rejected: Vec<RejectedRow>,
    format: Format,
    source: &str,
) -> Result<Trace, IngestError> {
    if config.strict
        && let Some(first) = rejected.first()
    {
        return Err(IngestError::StrictRejected {
            path: path.to_path_buf(),
            line: first.line,
            reason: first.reason.clone(),
        });
    }
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    // The rules table is built beside the launch table (its texts are most of a page's bytes).
    let (launches, rules) = rayon::join(
        || table.finish(source, format.name()),
        || rules.finish(source),
    );
    let launches = launches.map_err(polars)?;
    let rules = rules.map_err(polars)?;
    let mut trace = Trace::empty(format);
    trace.launches = launches;
    trace.side.rules = rules;
    trace.rejected = rejected;
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hint as _;
    use crate::launch_table::column_names as lt;
    use crate::trace::rules_col;
    use polars::prelude::*;
    use std::path::Path;
    use warpsight_test_support::fixtures::SMALL_DETAILS;

    fn read_text(text: &str, config: &ReadConfig) -> Result<Trace, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("details.csv");
        std::fs::write(&path, text)?;
        Ok(read(&path, config)?)
    }

    fn f64_at(frame: &DataFrame, name: &str, row: usize) -> Option<f64> {
        frame.column(name).ok()?.f64().ok()?.get(row)
    }

    fn i64_at(frame: &DataFrame, name: &str, row: usize) -> Option<i64> {
        frame.column(name).ok()?.i64().ok()?.get(row)
    }

    #[test]
    fn variant_d_pivots_to_one_row_per_launch() -> Result<(), Box<dyn std::error::Error>> {
        let trace = read_text(SMALL_DETAILS, &ReadConfig::default())?;
        let l = &trace.launches;
        assert_eq!(l.height(), 2);
        assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
        assert_eq!(i64_at(l, lt::LAUNCH_ID, 1), Some(1));
        assert_eq!(l.column(lt::KERNEL_SHORT_NAME)?.str()?.get(0), Some("gemm"));
        assert_eq!(l.column(lt::FORMAT)?.str()?.get(0), Some("ncu-details"));
        assert_eq!(
            (i64_at(l, lt::BLOCK_X, 0), i64_at(l, lt::BLOCK_Y, 0)),
            (Some(128), Some(2))
        );
        assert_eq!(i64_at(l, lt::GRID_X, 0), Some(264));
        assert_eq!(
            (i64_at(l, lt::CC_MAJOR, 0), i64_at(l, lt::CC_MINOR, 0)),
            (Some(9), Some(0))
        );
        assert_eq!(i64_at(l, lt::REGISTERS_PER_THREAD, 0), Some(168));
        // 32.77 Kbyte (decimal prefix) is 32770 bytes; 62.50 % is 0.625; 6.75 us is 6750 ns.
        assert_eq!(i64_at(l, lt::SMEM_CONFIG_BYTES, 0), Some(32_770));
        assert!((f64_at(l, lt::NCU_THEORETICAL_OCCUPANCY, 0).ok_or("occ")? - 0.625).abs() < 1e-12);
        assert!((f64_at(l, lt::DURATION_NS, 0).ok_or("dur")? - 6750.0).abs() < 1e-9);
        assert_eq!(f64_at(l, lt::DURATION_NS, 1), Some(1920.0));
        assert_eq!(f64_at(l, lt::DRAM_BYTES_READ, 0), Some(1_048_576.0));
        // The two `Memory Throughput` metrics stay apart, each in its own base unit.
        assert!(
            (f64_at(l, "GPU Speed Of Light Throughput/Memory Throughput", 0).ok_or("sol")?
                - 0.1966)
                .abs()
                < 1e-12
        );
        assert_eq!(
            f64_at(l, "Memory Workload Analysis/Memory Throughput", 0),
            Some(1.5e9)
        );
        assert_eq!(
            l.column("Launch Statistics/Function Cache Configuration")?
                .str()?
                .get(1),
            Some("CachePreferNone")
        );
        assert_eq!(l.column("flop_count_sp.sum")?.null_count(), 2);
        // A `--metrics` request keeps its native name even when it fills a known column.
        assert_eq!(f64_at(l, "dram__bytes_read.sum", 0), Some(1_048_576.0));
        assert!(
            l.column("Command line profiler metrics/dram__bytes_read.sum")
                .is_err()
        );
        assert_eq!(l.column("Host Name")?.str()?.get(0), Some("127.0.0.1"));
        Ok(())
    }

    #[test]
    fn rule_rows_keep_their_text() -> Result<(), Box<dyn std::error::Error>> {
        let trace = read_text(SMALL_DETAILS, &ReadConfig::default())?;
        let rules = &trace.side.rules;
        assert_eq!(rules.height(), 1);
        assert_eq!(
            rules.column(rules_col::RULE_NAME)?.str()?.get(0),
            Some("TheoreticalOccupancy")
        );
        assert_eq!(
            rules.column(rules_col::DESCRIPTION)?.str()?.get(0),
            Some("See the \"Occupancy\" section,\nthen tune.")
        );
        assert_eq!(
            rules.column(rules_col::ESTIMATED_SPEEDUP)?.f64()?.get(0),
            Some(0.375)
        );
        assert_eq!(
            rules.column(rules_col::KERNEL_NAME)?.str()?.get(0),
            Some("void ns::gemm<float, 2>(T1, int)")
        );
        Ok(())
    }

    const VARIANT_A: &str = concat!(
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
        "\"0\",\"9\",\"cfd\",\"127.0.0.1\",\"cuda_compute_flux(int,int*)\",\"2020-Apr-09 15:38:19\",\"1\",\"7\",\"GPU Speed Of Light\",\"SM Frequency\",\"cycle/second\",\"1,278,900,375.94\"\n",
        "\"0\",\"9\",\"cfd\",\"127.0.0.1\",\"cuda_compute_flux(int,int*)\",\"2020-Apr-09 15:38:19\",\"1\",\"7\",\"GPU Speed Of Light\",\"Duration\",\"nsecond\",\"12192\"\n",
        "\"0\",\"9\",\"cfd\",\"127.0.0.1\",\"cuda_compute_flux(int,int*)\",\"2020-Apr-09 15:38:19\",\"1\",\"7\",\"Launch Statistics\",\"Block Size\",\"\",\"192\"\n",
        "\"0\",\"9\",\"cfd\",\"127.0.0.1\",\"cuda_compute_flux(int,int*)\",\"2020-Apr-09 15:38:19\",\"1\",\"7\",\"Launch Statistics\",\"Grid Size\",\"\",\"506\"\n",
        "\"0\",\"9\",\"cfd\",\"127.0.0.1\",\"cuda_compute_flux(int,int*)\",\"2020-Apr-09 15:38:19\",\"1\",\"7\",\"Occupancy\",\"Theoretical Active Warps per SM\",\"warp/cycle\",\"30\"\n",
    );

    #[test]
    fn variant_a_uses_kernel_time_and_product_dimensions() -> Result<(), Box<dyn std::error::Error>>
    {
        let trace = read_text(VARIANT_A, &ReadConfig::default())?;
        let l = &trace.launches;
        assert_eq!(l.height(), 1);
        assert_eq!(i64_at(l, lt::START_NS, 0), Some(1_586_446_699_000_000_000));
        assert_eq!(
            [
                i64_at(l, lt::BLOCK_X, 0),
                i64_at(l, lt::BLOCK_Y, 0),
                i64_at(l, lt::BLOCK_Z, 0)
            ],
            [Some(192), Some(1), Some(1)]
        );
        assert_eq!(i64_at(l, lt::GRID_X, 0), Some(506));
        assert_eq!(f64_at(l, lt::SM_CLOCK_HZ, 0), Some(1_278_900_375.94));
        assert_eq!(f64_at(l, lt::NCU_THEORETICAL_WARPS, 0), Some(30.0));
        assert_eq!(
            l.column(lt::KERNEL_SHORT_NAME)?.str()?.get(0),
            Some("cuda_compute_flux")
        );
        assert!(trace.side.rules.height() == 0);
        Ok(())
    }

    #[test]
    fn metrics_only_d_prime_and_nvtx_columns() -> Result<(), Box<dyn std::error::Error>> {
        let text = concat!(
            "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
            "\"3\",\"1\",\"a\",\"h\",\"<default>:step:none:none:none:none:none:none\",\"k(int)\",\"1\",\"7\",\"(64, 1, 1)\",\"(2, 2, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"sm__cycles_elapsed.avg\",\"cycle\",\"2,810.24\"\n",
        );
        let trace = read_text(text, &ReadConfig::default())?;
        let l = &trace.launches;
        assert_eq!(l.height(), 1);
        assert_eq!(f64_at(l, lt::SM_CYCLES_ELAPSED, 0), Some(2810.24));
        assert_eq!(i64_at(l, lt::GRID_Y, 0), Some(2));
        assert!(
            l.column("thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg")
                .is_ok()
        );
        Ok(())
    }

    #[test]
    fn variants_b_and_c_with_ragged_metric_rows() -> Result<(), Box<dyn std::error::Error>> {
        // Variant B: 15 header fields, metric rows of 13 (12 + the trailing comma), rule rows 15.
        let b = concat!(
            "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\"\n",
            "\"0\",\"1\",\"py\",\"h\",\"k(int)\",\"2022-Mar-01 01:02:03\",\"1\",\"7\",\"Launch Statistics\",\"Shared Memory Configuration Size\",\"byte\",\"135,168\",\n",
            "\"0\",\"1\",\"py\",\"h\",\"k(int)\",\"2022-Mar-01 01:02:03\",\"1\",\"7\",\"LaunchStats\",\"\",\"\",\"\",\"LaunchConfiguration\",\"WRN\",\"Grid is small.\"\n",
        );
        let trace = read_text(b, &ReadConfig::default())?;
        assert_eq!(
            i64_at(&trace.launches, lt::SMEM_CONFIG_BYTES, 0),
            Some(135_168)
        );
        assert_eq!(trace.side.rules.height(), 1);
        assert!(
            trace
                .side
                .rules
                .column(rules_col::ESTIMATED_SPEEDUP)?
                .f64()?
                .get(0)
                .is_none()
        );
        // Variant C: 18 header fields (Block Size, Grid Size, Device, CC), metric rows of 16.
        let c = concat!(
            "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\"\n",
            "\"5\",\"1\",\"py\",\"h\",\"k(int)\",\"1\",\"7\",\"(32, 16, 1)\",\"(8, 1, 1)\",\"1\",\"8.0\",\"Launch Statistics\",\"Block Size\",\"\",\"512\",\n",
        );
        let trace = read_text(c, &ReadConfig::default())?;
        let l = &trace.launches;
        // The identification column wins over the Launch Statistics product.
        assert_eq!(
            [i64_at(l, lt::BLOCK_X, 0), i64_at(l, lt::BLOCK_Y, 0)],
            [Some(32), Some(16)]
        );
        assert_eq!(i64_at(l, lt::DEVICE_ORDINAL, 0), Some(1));
        assert_eq!(i64_at(l, lt::CC_MAJOR, 0), Some(8));
        assert_eq!(i64_at(l, lt::START_NS, 0), None);
        Ok(())
    }

    #[test]
    fn two_header_blocks_keep_launches_apart() -> Result<(), Box<dyn std::error::Error>> {
        let second = VARIANT_A.replace("\"0\",\"9\"", "\"1\",\"9\"");
        let text = format!("{VARIANT_A}==PROF== rerun\n{second}");
        let trace = read_text(&text, &ReadConfig::default())?;
        assert_eq!(trace.launches.height(), 2);
        Ok(())
    }

    /// The error a duplicated id must give: (id, first line, line of the repeat).
    fn duplicate_of(text: &str) -> Result<(i64, String, String), Box<dyn std::error::Error>> {
        match read_text(text, &ReadConfig::default()) {
            Err(error) => {
                let error = *error.downcast::<IngestError>()?;
                let hinted = error.hint().is_some();
                match error {
                    IngestError::DuplicateLaunchId {
                        launch_id,
                        first,
                        again,
                        ..
                    } => {
                        assert!(hinted, "the duplicated id has no hint");
                        Ok((launch_id, first, again))
                    }
                    other => Err(format!("expected a duplicated launch id, got {other}").into()),
                }
            }
            Ok(trace) => Err(format!(
                "read {} launches, expected an error",
                trace.launches.height()
            )
            .into()),
        }
    }

    #[test]
    fn a_page_concatenated_with_itself_is_a_duplicated_launch_id()
    -> Result<(), Box<dyn std::error::Error>> {
        // The second copy's header (line 21) starts a new table whose first launch is id 0 again.
        let text = format!("{SMALL_DETAILS}{SMALL_DETAILS}");
        assert_eq!(
            duplicate_of(&text)?,
            (0, "line 4".to_string(), "line 22".to_string())
        );
        // The same with the second copy's header and noise removed: one table, id 0 comes back.
        let body: String = SMALL_DETAILS.split_inclusive('\n').skip(3).collect();
        let text = format!("{SMALL_DETAILS}{body}");
        assert_eq!(
            duplicate_of(&text)?,
            (0, "line 4".to_string(), "line 19".to_string())
        );
        Ok(())
    }

    #[test]
    fn a_launch_id_reused_by_another_kernel_is_a_duplicated_launch_id()
    -> Result<(), Box<dyn std::error::Error>> {
        // Launch 0's first record, given to another kernel after launch 1's records.
        let first_record = SMALL_DETAILS.lines().nth(3).ok_or("no record")?;
        let other = first_record.replace("void ns::gemm<float, 2>(T1, int)", "other(int)");
        let text = SMALL_DETAILS.replace(
            "==PROF== Disconnected",
            &format!("{other}\n==PROF== Disconnected"),
        );
        assert_eq!(
            duplicate_of(&text)?,
            (0, "line 4".to_string(), "line 18".to_string())
        );
        // The same id spelled with spaces inside its own block is the same launch.
        let spaced = SMALL_DETAILS.replacen("\"0\",\"7\"", "\" 0\",\"7\"", 2);
        assert_eq!(
            read_text(&spaced, &ReadConfig::default())?
                .launches
                .height(),
            2
        );
        Ok(())
    }

    /// A page of `launches` launches with `metrics` records each (one block per launch).
    fn long_page(launches: usize, metrics: usize) -> String {
        let mut text = String::from(SMALL_DETAILS.lines().nth(2).unwrap_or_default());
        text.push('\n');
        for id in 0..launches {
            for m in 0..metrics {
                text.push_str(&format!(
                    "\"{id}\",\"7\",\"p\",\"h\",\"k{id}(int)\",\"1\",\"7\",\"(128, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\",\"S\",\"m{m}\",\"\",\"{m}\",\n"
                ));
            }
        }
        text
    }

    #[test]
    fn launch_blocks_cut_between_parallel_pieces_stay_one_launch()
    -> Result<(), Box<dyn std::error::Error>> {
        // 8 workers cut the 0.8 MB into 8 pieces, nearly always inside a launch's 40 records: the
        // block goes on in the next piece and is the same launch.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(8).build()?;
        let text = long_page(250, 40);
        assert!(
            text.len() > 8 * (64 << 10),
            "{} bytes are not cut in 8 pieces",
            text.len()
        );
        // (Errors cross the pool as strings: `Box<dyn Error>` is not `Send`.)
        let trace =
            pool.install(|| read_text(&text, &ReadConfig::default()).map_err(|e| e.to_string()))?;
        assert_eq!(trace.launches.height(), 250);
        assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
        // Launch 3's first record again at the end, pieces away from its block.
        let again = text.lines().nth(1 + 3 * 40).ok_or("no record")?.to_string();
        let repeated = format!("{text}{again}\n");
        let repeat_line = format!("line {}", 2 + 250 * 40);
        let found = pool.install(|| duplicate_of(&repeated).map_err(|e| e.to_string()))?;
        assert_eq!(found, (3, format!("line {}", 2 + 3 * 40), repeat_line));
        Ok(())
    }

    /// One reading, for comparing readings byte for byte: the launch and rule tables as Arrow IPC
    /// (every float's bits, NaN payloads included) and the rejected rows; or the error's text.
    fn reading(path: &Path, format: Format, block: usize) -> Result<(Vec<u8>, String), String> {
        let read = match format {
            Format::NcuRaw => crate::ncu::raw::read_in_blocks,
            _ => read_in_blocks,
        };
        let trace = read(path, &ReadConfig::default(), block).map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        for frame in [&trace.launches, &trace.side.rules] {
            IpcWriter::new(&mut bytes)
                .finish(&mut frame.clone())
                .map_err(|e| e.to_string())?;
        }
        Ok((bytes, format!("{:?}", trace.rejected)))
    }

    /// Reads `path` on pools of 1, 2, 3 and 8 threads, with the default block and with `small`
    /// blocks, and checks that every reading is the same as on one thread; returns the number of
    /// readings compared.
    fn same_on_any_pool(
        path: &Path,
        format: Format,
        small: usize,
    ) -> Result<usize, Box<dyn std::error::Error>> {
        let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build();
        let reference = pool(1)?.install(|| reading(path, format, 0));
        let mut compared = 0;
        for (threads, block) in [(2, 0), (3, 0), (8, 0), (1, small), (3, small), (8, small)] {
            let other = pool(threads)?.install(|| reading(path, format, block));
            // The error or rejected rows, when they differ, say where.
            let summary = |r: &Result<(Vec<u8>, String), String>| {
                r.as_ref()
                    .map_or_else(|e| e.clone(), |(_, rejected)| rejected.clone())
                    .chars()
                    .take(300)
                    .collect::<String>()
            };
            assert!(
                other == reference,
                "{}: {threads} threads, block {block}: the reading differs from one thread's: {} \
                 against {}",
                path.display(),
                summary(&other),
                summary(&reference)
            );
            compared += 1;
        }
        Ok(compared)
    }

    /// Every file under `dir` (recursively) that is an Nsight Compute CSV page.
    fn ncu_pages(dir: &Path, found: &mut Vec<(std::path::PathBuf, Format)>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                ncu_pages(&path, found)?;
            } else if let Ok(format @ (Format::NcuDetails | Format::NcuRaw)) =
                crate::detect::detect(&path)
            {
                found.push((path, format));
            }
        }
        Ok(())
    }

    #[test]
    fn real_pages_read_the_same_on_any_thread_count_and_block_size()
    -> Result<(), Box<dyn std::error::Error>> {
        let mut pages = Vec::new();
        ncu_pages(&warpsight_test_support::paths::traces_dir(), &mut pages)?;
        if let Some(shared) = warpsight_test_support::paths::shared_traces() {
            ncu_pages(&shared, &mut pages)?;
        }
        assert!(
            pages.iter().any(|(_, f)| *f == Format::NcuDetails)
                && pages.iter().any(|(_, f)| *f == Format::NcuRaw),
            "no details and raw pages found in traces/"
        );
        for (path, format) in &pages {
            // Blocks of 40 000 bytes cut the larger pages into tens of blocks.
            same_on_any_pool(path, *format, 40_000)?;
        }
        Ok(())
    }

    #[test]
    fn launches_across_pieces_and_blocks_read_the_same_on_any_pool()
    -> Result<(), Box<dyn std::error::Error>> {
        // 0.8 MB of launches of 40 records and, after every seventh launch, a rule row with an
        // embedded newline (and another kernel name than its launch's first record: a rule takes
        // its launch's): blocks of 70 001 bytes and pieces of 64 KiB cut launches and rule texts
        // anywhere.
        let mut text = long_page(250, 40);
        let rule = SMALL_DETAILS
            .lines()
            .skip_while(|l| !l.contains("TheoreticalOccupancy"))
            .take(2)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            rule.contains('\n'),
            "the fixture's rule text has no embedded newline"
        );
        for id in (0..250).step_by(7) {
            let record = rule.replacen("\"0\"", &format!("\"{id}\""), 1);
            // After launch `id`'s last record: before the line of launch `id + 1`'s first.
            let at = text
                .find(&format!("\n\"{}\",\"7\",\"p\"", id + 1))
                .map_or(text.len(), |at| at + 1);
            text.insert_str(at, &format!("{record}\n"));
        }
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("long.csv");
        std::fs::write(&path, &text)?;
        let compared = same_on_any_pool(&path, Format::NcuDetails, 70_001)?;
        assert_eq!(compared, 6);
        let trace = read_in_blocks(&path, &ReadConfig::default(), 70_001)?;
        assert_eq!(trace.launches.height(), 250);
        assert_eq!(trace.side.rules.height(), 36);
        let kernels = trace.side.rules.column(rules_col::KERNEL_NAME)?.str()?;
        assert_eq!(
            (kernels.get(0), kernels.get(35)),
            (Some("k0(int)"), Some("k245(int)"))
        );
        assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
        Ok(())
    }

    #[test]
    fn crlf_line_endings_read_the_same() -> Result<(), Box<dyn std::error::Error>> {
        let trace = read_text(&SMALL_DETAILS.replace('\n', "\r\n"), &ReadConfig::default())?;
        assert_eq!(trace.launches.height(), 2);
        assert_eq!(
            trace.side.rules.column(rules_col::RULE_TYPE)?.str()?.get(0),
            Some("OPT")
        );
        Ok(())
    }

    #[test]
    fn bad_rows_are_counted_or_fail_with_strict() -> Result<(), Box<dyn std::error::Error>> {
        let text = format!(
            "{VARIANT_A}{}{}",
            "\"x1\",\"9\",\"cfd\",\"h\",\"k\",\"\",\"1\",\"7\",\"S\",\"M\",\"\",\"1\"\n",
            "\"0\",\"9\",\"cfd\",\"h\",\"k\",\"\",\"1\",\"7\",\"Launch Statistics\",\"Registers Per Thread\",\"register/thread\",\"lots\"\n",
        );
        let trace = read_text(&text, &ReadConfig::default())?;
        assert_eq!(trace.rejected.len(), 2);
        assert_eq!(trace.rejected[0].line, 7);
        assert!(
            trace.rejected[0].reason.contains("`x1`"),
            "{}",
            trace.rejected[0].reason
        );
        assert!(trace.rejected[1].reason.contains("Registers Per Thread"));
        assert_eq!(trace.launches.height(), 1);
        let strict = ReadConfig {
            strict: true,
            format: None,
        };
        match read_text(&text, &strict).map_err(|e| e.to_string()) {
            Err(message) => assert!(message.contains("line 7"), "{message}"),
            Ok(_) => panic!("strict mode accepted a rejected row"),
        }
        Ok(())
    }

    #[test]
    fn a_header_without_metric_columns_is_malformed() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("bad.csv");
        std::fs::write(
            &path,
            "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\"\n\"0\",\"1\",\"k\",\"S\"\n",
        )?;
        match read(&path, &ReadConfig::default()) {
            Err(IngestError::Malformed { line, expected, .. }) => {
                assert_eq!(line, 1);
                assert!(expected.contains("Metric Value"), "{expected}");
            }
            other => panic!("expected Malformed, got {other:?}"),
        }
        Ok(())
    }
}
