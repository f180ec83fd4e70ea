//! `--sort` and `--top` on a result table, as the commands and the Python package apply them.

use polars::prelude::*;

use super::error::AnalysisError;

/// Sorts `frame` by `sort` (a column name; `name:asc` for ascending, descending by default, nulls
/// last, ties in their order) and keeps the first `top` rows.
pub fn sort_and_top(
    frame: DataFrame,
    sort: Option<&str>,
    top: Option<usize>,
) -> Result<DataFrame, AnalysisError> {
    let mut lazy = frame.clone().lazy();
    if let Some(spec) = sort {
        let (name, descending) = match spec.rsplit_once(':') {
            Some((name, "asc")) => (name, false),
            Some((name, "desc")) => (name, true),
            _ => (spec, true),
        };
        if !frame.schema().contains(name) {
            return Err(AnalysisError::NoSuchSortColumn {
                name: name.to_string(),
                columns: frame
                    .get_column_names()
                    .iter()
                    .map(|n| n.to_string())
                    .collect(),
            });
        }
        lazy = lazy.sort(
            [name],
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_nulls_last(true)
                .with_maintain_order(true),
        );
    }
    if let Some(top) = top {
        lazy = lazy.limit(top as IdxSize);
    }
    Ok(lazy.collect()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_descending_by_default_keeps_ties_in_order_and_names_unknown_columns()
    -> Result<(), Box<dyn std::error::Error>> {
        let frame = df!("k" => ["a", "b", "c", "d"], "t" => [Some(2i64), None, Some(3), Some(2)])?;
        let sorted = sort_and_top(frame.clone(), Some("t"), Some(3))?;
        let keys: Vec<_> = sorted.column("k")?.str()?.iter().flatten().collect();
        assert_eq!(keys, ["c", "a", "d"]);
        let ascending = sort_and_top(frame.clone(), Some("t:asc"), None)?;
        let keys: Vec<_> = ascending.column("k")?.str()?.iter().flatten().collect();
        assert_eq!(keys, ["a", "d", "c", "b"]);
        match sort_and_top(frame, Some("nope"), None) {
            Err(AnalysisError::NoSuchSortColumn { name, columns }) => {
                assert_eq!(name, "nope");
                assert_eq!(columns, ["k", "t"]);
            }
            other => panic!("expected NoSuchSortColumn, got {other:?}"),
        }
        Ok(())
    }
}
