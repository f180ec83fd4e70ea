//! Modified launch configurations evaluated by the model: the shared machinery of the what-if
//! engine and the occupancy sweeps.
//!
//! A [`Variant`] copies one row of a base frame (launch-table columns: device, compute capability,
//! block shape, registers, shared memory, carveout) and replaces some of its configuration. All
//! variants go through [`warpsight_model::evaluate`] in one call, so the occupancy of a suggestion is
//! computed by exactly the same expressions as the launch's own occupancy.

use polars::prelude::*;

use super::error::AnalysisError;
use super::frame_access::Cells;
use warpsight_model::arch::Registry;
use warpsight_ingest::launch_table::col;
use warpsight_model::{self, ModelConfig, columns as mc};

/// One modified configuration of a base row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Variant {
    /// Row of the base frame this variant starts from.
    pub base: usize,
    /// New block size in threads (the block becomes one-dimensional), if changed.
    pub block_size: Option<u32>,
    /// New registers per thread, if changed.
    pub registers: Option<u32>,
    /// New static shared memory per block in bytes, if changed.
    pub static_smem: Option<i64>,
    /// New dynamic shared memory per block in bytes, if changed.
    pub dynamic_smem: Option<i64>,
}

/// The model's occupancy for one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantOccupancy {
    /// Theoretical occupancy, 0–1 (`None` when the model could not evaluate it).
    pub occupancy: Option<f64>,
    /// Active blocks per SM.
    pub active_blocks: Option<i64>,
    /// The limiter(s).
    pub limiter: Option<String>,
    /// Why it cannot launch, if it cannot.
    pub not_launchable: Option<String>,
}

/// Evaluates every variant with the model and returns one result per variant, in order.
pub fn evaluate(
    base: &DataFrame,
    variants: &[Variant],
    registry: &Registry,
    config: &ModelConfig,
) -> Result<Vec<VariantOccupancy>, AnalysisError> {
    if variants.is_empty() {
        return Ok(Vec::new());
    }
    let indices: Vec<IdxSize> = variants.iter().map(|v| v.base as IdxSize).collect();
    let mut frame = base.take(&IdxCa::from_vec("index".into(), indices))?;
    let replaced = {
        let mut cells = Cells::new(&frame);
        let mut pick = |name: &str, change: &dyn Fn(&Variant) -> Option<i64>| -> Column {
            let values: Vec<Option<i64>> = variants
                .iter()
                .enumerate()
                .map(|(row, variant)| change(variant).or_else(|| cells.i64(name, row)))
                .collect();
            Column::new(name.into(), values)
        };
        vec![
            pick(col::BLOCK_X, &|v| v.block_size.map(i64::from)),
            pick(col::BLOCK_Y, &|v| v.block_size.map(|_| 1)),
            pick(col::BLOCK_Z, &|v| v.block_size.map(|_| 1)),
            pick(col::REGISTERS_PER_THREAD, &|v| v.registers.map(i64::from)),
            pick(col::STATIC_SMEM_BYTES, &|v| v.static_smem),
            pick(col::DYNAMIC_SMEM_BYTES, &|v| v.dynamic_smem),
        ]
    };
    for column in replaced {
        frame.with_column(column)?;
    }
    let evaluated = warpsight_model::evaluate(frame.lazy(), registry, config)?
        .select([
            col(mc::THEORETICAL_OCCUPANCY),
            col(mc::ACTIVE_BLOCKS),
            col(mc::LIMITER),
            col(mc::NOT_LAUNCHABLE),
        ])
        .collect()?;
    let mut cells = Cells::new(&evaluated);
    Ok((0..variants.len())
        .map(|row| VariantOccupancy {
            occupancy: cells.f64(mc::THEORETICAL_OCCUPANCY, row),
            active_blocks: cells.i64(mc::ACTIVE_BLOCKS, row),
            limiter: cells.str(mc::LIMITER, row),
            not_launchable: cells.str(mc::NOT_LAUNCHABLE, row),
        })
        .collect())
}

/// The launch-table columns that define a launch configuration for occupancy purposes.
pub const CONFIG_COLUMNS: &[&str] = &[
    col::DEVICE_NAME,
    col::CC_MAJOR,
    col::CC_MINOR,
    col::SM_COUNT,
    col::BLOCK_X,
    col::BLOCK_Y,
    col::BLOCK_Z,
    col::REGISTERS_PER_THREAD,
    col::STATIC_SMEM_BYTES,
    col::DYNAMIC_SMEM_BYTES,
    col::DRIVER_SMEM_BYTES,
    col::SMEM_CONFIG_BYTES,
];
