//! Typed, null-tolerant reads of single cells from a small result frame (the rows a rule fired
//! on, the distinct launch configurations, the summary rows to print).
//!
//! Analysis filters and aggregates with polars expressions; this is only for turning the few
//! resulting rows into messages. A missing column reads as null, so rules work on inputs that lack
//! some counters.

use polars::prelude::*;

/// Cached, cast columns of one frame.
pub struct Cells<'a> {
    /// The frame read.
    frame: &'a DataFrame,
    /// Float64 casts of numeric columns, by name.
    floats: PlHashMap<String, Option<Float64Chunked>>,
    /// String casts of text columns, by name.
    texts: PlHashMap<String, Option<StringChunked>>,
}

impl<'a> Cells<'a> {
    /// Reads cells of `frame`.
    pub fn new(frame: &'a DataFrame) -> Self {
        Cells {
            frame,
            floats: PlHashMap::new(),
            texts: PlHashMap::new(),
        }
    }

    /// A numeric cell as f64 (null, NaN or a missing column give `None`).
    pub fn f64(&mut self, name: &str, row: usize) -> Option<f64> {
        // One lookup without allocating on every read after the first of a column.
        if let Some(cast) = self.floats.get(name) {
            return cast.as_ref()?.get(row).filter(|v| v.is_finite());
        }
        let cast = float_column(self.frame, name);
        let value = cast
            .as_ref()
            .and_then(|c| c.get(row))
            .filter(|v| v.is_finite());
        self.floats.insert(name.to_string(), cast);
        value
    }

    /// A numeric cell rounded to i64.
    pub fn i64(&mut self, name: &str, row: usize) -> Option<i64> {
        self.f64(name, row).map(|v| v.round() as i64)
    }

    /// A boolean cell (a number is true when non-zero).
    pub(crate) fn bool(&mut self, name: &str, row: usize) -> Option<bool> {
        self.f64(name, row).map(|v| v != 0.0)
    }

    /// A text cell.
    pub fn str(&mut self, name: &str, row: usize) -> Option<String> {
        self.text(name, row).map(str::to_string)
    }

    /// A text cell, borrowed (no copy of the text).
    pub(crate) fn text(&mut self, name: &str, row: usize) -> Option<&str> {
        if !self.texts.contains_key(name) {
            let column = text_column(self.frame, name);
            self.texts.insert(name.to_string(), column);
        }
        self.texts.get(name)?.as_ref()?.get(row)
    }
}

/// `frame`'s column `name` cast to Float64 in one chunk (booleans as 0 and 1), if it can be.
pub(crate) fn float_column(frame: &DataFrame, name: &str) -> Option<Float64Chunked> {
    let column = frame.column(name).ok()?;
    let cast = match column.dtype() {
        DataType::Boolean => column
            .cast(&DataType::Int8)
            .ok()?
            .cast(&DataType::Float64)
            .ok()?,
        _ => column.cast(&DataType::Float64).ok()?,
    };
    let mut cast = cast.f64().ok().cloned()?;
    cast.rechunk_mut();
    Some(cast)
}

/// `frame`'s column `name` cast to String in one chunk, if it can be.
pub(crate) fn text_column(frame: &DataFrame, name: &str) -> Option<StringChunked> {
    let column = frame.column(name).ok()?;
    let mut text = column.cast(&DataType::String).ok()?.str().ok().cloned()?;
    text.rechunk_mut();
    Some(text)
}

/// True when `frame`'s schema has a column `name`.
pub(crate) fn has_column(frame: &DataFrame, name: &str) -> bool {
    frame.schema().contains(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cast_and_tolerate_missing_columns() -> PolarsResult<()> {
        let frame = df!("a" => [Some(1i64), None], "b" => ["x", "y"], "c" => [true, false])?;
        let mut cells = Cells::new(&frame);
        assert_eq!(cells.f64("a", 0), Some(1.0));
        assert_eq!(cells.f64("a", 1), None);
        assert_eq!(cells.str("b", 1).as_deref(), Some("y"));
        assert_eq!(cells.text("b", 0), Some("x"));
        assert_eq!(cells.text("missing", 0), None);
        assert_eq!(cells.bool("c", 0), Some(true));
        assert_eq!(cells.f64("missing", 0), None);
        Ok(())
    }
}
