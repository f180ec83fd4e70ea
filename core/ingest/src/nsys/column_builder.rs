//! Column builders for values read from SQLite: each column of a table read is filled value by
//! value into a [`Builder`], which keeps a column that is entirely null or holds one value as that
//! value and a row count (a constant column, which costs no memory per row) until a row holds
//! another value. The builders of the row ranges of a table read in parallel become [`Part`]s,
//! which [`combine`] joins into one polars column: a scalar column when every range held the same
//! constant, else one materialised single-chunk column. Values are converted as SQLite's type
//! affinity of the declared column type says ([`Affinity`]); [`unconverted`] names a value that
//! stands for no value of its column's type.

use polars::prelude::*;
use rusqlite::types::ValueRef;

use crate::nsys::tables::ConstantColumns;

/// How a column's values are stored, from its declared type (SQLite type affinity).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Affinity {
    /// Integers, read as `Int64`.
    Integer,
    /// Reals, read as `Float64`.
    Real,
    /// Text, read as `String`.
    Text,
}

/// The affinity of a column declared with the type `declared` (SQLite's rules, in short: `INT`
/// anywhere is an integer, `REAL`, `FLOA` or `DOUB` a real, anything else text).
pub(crate) fn affinity(declared: &str) -> Affinity {
    let declared = declared.to_ascii_uppercase();
    if declared.contains("INT") {
        Affinity::Integer
    } else if declared.contains("REAL") || declared.contains("FLOA") || declared.contains("DOUB") {
        Affinity::Real
    } else {
        Affinity::Text
    }
}

/// The value every row of a column read so far holds (`None`: null), converted as [`Builder`]
/// converts it.
#[derive(Debug, Clone)]
pub(crate) enum Constant {
    Integer(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
}

impl Constant {
    /// The constant of a column of `affinity` whose first row holds `value`.
    fn first(affinity: Affinity, value: ValueRef<'_>) -> Self {
        match affinity {
            Affinity::Integer => Constant::Integer(integer_value(value)),
            Affinity::Real => Constant::Real(real_value(value)),
            Affinity::Text => Constant::Text(text_value(value).map(|t| t.into_owned())),
        }
    }

    /// Whether `value` converts to this constant (reals compare bit for bit).
    #[inline]
    fn holds(&self, value: ValueRef<'_>) -> bool {
        match self {
            Constant::Integer(c) => match value {
                ValueRef::Integer(v) => *c == Some(v),
                other => integer_value(other) == *c,
            },
            Constant::Real(c) => real_value(value).map(f64::to_bits) == c.map(f64::to_bits),
            Constant::Text(c) => text_value(value).as_deref() == c.as_deref(),
        }
    }

    /// Whether two row ranges hold the same constant.
    fn same(&self, other: &Constant) -> bool {
        match (self, other) {
            (Constant::Integer(a), Constant::Integer(b)) => a == b,
            (Constant::Real(a), Constant::Real(b)) => a.map(f64::to_bits) == b.map(f64::to_bits),
            (Constant::Text(a), Constant::Text(b)) => a == b,
            _ => false,
        }
    }

    fn scalar(&self) -> Scalar {
        match self {
            Constant::Integer(v) => {
                Scalar::new(DataType::Int64, v.map_or(AnyValue::Null, AnyValue::Int64))
            }
            Constant::Real(v) => Scalar::new(
                DataType::Float64,
                v.map_or(AnyValue::Null, AnyValue::Float64),
            ),
            Constant::Text(v) => Scalar::new(
                DataType::String,
                v.as_ref()
                    .map_or(AnyValue::Null, |t| AnyValue::StringOwned(t.as_str().into())),
            ),
        }
    }
}

/// The dtype of a column of `affinity`.
fn dtype(affinity: Affinity) -> DataType {
    match affinity {
        Affinity::Integer => DataType::Int64,
        Affinity::Real => DataType::Float64,
        Affinity::Text => DataType::String,
    }
}

/// A column being filled. A column starts as [`Builder::Constant`], which keeps one value and a
/// row count, and becomes a full builder at the first row holding another value: a column that is
/// entirely null or holds one value (many nsys kernel columns: `deviceId`, `gridZ`, the `graphId`
/// and `qmd*` columns, ...) never allocates memory per row.
pub(crate) enum Builder {
    Constant {
        name: String,
        affinity: Affinity,
        /// Rows to reserve room for when the column stops being constant.
        capacity: usize,
        /// The value of every row so far (`None` before the first row).
        value: Option<Constant>,
        rows: usize,
    },
    Integer(PrimitiveChunkedBuilder<Int64Type>),
    Real(PrimitiveChunkedBuilder<Float64Type>),
    Text(StringChunkedBuilder),
}

impl Builder {
    /// A builder that starts constant, or full with [`ConstantColumns::Materialized`].
    pub(crate) fn new(
        name: &str,
        affinity: Affinity,
        capacity: usize,
        constants: ConstantColumns,
    ) -> Self {
        let mut builder = Builder::Constant {
            name: name.to_string(),
            affinity,
            capacity,
            value: None,
            rows: 0,
        };
        if constants == ConstantColumns::Materialized {
            builder.materialize();
        }
        builder
    }

    /// Appends the value of the next row.
    #[inline]
    pub(crate) fn push(&mut self, value: ValueRef<'_>) {
        match self {
            Builder::Integer(b) => match value {
                ValueRef::Integer(v) => b.append_value(v),
                other => b.append_option(integer_value(other)),
            },
            Builder::Real(b) => b.append_option(real_value(value)),
            Builder::Text(b) => match text_value(value) {
                Some(t) => b.append_value(t),
                None => b.append_null(),
            },
            Builder::Constant {
                affinity,
                value: constant,
                rows,
                ..
            } => match constant {
                Some(c) if c.holds(value) => *rows += 1,
                Some(_) => self.push_other(value),
                None => {
                    *constant = Some(Constant::first(*affinity, value));
                    *rows += 1;
                }
            },
        }
    }

    /// Appends a value that differs from the constant held so far.
    #[cold]
    fn push_other(&mut self, value: ValueRef<'_>) {
        self.materialize();
        if !matches!(self, Builder::Constant { .. }) {
            self.push(value);
        }
    }

    /// Turns a constant builder into a full one holding its rows.
    fn materialize(&mut self) {
        let Builder::Constant {
            name,
            affinity,
            capacity,
            value,
            rows,
        } = self
        else {
            return;
        };
        let capacity = (*capacity).max(*rows + 1);
        let name = PlSmallStr::from(name.as_str());
        let rows = *rows;
        *self = match value.take() {
            Some(Constant::Integer(v)) => {
                let mut b = PrimitiveChunkedBuilder::<Int64Type>::new(name, capacity);
                (0..rows).for_each(|_| b.append_option(v));
                Builder::Integer(b)
            }
            Some(Constant::Real(v)) => {
                let mut b = PrimitiveChunkedBuilder::<Float64Type>::new(name, capacity);
                (0..rows).for_each(|_| b.append_option(v));
                Builder::Real(b)
            }
            Some(Constant::Text(v)) => {
                let mut b = StringChunkedBuilder::new(name, capacity);
                (0..rows).for_each(|_| b.append_option(v.as_deref()));
                Builder::Text(b)
            }
            None => match affinity {
                Affinity::Integer => Builder::Integer(PrimitiveChunkedBuilder::new(name, capacity)),
                Affinity::Real => Builder::Real(PrimitiveChunkedBuilder::new(name, capacity)),
                Affinity::Text => Builder::Text(StringChunkedBuilder::new(name, capacity)),
            },
        };
    }

    /// The column filled, as one part of a table read in row ranges.
    pub(crate) fn finish(self) -> Part {
        match self {
            Builder::Constant {
                name,
                affinity,
                value,
                rows,
                ..
            } => Part::Constant {
                name,
                affinity,
                value,
                rows,
            },
            Builder::Integer(b) => Part::Full(b.finish().into_series()),
            Builder::Real(b) => Part::Full(b.finish().into_series()),
            Builder::Text(b) => Part::Full(b.finish().into_series()),
        }
    }
}

/// One column of one row range of a table, as its builder left it.
pub(crate) enum Part {
    /// Every row holds `value` (no rows: `None`).
    Constant {
        name: String,
        affinity: Affinity,
        value: Option<Constant>,
        rows: usize,
    },
    /// The rows' values, one per row.
    Full(Series),
}

impl Part {
    fn rows(&self) -> usize {
        match self {
            Part::Constant { rows, .. } => *rows,
            Part::Full(series) => series.len(),
        }
    }

    fn into_series(self) -> Series {
        match self {
            Part::Constant {
                name,
                affinity,
                value,
                rows,
            } => {
                let name = PlSmallStr::from(name.as_str());
                match value {
                    Some(value) if rows > 0 => {
                        Column::new_scalar(name, value.scalar(), rows).take_materialized_series()
                    }
                    _ => Series::new_empty(name, &dtype(affinity)),
                }
            }
            Part::Full(series) => series,
        }
    }
}

/// One column from the parts its row ranges left, in row order: a scalar column when every part
/// holds the same constant (and `constants` allows it), else one materialised single-chunk column
/// (so that later selections never rechunk, that is copy, every column at once).
pub(crate) fn combine(parts: Vec<Part>, constants: ConstantColumns) -> PolarsResult<Column> {
    let rows: usize = parts.iter().map(Part::rows).sum();
    if constants == ConstantColumns::Scalar && rows > 0 {
        let mut values = parts.iter().filter(|p| p.rows() > 0).map(|p| match p {
            Part::Constant {
                value: Some(value), ..
            } => Some(value),
            _ => None,
        });
        if let Some(Some(first)) = values.next()
            && values.all(|v| v.is_some_and(|v| v.same(first)))
            && let Some(Part::Constant { name, .. }) = parts.first()
        {
            return Ok(Column::new_scalar(
                name.as_str().into(),
                first.scalar(),
                rows,
            ));
        }
    }
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        return Ok(Column::default());
    };
    let mut series = first.into_series();
    for part in parts {
        series.append_owned(part.into_series())?;
    }
    if series.n_chunks() > 1 {
        series = series.rechunk();
    }
    Ok(series.into_column())
}

/// The integer an `INTEGER` column's value stands for (reals with no fraction and numbers stored as
/// text included), else null.
#[inline]
fn integer_value(value: ValueRef<'_>) -> Option<i64> {
    match value {
        ValueRef::Integer(v) => Some(v),
        ValueRef::Real(v) if v.fract() == 0.0 => Some(v as i64),
        ValueRef::Text(t) => parse_text(t),
        _ => None,
    }
}

/// The number a `REAL` column's value stands for, else null.
#[inline]
fn real_value(value: ValueRef<'_>) -> Option<f64> {
    match value {
        ValueRef::Integer(v) => Some(v as f64),
        ValueRef::Real(v) => Some(v),
        ValueRef::Text(t) => parse_text(t),
        _ => None,
    }
}

/// The text of a text column's value (numbers written out), else null.
#[inline]
fn text_value(value: ValueRef<'_>) -> Option<std::borrow::Cow<'_, str>> {
    match value {
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t)),
        ValueRef::Integer(v) => Some(v.to_string().into()),
        ValueRef::Real(v) => Some(v.to_string().into()),
        _ => None,
    }
}

/// What a value of a column of `affinity` is when it stands for no value of that type (text that
/// is no number, a blob, a real with a fraction in an integer column), else `None`.
pub(crate) fn unconverted(affinity: Affinity, value: ValueRef<'_>) -> Option<String> {
    let text = |t: &[u8]| {
        let shown: String = String::from_utf8_lossy(t)
            .chars()
            .take(40)
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        format!("the text `{shown}`")
    };
    match (affinity, value) {
        (Affinity::Text, _) | (_, ValueRef::Null | ValueRef::Integer(_)) => None,
        (Affinity::Integer, ValueRef::Real(v)) => {
            (v.fract() != 0.0).then(|| format!("the real {v}"))
        }
        (Affinity::Real, ValueRef::Real(_)) => None,
        (Affinity::Integer, ValueRef::Text(t)) => parse_text::<i64>(t).is_none().then(|| text(t)),
        (Affinity::Real, ValueRef::Text(t)) => parse_text::<f64>(t).is_none().then(|| text(t)),
        (_, ValueRef::Blob(b)) => Some(format!("a blob of {} bytes", b.len())),
    }
}

/// A number stored as text in a numeric column (`" 12 "`), or `None` when it is not one.
fn parse_text<T: std::str::FromStr>(text: &[u8]) -> Option<T> {
    std::str::from_utf8(text).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_to_affinities() {
        assert_eq!(affinity("INTEGER"), Affinity::Integer);
        assert_eq!(affinity("int"), Affinity::Integer);
        assert_eq!(affinity("REAL"), Affinity::Real);
        assert_eq!(affinity("TEXT"), Affinity::Text);
        assert_eq!(affinity(""), Affinity::Text);
    }

    #[test]
    fn mixed_parts_combine_in_row_order() -> PolarsResult<()> {
        let constant = |value: Option<i64>, rows: usize| Part::Constant {
            name: "x".into(),
            affinity: Affinity::Integer,
            value: (rows > 0).then_some(Constant::Integer(value)),
            rows,
        };
        let full = || Part::Full(Series::new("x".into(), [Some(1i64), None]));
        let values = |column: &Column| -> PolarsResult<Vec<Option<i64>>> {
            Ok(column.i64()?.iter().collect())
        };
        let same = combine(
            vec![
                constant(Some(4), 2),
                constant(None, 0),
                constant(Some(4), 1),
            ],
            ConstantColumns::Scalar,
        )?;
        assert!(matches!(same, Column::Scalar(_)));
        assert_eq!(values(&same)?, [Some(4); 3]);
        let differing = combine(
            vec![constant(Some(4), 2), constant(None, 1)],
            ConstantColumns::Scalar,
        )?;
        assert!(!matches!(differing, Column::Scalar(_)));
        assert_eq!(values(&differing)?, [Some(4), Some(4), None]);
        let mixed = combine(
            vec![full(), constant(Some(9), 1), full()],
            ConstantColumns::Scalar,
        )?;
        assert_eq!(values(&mixed)?, [Some(1), None, Some(9), Some(1), None]);
        assert_eq!(mixed.n_chunks(), 1);
        let kept = combine(vec![constant(Some(4), 2)], ConstantColumns::Materialized)?;
        assert!(!matches!(kept, Column::Scalar(_)));
        assert_eq!(values(&kept)?, [Some(4); 2]);
        let none = combine(vec![constant(None, 0)], ConstantColumns::Scalar)?;
        assert_eq!((none.len(), none.dtype()), (0, &DataType::Int64));
        Ok(())
    }
}
