//! Typed, null-tolerant reads of single cells from a small result frame (the rows a rule fired
//! on, the distinct launch configurations, the summary rows to print).
//!
//! Analysis filters and aggregates with polars expressions; this is only for turning the few
//! resulting rows into messages. A missing column reads as null, so rules work on inputs that lack
//! some counters.

use std::collections::HashMap;

use polars::prelude::*;

/// Cached, cast columns of one frame.
pub struct Cells<'a> {
    /// The frame read.
    frame: &'a DataFrame,
    /// Float64 casts of numeric columns, by name.
    floats: HashMap<String, Option<Float64Chunked>>,
    /// String casts of text columns, by name.
    texts: HashMap<String, Option<StringChunked>>,
}

impl<'a> Cells<'a> {
    /// Reads cells of `frame`.
    pub fn new(frame: &'a DataFrame) -> Self {
        Cells {
            frame,
            floats: HashMap::new(),
            texts: HashMap::new(),
        }
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.frame.height()
    }

    /// A numeric cell as f64 (null, NaN or a missing column give `None`).
    pub fn f64(&mut self, name: &str, row: usize) -> Option<f64> {
        let frame = self.frame;
        // Looked up without allocating: this runs once per cell read.
        if !self.floats.contains_key(name) {
            let cast = (|| {
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
            })();
            self.floats.insert(name.to_string(), cast);
        }
        self.floats.get(name)?.as_ref()?.get(row).filter(|v| v.is_finite())
    }

    /// A numeric cell rounded to i64.
    pub fn i64(&mut self, name: &str, row: usize) -> Option<i64> {
        self.f64(name, row).map(|v| v.round() as i64)
    }

    /// A boolean cell (a number is true when non-zero).
    pub fn bool(&mut self, name: &str, row: usize) -> Option<bool> {
        self.f64(name, row).map(|v| v != 0.0)
    }

    /// A text cell.
    pub fn str(&mut self, name: &str, row: usize) -> Option<String> {
        let frame = self.frame;
        if !self.texts.contains_key(name) {
            let column = (|| {
                let column = frame.column(name).ok()?;
                let mut text = column.cast(&DataType::String).ok()?.str().ok().cloned()?;
                text.rechunk_mut();
                Some(text)
            })();
            self.texts.insert(name.to_string(), column);
        }
        self.texts.get(name)?.as_ref()?.get(row).map(str::to_string)
    }
}

/// True when `frame`'s schema has a column `name`.
pub fn has_column(frame: &DataFrame, name: &str) -> bool {
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
        assert_eq!(cells.bool("c", 0), Some(true));
        assert_eq!(cells.f64("missing", 0), None);
        Ok(())
    }
}
