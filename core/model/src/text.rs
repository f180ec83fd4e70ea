//! Text columns (reasons, limiter lists, bottleneck details) written row by row in one pass.
//!
//! A text column built from polars expressions (`when` chains of string concatenations) builds
//! every branch's text for every row: on an ncu page, where every launch is a distinct model input,
//! that cost more than the rest of the time model. A [`text_column`] instead runs one function over
//! its input columns and writes each row's text once. Numbers are written as polars casts them to
//! text ([`NumberText`]), so the texts are the ones the expressions gave.

use polars::prelude::*;

/// A text column named `name` from `inputs`, written by `write`. `write` gets the input columns
/// (materialised, one value per row), a row and the buffer to write that row's text into; it returns
/// false when the row has no text (null).
pub(crate) fn text_column<F>(name: &'static str, inputs: Vec<Expr>, write: F) -> Expr
where
    F: Fn(&TextInputs<'_>, usize, &mut String) -> bool + Send + Sync + 'static,
{
    polars::lazy::dsl::map_multiple(
        move |columns: &mut [Column]| -> PolarsResult<Column> {
            let rows = columns.first().map_or(0, Column::len);
            let inputs = TextInputs::new(columns)?;
            let mut out = StringChunkedBuilder::new(name.into(), rows);
            let mut text = String::new();
            for row in 0..rows {
                text.clear();
                if write(&inputs, row, &mut text) {
                    out.append_value(&text);
                } else {
                    out.append_null();
                }
            }
            Ok(out.finish().into_column())
        },
        inputs,
        move |_, _| Ok(Field::new(name.into(), DataType::String)),
    )
    .alias(name)
}

/// The input columns of a [`text_column`], read by position.
pub(crate) struct TextInputs<'a> {
    columns: &'a [Column],
    numbers: Vec<Option<NumberText>>,
}

impl<'a> TextInputs<'a> {
    fn new(columns: &'a [Column]) -> PolarsResult<Self> {
        let numbers = columns
            .iter()
            .map(|column| {
                if column.dtype().is_primitive_numeric() {
                    NumberText::new(column).map(Some)
                } else {
                    Ok(None)
                }
            })
            .collect::<PolarsResult<_>>()?;
        Ok(TextInputs { columns, numbers })
    }

    /// Input `index`'s text at `row` (null when the input is not text or the value is null).
    pub(crate) fn text(&self, index: usize, row: usize) -> Option<&'a str> {
        self.columns.get(index)?.str().ok()?.get(row)
    }

    /// Input `index`'s boolean at `row`.
    pub(crate) fn flag(&self, index: usize, row: usize) -> Option<bool> {
        self.columns.get(index)?.bool().ok()?.get(row)
    }

    /// Input `index`'s number at `row` as a float.
    pub(crate) fn number(&self, index: usize, row: usize) -> Option<f64> {
        self.numbers.get(index)?.as_ref()?.value(row)
    }

    /// Writes input `index`'s number at `row` as polars casts it to text; false when it is null
    /// (or the input is not a number).
    pub(crate) fn write_number(&self, index: usize, row: usize, text: &mut String) -> bool {
        match self.numbers.get(index) {
            Some(Some(number)) => number.write(row, text),
            _ => false,
        }
    }
}

/// A numeric column's values written as polars' cast to text writes them: integers in decimal,
/// floats in the shortest form that reads back exactly (`zmij`, which polars uses).
pub(crate) struct NumberText {
    values: NumberValues,
}

enum NumberValues {
    Integers(Int64Chunked),
    Floats(Float64Chunked),
}

impl NumberText {
    /// Reads `column`, which must hold numbers.
    pub(crate) fn new(column: &Column) -> PolarsResult<Self> {
        let values = if column.dtype().is_float() {
            NumberValues::Floats(column.cast(&DataType::Float64)?.f64()?.clone())
        } else {
            NumberValues::Integers(column.cast(&DataType::Int64)?.i64()?.clone())
        };
        Ok(NumberText { values })
    }

    /// The value at `row` as a float.
    pub(crate) fn value(&self, row: usize) -> Option<f64> {
        match &self.values {
            NumberValues::Integers(values) => values.get(row).map(|v| v as f64),
            NumberValues::Floats(values) => values.get(row),
        }
    }

    /// Writes the value at `row`; false when it is null.
    pub(crate) fn write(&self, row: usize, text: &mut String) -> bool {
        match &self.values {
            NumberValues::Integers(values) => match values.get(row) {
                Some(value) => {
                    use std::fmt::Write as _;
                    let _ = write!(text, "{value}");
                    true
                }
                None => false,
            },
            NumberValues::Floats(values) => match values.get(row) {
                Some(value) => {
                    text.push_str(zmij::Buffer::new().format(value));
                    true
                }
                None => false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts must be the ones polars' own cast gives, number for number.
    #[test]
    fn numbers_are_written_as_polars_casts_them() -> PolarsResult<()> {
        let floats = Column::new(
            "f".into(),
            [
                Some(0.1),
                Some(2.0),
                Some(12.35),
                Some(1e-7),
                Some(3.0e20),
                Some(-0.0),
                Some(f64::NAN),
                Some(f64::INFINITY),
                None,
            ],
        );
        let ints = Column::new("i".into(), [Some(0i32), Some(-17), Some(1024), None]);
        for column in [floats, ints] {
            let cast = column.cast(&DataType::String)?;
            let expected = cast.str()?;
            let numbers = NumberText::new(&column)?;
            for row in 0..column.len() {
                let mut text = String::new();
                let written = numbers.write(row, &mut text);
                assert_eq!(
                    written.then_some(text.as_str()),
                    expected.get(row),
                    "row {row}"
                );
            }
        }
        Ok(())
    }
}
