//! The wide table both Nsight Compute readers pivot into: one row per launch, one column builder
//! per identification column and per metric, turned into the launch table at the end.
//!
//! Metric builders store numbers in base units (one NaN bit pattern, `NULL`, marks a null, so
//! that ncu's own `nan` values stay NaN) and switch to strings only when a non-numeric value
//! appears; a column that mixes numbers and strings becomes a string column in
//! which the numbers are written in base units. Known columns are filled from the metrics that
//! have a `Role` (lowest priority present per row wins). A metric column named by ncu's native
//! metric name (every raw-page metric, and the details page's `Command line profiler metrics` rows)
//! is always kept as an extra column under that name, even when it also fills a known column, so
//! that both pages give the same native columns. A column named by a details display label
//! (`Section/Label`) is not repeated when it is the highest-priority source of a known column.

// Polars' hash map (foldhash) rather than std's (SipHash): these maps are looked up per record.
use polars::prelude::PlHashMap as HashMap;

use polars::prelude::*;
use rayon::prelude::*;

use crate::launch_table::{self, COLUMNS, ColumnType, column_names as lt};
use crate::ncu::metrics::{self, Role, dim};
use crate::ncu::units::Value;

/// The bit pattern of a null cell in [`ColumnBuilder`]: a quiet NaN with a payload no arithmetic
/// produces (arithmetic and parsing give the canonical NaN), so a metric whose value is NaN stays
/// NaN and an absent value stays null.
const NULL: f64 = f64::from_bits(0x7FF8_0000_5EED_0001);

/// Launches from which [`WideTable::unconformed`] builds the identification and known columns,
/// and frees the table, on rayon's pool (the extra metric columns always are): below, the tasks
/// cost more than they save, measured on the 71-report batch of `core/cli/benches/cores.rs`.
const PARALLEL_MIN_ROWS: usize = 4096;

/// Whether `v` is the null marker [`NULL`] (compared by bits: NaN equals nothing).
fn is_null(v: f64) -> bool {
    v.to_bits() == NULL.to_bits()
}

/// A column of metric values, indexed by row.
#[derive(Debug, Default)]
pub(crate) struct ColumnBuilder {
    nums: Vec<f64>,
    strs: Option<Vec<Option<String>>>,
}

impl ColumnBuilder {
    /// Stores `value` at `row` (rows may be set in any order; unset rows are null).
    pub(crate) fn set(&mut self, row: usize, value: Value) {
        if self.nums.len() <= row {
            self.nums.resize(row + 1, NULL);
        }
        match value {
            Value::Null => self.nums[row] = NULL,
            // A NaN from arithmetic has the canonical bits; only an exact NULL is a null.
            Value::Num(v) if is_null(v) => self.nums[row] = f64::NAN,
            Value::Num(v) => self.nums[row] = v,
            Value::Str(s) => {
                self.nums[row] = NULL;
                let strs = self.strs.get_or_insert_with(Vec::new);
                if strs.len() <= row {
                    strs.resize(row + 1, None);
                }
                strs[row] = Some(s);
            }
        }
    }

    /// The number at `row`, if any (NaN when the metric's value was NaN).
    pub(crate) fn num(&self, row: usize) -> Option<f64> {
        self.nums.get(row).copied().filter(|v| !is_null(*v))
    }

    /// The number at `row` if it is one a known column can use: not null and not NaN.
    pub(crate) fn usable_num(&self, row: usize) -> Option<f64> {
        self.num(row).filter(|v| !v.is_nan())
    }

    /// The string at `row`, if the column holds strings and this row is one.
    pub(crate) fn str(&self, row: usize) -> Option<&str> {
        self.strs
            .as_ref()
            .and_then(|s| s.get(row))
            .and_then(|s| s.as_deref())
    }

    /// True when any non-numeric value was stored.
    pub(crate) fn has_strings(&self) -> bool {
        self.strs.is_some()
    }

    fn to_column(&self, name: &str, rows: usize) -> Column {
        if self.has_strings() {
            let values: Vec<Option<String>> = (0..rows)
                .map(|r| {
                    self.str(r)
                        .map(str::to_string)
                        .or_else(|| self.num(r).map(|v| v.to_string()))
                })
                .collect();
            Column::new(name.into(), values)
        } else {
            let values: Vec<Option<f64>> = (0..rows).map(|r| self.num(r)).collect();
            Column::new(name.into(), values)
        }
    }
}

/// One metric column of the wide table.
#[derive(Debug)]
pub(crate) struct MetricColumn {
    /// The extra-column name (`Section/Metric` for details display labels, the native metric name
    /// for the raw page and for the details page's `Command line profiler metrics` rows).
    pub(crate) name: String,
    /// The known column it fills, if any.
    pub(crate) role: Option<Role>,
    /// True when `name` is ncu's native metric name: the column is then kept as an extra column
    /// even when it is the best source of a known column.
    pub(crate) native: bool,
    /// The values.
    pub(crate) values: ColumnBuilder,
}

/// The pivot target: rows are launches.
#[derive(Debug, Default)]
pub(crate) struct WideTable {
    launch_ids: Vec<i64>,
    idents: Vec<(String, Vec<Option<String>>)>,
    ident_index: HashMap<String, usize>,
    metrics: Vec<MetricColumn>,
    metric_index: HashMap<String, usize>,
}

impl WideTable {
    /// Number of rows (launches).
    pub(crate) fn rows(&self) -> usize {
        self.launch_ids.len()
    }

    /// Adds a row for a launch and returns its index.
    pub(crate) fn add_row(&mut self, launch_id: i64) -> usize {
        self.launch_ids.push(launch_id);
        self.launch_ids.len() - 1
    }

    /// Sets the identification column `name` (header name) of `row`.
    pub(crate) fn set_ident(&mut self, name: &str, row: usize, value: &str) {
        let idx = match self.ident_index.get(name) {
            Some(&i) => i,
            None => {
                self.idents.push((name.to_string(), Vec::new()));
                self.ident_index
                    .insert(name.to_string(), self.idents.len() - 1);
                self.idents.len() - 1
            }
        };
        let values = &mut self.idents[idx].1;
        if values.len() <= row {
            values.resize(row + 1, None);
        }
        values[row] = (!value.is_empty()).then(|| value.to_string());
    }

    /// The index of the metric column `name`, created with `role` if new. `native` says that
    /// `name` is ncu's native metric name (see [`MetricColumn::native`]).
    pub(crate) fn metric_column(&mut self, name: &str, role: Option<Role>, native: bool) -> usize {
        if let Some(&i) = self.metric_index.get(name) {
            return i;
        }
        self.metrics.push(MetricColumn {
            name: name.to_string(),
            role,
            native,
            values: ColumnBuilder::default(),
        });
        self.metric_index
            .insert(name.to_string(), self.metrics.len() - 1);
        self.metrics.len() - 1
    }

    /// Stores a metric value.
    pub(crate) fn set_metric(&mut self, column: usize, row: usize, value: Value) {
        self.metrics[column].values.set(row, value);
    }

    fn ident(&self, name: &str) -> Option<&Vec<Option<String>>> {
        self.ident_index.get(name).map(|&i| &self.idents[i].1)
    }

    fn ident_at(&self, name: &str, row: usize) -> Option<&str> {
        self.ident(name)
            .and_then(|v| v.get(row))
            .and_then(|v| v.as_deref())
    }

    /// The metric columns filling each known (or pseudo-) column, best priority first: in the
    /// order they were added, stably sorted by priority. One pass over the metrics, not one per
    /// known column.
    fn all_sources(&self) -> HashMap<&'static str, Vec<usize>> {
        let mut all: HashMap<&'static str, Vec<usize>> = HashMap::default();
        for (i, metric) in self.metrics.iter().enumerate() {
            if let Some(role) = metric.role {
                all.entry(role.column).or_default().push(i);
            }
        }
        for found in all.values_mut() {
            found.sort_by_key(|&i| self.metrics[i].role.map_or(u8::MAX, |r| r.priority));
        }
        all
    }

    fn first_num(&self, sources: &[usize], row: usize) -> Option<f64> {
        sources
            .iter()
            .find_map(|&i| self.metrics[i].values.usable_num(row))
    }

    /// Builds the launch table (brought to the launch-table schema as [`launch_table::conform`]
    /// brings it).
    pub(crate) fn finish(self, source_file: &str, format: &str) -> PolarsResult<DataFrame> {
        let rows = self.rows();
        let frame = self.unconformed(source_file, format)?;
        conform(&frame, rows)
    }

    /// The table's columns, with the source file and format, before [`conform`]. The columns are
    /// chosen here, in order ([`Part`]), and built on rayon's pool (those of a small table but
    /// its extra metrics on this thread); a large table is then freed there too, a metric or
    /// identification column per task (freeing 43,000 launches' kernel-name strings one by one
    /// was a serial tail of a 500 MB page's reading).
    fn unconformed(self, source_file: &str, format: &str) -> PolarsResult<DataFrame> {
        let rows = self.rows();
        let parts = self.parts();
        // The extra metric columns (thousands in a report) are always built on the pool; the
        // others only for a large table: a report's are built faster on this thread, which is
        // one of the threads reading a batch's reports ahead.
        let extras = parts
            .iter()
            .position(|part| matches!(part, Part::ExtraMetric(..)))
            .unwrap_or(parts.len());
        let (head, tail) = parts.split_at(extras);
        let build = |part: &Part<'_>| self.build(part, rows);
        let mut columns: Vec<Vec<Column>> = if rows >= PARALLEL_MIN_ROWS {
            head.par_iter().map(build).collect::<PolarsResult<_>>()?
        } else {
            head.iter().map(build).collect::<PolarsResult<_>>()?
        };
        let tail: Vec<Vec<Column>> = tail.par_iter().map(build).collect::<PolarsResult<_>>()?;
        columns.extend(tail);
        drop(parts);
        let mut columns: Vec<Column> = columns.into_iter().flatten().collect();
        // The source file and format, as `DataFrame::with_column` adds them (replacing a column
        // of the same name), without the two schemas of thousands of columns it derives.
        for (name, value) in [(lt::SOURCE_FILE, source_file), (lt::FORMAT, format)] {
            let value = Scalar::new(DataType::String, AnyValue::StringOwned(value.into()));
            let column = Column::new_scalar(name.into(), value, rows);
            match columns.iter_mut().find(|c| c.name().as_str() == name) {
                Some(same) => *same = column,
                None => columns.push(column),
            }
        }
        let frame = DataFrame::new(rows, columns)?;
        // A report's table (a few launches of thousands of metrics) is freed faster on this
        // thread than in thousands of tasks.
        if rows >= PARALLEL_MIN_ROWS {
            let WideTable {
                idents, metrics, ..
            } = self;
            rayon::join(
                || idents.into_par_iter().for_each(drop),
                || metrics.into_par_iter().for_each(drop),
            );
        }
        Ok(frame)
    }

    /// The launch table's columns before [`conform`], in their order: the identification
    /// columns, the dimensions, the known metric columns, then the extra identification and
    /// metric columns.
    fn parts(&self) -> Vec<Part<'_>> {
        let mut consumed = vec![false; self.metrics.len()];
        let all_sources = self.all_sources();
        let sources = |column: &str| all_sources.get(column).cloned().unwrap_or_default();
        let mut parts = vec![
            Part::LaunchIds,
            Part::IntIdent(lt::PROCESS_ID, "Process ID"),
            Part::StrIdent(lt::PROCESS_NAME, "Process Name"),
            Part::IntIdent(lt::CONTEXT, "Context"),
            Part::IntIdent(lt::STREAM, "Stream"),
            Part::IntIdent(lt::DEVICE_ORDINAL, "Device"),
            Part::KernelNames,
            Part::Start,
            Part::ComputeCapability([sources(dim::CC[0]), sources(dim::CC[1])]),
        ];
        // Dimensions (see `ncu_metrics` for the order of sources).
        for (ident, dims, product, names) in [
            (
                "Block Size",
                dim::BLOCK_DIM,
                dim::BLOCK_PRODUCT,
                [lt::BLOCK_X, lt::BLOCK_Y, lt::BLOCK_Z],
            ),
            (
                "Grid Size",
                dim::GRID_DIM,
                dim::GRID_PRODUCT,
                [lt::GRID_X, lt::GRID_Y, lt::GRID_Z],
            ),
        ] {
            parts.push(Part::Dimensions {
                ident,
                dims: dims.map(&sources),
                product: sources(product),
                names,
            });
        }
        // Known metric columns.
        for (name, ty) in COLUMNS {
            let sources = sources(name);
            let Some(&best) = sources.first() else {
                continue;
            };
            consumed[best] = true;
            parts.push(Part::Known(name, *ty, sources));
        }
        // Extra identification columns (Host Name, NVTX, ...), then extra metrics.
        const USED_IDENTS: &[&str] = &[
            "ID",
            "Process ID",
            "Process Name",
            "Kernel Name",
            "Kernel Time",
            "Context",
            "Stream",
            "Block Size",
            "Grid Size",
            "Device",
            "CC",
        ];
        for (name, _) in &self.idents {
            if !USED_IDENTS.contains(&name.as_str()) && !launch_table::is_known_column(name) {
                parts.push(Part::ExtraIdent(name));
            }
        }
        // The extra metric columns and their names are chosen here (any warning is logged on
        // this thread, in the reading's span).
        for (i, metric) in self.metrics.iter().enumerate() {
            if !metric.native && consumed[i] {
                continue;
            }
            if !launch_table::is_known_column(&metric.name) {
                parts.push(Part::ExtraMetric(
                    &metric.values,
                    metric.name.as_str().into(),
                ));
            } else if metric.native {
                // Never dropped: the known columns are named so that this cannot happen for any
                // ncu metric seen so far (`launch_table::is_native_ncu_name`), so a new ncu name
                // that does collide is kept beside the known column, under a prefix.
                let name = format!("ncu:{}", metric.name);
                tracing::warn!(
                    metric = %metric.name,
                    column = %name,
                    "an ncu metric is named like a known launch-table column; kept under a prefix"
                );
                parts.push(Part::ExtraMetric(&metric.values, name.into()));
            }
        }
        parts
    }

    /// The columns of `part`.
    fn build(&self, part: &Part<'_>, rows: usize) -> PolarsResult<Vec<Column>> {
        let int_ident = |name: &str| -> Vec<Option<i64>> {
            (0..rows)
                .map(|r| {
                    self.ident_at(name, r).and_then(|v| {
                        let v = v.trim();
                        if v.contains(',') {
                            v.replace(',', "").parse().ok()
                        } else {
                            v.parse().ok()
                        }
                    })
                })
                .collect()
        };
        let str_ident = |name: &str| -> Vec<Option<&str>> {
            (0..rows).map(|r| self.ident_at(name, r)).collect()
        };
        Ok(match part {
            Part::LaunchIds => vec![Column::new(lt::LAUNCH_ID.into(), self.launch_ids.clone())],
            Part::IntIdent(column, ident) => vec![Column::new((*column).into(), int_ident(ident))],
            Part::StrIdent(column, ident) => vec![Column::new((*column).into(), str_ident(ident))],
            Part::KernelNames => {
                let names = str_ident("Kernel Name");
                // A launch's kernel mostly repeats the previous launch's.
                let mut previous: Option<(&str, &str)> = None;
                let short: Vec<Option<&str>> = names
                    .iter()
                    .map(|name| {
                        name.map(|name| match previous {
                            Some((last, short)) if last == name => short,
                            _ => {
                                let short = crate::kernel_names::short_name(name);
                                previous = Some((name, short));
                                short
                            }
                        })
                    })
                    .collect();
                vec![
                    Column::new(lt::KERNEL_NAME.into(), names),
                    Column::new(lt::KERNEL_SHORT_NAME.into(), short),
                ]
            }
            Part::Start => {
                let start: Vec<Option<i64>> = (0..rows)
                    .map(|r| {
                        self.ident_at("Kernel Time", r)
                            .and_then(metrics::parse_kernel_time)
                    })
                    .collect();
                vec![Column::new(lt::START_NS.into(), start)]
            }
            // Compute capability: the `CC` column, else the device attributes.
            Part::ComputeCapability(cc_sources) => {
                let mut cc = [Vec::with_capacity(rows), Vec::with_capacity(rows)];
                for r in 0..rows {
                    let parsed = self.ident_at("CC", r).and_then(metrics::parse_cc);
                    for (k, slot) in cc.iter_mut().enumerate() {
                        let from_ident = parsed.map(|p| if k == 0 { p.0 } else { p.1 });
                        slot.push(from_ident.or_else(|| {
                            self.first_num(&cc_sources[k], r).map(|v| v.round() as i64)
                        }));
                    }
                }
                let [cc_major, cc_minor] = cc;
                vec![
                    Column::new(lt::CC_MAJOR.into(), cc_major),
                    Column::new(lt::CC_MINOR.into(), cc_minor),
                ]
            }
            Part::Dimensions {
                ident,
                dims,
                product,
                names,
            } => {
                let mut out: [Vec<Option<i64>>; 3] = Default::default();
                for r in 0..rows {
                    let triple = self
                        .ident_at(ident, r)
                        .and_then(metrics::parse_dim3)
                        .or_else(|| {
                            let xyz = dims.each_ref().map(|s| self.first_num(s, r));
                            match xyz {
                                [Some(x), Some(y), Some(z)] => {
                                    Some([x.round() as i64, y.round() as i64, z.round() as i64])
                                }
                                _ => self.first_num(product, r).map(|p| [p.round() as i64, 1, 1]),
                            }
                        });
                    for k in 0..3 {
                        out[k].push(triple.map(|t| t[k]));
                    }
                }
                out.into_iter()
                    .zip(names)
                    .map(|(values, name)| Column::new((*name).into(), values))
                    .collect()
            }
            Part::Known(name, ty, sources) => vec![match ty {
                ColumnType::Str => {
                    let values: Vec<Option<String>> = (0..rows)
                        .map(|r| {
                            sources.iter().find_map(|&i| {
                                let b = &self.metrics[i].values;
                                b.str(r)
                                    .map(str::to_string)
                                    .or_else(|| b.usable_num(r).map(|v| v.to_string()))
                            })
                        })
                        .collect();
                    Column::new((*name).into(), values)
                }
                ColumnType::I64 => {
                    let values: Vec<Option<i64>> = (0..rows)
                        .map(|r| self.first_num(sources, r).map(|v| v.round() as i64))
                        .collect();
                    Column::new((*name).into(), values)
                }
                ColumnType::F64 => {
                    let values: Vec<Option<f64>> =
                        (0..rows).map(|r| self.first_num(sources, r)).collect();
                    Column::new((*name).into(), values)
                }
            }],
            Part::ExtraIdent(name) => vec![Column::new((*name).into(), str_ident(name))],
            Part::ExtraMetric(values, name) => vec![values.to_column(name, rows)],
        })
    }
}

/// One or a few columns of the launch table that [`WideTable::unconformed`] builds, with what
/// their values come from (metric columns by index, best source first).
enum Part<'t> {
    /// The launch ids.
    LaunchIds,
    /// An integer identification column: its launch-table name and its header.
    IntIdent(&'static str, &'static str),
    /// A text identification column: its launch-table name and its header.
    StrIdent(&'static str, &'static str),
    /// The kernel names and their short names.
    KernelNames,
    /// The start time.
    Start,
    /// The compute capability's major and minor, from `CC` or these metrics.
    ComputeCapability([Vec<usize>; 2]),
    /// The three dimensions of the block or the grid: from the header `ident`, else from the
    /// metrics of each dimension, else from the product's.
    Dimensions {
        ident: &'static str,
        dims: [Vec<usize>; 3],
        product: Vec<usize>,
        names: [&'static str; 3],
    },
    /// A known metric column of this type.
    Known(&'static str, ColumnType, Vec<usize>),
    /// An extra identification column (Host Name, NVTX, ...).
    ExtraIdent(&'t str),
    /// An extra metric column under this name.
    ExtraMetric(&'t ColumnBuilder, std::borrow::Cow<'t, str>),
}

/// `frame` brought to the launch-table schema as [`launch_table::conform`] brings it, eagerly:
/// the known columns first (in `COLUMNS` order, cast to their types, the missing ones null), then
/// the extra columns in their order. A report's thousands of metric columns made a query plan of
/// thousands of expressions per report, planned and optimised for a selection and casts.
fn conform(frame: &DataFrame, rows: usize) -> PolarsResult<DataFrame> {
    // The frame's columns by name, looked up once (a report's table has thousands: deriving its
    // schema, and testing each column against every known name, were most of the cost).
    let by_name: PlHashMap<&str, usize> = frame
        .columns()
        .iter()
        .enumerate()
        .map(|(index, column)| (column.name().as_str(), index))
        .collect();
    let mut known = vec![false; frame.width()];
    let mut columns: Vec<Column> = Vec::with_capacity(frame.width() + COLUMNS.len());
    for (name, ty) in COLUMNS {
        let dtype = ty.dtype();
        columns.push(match by_name.get(name) {
            Some(&index) => {
                known[index] = true;
                frame.columns()[index].strict_cast(&dtype)?
            }
            None => Column::full_null((*name).into(), rows, &dtype),
        });
    }
    // The other columns, in their order: those whose name is not a known column's.
    columns.extend(
        frame
            .columns()
            .iter()
            .zip(&known)
            .filter(|(_, known)| !**known)
            .map(|(column, _)| column.clone()),
    );
    DataFrame::new(rows, columns)
}

/// The rules side table, built row by row (it is small: a few rules per launch).
#[derive(Debug, Default)]
pub(crate) struct RulesBuilder {
    launch_id: Vec<i64>,
    kernel_name: Vec<Option<String>>,
    section: Vec<String>,
    rule_name: Vec<String>,
    rule_type: Vec<String>,
    description: Vec<String>,
    speedup_type: Vec<Option<String>>,
    speedup: Vec<Option<f64>>,
}

/// One ncu rule row.
#[derive(Debug, Clone)]
pub(crate) struct RuleRow {
    /// Launch id.
    pub(crate) launch_id: i64,
    /// Kernel name of the launch.
    pub(crate) kernel_name: Option<String>,
    /// Section identifier.
    pub(crate) section: String,
    /// Rule name.
    pub(crate) rule_name: String,
    /// Rule type.
    pub(crate) rule_type: String,
    /// Rule text.
    pub(crate) description: String,
    /// `global` / `local`, or None.
    pub(crate) speedup_type: Option<String>,
    /// Estimated speedup as a fraction.
    pub(crate) speedup: Option<f64>,
}

impl RulesBuilder {
    /// Appends a rule.
    pub(crate) fn push(&mut self, row: RuleRow) {
        self.launch_id.push(row.launch_id);
        self.kernel_name.push(row.kernel_name);
        self.section.push(row.section);
        self.rule_name.push(row.rule_name);
        self.rule_type.push(row.rule_type);
        self.description.push(row.description);
        self.speedup_type.push(row.speedup_type);
        self.speedup.push(row.speedup);
    }

    /// The rules table with the columns of [`crate::trace::rules_col`].
    pub(crate) fn finish(self, source_file: &str) -> PolarsResult<DataFrame> {
        use crate::trace::rules_col as rc;
        let rows = self.launch_id.len();
        DataFrame::new(
            rows,
            vec![
                Column::new(rc::SOURCE_FILE.into(), vec![source_file.to_string(); rows]),
                Column::new(rc::LAUNCH_ID.into(), self.launch_id),
                Column::new(rc::KERNEL_NAME.into(), self.kernel_name),
                Column::new(rc::SECTION.into(), self.section),
                Column::new(rc::RULE_NAME.into(), self.rule_name),
                Column::new(rc::RULE_TYPE.into(), self.rule_type),
                Column::new(rc::DESCRIPTION.into(), self.description),
                Column::new(rc::SPEEDUP_TYPE.into(), self.speedup_type),
                Column::new(rc::ESTIMATED_SPEEDUP.into(), self.speedup),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `frame` as Arrow IPC bytes (schema and values, whatever the columns' chunks).
    fn ipc(frame: &DataFrame) -> PolarsResult<Vec<u8>> {
        let mut bytes = Vec::new();
        IpcWriter::new(&mut bytes).finish(&mut frame.clone())?;
        Ok(bytes)
    }

    /// A wide table of `rows` launches with identification columns, a metric filling a known
    /// column of each type, numeric, text and mixed extra metrics, NaN and nulls.
    fn table(rows: usize) -> WideTable {
        let mut table = WideTable::default();
        // Known columns that only metrics fill (not the identification columns).
        let roles = [lt::DEVICE_NAME, lt::NCU_BLOCK_LIMIT_SM, lt::INST_EXECUTED].map(|column| {
            Some(Role {
                column,
                priority: 0,
            })
        });
        for row in 0..rows {
            let r = table.add_row(row as i64 + 10);
            table.set_ident("Kernel Name", r, &format!("kernel_{}<float>(int)", row % 3));
            table.set_ident("Grid Size", r, "(4, 2, 1)");
            table.set_ident("Host Name", r, if row % 2 == 0 { "node" } else { "" });
            for (k, role) in roles.iter().enumerate() {
                let column = table.metric_column(&format!("role/{k}"), *role, false);
                table.set_metric(column, r, Value::Num(row as f64 * 1.5));
            }
            let numbers = table.metric_column("section/numbers", None, false);
            let value = match row % 3 {
                0 => Value::Num(f64::NAN),
                1 => Value::Null,
                _ => Value::Num(row as f64),
            };
            table.set_metric(numbers, r, value);
            let mixed = table.metric_column("sm__mixed.sum", None, true);
            let value = if row == 1 {
                Value::Str("CachePreferNone".into())
            } else {
                Value::Num(2.0)
            };
            table.set_metric(mixed, r, value);
        }
        table
    }

    #[test]
    fn the_eager_conform_gives_the_lazy_conforms_table() -> PolarsResult<()> {
        for rows in [0, 1, 5] {
            let frame = table(rows).unconformed("a.ncu-rep", "ncu-rep")?;
            let eager = conform(&frame, rows)?;
            let lazy = launch_table::conform(frame.lazy())?.collect()?;
            assert_eq!(eager.schema(), lazy.schema(), "{rows} rows");
            assert!(ipc(&eager)? == ipc(&lazy)?, "{rows} rows:\n{eager}\n{lazy}");
            assert_eq!(
                table(rows).finish("a.ncu-rep", "ncu-rep")?.schema(),
                lazy.schema()
            );
        }
        Ok(())
    }

    #[test]
    fn a_large_table_is_built_on_the_pool_as_a_small_one_on_its_thread() -> PolarsResult<()> {
        // The fixture's values depend on the row only: the first rows of a table large enough to
        // be built on the pool are the rows of a small one, built on the calling thread.
        let rows = PARALLEL_MIN_ROWS + 7;
        let large = table(rows).finish("a.ncu-rep", "ncu-rep")?;
        let small = table(7).finish("a.ncu-rep", "ncu-rep")?;
        assert_eq!(large.height(), rows);
        assert_eq!(large.schema(), small.schema());
        // Value by value (a slice's Arrow IPC bytes are not a small table's; NaN equals nothing).
        for (large, small) in large.columns().iter().zip(small.columns()) {
            for row in 0..7 {
                let (a, b) = (large.get(row)?, small.get(row)?);
                assert_eq!(a.to_string(), b.to_string(), "{} row {row}", large.name());
            }
        }
        Ok(())
    }
}
