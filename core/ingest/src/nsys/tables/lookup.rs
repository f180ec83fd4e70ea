//! Joins and id lookups against the small side tables of an nsys export.

use polars::prelude::*;

/// The names of the columns of a lazy frame.
pub(crate) fn column_names(frame: &mut LazyFrame) -> PolarsResult<Vec<String>> {
    Ok(frame
        .collect_schema()?
        .iter_names()
        .map(|n| n.to_string())
        .collect())
}

/// Left join that keeps the left order.
pub(crate) fn left_join(
    left: LazyFrame,
    right: LazyFrame,
    left_on: &str,
    right_on: &str,
) -> LazyFrame {
    left.join_builder()
        .with(right)
        .how(JoinType::Left)
        .left_on([col(left_on)])
        .right_on([col(right_on)])
        .maintain_order(MaintainOrderJoin::Left)
        .finish()
}

/// A two-column lookup table (`key` Int64, `value`) from `frame`'s `key_column` and
/// `value_column`, one row per key.
pub(crate) fn lookup(frame: LazyFrame, key_column: &str, value: Expr, key: &str) -> LazyFrame {
    frame
        .select([col(key_column).cast(DataType::Int64).alias(key), value])
        .unique_stable_generic(Some(vec![col(key)]), UniqueKeepStrategy::First)
}

/// For each row of `keys`, the row of `table_keys` holding the same value (the first one when it
/// repeats), or null. Lookups against the small side tables (`StringIds`, `TARGET_INFO_GPU`,
/// `PROCESSES`) are done this way rather than by joining the large kernel frame, so that the
/// kernel columns are never copied; the gathered string columns share the side table's bytes.
pub(crate) fn lookup_indices(keys: &Column, table_keys: &Column) -> PolarsResult<IdxCa> {
    let table_keys = table_keys.cast(&DataType::Int64)?;
    let mut positions: PlHashMap<i64, IdxSize> = PlHashMap::with_capacity(table_keys.len());
    for (position, key) in table_keys.i64()?.iter().enumerate() {
        if let Some(key) = key {
            positions.entry(key).or_insert(position as IdxSize);
        }
    }
    let keys = keys.cast(&DataType::Int64)?;
    let mut last: Option<(i64, Option<IdxSize>)> = None;
    let indices: IdxCa = keys
        .i64()?
        .iter()
        .map(|key| {
            let key = key?;
            if let Some((previous, found)) = last
                && previous == key
            {
                return found;
            }
            let found = positions.get(&key).copied();
            last = Some((key, found));
            found
        })
        .collect();
    Ok(indices)
}

/// Where the rows of a key column find their side-table rows ([`lookup_indices`]). When the key
/// column is a constant (scalar) column, its one value is looked up once and the gathered columns
/// are constant too, so that the per-device and per-process columns of a single-device,
/// single-process trace cost no memory per launch.
pub(crate) enum Lookup {
    /// Every one of `rows` rows has the same key, found at `index` (one index, or null).
    Constant { index: IdxCa, rows: usize },
    /// One side-table row (or null) per row.
    Rows(IdxCa),
}

impl Lookup {
    /// The side-table rows (keyed by `table_keys`) of the rows of `keys`.
    pub(crate) fn new(keys: &Column, table_keys: &Column) -> PolarsResult<Self> {
        if let Column::Scalar(scalar) = keys
            && !scalar.is_empty()
        {
            return Ok(Lookup::Constant {
                index: lookup_indices(&keys.head(Some(1)), table_keys)?,
                rows: keys.len(),
            });
        }
        Ok(Lookup::Rows(lookup_indices(keys, table_keys)?))
    }

    /// `values`, a column of the side table, gathered for every row.
    pub(crate) fn gather(&self, values: &Column) -> PolarsResult<Column> {
        match self {
            Lookup::Constant { index, rows } => {
                let found = values.take(index)?;
                let value = found.get(0)?.into_static();
                Ok(Column::new_scalar(
                    values.name().clone(),
                    Scalar::new(values.dtype().clone(), value),
                    *rows,
                ))
            }
            Lookup::Rows(indices) => values.take(indices),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_key_column_gives_a_constant_column_with_the_same_values() -> PolarsResult<()> {
        let table_keys = Column::new("id".into(), [5i64, 7, 7]);
        let values = Column::new("name".into(), ["five", "seven", "seven again"]);
        for (key, expected) in [(Some(7i64), Some("seven")), (Some(9), None), (None, None)] {
            let scalar = Column::new_scalar(
                "k".into(),
                Scalar::new(DataType::Int64, key.map_or(AnyValue::Null, AnyValue::Int64)),
                4,
            );
            let materialized = Column::new("k".into(), [key; 4]);
            let narrow = Lookup::new(&scalar, &table_keys)?.gather(&values)?;
            let full = Lookup::new(&materialized, &table_keys)?.gather(&values)?;
            assert!(matches!(narrow, Column::Scalar(_)));
            assert!(!matches!(full, Column::Scalar(_)));
            assert_eq!(narrow.len(), 4);
            assert_eq!(narrow.dtype(), &DataType::String);
            assert!(
                narrow
                    .as_materialized_series()
                    .equals_missing(full.as_materialized_series())
            );
            assert_eq!(narrow.str()?.get(3), expected);
        }
        Ok(())
    }
}
