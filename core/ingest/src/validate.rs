//! Validation of the launch table at ingest: the one place where each launch-table column's range
//! is checked, applied by [`crate::read_as`] to the output of every reader, and by
//! [`crate::read_batches`] to each batch of a table read in batches ([`validate_batch`], whose
//! rejected rows name the launch's row in the whole table).
//!
//! A launch with a value outside its column's range (registers per thread above 255, a grid or
//! block dimension below 1 or above CUDA's limits, shared memory above 256 KiB per block, a
//! negative or non-finite duration) is removed from the launch table and counted in the trace's
//! rejected rows, naming the launch-table row, the launch id and the column, and its ncu rule rows
//! (`Trace::rules`) are removed with it (the rejected row says how many); with `--strict` it is an
//! error instead. Null values pass: a reader leaves null what its export does not have. Nsight
//! Compute numbers its launches uniquely in one export, so a launch id seen twice in an ncu export
//! is an error. The ranges are documented in `docs/trace-schema.md`, *Validated ranges*.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use polars::prelude::*;

use crate::launch_table::column_names as lt;
use crate::trace::{RejectedRow, Trace, rules_col};
use crate::{Format, IngestError};

/// The largest number of registers a thread can have (255 on every architecture since Kepler).
pub const MAX_REGISTERS_PER_THREAD: i64 = 255;
/// The largest grid x dimension CUDA accepts (2^31 − 1).
pub const MAX_GRID_X: i64 = (1 << 31) - 1;
/// The largest grid y and z dimensions CUDA accepts.
pub const MAX_GRID_YZ: i64 = 65_535;
/// The largest block x and y dimensions, and the largest number of threads per block.
pub const MAX_BLOCK_THREADS: i64 = 1024;
/// The largest block z dimension CUDA accepts.
pub const MAX_BLOCK_Z: i64 = 64;
/// The largest shared memory per block accepted, bytes: 256 KiB, more than any GPU has (Hopper and
/// Blackwell have 228 KiB per SM).
pub const MAX_SMEM_BYTES: i64 = 256 * 1024;

/// An integer column and its inclusive range.
const INTEGER_RANGES: &[(&str, i64, i64)] = &[
    // Grid x is checked against 2^31 − 1 in `find_violations`: some ncu exports give only the
    // grid's product, stored as x with y = z = 1, which may legitimately exceed it.
    (lt::GRID_X, 1, i64::MAX),
    (lt::GRID_Y, 1, MAX_GRID_YZ),
    (lt::GRID_Z, 1, MAX_GRID_YZ),
    (lt::BLOCK_X, 1, MAX_BLOCK_THREADS),
    (lt::BLOCK_Y, 1, MAX_BLOCK_THREADS),
    (lt::BLOCK_Z, 1, MAX_BLOCK_Z),
    (lt::REGISTERS_PER_THREAD, 0, MAX_REGISTERS_PER_THREAD),
    (lt::STATIC_SMEM_BYTES, 0, MAX_SMEM_BYTES),
    (lt::DYNAMIC_SMEM_BYTES, 0, MAX_SMEM_BYTES),
    (lt::DRIVER_SMEM_BYTES, 0, MAX_SMEM_BYTES),
    (lt::SMEM_CONFIG_BYTES, 0, MAX_SMEM_BYTES),
];

/// Float columns that must be finite and at least 0.
const NON_NEGATIVE_FLOATS: &[&str] = &[lt::DURATION_NS];

/// Why a launch that ncu failed to profile is not used: ncu writes such a launch with grid
/// (0, 0, 0) and no counter value (every metric `nan`), for example when the kernel faulted or
/// its replay failed. [`RejectedRow::profiling_failed`] recognises its rejected rows by this text.
pub const PROFILING_FAILED: &str = "profiling failed in ncu (grid (0, 0, 0), no counter values)";

/// Why one launch is out of range: the column and what was found there.
#[derive(Debug, Clone, PartialEq)]
struct Violation {
    column: &'static str,
    detail: String,
}

/// Checks every launch of `trace` (read from `path` as `format`): out-of-range launches are
/// removed with their rule rows and added to `trace.rejected`, or, with `strict`, the first is an error; a duplicated
/// launch id in an Nsight Compute export is always an error.
pub(crate) fn validate(
    path: &Path,
    format: Format,
    mut trace: Trace,
    strict: bool,
) -> Result<Trace, IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let frame = &trace.launches;
    let launch_ids = frame
        .column(lt::LAUNCH_ID)
        .ok()
        .map(|c| c.i64().cloned())
        .transpose()
        .map_err(polars)?;
    if matches!(format, Format::NcuDetails | Format::NcuRaw | Format::NcuRep)
        && let Some(ids) = &launch_ids
    {
        let mut seen = HashMap::with_capacity(ids.len());
        for (row, id) in ids.iter().enumerate() {
            let Some(id) = id else { continue };
            if let Some(first) = seen.insert(id, row) {
                return Err(IngestError::DuplicateLaunchId {
                    path: path.to_path_buf(),
                    launch_id: id,
                    first: format!("launch-table row {}", first + 1),
                    again: format!("launch-table row {}", row + 1),
                });
            }
        }
    }
    let violations = find_violations(frame).map_err(polars)?;
    if violations.iter().all(Option::is_none) {
        return Ok(trace);
    }
    // The rule rows (ncu's advice) of each launch, so that a rejected launch takes its rule rows
    // with it: they describe a launch that is not in the table.
    let mut rules_per_launch: HashMap<i64, usize> = HashMap::new();
    if trace.side.rules.height() > 0
        && let Ok(column) = trace.side.rules.column(rules_col::LAUNCH_ID)
    {
        for id in column
            .cast(&DataType::Int64)
            .map_err(polars)?
            .i64()
            .map_err(polars)?
            .iter()
            .flatten()
        {
            *rules_per_launch.entry(id).or_default() += 1;
        }
    }
    let Rejections {
        keep,
        rejected,
        ids: rejected_ids,
    } = rejections(
        path,
        launch_ids.as_ref(),
        violations,
        0,
        strict,
        &rules_per_launch,
    )?;
    let mask = BooleanChunked::from_iter_values("keep".into(), keep.into_iter());
    trace.launches = trace.launches.filter(&mask).map_err(polars)?;
    let removed_rules = remove_rules_of(&mut trace, &rejected_ids).map_err(polars)?;
    tracing::debug!(
        rejected = rejected.len(),
        removed_rules,
        "launches with values out of range"
    );
    trace.rejected.extend(rejected);
    Ok(trace)
}

/// Validates one batch of a launch table read in batches ([`crate::read_batches`]), whose first
/// row is row `first_row` (0-based) of the file's whole launch table, so that the rejected rows
/// name the same launch-table rows as [`validate`] on the whole table. For the formats read in
/// batches: no rule rows, no duplicate-id check (nsys). Returns the batch without its
/// out-of-range launches and their rejected rows, or, with `strict`, the error for the first.
pub(crate) fn validate_batch(
    path: &Path,
    frame: DataFrame,
    first_row: u64,
    strict: bool,
) -> Result<(DataFrame, Vec<RejectedRow>), IngestError> {
    let polars = |source| IngestError::Polars {
        path: path.to_path_buf(),
        source,
    };
    let violations = find_violations(&frame).map_err(polars)?;
    if violations.iter().all(Option::is_none) {
        return Ok((frame, Vec::new()));
    }
    let launch_ids = frame
        .column(lt::LAUNCH_ID)
        .ok()
        .map(|c| c.i64().cloned())
        .transpose()
        .map_err(polars)?;
    let Rejections { keep, rejected, .. } = rejections(
        path,
        launch_ids.as_ref(),
        violations,
        first_row,
        strict,
        &HashMap::new(),
    )?;
    let mask = BooleanChunked::from_iter_values("keep".into(), keep.into_iter());
    let frame = frame.filter(&mask).map_err(polars)?;
    tracing::debug!(
        rejected = rejected.len(),
        "launches with values out of range"
    );
    Ok((frame, rejected))
}

/// What [`rejections`] decides for the launches of a table.
struct Rejections {
    /// Whether each launch stays.
    keep: Vec<bool>,
    /// The rejected rows of the launches that go, in row order.
    rejected: Vec<RejectedRow>,
    /// Their launch ids.
    ids: HashSet<i64>,
}

/// The rejected row of every launch with a violation (rows numbered from `first_row` + 1), or,
/// with `strict`, the error for the first; `rules_per_launch` says how many rule rows go with a
/// launch id.
fn rejections(
    path: &Path,
    launch_ids: Option<&Int64Chunked>,
    violations: Vec<Option<Box<Violation>>>,
    first_row: u64,
    strict: bool,
    rules_per_launch: &HashMap<i64, usize>,
) -> Result<Rejections, IngestError> {
    let mut keep = Vec::with_capacity(violations.len());
    let mut rejected = Vec::new();
    let mut rejected_ids = HashSet::new();
    for (row, violation) in violations.into_iter().enumerate() {
        keep.push(violation.is_none());
        let Some(violation) = violation else { continue };
        let launch_id = launch_ids.and_then(|ids| ids.get(row));
        let row_number = first_row + row as u64 + 1;
        let profiling_failed = violation.detail == PROFILING_FAILED;
        if strict && profiling_failed {
            return Err(IngestError::ProfilingFailed {
                path: path.to_path_buf(),
                row: row_number,
                launch: launch_label(launch_id),
            });
        }
        if strict {
            return Err(IngestError::OutOfRange {
                path: path.to_path_buf(),
                row: row_number,
                launch: launch_label(launch_id),
                column: violation.column.to_string(),
                detail: violation.detail,
            });
        }
        let rules = launch_id
            .and_then(|id| rules_per_launch.get(&id))
            .copied()
            .unwrap_or(0);
        let rules_note = match rules {
            0 => String::new(),
            1 => " (its rule row is removed too)".to_string(),
            n => format!(" (its {n} rule rows are removed too)"),
        };
        let what = if profiling_failed {
            violation.detail
        } else {
            format!("`{}` {}", violation.column, violation.detail)
        };
        rejected.push(RejectedRow {
            line: row_number,
            reason: format!(
                "{}, launch-table row {row_number}: {what}{rules_note}",
                launch_label(launch_id),
            ),
        });
        rejected_ids.extend(launch_id);
    }
    Ok(Rejections {
        keep,
        rejected,
        ids: rejected_ids,
    })
}

/// Removes the rule rows of the launches `ids` from `trace.side.rules` and returns how many were
/// removed. Rule rows exist only in Nsight Compute exports, whose launch ids are unique (checked
/// before), so a launch id names one launch.
fn remove_rules_of(trace: &mut Trace, ids: &HashSet<i64>) -> PolarsResult<usize> {
    if ids.is_empty() || trace.side.rules.height() == 0 {
        return Ok(0);
    }
    let Ok(column) = trace.side.rules.column(rules_col::LAUNCH_ID) else {
        return Ok(0);
    };
    let column = column.cast(&DataType::Int64)?;
    let mask: BooleanChunked = column
        .i64()?
        .iter()
        .map(|id| Some(!id.is_some_and(|id| ids.contains(&id))))
        .collect();
    let before = trace.side.rules.height();
    trace.side.rules = trace.side.rules.filter(&mask)?;
    Ok(before - trace.side.rules.height())
}

/// `launch id 7`, or `launch without id` when the export has none.
fn launch_label(launch_id: Option<i64>) -> String {
    match launch_id {
        Some(id) => format!("launch id {id}"),
        None => "launch without id".to_string(),
    }
}

/// The first violation of every launch (row) of the launch table, `None` where it is valid (boxed:
/// a pointer per launch, most of them null, for millions of launches). The columns are read
/// column by column, or through [`Filled`] slices where a check needs several columns of a row: a
/// `ChunkedArray::get` per value cost 5–7 % of reading a 2 M-launch nsys export.
fn find_violations(frame: &DataFrame) -> PolarsResult<Vec<Option<Box<Violation>>>> {
    let mut out: Vec<Option<Box<Violation>>> = vec![None; frame.height()];
    let grid_columns = [lt::GRID_X, lt::GRID_Y, lt::GRID_Z].map(|name| int_column(frame, name));
    // A missing or null dimension counts as 1 (so a null is never the 0 below), a missing or null
    // size as 0.
    let grid = grid_columns
        .each_ref()
        .map(|values| filled_or(values.as_ref(), 1));
    // A launch ncu failed to profile: a grid of (0, 0, 0) and no measured duration. Said first,
    // so that its reason is the real one and not the grid's range. (A grid without all three
    // dimensions never matches: the missing one counts as 1.)
    let [x, y, z] = &grid;
    let duration = frame.column(lt::DURATION_NS).ok();
    for (row, slot) in out.iter_mut().enumerate() {
        if x.at(row) == 0
            && y.at(row) == 0
            && z.at(row) == 0
            && duration.is_none_or(|c| c.get(row).is_ok_and(|v| v.is_null()))
        {
            *slot = Some(Box::new(Violation {
                column: "grid",
                detail: PROFILING_FAILED.to_string(),
            }));
        }
    }
    for &(name, min, max) in INTEGER_RANGES {
        let Ok(column) = frame.column(name) else {
            continue;
        };
        let values = column.cast(&DataType::Int64)?;
        for (row, value) in values.i64()?.iter().enumerate() {
            if let Some(value) = value
                && !(min..=max).contains(&value)
                && out[row].is_none()
            {
                out[row] = Some(Box::new(Violation {
                    column: name,
                    detail: format!("= {value} is outside {min}–{max}"),
                }));
            }
        }
    }
    // The block's thread count, the grid and the shared memory are limited as a whole too.
    let block = [lt::BLOCK_X, lt::BLOCK_Y, lt::BLOCK_Z].map(|name| int_column(frame, name));
    let smem = [lt::STATIC_SMEM_BYTES, lt::DYNAMIC_SMEM_BYTES].map(|name| int_column(frame, name));
    let block = block.each_ref().map(|values| filled_or(values.as_ref(), 1));
    let smem = smem.each_ref().map(|values| filled_or(values.as_ref(), 0));
    let max_product = i128::from(MAX_GRID_X) * i128::from(MAX_GRID_YZ) * i128::from(MAX_GRID_YZ);
    for (row, slot) in out.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        let [x, y, z] = grid.each_ref().map(|values| values.at(row));
        // A product-only grid (y = z = 1) may reach (2^31 − 1) · 65535²; a shaped one may not
        // have x above 2^31 − 1. Every dimension is ≥ 1 here, and i128 cannot overflow.
        let product = i128::from(x) * i128::from(y) * i128::from(z);
        if (x > MAX_GRID_X && (y > 1 || z > 1)) || product > max_product {
            *slot = Some(Box::new(Violation {
                column: lt::GRID_X,
                detail: format!("= {x} is outside 1–{MAX_GRID_X} (grid {x} × {y} × {z})"),
            }));
            continue;
        }
        // Each dimension is within 1–1024 here, so the product cannot overflow.
        let threads: i64 = block.iter().map(|values| values.at(row)).product();
        if threads > MAX_BLOCK_THREADS {
            *slot = Some(Box::new(Violation {
                column: lt::BLOCK_X,
                detail: format!(
                    "× `{}` × `{}` = {threads} threads per block, above {MAX_BLOCK_THREADS}",
                    lt::BLOCK_Y,
                    lt::BLOCK_Z
                ),
            }));
            continue;
        }
        let bytes: i64 = smem.iter().map(|values| values.at(row)).sum();
        if bytes > MAX_SMEM_BYTES {
            *slot = Some(Box::new(Violation {
                column: lt::DYNAMIC_SMEM_BYTES,
                detail: format!(
                    "+ `{}` = {bytes} bytes of shared memory per block, above {MAX_SMEM_BYTES}",
                    lt::STATIC_SMEM_BYTES
                ),
            }));
        }
    }
    for &name in NON_NEGATIVE_FLOATS {
        let Ok(column) = frame.column(name) else {
            continue;
        };
        let values = column.cast(&DataType::Float64)?;
        for (row, value) in values.f64()?.iter().enumerate() {
            if let Some(value) = value
                && !(value.is_finite() && value >= 0.0)
                && out[row].is_none()
            {
                out[row] = Some(Box::new(Violation {
                    column: name,
                    detail: format!("= {value} is not a finite number ≥ 0"),
                }));
            }
        }
    }
    Ok(out)
}

/// The values of a column that may be missing, nulls (and a missing column) replaced by `default`.
fn filled_or(values: Option<&IntValues>, default: i64) -> Filled<'_> {
    match values {
        Some(values) => values.filled(default),
        None => Filled::Constant(default),
    }
}

/// An integer column's values with its nulls replaced by a default, read by row number: the
/// column's own buffer where it is one chunk without nulls, else a copy.
enum Filled<'a> {
    Constant(i64),
    Rows(std::borrow::Cow<'a, [i64]>),
}

impl Filled<'_> {
    #[inline]
    fn at(&self, row: usize) -> i64 {
        match self {
            Filled::Constant(value) => *value,
            Filled::Rows(values) => values[row],
        }
    }
}

/// The values of an integer launch-table column: one value for a constant (scalar) column, which
/// is not materialised, or one per launch.
enum IntValues {
    Constant(Option<i64>),
    Rows(Int64Chunked),
}

impl IntValues {
    /// The values with nulls replaced by `default` ([`Filled`]).
    fn filled(&self, default: i64) -> Filled<'_> {
        match self {
            IntValues::Constant(value) => Filled::Constant(value.unwrap_or(default)),
            IntValues::Rows(values) => match values.cont_slice() {
                Ok(slice) => Filled::Rows(std::borrow::Cow::Borrowed(slice)),
                Err(_) => Filled::Rows(std::borrow::Cow::Owned(
                    values.iter().map(|v| v.unwrap_or(default)).collect(),
                )),
            },
        }
    }
}

/// An integer launch-table column, when present and of integer type.
fn int_column(frame: &DataFrame, name: &str) -> Option<IntValues> {
    let column = frame.column(name).ok()?.cast(&DataType::Int64).ok()?;
    if let Column::Scalar(scalar) = &column {
        return Some(IntValues::Constant(match scalar.scalar().value() {
            AnyValue::Int64(value) => Some(*value),
            _ => None,
        }));
    }
    column.i64().ok().cloned().map(IntValues::Rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hint as _;

    fn trace_with(frame: DataFrame) -> Trace {
        let mut trace = Trace::empty(Format::NcuRaw);
        trace.launches = crate::launch_table::conform(frame.lazy())
            .and_then(|lazy| lazy.collect())
            .expect("conform");
        trace
    }

    fn launches(registers: &[i64], block_x: &[i64], duration: &[f64]) -> DataFrame {
        let ids: Vec<i64> = (1..=registers.len() as i64).collect();
        df!(
            lt::LAUNCH_ID => ids,
            lt::REGISTERS_PER_THREAD => registers,
            lt::BLOCK_X => block_x,
            lt::DURATION_NS => duration,
        )
        .expect("frame")
    }

    #[test]
    fn constant_columns_are_checked_like_materialized_ones() -> PolarsResult<()> {
        // The nsys readers keep constant columns as scalar columns: block y = 2 makes the 1024-
        // and 600-thread blocks too large, grid z = 70000 every launch.
        for (name, value, rejected) in [(lt::BLOCK_Y, 2i64, 2), (lt::GRID_Z, 70_000, 3)] {
            let frame = launches(&[32, 32, 32], &[1024, 600, 256], &[1.0, 1.0, 1.0]);
            let scalar = Column::new_scalar(
                name.into(),
                Scalar::new(DataType::Int64, AnyValue::Int64(value)),
                3,
            );
            let narrow = frame.hstack(&[scalar])?;
            let full = frame.hstack(&[Column::new(name.into(), [value; 3])])?;
            let (narrow, full) = (trace_with(narrow), trace_with(full));
            assert!(
                matches!(narrow.launches.column(name)?, Column::Scalar(_)),
                "{name}"
            );
            let lenient = |trace| validate(Path::new("a.csv"), Format::NsysSqlite, trace, false);
            let (narrow, full) = (
                lenient(narrow).expect("lenient"),
                lenient(full).expect("lenient"),
            );
            assert_eq!(narrow.rejected.len(), rejected, "{name}");
            assert_eq!(narrow.rejected, full.rejected, "{name}");
            assert!(narrow.launches.equals_missing(&full.launches), "{name}");
        }
        Ok(())
    }

    #[test]
    fn values_in_range_pass_unchanged() {
        let trace = trace_with(launches(&[0, 255], &[1, 1024], &[0.0, 1.5]));
        let out = validate(Path::new("a.csv"), Format::NsysGpuTrace, trace, true).expect("valid");
        assert_eq!(out.launches.height(), 2);
        assert!(out.rejected.is_empty());
    }

    #[test]
    fn out_of_range_launches_are_rejected_with_row_id_and_column() {
        let trace = trace_with(launches(
            &[32, 4_294_967_296, -1, 32, 32, 32],
            &[128, 128, 128, 0, 2000, 128],
            &[1.0, 1.0, 1.0, 1.0, 1.0, f64::NAN],
        ));
        let out =
            validate(Path::new("a.csv"), Format::NsysGpuTrace, trace, false).expect("lenient");
        assert_eq!(out.launches.height(), 1);
        assert_eq!(out.rejected.len(), 5);
        assert_eq!(out.rejected[0].line, 2);
        assert_eq!(
            out.rejected[0].reason,
            "launch id 2, launch-table row 2: `registers_per_thread` = 4294967296 is outside 0–255"
        );
        assert!(
            out.rejected[2]
                .reason
                .contains("`block_x` = 0 is outside 1–1024")
        );
        assert!(out.rejected[4].reason.contains("`duration_ns` = NaN"));
    }

    #[test]
    fn strict_turns_the_first_out_of_range_launch_into_an_error() {
        let trace = trace_with(launches(&[32, 300], &[128, 128], &[1.0, 1.0]));
        let err = validate(Path::new("a.csv"), Format::NcuRaw, trace, true).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("launch-table row 2 (launch id 2)"), "{text}");
        assert!(
            text.contains("`registers_per_thread` = 300 is outside 0–255"),
            "{text}"
        );
        assert!(err.hint().is_some());
    }

    #[test]
    fn columns_with_nulls_and_several_chunks_are_checked_row_by_row() -> PolarsResult<()> {
        // Two batches stacked (two chunks per column) with nulls: the checks that read several
        // columns of a row read a copy with the nulls filled (a null dimension is 1, a null size
        // 0), and must still find each row's own violation.
        let first = df!(
            lt::LAUNCH_ID => [1i64, 2, 3],
            lt::GRID_X => [Some(0i64), Some(0), None],
            lt::GRID_Y => [Some(0i64), Some(0), Some(1)],
            lt::GRID_Z => [Some(0i64), Some(0), Some(1)],
            lt::BLOCK_X => [Some(32i64), Some(32), None],
            lt::BLOCK_Y => [Some(1i64), Some(1), Some(64)],
            lt::DURATION_NS => [None, Some(5.0), Some(1.0)],
        )?;
        let second = df!(
            lt::LAUNCH_ID => [4i64, 5, 6],
            lt::GRID_X => [Some(1i64), None, Some(8)],
            lt::GRID_Y => [Some(1i64), Some(1), Some(1)],
            lt::GRID_Z => [Some(1i64), Some(1), None],
            lt::BLOCK_X => [Some(64i64), Some(512), None],
            lt::BLOCK_Y => [Some(32i64), Some(2), None],
            lt::DURATION_NS => [Some(1.0), Some(2.0), None],
        )?;
        let mut frame = first;
        frame.vstack_mut_owned(second)?;
        let trace = trace_with(frame);
        assert!(trace.launches.column(lt::GRID_X)?.n_chunks() > 1);
        let out = validate(Path::new("a"), Format::NsysSqlite, trace, false).expect("lenient");
        let reasons: Vec<&str> = out.rejected.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        // Row 1: grid (0, 0, 0) without a duration; row 2 has a duration, so its grid x of 0 is
        // out of range; row 3's null grid x and block x pass; row 4: 64 × 32 threads; row 5: 512
        // × 2 = 1024 threads pass; row 6 is all nulls but its grid x.
        assert!(reasons[0].starts_with("launch id 1,"), "{reasons:?}");
        assert!(reasons[0].contains(PROFILING_FAILED), "{reasons:?}");
        assert!(reasons[1].contains("launch id 2,"), "{reasons:?}");
        assert!(
            reasons[1].contains("`grid_x` = 0 is outside"),
            "{reasons:?}"
        );
        assert!(reasons[2].contains("launch id 4,"), "{reasons:?}");
        assert!(reasons[2].contains("2048 threads per block"), "{reasons:?}");
        let kept: Vec<Option<i64>> = out.launches.column(lt::LAUNCH_ID)?.i64()?.iter().collect();
        assert_eq!(kept, [Some(3), Some(5), Some(6)]);
        Ok(())
    }

    #[test]
    fn block_product_and_total_shared_memory_are_limited() -> PolarsResult<()> {
        let frame = df!(
            lt::LAUNCH_ID => [1i64, 2],
            lt::BLOCK_X => [64i64, 32],
            lt::BLOCK_Y => [32i64, 1],
            lt::STATIC_SMEM_BYTES => [0i64, 200_000],
            lt::DYNAMIC_SMEM_BYTES => [0i64, 100_000],
        )?;
        let out = validate(Path::new("a"), Format::NsysSqlite, trace_with(frame), false)
            .expect("lenient");
        assert_eq!(out.launches.height(), 0);
        assert!(out.rejected[0].reason.contains("2048 threads per block"));
        assert!(
            out.rejected[1]
                .reason
                .contains("300000 bytes of shared memory")
        );
        // A product-only grid above 2^31 − 1 is real (ncu's `launch__grid_size`); a shaped one is not.
        let grids = df!(
            lt::LAUNCH_ID => [1i64, 2],
            lt::GRID_X => [4_000_000_000i64, 4_000_000_000],
            lt::GRID_Y => [1i64, 2],
        )?;
        let out =
            validate(Path::new("a"), Format::NcuRaw, trace_with(grids), false).expect("lenient");
        assert_eq!(out.launches.height(), 1);
        assert!(
            out.rejected[0]
                .reason
                .contains("`grid_x` = 4000000000 is outside"),
            "{:?}",
            out.rejected
        );
        Ok(())
    }

    #[test]
    fn a_rejected_launch_takes_its_rule_rows_with_it() -> PolarsResult<()> {
        let mut trace = trace_with(launches(
            &[32, 300, 400],
            &[128, 128, 128],
            &[1.0, 1.0, 1.0],
        ));
        trace.side.rules = df!(
            rules_col::LAUNCH_ID => [1i64, 2, 2, 1],
            rules_col::RULE_NAME => ["a", "b", "c", "d"],
        )?;
        let out = validate(Path::new("a"), Format::NcuRep, trace, false).expect("lenient");
        assert_eq!(out.launches.height(), 1);
        let kept: Vec<Option<&str>> = out
            .side
            .rules
            .column(rules_col::RULE_NAME)?
            .str()?
            .iter()
            .collect();
        assert_eq!(kept, [Some("a"), Some("d")]);
        assert!(
            out.rejected[0]
                .reason
                .ends_with("(its 2 rule rows are removed too)"),
            "{:?}",
            out.rejected
        );
        assert!(
            out.rejected[1].reason.ends_with("is outside 0–255"),
            "{:?}",
            out.rejected
        );
        Ok(())
    }

    #[test]
    fn a_duplicated_ncu_launch_id_is_an_error_but_not_in_nsys() -> PolarsResult<()> {
        let frame = df!(lt::LAUNCH_ID => [1i64, 2, 1])?;
        let err = validate(
            Path::new("a"),
            Format::NcuRaw,
            trace_with(frame.clone()),
            false,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`a`, launch-table row 3: launch id 1 appears twice (first at launch-table row 1); \
             expected every launch id once"
        );
        assert!(err.hint().is_some());
        let nsys = validate(Path::new("a"), Format::NsysSqlite, trace_with(frame), false);
        assert_eq!(
            nsys.expect("nsys ids repeat across processes")
                .launches
                .height(),
            3
        );
        Ok(())
    }
}
