//! Numbering the distinct rows of a frame of model inputs, exactly, in one hash pass and one
//! check pass over the key columns, both on row chunks in parallel.
//!
//! The model evaluates once per distinct set of inputs ([`super::evaluation`]): millions of launches
//! of an Nsight Systems trace share a few dozen configurations. [`number_rows`] gives each row the
//! number of its distinct value tuple (in order of first appearance) and each number its first row.
//!
//! How: every value of a key column is turned into a 64-bit code (integers and booleans as
//! themselves, floats by their bits, strings and categories by a hash of their text, nulls by a
//! tag), the codes of a row are mixed into one 64-bit hash, and rows are numbered by hash. The
//! numbering is then checked column by column: every row's values must equal those of the first
//! row of its number (floats by their bits, a null only a null). If two different tuples ever
//! shared a hash (about n² / 2⁶⁵ for n distinct tuples), every row gets a number of its own, which
//! is slower but still exact. The codes depend on a row's own values only, so the hashes and the
//! check run on row chunks in parallel; only the numbering, a hash lookup per row, is sequential.
//! Polars' own `unique` plus a join would row-encode the keys of every row twice (≈ 0.6 GB more on
//! 2 M launches), which is what this avoids.

use std::hash::BuildHasher;

use polars::prelude::*;
use rayon::prelude::*;

/// The tag mixed in for a null value (not a value any column's code can collide with, because the
/// null flag is mixed in separately).
const NULL_TAG: u64 = 0x9e37_79b9_7f4a_7c15;

/// Rows below which the hashes and the check run on the calling thread: a task per chunk repays
/// itself only over tens of thousands of rows.
const PARALLEL_MIN_ROWS: usize = 32_768;

/// The SplitMix64 finaliser: a cheap, well-distributed mix of one 64-bit word.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `hash` with the code of one more value mixed in (`None` for a null).
fn mix_in(hash: u64, code: Option<u64>) -> u64 {
    mix(hash.rotate_left(5) ^ mix(code.unwrap_or(NULL_TAG) ^ u64::from(code.is_none())))
}

/// One key column, read the way its values are coded and compared: equal values (floats by their
/// bits) have equal codes, and the check compares the values themselves, so two texts whose hashes
/// collide are still told apart. Its memory chunks are read as they are (a part stacked from
/// batches is never copied whole); `dense` when it has no null, which is read without its
/// validity (the usual case).
struct Key {
    values: KeyValues,
    dense: bool,
}

/// The values of a [`Key`], in the type they are compared in.
enum KeyValues {
    /// Booleans.
    Bool(BooleanChunked),
    /// Floats, as `Float64` (a cast that keeps every `Float32` value).
    Float(Float64Chunked),
    /// Integers but `UInt64`, as `Int64`.
    Int(Int64Chunked),
    /// `UInt64`.
    UInt(UInt64Chunked),
    /// Strings, and any other type as its text.
    Text(StringChunked),
}

/// The values of a [`Key`] at the first row of each number, which every row of that number must
/// equal: numbers and booleans by their codes, texts as they are.
enum Representatives {
    Codes(Vec<Option<u64>>),
    Texts(StringChunked),
}

impl Key {
    /// The column in the type it is compared in.
    fn of(column: &Column) -> PolarsResult<Key> {
        let series = column.as_materialized_series();
        let values = match series.dtype() {
            DataType::Boolean => KeyValues::Bool(series.bool()?.clone()),
            DataType::Float32 | DataType::Float64 => {
                KeyValues::Float(series.cast(&DataType::Float64)?.f64()?.clone())
            }
            DataType::UInt64 => KeyValues::UInt(series.u64()?.clone()),
            dtype if dtype.is_integer() => {
                KeyValues::Int(series.cast(&DataType::Int64)?.i64()?.clone())
            }
            DataType::String => KeyValues::Text(series.str()?.clone()),
            _ => KeyValues::Text(series.cast(&DataType::String)?.str()?.clone()),
        };
        Ok(Key {
            values,
            dense: series.null_count() == 0,
        })
    }

    /// Calls `each` with the code of every row of `offset..offset + len`, in order, for numbers
    /// and booleans (`None` for a null); texts call nothing.
    fn codes(&self, offset: usize, len: usize, each: impl FnMut(Option<u64>)) {
        match &self.values {
            KeyValues::Float(values) => {
                numeric_codes(values, offset, len, self.dense, f64::to_bits, each)
            }
            KeyValues::Int(values) => {
                numeric_codes(values, offset, len, self.dense, |v| v as u64, each)
            }
            KeyValues::UInt(values) => numeric_codes(values, offset, len, self.dense, |v| v, each),
            KeyValues::Bool(values) => {
                // Offsets and lengths are below the frame's height, which fits an i64.
                values
                    .slice(offset as i64, len)
                    .iter()
                    .map(|value| value.map(u64::from))
                    .for_each(each);
            }
            KeyValues::Text(_) => {}
        }
    }

    /// Calls `each` with the text of every row of `offset..offset + len`, in order (`None` for a
    /// null), for texts; other columns call nothing.
    fn texts(&self, offset: usize, len: usize, mut each: impl FnMut(Option<&str>)) {
        let KeyValues::Text(values) = &self.values else {
            return;
        };
        // Offsets and lengths are below the frame's height, which fits an i64.
        let part = values.slice(offset as i64, len);
        if self.dense {
            for array in part.downcast_iter() {
                for row in 0..array.len() {
                    each(Some(array.value(row)));
                }
            }
        } else {
            part.iter().for_each(each);
        }
    }

    /// Mixes the codes of rows `offset..offset + hashes.len()` into `hashes`. Texts are coded by
    /// `state`'s hash of their bytes (one state for every chunk, so equal texts have equal codes);
    /// a text at the address of the row before it (rows gathered from a few distinct values share
    /// their bytes) reuses its code.
    fn mix_into(&self, offset: usize, hashes: &mut [u64], state: &PlRandomState) {
        let len = hashes.len();
        let mut hash = hashes.iter_mut();
        let mut mix_next = |code: Option<u64>| {
            if let Some(hash) = hash.next() {
                *hash = mix_in(*hash, code);
            }
        };
        if !matches!(self.values, KeyValues::Text(_)) {
            self.codes(offset, len, mix_next);
            return;
        }
        let mut previous: Option<(*const u8, usize, u64)> = None;
        self.texts(offset, len, |text| {
            let code = text.map(|text| match previous {
                Some((at, length, code))
                    if std::ptr::eq(at, text.as_ptr()) && length == text.len() =>
                {
                    code
                }
                _ => {
                    let code = state.hash_one(text);
                    previous = Some((text.as_ptr(), text.len(), code));
                    code
                }
            });
            mix_next(code);
        });
    }

    /// The values at `first_rows`.
    fn representatives(&self, first_rows: &IdxCa) -> PolarsResult<Representatives> {
        if let KeyValues::Text(values) = &self.values {
            return Ok(Representatives::Texts(values.take(first_rows)?));
        }
        let mut codes = vec![None; first_rows.len()];
        let mut code = codes.iter_mut();
        let taken = Key {
            values: match &self.values {
                KeyValues::Bool(values) => KeyValues::Bool(values.take(first_rows)?),
                KeyValues::Float(values) => KeyValues::Float(values.take(first_rows)?),
                KeyValues::Int(values) => KeyValues::Int(values.take(first_rows)?),
                KeyValues::UInt(values) => KeyValues::UInt(values.take(first_rows)?),
                KeyValues::Text(values) => KeyValues::Text(values.take(first_rows)?),
            },
            dense: false,
        };
        taken.codes(0, first_rows.len(), |value| {
            if let Some(slot) = code.next() {
                *slot = value;
            }
        });
        Ok(Representatives::Codes(codes))
    }

    /// Whether every row of `offset..offset + len` has the value of the first row of its number
    /// (`ids`: every row's number; `representatives`: [`Self::representatives`]).
    fn rows_equal(
        &self,
        offset: usize,
        len: usize,
        ids: &[IdxSize],
        representatives: &Representatives,
    ) -> bool {
        let mut row = offset;
        let mut equal = true;
        match representatives {
            Representatives::Codes(codes) => self.codes(offset, len, |code| {
                equal &= code == codes[ids[row] as usize];
                row += 1;
            }),
            Representatives::Texts(texts) => {
                let texts: Vec<Option<&str>> = texts.iter().collect();
                self.texts(offset, len, |text| {
                    equal &= match (text, texts[ids[row] as usize]) {
                        (Some(a), Some(b)) => {
                            (std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()) || a == b
                        }
                        (None, None) => true,
                        _ => false,
                    };
                    row += 1;
                });
            }
        }
        equal
    }
}

/// Calls `each` with the code (`code` of each value, `None` for a null) of every row of
/// `offset..offset + len` of `values`, in order; `dense` (no null) reads the values without their
/// validity, chunk by chunk.
fn numeric_codes<T: PolarsNumericType>(
    values: &ChunkedArray<T>,
    offset: usize,
    len: usize,
    dense: bool,
    code: impl Fn(T::Native) -> u64,
    mut each: impl FnMut(Option<u64>),
) {
    // Offsets and lengths are below the frame's height, which fits an i64.
    let part = values.slice(offset as i64, len);
    if dense {
        for array in part.downcast_iter() {
            for value in array.values().iter() {
                each(Some(code(*value)));
            }
        }
    } else {
        for value in part.iter() {
            each(value.map(&code));
        }
    }
}

/// Whether a key column can tell rows apart: a column of one repeated value (a scalar column,
/// such as the file name) or of nulls only (the counters an nsys export does not have: 30 of the
/// 41 key columns of a `cuda_gpu_trace` part) cannot, so it is left out of the hashing and the
/// check. Leaving it out changes no number.
fn distinguishes(column: &Column) -> bool {
    column.as_scalar_column().is_none() && column.null_count() < column.len()
}

/// The row chunks of `height` rows hashed and checked in parallel: one per thread of rayon's pool
/// (one below [`PARALLEL_MIN_ROWS`] rows), as `(offset, len)`.
fn row_chunks(height: usize) -> Vec<(usize, usize)> {
    let pieces = if height < PARALLEL_MIN_ROWS {
        1
    } else {
        rayon::current_num_threads().clamp(1, height / (PARALLEL_MIN_ROWS / 2))
    };
    let per_piece = height.div_ceil(pieces.max(1)).max(1);
    (0..height)
        .step_by(per_piece)
        .map(|offset| (offset, per_piece.min(height - offset)))
        .collect()
}

/// The row numbering of `keyed`: the first row of each distinct tuple of its columns, in order of
/// first appearance, and each row's number. A frame without columns has one tuple.
pub fn number_rows(keyed: &DataFrame) -> PolarsResult<(IdxCa, IdxCa)> {
    let height = keyed.height();
    let keys: Vec<Key> = keyed
        .columns()
        .iter()
        .filter(|c| distinguishes(c))
        .map(Key::of)
        .collect::<PolarsResult<_>>()?;
    let chunks = row_chunks(height);
    let state = PlRandomState::default();
    let mut hashes = vec![0u64; height];
    let mut pieces: Vec<(usize, &mut [u64])> = Vec::with_capacity(chunks.len());
    let mut rest: &mut [u64] = &mut hashes;
    for &(offset, len) in &chunks {
        let (piece, after) = rest.split_at_mut(len);
        pieces.push((offset, piece));
        rest = after;
    }
    pieces.into_par_iter().for_each(|(offset, piece)| {
        for key in &keys {
            key.mix_into(offset, piece, &state);
        }
    });
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
    let first_rows = IdxCa::from_vec("first_rows".into(), first_rows);
    let representatives: Vec<Representatives> = keys
        .iter()
        .map(|key| key.representatives(&first_rows))
        .collect::<PolarsResult<_>>()?;
    let exact = chunks.par_iter().all(|&(offset, len)| {
        keys.iter()
            .zip(&representatives)
            .all(|(key, representatives)| key.rows_equal(offset, len, &ids, representatives))
    });
    if !exact {
        tracing::debug!(
            "two distinct model inputs shared a hash: evaluating every launch on its own"
        );
        let all: Vec<IdxSize> = (0..height as IdxSize).collect();
        return Ok((
            IdxCa::from_vec("first_rows".into(), all.clone()),
            IdxCa::from_vec("config".into(), all),
        ));
    }
    Ok((first_rows, IdxCa::from_vec("config".into(), ids)))
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

    /// The numbering of `frame` computed the plain way: each row's values as text, numbered in
    /// order of first appearance.
    fn reference(frame: &DataFrame) -> PolarsResult<(Vec<IdxSize>, Vec<IdxSize>)> {
        let mut numbers: std::collections::HashMap<Vec<String>, IdxSize> = Default::default();
        let mut first = Vec::new();
        let mut ids = Vec::new();
        for row in 0..frame.height() {
            let mut tuple = Vec::new();
            for column in frame.columns() {
                let value = column.get(row)?;
                tuple.push(match value {
                    AnyValue::Float64(v) => format!("f{}", v.to_bits()),
                    other => format!("{other:?}"),
                });
            }
            let next = first.len() as IdxSize;
            let id = *numbers.entry(tuple).or_insert_with(|| {
                first.push(row as IdxSize);
                next
            });
            ids.push(id);
        }
        Ok((first, ids))
    }

    #[test]
    fn chunks_hashed_in_parallel_number_like_the_plain_way() -> PolarsResult<()> {
        // 100 000 rows (several row chunks): texts gathered from a few values (shared bytes) and
        // copied per row, long and short, floats with nulls and −0.0, booleans and small integers.
        let rows = 100_000usize;
        let names = [
            "void gemm<float, 128>(float *, float const *, int)",
            "relu",
            "k",
        ];
        let distinct: StringChunked = names.iter().map(|n| Some(*n)).collect();
        let picks: IdxCa = (0..rows).map(|i| Some(((i * 7) % 3) as IdxSize)).collect();
        let mut gathered = distinct.take(&picks)?;
        gathered.rename("gathered".into());
        let copied: Vec<Option<String>> = (0..rows)
            .map(|i| (i % 11 != 0).then(|| format!("{}-{}", names[(i * 5) % 3], i % 4)))
            .collect();
        let mut frame = df!(
            "copied" => copied,
            "float" => (0..rows).map(|i| match i % 5 { 0 => None, 1 => Some(-0.0f64), 2 => Some(0.0), _ => Some((i % 3) as f64) }).collect::<Vec<_>>(),
            "flag" => (0..rows).map(|i| i % 2 == 0).collect::<Vec<_>>(),
            "small" => (0..rows).map(|i| (i % 6) as i32).collect::<Vec<_>>(),
        )?;
        frame.with_column(gathered.into_column())?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .map_err(|e| polars_err!(ComputeError: "{e}"))?;
        let numbered = pool.install(|| numbers(&frame))?;
        assert_eq!(numbered, reference(&frame)?);
        assert_eq!(numbers(&frame)?, numbered);
        // A frame of several memory chunks (a part stacked from batches) is read as it is.
        let mut stacked = frame.slice(0, 70_000);
        stacked.vstack_mut(&frame.slice(70_000, rows))?;
        stacked.vstack_mut(&frame.slice(0, 1000))?;
        assert!(stacked.first_col_n_chunks() > 1);
        assert_eq!(pool.install(|| numbers(&stacked))?, reference(&stacked)?);
        Ok(())
    }

    #[test]
    fn the_check_tells_apart_rows_given_one_number() -> PolarsResult<()> {
        // The check that catches two tuples sharing a hash: rows 0 and 1 given number 0.
        use super::Key;
        let frame = df!(
            "text" => [Some("a"), Some("b"), None],
            "float" => [Some(0.0f64), Some(-0.0), None],
            "same" => [1i64, 1, 1],
        )?;
        let first_rows = IdxCa::from_vec("first".into(), vec![0, 2]);
        let wrong = [0, 0, 1];
        let right = [0, 1, 2];
        let all_rows = IdxCa::from_vec("first".into(), vec![0, 1, 2]);
        for column in frame.columns() {
            let key = Key::of(column)?;
            let representatives = key.representatives(&first_rows)?;
            let equal = key.rows_equal(0, 3, &wrong, &representatives);
            assert_eq!(equal, column.name() == "same", "{}", column.name());
            let representatives = key.representatives(&all_rows)?;
            assert!(key.rows_equal(0, 3, &right, &representatives));
        }
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
