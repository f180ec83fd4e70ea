//! The occupancy fast path: [`evaluate_occupancy`] adds only the occupancy and waves columns (plus
//! `model_device` and `model_reason`), computed once per distinct launch configuration.
//!
//! Millions of launches of a Nsight Systems trace share a handful of configurations (device, block
//! shape, registers, shared memory, carveout, barriers). The device resolution ([`super::resolve`]),
//! the parameter joins ([`super::params`]) and the occupancy expressions
//! ([`super::occupancy::add_columns`]) therefore run on the unique configurations only, and their
//! results are joined back onto the launches (left join, launch order kept). The only per-launch
//! work left is the grid size and the waves, with the very expressions [`super::evaluate`] uses, so
//! both entry points give identical values (the `model_corpus` test checks it).

use polars::prelude::*;

use super::columns as out;
use super::{ModelConfig, ModelError, occupancy, params as p, resolve, waves};
use crate::arch::Registry;
use crate::launch_table::col as lt;

/// Internal key column: the barrier count per block ([`super::barrier_count_expr`]).
const KEY_BARRIERS: &str = "__q_barrier_count";

/// The launch-table columns that occupancy (and the device resolution it needs) depends on, plus
/// [`KEY_BARRIERS`]. The grid size and the SM clock are deliberately absent: the grid is
/// computed per launch, and the clock only scales the roofline's peaks.
fn key_columns() -> [&'static str; 12] {
    [
        lt::DEVICE_NAME,
        lt::CC_MAJOR,
        lt::CC_MINOR,
        lt::SM_COUNT,
        lt::BLOCK_X,
        lt::BLOCK_Y,
        lt::BLOCK_Z,
        lt::REGISTERS_PER_THREAD,
        lt::STATIC_SMEM_BYTES,
        lt::DYNAMIC_SMEM_BYTES,
        lt::SMEM_CONFIG_BYTES,
        KEY_BARRIERS,
    ]
}

/// Adds the occupancy columns of [`super::columns`] (threads and warps per block, grid blocks,
/// allocations, smem capacity and source, every block limit, active blocks and warps, theoretical
/// occupancy, limiter, `not_launchable`), the waves columns (blocks per wave, waves, tail
/// efficiency), [`out::MODEL_DEVICE`] and [`out::MODEL_REASON`] to the launch table, with the same
/// values as [`super::evaluate`] gives them, but without the roofline, Little's law and
/// prediction stages, and evaluating the configuration-dependent part once per distinct launch
/// configuration. Fails like [`super::evaluate`]: on an unknown override device or a polars error.
pub fn evaluate_occupancy(
    launches: LazyFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<LazyFrame, ModelError> {
    let mut launches = crate::launch_table::conform(launches)?;
    let barriers = super::barrier_count_expr(&mut launches)?;
    let launch_names: Vec<PlSmallStr> = launches.collect_schema()?.iter_names_cloned().collect();
    let launches = launches.with_column(barriers.alias(KEY_BARRIERS));
    let keys: Vec<Expr> = key_columns().into_iter().map(col).collect();

    // One row per distinct configuration. The grid and the SM clock are set to null there: they
    // are inputs of expressions whose results this path does not take from the configuration
    // frame (the grid size is recomputed per launch below).
    let configs = launches
        .clone()
        .select(keys.clone())
        .unique(None, UniqueKeepStrategy::Any)
        .with_columns([
            lit(NULL).cast(DataType::Int64).alias(lt::GRID_X),
            lit(NULL).cast(DataType::Int64).alias(lt::GRID_Y),
            lit(NULL).cast(DataType::Int64).alias(lt::GRID_Z),
            lit(NULL).cast(DataType::Float64).alias(lt::SM_CLOCK_HZ),
        ]);
    let resolved = match &config.device_override {
        None => resolve::own_device(configs, registry, config, col(KEY_BARRIERS))?,
        Some(name) => {
            let (device, arch) = super::override_target(registry, name)?;
            resolve::override_device(configs, device, arch, config, col(KEY_BARRIERS))
        }
    };
    let mut evaluated = occupancy::add_columns(resolved)?
        .with_columns([
            col(p::DEV_NAME).alias(out::MODEL_DEVICE),
            resolve::model_reason_case().alias(resolve::REASON_CASE),
        ])
        .with_columns([resolve::model_reason().alias(out::MODEL_REASON)]);

    // The occupancy columns, in the order `add_columns` adds them.
    let occupancy_names: Vec<PlSmallStr> = evaluated
        .collect_schema()?
        .iter_names_cloned()
        .filter(|name| {
            !name.starts_with("__")
                && !launch_names.contains(name)
                && name != out::MODEL_DEVICE
                && name != out::MODEL_REASON
        })
        .collect();
    let mut per_config = keys.clone();
    per_config.push(col(resolve::SM_COUNT));
    per_config.extend(
        occupancy_names
            .iter()
            .filter(|name| *name != out::GRID_BLOCKS)
            .map(|name| col(name.clone())),
    );
    per_config.extend([col(out::MODEL_DEVICE), col(out::MODEL_REASON)]);
    let per_config = evaluated.select(per_config);

    let joined = launches
        .join(
            per_config,
            keys.clone(),
            keys,
            JoinArgs {
                nulls_equal: true,
                maintain_order: MaintainOrderJoin::Left,
                ..JoinArgs::new(JoinType::Left)
            },
        )
        .with_column(occupancy::grid_blocks().alias(out::GRID_BLOCKS));
    let joined = waves::add_columns(joined);

    let mut keep: Vec<Expr> = launch_names.into_iter().map(col).collect();
    keep.extend(occupancy_names.into_iter().map(col));
    keep.extend(
        [
            out::BLOCKS_PER_WAVE,
            out::WAVES,
            out::TAIL_EFFICIENCY,
            out::MODEL_DEVICE,
            out::MODEL_REASON,
        ]
        .map(col),
    );
    Ok(joined.select(keep))
}
