//! Waves and the tail effect: how many rounds of resident blocks the grid needs.
//!
//! blocks per wave = active blocks per SM × SMs; waves = grid blocks / blocks per wave;
//! tail efficiency = waves / ceil(waves) (1 when the last wave is full). The SM count is the
//! launch row's (`sm_count`) when the export has it, else the device's (see [`super::resolve`]).

use polars::prelude::*;

use super::columns as out;
use super::resolve::SM_COUNT;

/// Adds [`out::BLOCKS_PER_WAVE`], [`out::WAVES`] and [`out::TAIL_EFFICIENCY`]. Launches that cannot
/// run (0 active blocks) or lack a grid size or SM count get nulls.
pub(crate) fn add_columns(frame: LazyFrame) -> LazyFrame {
    let per_wave = col(out::ACTIVE_BLOCKS) * col(SM_COUNT).cast(DataType::Int64);
    let frame = frame.with_columns([when(per_wave.clone().gt(lit(0i64)))
        .then(per_wave)
        .otherwise(lit(NULL).cast(DataType::Int64))
        .alias(out::BLOCKS_PER_WAVE)]);
    let waves = col(out::GRID_BLOCKS).cast(DataType::Float64)
        / col(out::BLOCKS_PER_WAVE).cast(DataType::Float64);
    let frame = frame.with_columns([waves.alias(out::WAVES)]);
    frame.with_columns([when(col(out::WAVES).gt(lit(0.0)))
        .then(col(out::WAVES) / col(out::WAVES).ceil())
        .otherwise(lit(NULL).cast(DataType::Float64))
        .alias(out::TAIL_EFFICIENCY)])
}
