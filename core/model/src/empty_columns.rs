//! The input columns that have no value on any row, which the model plans as absent.
//!
//! The launch table is conformed before the model runs (`launch_table::conform`): every counter
//! the model knows is a column, null where the export lacks it. The time model and the roofline
//! read counters through [`crate::time::inputs::Inputs`], which builds an expression per counter
//! only for the columns a frame has, and a typed null literal for the others; a column that is
//! there but null on every row gives the same values through either. For a default-set export
//! (most counters null on every launch) the expressions of the columns that are there made most
//! of the model's plan: on the 240 distinct inputs of a real A100 details page, planning and
//! running it took 38 ms on one thread, and 11 ms with those columns planned as absent
//! (docs/performance.md, session 19).
//!
//! [`EmptyColumns::of`] lists them for a materialised frame of model inputs (the distinct inputs
//! of [`crate::Evaluation`]); the per-launch reference path ([`crate::evaluate_each_launch`])
//! plans on a lazy frame and uses [`EmptyColumns::none`], and the tests compare both paths column
//! by column on the real captures. This holds because no stage of the model replaces an input
//! column: the stages add the model's output columns and internal `__` columns, and neither is a
//! model input (`evaluation::key_columns`).

use polars::prelude::*;

/// Input columns that are null on every row of the frame the model is planned for.
#[derive(Debug, Clone, Default)]
pub(crate) struct EmptyColumns {
    names: PlHashSet<PlSmallStr>,
}

impl EmptyColumns {
    /// No column is known to be empty: every column of a frame's schema is planned as present.
    pub(crate) fn none() -> Self {
        EmptyColumns::default()
    }

    /// The columns of `inputs` that are null on every row. A frame without rows has none: its
    /// plan must be the general one (the model's column names are read from such a plan).
    pub(crate) fn of(inputs: &DataFrame) -> Self {
        if inputs.height() == 0 {
            return EmptyColumns::none();
        }
        let names = inputs
            .columns()
            .iter()
            .filter(|column| column.null_count() == column.len())
            .map(|column| column.name().clone())
            .collect();
        EmptyColumns { names }
    }

    /// Whether `name` is one of the empty columns.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_columns_null_on_every_row_are_empty() -> PolarsResult<()> {
        let frame = df!(
            "all_null" => [None::<f64>, None],
            "one_value" => [None, Some(1.0)],
            "full" => [2.0, 3.0],
        )?;
        let empty = EmptyColumns::of(&frame);
        assert!(empty.contains("all_null"));
        assert!(!empty.contains("one_value"));
        assert!(!empty.contains("full"));
        assert!(!empty.contains("not_a_column"));
        // A frame without rows has no empty column: its plan stays the general one.
        let no_rows = EmptyColumns::of(&frame.head(Some(0)));
        assert!(!no_rows.contains("all_null"));
        assert!(!EmptyColumns::none().contains("all_null"));
        Ok(())
    }
}
