//! Row-wise work on a large frame split into row chunks evaluated in parallel, one per thread of
//! rayon's pool at most, the results stacked in row order.
//!
//! The model is row-wise: every stage reads only its own row, and the device and architecture
//! joins are left joins that keep the row order. So a frame of distinct model inputs (or of
//! what-if variants) cut into chunks gives, chunk after chunk, the rows the whole frame gives.
//! Each chunk's polars plan is built and optimised on its own (≈ 10 ms), which only a few
//! thousand rows per chunk repay.

use polars::prelude::*;

/// Rows per chunk below which a frame is evaluated in one piece.
pub const PARALLEL_MIN_ROWS: usize = 8192;

/// How many chunks `rows` rows make with at least `min_rows` rows each (and never fewer than 2:
/// polars evaluates a one-row column as a broadcast scalar, whose arithmetic may round differently
/// in the last bit, seen on a cross-device latency time), at most one per thread of rayon's pool
/// (at least 2, so that tests split frames on a one-thread pool too).
pub fn chunk_count(rows: usize, min_rows: usize) -> usize {
    (rows / min_rows.max(2)).clamp(1, rayon::current_num_threads().max(2))
}

/// `evaluate` on `frame` cut into [`chunk_count`] row chunks, run in parallel, the results
/// stacked in row order and made one memory chunk per column (later gathers index them often).
/// With one chunk, `evaluate` gets the whole frame.
pub fn evaluate_in_row_chunks<E>(
    frame: DataFrame,
    min_rows: usize,
    evaluate: impl Fn(DataFrame) -> Result<DataFrame, E> + Sync,
) -> Result<DataFrame, E>
where
    E: From<PolarsError> + Send,
{
    use rayon::prelude::*;
    let rows = frame.height();
    let pieces = chunk_count(rows, min_rows);
    if pieces < 2 {
        return evaluate(frame);
    }
    let per_piece = rows.div_ceil(pieces);
    let parts = (0..pieces)
        .into_par_iter()
        // Offsets are below the frame's height, which fits an i64.
        .map(|piece| evaluate(frame.slice((piece * per_piece) as i64, per_piece)))
        .collect::<Result<Vec<DataFrame>, E>>()?;
    let mut parts = parts.into_iter();
    let mut stacked = parts.next().unwrap_or_default();
    for part in parts {
        stacked.vstack_mut_owned(part)?;
    }
    stacked.rechunk_mut_par();
    Ok(stacked)
}
