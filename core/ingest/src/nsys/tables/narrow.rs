//! Narrow kernel frames: a column that is entirely null or holds one value is kept as a constant
//! (scalar) column, which costs no memory per row, and the other columns are made single-chunk one
//! at a time, so that later selections never copy every column at once.
//!
//! An nsys kernel table has many such columns (`deviceId`, `contextId`, `globalPid`, `gridZ`, the
//! `graphId` and `qmd*` columns of a 2025 export, ...), and so have the device and process columns
//! looked up for them when every launch ran on one device in one process.

use polars::prelude::*;

/// Whether constant columns are kept as constant (scalar) columns, or materialised with one value
/// per row (the reference the narrow frames are tested against).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) enum ConstantColumns {
    /// Constant columns become scalar columns.
    #[default]
    Scalar,
    /// Every column keeps one value per row.
    Materialized,
}

/// `frame` with its constant columns turned into scalar columns and its other columns made
/// single-chunk, column by column (a column's old buffers are freed before the next column is
/// looked at, when `frame` held the only reference to them). With [`ConstantColumns::Materialized`],
/// `frame` is returned as it is.
pub(crate) fn narrow(frame: DataFrame, constants: ConstantColumns) -> PolarsResult<DataFrame> {
    if constants == ConstantColumns::Materialized {
        return Ok(frame);
    }
    let height = frame.height();
    let columns = frame
        .into_columns()
        .into_iter()
        .map(|column| {
            Ok(match constant(&column)? {
                Some(value) => Column::new_scalar(column.name().clone(), value, column.len()),
                None if column.n_chunks() > 1 => column.rechunk(),
                None => column,
            })
        })
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(height, columns)
}

/// The rows compared with the first before a column is scanned whole.
const SAMPLES: usize = 16;

/// The value every row of a materialised, non-empty column holds (null when it is entirely null),
/// for integer and string columns; `None` when the rows differ, or for other dtypes.
fn constant(column: &Column) -> PolarsResult<Option<Scalar>> {
    let Column::Series(series) = column else {
        return Ok(None);
    };
    if series.is_empty() {
        return Ok(None);
    }
    let nulls = series.null_count();
    if nulls == series.len() {
        return Ok(Some(Scalar::new(series.dtype().clone(), AnyValue::Null)));
    }
    if nulls > 0 {
        return Ok(None);
    }
    // Most columns that are not constant show it at one of a few rows spread over the column,
    // which saves the full scan below.
    let first = series.get(0)?;
    let last = series.len() - 1;
    for k in 1..=SAMPLES {
        if series.get(last * k / SAMPLES)? != first {
            return Ok(None);
        }
    }
    if series.dtype().is_integer() {
        let min = series.min_reduce()?;
        let max = series.max_reduce()?;
        return Ok((min == max).then_some(min));
    }
    if series.dtype() == &DataType::String {
        let strings = series.str()?;
        let first = strings.get(0);
        if let Some(first) = first
            && strings.iter().all(|value| value == Some(first))
        {
            return Ok(Some(Scalar::new(
                DataType::String,
                AnyValue::StringOwned(first.into()),
            )));
        }
    }
    Ok(None)
}

/// Asserts that a trace read with [`ConstantColumns::Scalar`] holds the same tables, dtypes and values
/// as the one read with [`ConstantColumns::Materialized`], and that it is narrower: it has more scalar
/// launch-table columns, when the export has a constant kernel column.
#[cfg(test)]
pub(crate) fn assert_same_trace(
    narrow: &crate::trace::Trace,
    materialized: &crate::trace::Trace,
    label: &str,
) {
    let scalars = |frame: &DataFrame| {
        frame
            .columns()
            .iter()
            .filter(|c| matches!(c, Column::Scalar(_)))
            .count()
    };
    for (name, a, b) in [
        ("launches", &narrow.launches, &materialized.launches),
        (
            "transfers",
            &narrow.side.transfers,
            &materialized.side.transfers,
        ),
        ("rules", &narrow.side.rules, &materialized.side.rules),
        (
            "kernel summary",
            &narrow.side.kernel_summary,
            &materialized.side.kernel_summary,
        ),
    ] {
        assert_eq!(a.schema(), b.schema(), "{label}: {name}");
        assert_eq!(a.height(), b.height(), "{label}: {name}");
        assert!(a.equals_missing(b), "{label}: {name}\n{a}\n{b}");
    }
    assert_eq!(narrow.format, materialized.format, "{label}");
    assert_eq!(narrow.rejected, materialized.rejected, "{label}");
    if narrow.launches.height() > 1 {
        assert!(
            scalars(&narrow.launches) > scalars(&materialized.launches),
            "{label}: no constant column became a scalar column"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_scalar(frame: &DataFrame, name: &str) -> PolarsResult<bool> {
        Ok(matches!(frame.column(name)?, Column::Scalar(_)))
    }

    #[test]
    fn constant_columns_become_scalar_and_the_values_stay() -> PolarsResult<()> {
        let mut varying = Column::new("varying".into(), [1i64, 2]);
        varying.append(&Column::new("varying".into(), [3i64, 4]))?;
        let frame = df!(
            "one" => [7i64, 7, 7, 7],
            "text" => ["a", "a", "a", "a"],
            "texts" => ["a", "a", "b", "a"],
            "nulls" => [None::<i64>, None, None, None],
            "some_nulls" => [Some(1i64), None, Some(1), Some(1)],
            "unsigned" => [3u32, 3, 3, 3],
            "real" => [1.0f64, 1.0, 1.0, 1.0],
        )?
        .hstack(&[varying])?;
        let narrowed = narrow(frame.clone(), ConstantColumns::Scalar)?;
        assert!(narrowed.equals_missing(&frame));
        assert_eq!(narrowed.schema(), frame.schema());
        for name in ["one", "text", "nulls", "unsigned"] {
            assert!(is_scalar(&narrowed, name)?, "{name}");
        }
        for name in ["texts", "some_nulls", "real", "varying"] {
            assert!(!is_scalar(&narrowed, name)?, "{name}");
        }
        assert_eq!(narrowed.column("varying")?.n_chunks(), 1);
        let kept = narrow(frame.clone(), ConstantColumns::Materialized)?;
        assert!(!is_scalar(&kept, "one")?);
        assert_eq!(kept.column("varying")?.n_chunks(), 2);
        Ok(())
    }

    #[test]
    fn an_empty_frame_stays_empty() -> PolarsResult<()> {
        let frame = df!("a" => Vec::<i64>::new(), "b" => Vec::<String>::new())?;
        let narrowed = narrow(frame.clone(), ConstantColumns::Scalar)?;
        assert_eq!(narrowed.height(), 0);
        assert_eq!(narrowed.schema(), frame.schema());
        Ok(())
    }
}
