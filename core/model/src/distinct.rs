//! Numbering the distinct rows of a frame of model inputs, exactly and in one hash pass per column.
//!
//! The model evaluates once per distinct set of inputs ([`super::evaluation`]): millions of launches
//! of an Nsight Systems trace share a few dozen configurations. [`number_rows`] gives each row the
//! number of its distinct value tuple (in order of first appearance) and each number its first row.
//!
//! How: every key column is turned into 64-bit codes (integers and booleans as themselves, floats
//! by their bits, strings and categories by an interned index, nulls by a tag), the codes of a
//! row are mixed into one 64-bit hash, and rows are numbered by hash. The numbering is then
//! checked column by column against the first row of each number; if two different tuples ever
//! shared a hash (about n² / 2⁶⁵ for n distinct tuples), every row gets a number of its own, which
//! is slower but still exact. Polars' own `unique` plus a join would row-encode the keys of every
//! row twice (≈ 0.6 GB more on 2 M launches), which is what this avoids.

use polars::prelude::*;

/// The tag mixed in for a null value (not a value any column's code can collide with, because the
/// null flag is mixed in separately).
const NULL_TAG: u64 = 0x9e37_79b9_7f4a_7c15;

/// The SplitMix64 finaliser: a cheap, well-distributed mix of one 64-bit word.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// One key column as codes, one per row: `Some(code)` for a value, `None` for a null. Equal codes
/// mean equal values within one column. Columns without nulls (the usual case) are read without
/// their validity. Only columns that [`distinguishes`] accepts get here (a scalar column would be
/// materialised).
fn codes(column: &Column) -> PolarsResult<Vec<Option<u64>>> {
    let series = column.as_materialized_series();
    let no_nulls = series.null_count() == 0;
    Ok(match series.dtype() {
        DataType::Boolean => series.bool()?.iter().map(|v| v.map(u64::from)).collect(),
        DataType::Float32 | DataType::Float64 => {
            let cast = series.cast(&DataType::Float64)?;
            let values = cast.f64()?;
            if no_nulls {
                values
                    .into_no_null_iter()
                    .map(|v| Some(v.to_bits()))
                    .collect()
            } else {
                values.iter().map(|v| v.map(f64::to_bits)).collect()
            }
        }
        dtype if dtype.is_integer() => {
            if matches!(dtype, DataType::UInt64) {
                series.u64()?.iter().collect()
            } else {
                let cast = series.cast(&DataType::Int64)?;
                let values = cast.i64()?;
                if no_nulls {
                    values.into_no_null_iter().map(|v| Some(v as u64)).collect()
                } else {
                    values.iter().map(|v| v.map(|v| v as u64)).collect()
                }
            }
        }
        DataType::String => intern(series.str()?.iter()),
        _ => {
            let text = series.cast(&DataType::String)?;
            intern(text.str()?.iter())
        }
    })
}

/// Codes of strings: the index of each distinct string in order of first appearance. A run of
/// equal strings (a device name on every launch) is hashed once.
fn intern<'a>(values: impl Iterator<Item = Option<&'a str>>) -> Vec<Option<u64>> {
    let mut index: PlHashMap<&'a str, u64> = PlHashMap::new();
    let mut previous: Option<(&'a str, u64)> = None;
    values
        .map(|value| {
            value.map(|text| match previous {
                Some((last, code)) if last == text => code,
                _ => {
                    let next = index.len() as u64;
                    let code = *index.entry(text).or_insert(next);
                    previous = Some((text, code));
                    code
                }
            })
        })
        .collect()
}

/// Whether a key column can tell rows apart: a column of one repeated value (a scalar column,
/// such as the file name) or of nulls only (the counters an nsys export does not have: 30 of the
/// 41 key columns of a `cuda_gpu_trace` part) cannot, so it is left out of the hashing and the
/// check. Leaving it out changes no number.
fn distinguishes(column: &Column) -> bool {
    column.as_scalar_column().is_none() && column.null_count() < column.len()
}

/// The row numbering of `keyed`: the first row of each distinct tuple of its columns, in order of
/// first appearance, and each row's number. A frame without columns has one tuple.
pub fn number_rows(keyed: &DataFrame) -> PolarsResult<(IdxCa, IdxCa)> {
    let height = keyed.height();
    let mut hashes = vec![0u64; height];
    for column in keyed.columns().iter().filter(|c| distinguishes(c)) {
        for (hash, code) in hashes.iter_mut().zip(codes(column)?) {
            *hash = mix(
                hash.rotate_left(5) ^ mix(code.unwrap_or(NULL_TAG) ^ u64::from(code.is_none()))
            );
        }
    }
    let mut numbers: PlHashMap<u64, IdxSize> = PlHashMap::new();
    let mut first_rows: Vec<IdxSize> = Vec::new();
    let mut ids: Vec<IdxSize> = Vec::with_capacity(height);
    let mut previous: Option<(u64, IdxSize)> = None;
    for (row, hash) in hashes.iter().enumerate() {
        let id = match previous {
            Some((last, id)) if last == *hash => id,
            _ => {
                let next = IdxSize::try_from(first_rows.len()).map_err(
                    |_| polars_err!(ComputeError: "too many distinct launch configurations"),
                )?;
                let id = *numbers.entry(*hash).or_insert_with(|| {
                    first_rows.push(row as IdxSize);
                    next
                });
                previous = Some((*hash, id));
                id
            }
        };
        ids.push(id);
    }
    drop(hashes);
    if !numbering_is_exact(keyed, &first_rows, &ids)? {
        tracing::debug!(
            "two distinct model inputs shared a hash: evaluating every launch on its own"
        );
        let all: Vec<IdxSize> = (0..height as IdxSize).collect();
        return Ok((
            IdxCa::from_vec("first_rows".into(), all.clone()),
            IdxCa::from_vec("config".into(), all),
        ));
    }
    Ok((
        IdxCa::from_vec("first_rows".into(), first_rows),
        IdxCa::from_vec("config".into(), ids),
    ))
}

/// Whether every row's values equal those of the first row of its number, column by column.
fn numbering_is_exact(
    keyed: &DataFrame,
    first_rows: &[IdxSize],
    ids: &[IdxSize],
) -> PolarsResult<bool> {
    for column in keyed.columns().iter().filter(|c| distinguishes(c)) {
        let codes = codes(column)?;
        let same = codes
            .iter()
            .zip(ids)
            .all(|(code, id)| *code == codes[first_rows[*id as usize] as usize]);
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use polars::prelude::*;

    use super::number_rows;

    fn numbers(frame: &DataFrame) -> PolarsResult<(Vec<IdxSize>, Vec<IdxSize>)> {
        let (first, ids) = number_rows(frame)?;
        Ok((
            first.into_no_null_iter().collect(),
            ids.into_no_null_iter().collect(),
        ))
    }

    #[test]
    fn rows_are_numbered_by_first_appearance_of_their_tuple() -> PolarsResult<()> {
        let frame = df!(
            "device" => [Some("A"), Some("B"), Some("A"), None, Some("A")],
            "block" => [Some(256i64), Some(256), Some(256), Some(256), None],
            "bytes" => [1.5f64, 1.5, 1.5, 1.5, 1.5],
        )?;
        let (first, ids) = numbers(&frame)?;
        assert_eq!(first, [0, 1, 3, 4]);
        assert_eq!(ids, [0, 1, 0, 2, 3]);
        Ok(())
    }

    #[test]
    fn a_null_differs_from_every_value_and_floats_compare_by_bits() -> PolarsResult<()> {
        // 0 and null, 0.0 and −0.0, and the integer 0 in another column are all told apart.
        let frame = df!(
            "a" => [Some(0i64), None, Some(0), Some(0)],
            "b" => [0.0f64, 0.0, -0.0, 0.0],
        )?;
        let (first, ids) = numbers(&frame)?;
        assert_eq!(first, [0, 1, 2]);
        assert_eq!(ids, [0, 1, 2, 0]);
        Ok(())
    }

    #[test]
    fn constant_and_all_null_columns_change_no_number() -> PolarsResult<()> {
        let base = df!(
            "x" => [1i64, 2, 1, 3],
            "y" => ["a", "a", "a", "b"],
        )?;
        let mut wider = base.clone();
        wider.with_column(Column::full_null("nulls".into(), 4, &DataType::Float64))?;
        wider.with_column(
            Series::new("none".into(), [None::<i64>, None, None, None]).into_column(),
        )?;
        wider.with_column(Column::new_scalar(
            "file".into(),
            Scalar::new(DataType::String, "t.csv".into()),
            4,
        ))?;
        assert_eq!(numbers(&wider)?, numbers(&base)?);
        assert_eq!(numbers(&base)?, (vec![0, 1, 3], vec![0, 1, 0, 2]));
        // A frame whose columns are all constant is one tuple.
        let constant = wider.select(["nulls", "none", "file"])?;
        assert_eq!(numbers(&constant)?, (vec![0], vec![0, 0, 0, 0]));
        Ok(())
    }

    #[test]
    fn values_swapped_between_columns_are_different_tuples() -> PolarsResult<()> {
        let frame = df!("x" => [1i64, 2], "y" => [2i64, 1])?;
        assert_eq!(numbers(&frame)?.0, [0, 1]);
        Ok(())
    }

    #[test]
    fn a_frame_without_rows_has_no_tuples() -> PolarsResult<()> {
        let frame = df!("x" => Vec::<i64>::new())?;
        let (first, ids) = numbers(&frame)?;
        assert!(first.is_empty() && ids.is_empty());
        Ok(())
    }

    #[test]
    fn many_distinct_tuples_stay_distinct() -> PolarsResult<()> {
        // 20 000 tuples over two columns, each appearing three times, interleaved.
        let n = 20_000i64;
        let frame = df!(
            "x" => (0..3 * n).map(|i| (i % n) / 100).collect::<Vec<_>>(),
            "y" => (0..3 * n).map(|i| ((i % n) % 100) as f64).collect::<Vec<_>>(),
        )?;
        let (first, ids) = numbers(&frame)?;
        assert_eq!(first.len(), n as usize);
        assert!(
            ids.iter()
                .enumerate()
                .all(|(row, id)| *id as i64 == row as i64 % n)
        );
        Ok(())
    }
}
