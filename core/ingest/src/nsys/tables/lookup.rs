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
