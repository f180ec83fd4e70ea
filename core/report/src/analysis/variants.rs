//! Modified launch configurations evaluated by the model: the shared machinery of the what-if
//! engine and the occupancy sweeps.
//!
//! A [`Variant`] copies one row of a base frame (launch-table columns: device, compute capability,
//! block shape, registers, shared memory, carveout) and replaces some of its configuration. All
//! variants go through [`warpsight_model::evaluate_occupancy`] in one call (the occupancy columns
//! of [`warpsight_model::evaluate`], computed once per distinct configuration), so the occupancy
//! of a suggestion is computed by exactly the same expressions as the launch's own occupancy.

use polars::prelude::*;

use super::error::AnalysisError;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::Registry;
use warpsight_model::{self, ModelConfig, columns as mc};

/// One modified configuration of a base row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Variant {
    /// Row of the base frame this variant starts from.
    pub(crate) base: usize,
    /// New block size in threads (the block becomes one-dimensional), if changed.
    pub(crate) block_size: Option<u32>,
    /// New registers per thread, if changed.
    pub(crate) registers: Option<u32>,
    /// New static shared memory per block in bytes, if changed.
    pub(crate) static_smem: Option<i64>,
    /// New dynamic shared memory per block in bytes, if changed.
    pub(crate) dynamic_smem: Option<i64>,
}

/// The model's occupancy for one variant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VariantOccupancy {
    /// Theoretical occupancy, 0–1 (`None` when the model could not evaluate it).
    pub(crate) occupancy: Option<f64>,
    /// Active blocks per SM.
    pub(crate) active_blocks: Option<i64>,
    /// The limiter(s).
    pub(crate) limiter: Option<String>,
    /// Why it cannot launch, if it cannot.
    pub(crate) not_launchable: Option<String>,
}

/// What [`evaluate`] reports of each variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    /// Occupancy and active blocks only (the limiter and launchability are left `None`, and the
    /// model does not build their text for every variant).
    Occupancy,
    /// Also the limiter and why a variant cannot launch.
    WithLimiter,
}

/// Evaluates every variant with the model and returns one result per variant, in order.
pub(crate) fn evaluate(
    base: &DataFrame,
    variants: &[Variant],
    registry: &Registry,
    config: &ModelConfig,
    detail: Detail,
) -> Result<Vec<VariantOccupancy>, AnalysisError> {
    if variants.is_empty() {
        return Ok(Vec::new());
    }
    let indices: Vec<IdxSize> = variants.iter().map(|v| v.base as IdxSize).collect();
    // Only the columns occupancy reads are copied per variant (a base row of an ncu raw page has
    // hundreds of metric columns, and a what-if tries dozens of variants per configuration).
    let inputs: Vec<PlSmallStr> = base
        .get_column_names()
        .into_iter()
        .filter(|name| OCCUPANCY_INPUTS.contains(&name.as_str()))
        .cloned()
        .collect();
    let mut frame = base
        .select(inputs)?
        .take(&IdxCa::from_vec("index".into(), indices))?;
    // Each changed column: the variant's value where it sets one, else the base row's.
    let changed = |name: &str, change: &dyn Fn(&Variant) -> Option<i64>| -> PolarsResult<Column> {
        let base_values = match frame.column(name) {
            Ok(column) => column.cast(&DataType::Int64)?.i64()?.clone(),
            Err(_) => Int64Chunked::full_null(name.into(), frame.height()),
        };
        let values: Int64Chunked = variants
            .iter()
            .zip(base_values.iter())
            .map(|(variant, base)| change(variant).or(base))
            .collect();
        Ok(values.with_name(name.into()).into_column())
    };
    let replaced = vec![
        changed(lt::BLOCK_X, &|v| v.block_size.map(i64::from))?,
        changed(lt::BLOCK_Y, &|v| v.block_size.map(|_| 1))?,
        changed(lt::BLOCK_Z, &|v| v.block_size.map(|_| 1))?,
        changed(lt::REGISTERS_PER_THREAD, &|v| v.registers.map(i64::from))?,
        changed(lt::STATIC_SMEM_BYTES, &|v| v.static_smem)?,
        changed(lt::DYNAMIC_SMEM_BYTES, &|v| v.dynamic_smem)?,
    ];
    for column in replaced {
        frame.with_column(column)?;
    }
    // Variants of different launches often coincide (the same registers, block and shared
    // memory): each distinct one is evaluated once.
    let (first_rows, ids) = warpsight_model::number_distinct_rows(&frame)?;
    let mut wanted = vec![mc::THEORETICAL_OCCUPANCY, mc::ACTIVE_BLOCKS];
    if detail == Detail::WithLimiter {
        wanted.extend([mc::LIMITER, mc::NOT_LAUNCHABLE]);
    }
    // Only these columns are computed (`occupancy_columns` prunes the rest from the model's plan).
    // Many variants (a what-if over tens of thousands of configurations) are evaluated in row
    // chunks on every core; the occupancy is row-wise (`warpsight_model::row_chunks`).
    let evaluated = warpsight_model::row_chunks::evaluate_in_row_chunks(
        frame.take(&first_rows)?,
        warpsight_model::PARALLEL_MIN_ROWS,
        |part| -> Result<DataFrame, AnalysisError> {
            Ok(warpsight_model::occupancy_columns(
                part.lazy(),
                registry,
                config,
                &wanted,
            )?)
        },
    )?;
    let occupancy = evaluated
        .column(mc::THEORETICAL_OCCUPANCY)?
        .cast(&DataType::Float64)?;
    let blocks = evaluated
        .column(mc::ACTIVE_BLOCKS)?
        .cast(&DataType::Int64)?;
    let text = |name: &str| -> PolarsResult<Option<StringChunked>> {
        match evaluated.column(name) {
            Ok(column) => Ok(Some(column.cast(&DataType::String)?.str()?.clone())),
            Err(_) => Ok(None),
        }
    };
    let (limiter, not_launchable) = (text(mc::LIMITER)?, text(mc::NOT_LAUNCHABLE)?);
    let (occupancy, blocks) = (occupancy.f64()?, blocks.i64()?);
    let text_at = |column: &Option<StringChunked>, id: usize| {
        column.as_ref().and_then(|c| c.get(id)).map(str::to_string)
    };
    Ok(ids
        .into_no_null_iter()
        .map(|id| {
            let id = id as usize;
            VariantOccupancy {
                occupancy: occupancy.get(id).filter(|v| v.is_finite()),
                active_blocks: blocks.get(id),
                limiter: text_at(&limiter, id),
                not_launchable: text_at(&not_launchable, id),
            }
        })
        .collect())
}

/// The columns the occupancy of a variant is computed from: the device resolution's and the
/// occupancy calculator's inputs (`warpsight_model::occupancy_table`) and the barrier count's
/// native columns. The grid is left out: it only sets the waves, which a variant does not report,
/// and without it the variants of many launches share their configurations.
const OCCUPANCY_INPUTS: &[&str] = &[
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
    lt::SM_CLOCK_HZ,
    lt::DRAM_CLOCK_HZ,
    "launch__barrier_count",
    "launch_barrier_count",
    "barrier_count",
];

/// The launch-table columns that define a launch configuration for occupancy purposes.
pub(crate) const CONFIG_COLUMNS: &[&str] = &[
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
    lt::DRIVER_SMEM_BYTES,
    lt::SMEM_CONFIG_BYTES,
];
