//! The what-if engine: for every distinct launch configuration, re-run the model's occupancy on
//! modified configurations and keep the gains worth suggesting.
//!
//! Three changes are tried, each evaluated by the model itself (`super::variants`):
//! - **fewer registers**: the largest register count below the current one that gives at least one
//!   more resident block per SM (the next step of the register limit), among the register
//!   allocation steps: all evaluated at once when they are few, else found by a binary search
//!   (blocks per SM never grow with more registers);
//! - **another block size**: 32, 64, 128, 256, 512 and 1024 threads (same registers and shared
//!   memory per block); the one with the highest occupancy, the nearest to the current size on ties;
//! - **less shared memory**: the per-block amount that lets one more block fit in the SM's shared
//!   capacity (`floor(capacity / (blocks + 1))`, rounded down to 256 B), taken from the dynamic
//!   part first.
//!
//! The results are joined back onto every launch as the `whatif_*` columns below (null when the
//! change brings nothing), which the rules turn into numeric suggestions.

use polars::prelude::*;

use super::error::AnalysisError;
use super::frame_access::Cells;
use super::variants::{self, CONFIG_COLUMNS, Variant};
use warpsight_ingest::MAX_REGISTERS_PER_THREAD;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::Registry;
use warpsight_model::{ModelConfig, columns as mc};

/// Suggested registers per thread (the next register step that adds a block per SM).
pub const REGISTERS: &str = "whatif_registers";
/// Active blocks per SM with [`REGISTERS`].
pub const REGISTERS_BLOCKS: &str = "whatif_registers_blocks";
/// Theoretical occupancy with [`REGISTERS`], 0–1.
pub const REGISTERS_OCCUPANCY: &str = "whatif_registers_occupancy";
/// Block size (threads) with the best occupancy, when better than the current one.
pub const BLOCK_SIZE: &str = "whatif_block_size";
/// Theoretical occupancy with [`BLOCK_SIZE`], 0–1.
pub const BLOCK_SIZE_OCCUPANCY: &str = "whatif_block_size_occupancy";
/// Suggested shared memory per block (static + dynamic), bytes.
pub const SMEM_BYTES: &str = "whatif_smem_bytes";
/// Active blocks per SM with [`SMEM_BYTES`].
pub const SMEM_BLOCKS: &str = "whatif_smem_blocks";
/// Theoretical occupancy with [`SMEM_BYTES`], 0–1.
pub const SMEM_OCCUPANCY: &str = "whatif_smem_occupancy";

/// Block sizes tried by the block-size what-if.
pub(crate) const BLOCK_SIZES: [u32; 6] = [32, 64, 128, 256, 512, 1024];

/// What one distinct configuration gains from each change.
#[derive(Debug, Clone, Default, PartialEq)]
struct Gains {
    registers: Option<(u32, i64, f64)>,
    block_size: Option<(u32, f64)>,
    smem: Option<(i64, i64, f64)>,
}

/// Which variant answers which question for which configuration.
#[derive(Debug, Clone, Copy)]
enum Purpose {
    /// A candidate (index into the ascending register steps) of a register search.
    Registers(usize, u32),
    BlockSize(u32),
    SharedMemory(i64),
}

/// Adds the `whatif_*` columns to a frame the model has evaluated.
pub fn add_columns(
    evaluated: DataFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<DataFrame, AnalysisError> {
    let key: Vec<Expr> = CONFIG_COLUMNS.iter().map(|name| col(*name)).collect();
    // The first row of each distinct configuration among the rows the model evaluated, in order:
    // numbered on the key columns alone, so that the (wide) frame is copied only for those rows.
    let evaluable: IdxCa = evaluated
        .column(mc::THEORETICAL_OCCUPANCY)?
        .is_not_null()
        .iter()
        .enumerate()
        .filter_map(|(row, evaluable)| (evaluable == Some(true)).then_some(row as IdxSize))
        .collect_ca("rows".into());
    let keyed = evaluated
        .select(CONFIG_COLUMNS.iter().copied())?
        .take(&evaluable)?;
    let (first_rows, _) = warpsight_model::number_distinct_rows(&keyed)?;
    let configs = evaluated.take(&evaluable.take(&first_rows)?)?;
    warpsight_ingest::memory::log_stage("what-if: the distinct configurations");
    let gains = config_gains(&configs, registry, config, RegisterSearchPlan::BySize)?;
    warpsight_ingest::memory::log_stage("what-if: the variants");
    let whatif = configs
        .select(CONFIG_COLUMNS.iter().copied())?
        .hstack(&gain_columns(&gains))?;
    let gain_names: Vec<PlSmallStr> = whatif
        .get_column_names()
        .into_iter()
        .filter(|name| !CONFIG_COLUMNS.contains(&name.as_str()))
        .cloned()
        .collect();
    // Only the key columns are joined (one row per configuration on the right, so one row per
    // row of `evaluated`, in order); the gain columns are then added beside the wide frame,
    // which a join would gather column by column.
    let gains = evaluated
        .select(CONFIG_COLUMNS.iter().copied())?
        .lazy()
        .join(whatif.lazy(), key.clone(), key, super::left_join_in_order())
        .select(gain_names.iter().cloned().map(col).collect::<Vec<_>>())
        .collect()?;
    if gains.height() != evaluated.height() {
        return Err(polars_err!(ComputeError:
            "what-if gains for {} rows, expected {}", gains.height(), evaluated.height())
        .into());
    }
    let mut evaluated = evaluated;
    for column in gains.into_columns() {
        evaluated.with_column(column)?;
    }
    Ok(evaluated)
}

/// Tries every change on every distinct configuration in one model evaluation.
fn config_gains(
    configs: &DataFrame,
    registry: &Registry,
    config: &ModelConfig,
    plan: RegisterSearchPlan,
) -> Result<Vec<Gains>, AnalysisError> {
    let mut cells = Cells::new(configs);
    let mut variants = Vec::new();
    let mut purposes = Vec::new();
    let mut searches = Vec::new();
    for row in 0..configs.height() {
        let limiter = cells.str(mc::LIMITER, row).unwrap_or_default();
        let blocks = cells.i64(mc::ACTIVE_BLOCKS, row).unwrap_or(0);
        let registers = cells.i64(lt::REGISTERS_PER_THREAD, row).unwrap_or(0);
        // The search is bounded by the validated range (1–255 registers): a launch table that
        // did not go through ingest validation cannot make it loop over billions of counts.
        if limiter.contains("registers")
            && let Ok(registers) = u32::try_from(registers)
            && (2..=MAX_REGISTERS_PER_THREAD).contains(&i64::from(registers))
        {
            let step = register_step(registry, &mut cells, row);
            searches.push(RegisterSearch::new(row, registers, step, blocks));
        }
        let threads = cells.i64(mc::THREADS_PER_BLOCK, row).unwrap_or(0);
        for size in BLOCK_SIZES {
            if i64::from(size) != threads {
                variants.push(Variant {
                    base: row,
                    block_size: Some(size),
                    ..Variant::default()
                });
                purposes.push((row, Purpose::BlockSize(size)));
            }
        }
        let capacity = cells.i64(mc::SMEM_CAPACITY, row);
        let allocated = cells.i64(mc::SMEM_PER_BLOCK, row);
        if limiter.contains("shared_memory")
            && let (Some(capacity), Some(allocated)) = (capacity, allocated)
        {
            let static_smem = cells.i64(lt::STATIC_SMEM_BYTES, row).unwrap_or(0);
            let dynamic_smem = cells.i64(lt::DYNAMIC_SMEM_BYTES, row).unwrap_or(0);
            if let Some(change) =
                smem_change(capacity, allocated, blocks, static_smem, dynamic_smem)
            {
                variants.push(Variant {
                    base: row,
                    dynamic_smem: Some(change.dynamic_smem),
                    static_smem: Some(change.static_smem),
                    ..Variant::default()
                });
                purposes.push((row, Purpose::SharedMemory(change.total)));
            }
        }
    }
    // Few register candidates in all go with the other variants into one model evaluation; many
    // are bisected first, a round per evaluation.
    let candidates: usize = searches.iter().map(RegisterSearch::candidates).sum();
    let plan = match plan {
        RegisterSearchPlan::BySize if candidates <= ONE_ROUND_CANDIDATES => {
            RegisterSearchPlan::OneRound
        }
        RegisterSearchPlan::BySize => RegisterSearchPlan::Bisect,
        other => other,
    };
    match plan {
        RegisterSearchPlan::Bisect => bisect_registers(configs, &mut searches, registry, config)?,
        _ => {
            for (index, search) in searches.iter().enumerate() {
                for candidate in search.low + 1..search.high {
                    variants.push(search.variant(candidate));
                    purposes.push((search.row, Purpose::Registers(index, candidate)));
                }
            }
        }
    }
    warpsight_ingest::memory::log_stage("what-if: listing the variants");
    let results = variants::evaluate(
        configs,
        &variants,
        registry,
        config,
        variants::Detail::Occupancy,
    )?;
    warpsight_ingest::memory::log_stage("what-if: evaluating the variants");
    let mut gains = vec![Gains::default(); configs.height()];
    for ((row, purpose), result) in purposes.into_iter().zip(results) {
        let (Some(occupancy), Some(blocks)) = (result.occupancy, result.active_blocks) else {
            continue;
        };
        let current_blocks = cells.i64(mc::ACTIVE_BLOCKS, row).unwrap_or(0);
        let current_occupancy = cells.f64(mc::THEORETICAL_OCCUPANCY, row).unwrap_or(0.0);
        let threads = cells.i64(mc::THREADS_PER_BLOCK, row).unwrap_or(0);
        let gain = &mut gains[row];
        match purpose {
            // Candidates come in ascending order: the last that adds a block is the suggestion.
            Purpose::Registers(index, candidate) => {
                searches[index].record(candidate, blocks, occupancy)
            }
            Purpose::BlockSize(size) => {
                if occupancy > current_occupancy + 1e-9 {
                    let better = match gain.block_size {
                        None => true,
                        Some((best_size, best)) => {
                            occupancy > best + 1e-9
                                || ((occupancy - best).abs() <= 1e-9
                                    && (i64::from(size) - threads).abs()
                                        < (i64::from(best_size) - threads).abs())
                        }
                    };
                    if better {
                        gain.block_size = Some((size, occupancy));
                    }
                }
            }
            Purpose::SharedMemory(total) => {
                if blocks > current_blocks {
                    gain.smem = Some((total, blocks, occupancy));
                }
            }
        }
    }
    for search in searches {
        gains[search.row].registers = search.found;
    }
    Ok(gains)
}

/// The search for one configuration's register suggestion: the largest multiple of `step` below
/// the current count that gives more blocks per SM than `blocks`, evaluated in one round or
/// bisected ([`RegisterSearchPlan`]).
///
/// Blocks per SM never increase with more registers per thread (the register limit falls, the
/// other limits do not depend on it), so the candidates that add a block are a prefix of the
/// ascending steps `step, 2 × step, …`, and the last of that prefix is found in
/// `log2(candidates)` evaluations instead of one per candidate.
#[derive(Debug, Clone, PartialEq)]
struct RegisterSearch {
    /// The configuration's row.
    row: usize,
    /// The register step.
    step: u32,
    /// Blocks per SM with the current registers.
    blocks: i64,
    /// The largest candidate index known to add a block (0: none known yet).
    low: u32,
    /// The smallest candidate index known not to (or one past the last candidate).
    high: u32,
    /// Registers, blocks and occupancy of candidate `low`.
    found: Option<(u32, i64, f64)>,
}

impl RegisterSearch {
    /// A search below `registers` (at least 2) in steps of `step` (at least 1).
    fn new(row: usize, registers: u32, step: u32, blocks: i64) -> Self {
        let step = step.max(1);
        // Candidates are k × step for k = 1 … count, all below `registers`.
        let count = (registers - 1) / step;
        RegisterSearch {
            row,
            step,
            blocks,
            low: 0,
            high: count + 1,
            found: None,
        }
    }

    /// The candidate index to evaluate next, or `None` when the search is over.
    fn next(&self) -> Option<u32> {
        (self.high - self.low > 1).then(|| self.low + (self.high - self.low) / 2)
    }

    /// How many candidates are still open.
    fn candidates(&self) -> usize {
        (self.high - self.low).saturating_sub(1) as usize
    }

    /// The variant trying candidate `candidate`.
    fn variant(&self, candidate: u32) -> Variant {
        Variant {
            base: self.row,
            registers: Some(candidate * self.step),
            ..Variant::default()
        }
    }

    /// Takes in the model's blocks per SM and occupancy for candidate `candidate`.
    fn record(&mut self, candidate: u32, blocks: i64, occupancy: f64) {
        if blocks > self.blocks {
            if candidate > self.low {
                self.low = candidate;
                self.found = Some((candidate * self.step, blocks, occupancy));
            }
        } else {
            self.high = self.high.min(candidate);
        }
    }
}

/// How the register searches evaluate their candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegisterSearchPlan {
    /// [`Self::OneRound`] up to [`ONE_ROUND_CANDIDATES`] candidates in all, else [`Self::Bisect`].
    BySize,
    /// Every candidate of every search in one model evaluation (one polars query: few
    /// configurations are cheaper this way than in several rounds).
    OneRound,
    /// One candidate per search and round, about `log2(candidates)` rounds.
    Bisect,
}

/// Up to this many register candidates in all, [`RegisterSearchPlan::BySize`] evaluates them in
/// one round.
const ONE_ROUND_CANDIDATES: usize = 1 << 16;

/// Bisects every register search to the end, one model evaluation per round for all of them.
fn bisect_registers(
    configs: &DataFrame,
    searches: &mut [RegisterSearch],
    registry: &Registry,
    config: &ModelConfig,
) -> Result<(), AnalysisError> {
    // Each round halves every open range of at most 2^32 candidates: the bound is never reached,
    // it only keeps the loop finite whatever the model answers.
    for _round in 0..=u32::BITS {
        let probes: Vec<(usize, u32)> = searches
            .iter()
            .enumerate()
            .filter_map(|(index, search)| Some((index, search.next()?)))
            .collect();
        if probes.is_empty() {
            return Ok(());
        }
        let variants: Vec<Variant> = probes
            .iter()
            .map(|&(index, candidate)| searches[index].variant(candidate))
            .collect();
        let results = variants::evaluate(
            configs,
            &variants,
            registry,
            config,
            variants::Detail::Occupancy,
        )?;
        for ((index, candidate), result) in probes.into_iter().zip(results) {
            let search = &mut searches[index];
            match (result.occupancy, result.active_blocks) {
                (Some(occupancy), Some(blocks)) => search.record(candidate, blocks, occupancy),
                // A candidate the model cannot evaluate ends the prefix, as one that adds nothing.
                _ => search.high = search.high.min(candidate),
            }
        }
    }
    Ok(())
}

/// The register counts worth trying below the current one are the multiples of this step.
///
/// With per-warp allocation (every architecture since Fermi), a block's registers are
/// `ceil(registers × 32 / unit) × unit` per warp, so the block limit only changes where
/// `registers` crosses a multiple of `unit / 32` (8 for the 256-register unit): the largest count
/// below the current one that adds a block is always such a multiple. With per-block allocation, or
/// an architecture the registry does not know, every count is tried (step 1).
fn register_step(registry: &Registry, cells: &mut Cells<'_>, row: usize) -> u32 {
    let arch = cells
        .str(mc::MODEL_DEVICE, row)
        .and_then(|name| registry.device(&name).map(|d| d.cc))
        .or_else(|| {
            let major = u32::try_from(cells.i64(lt::CC_MAJOR, row)?).ok()?;
            let minor = u32::try_from(cells.i64(lt::CC_MINOR, row)?).ok()?;
            Some(warpsight_model::arch::ComputeCapability { major, minor })
        })
        .and_then(|cc| registry.arch(cc));
    match arch {
        Some(arch)
            if arch.reg_alloc_granularity == warpsight_model::arch::RegisterAllocation::Warp
                && arch.reg_alloc_unit >= 32
                && arch.reg_alloc_unit % 32 == 0 =>
        {
            arch.reg_alloc_unit / 32
        }
        _ => 1,
    }
}

/// The shared-memory change that lets one more block fit: the new static and dynamic parts and
/// their total, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SmemChange {
    static_smem: i64,
    dynamic_smem: i64,
    total: i64,
}

/// The per-block shared memory that fits `blocks + 1` blocks in `capacity` (the SM's shared
/// memory), taken from the dynamic part first; `None` when no reduction is possible or when a value
/// is outside what an SM can have (negative, above the capacity, or overflowing): the arithmetic is
/// checked because the values come from the input.
fn smem_change(
    capacity: i64,
    allocated: i64,
    blocks: i64,
    static_smem: i64,
    dynamic_smem: i64,
) -> Option<SmemChange> {
    let in_sm = |bytes: i64| (0..=capacity).contains(&bytes);
    if capacity <= 0
        || blocks < 0
        || !in_sm(allocated)
        || !in_sm(static_smem)
        || !in_sm(dynamic_smem)
    {
        return None;
    }
    let target = capacity.checked_div(blocks.checked_add(1)?)? / 256 * 256;
    let reduction = allocated.checked_sub(target)?;
    let total = static_smem
        .checked_add(dynamic_smem)?
        .checked_sub(reduction)?;
    if reduction <= 0 || total < 0 {
        return None;
    }
    let from_dynamic = reduction.min(dynamic_smem);
    Some(SmemChange {
        static_smem: static_smem.checked_sub(reduction.checked_sub(from_dynamic)?)?,
        dynamic_smem: dynamic_smem.checked_sub(from_dynamic)?,
        total,
    })
}

/// The `whatif_*` columns, one row per configuration.
fn gain_columns(gains: &[Gains]) -> Vec<Column> {
    let registers = |f: fn(&(u32, i64, f64)) -> f64| -> Vec<Option<f64>> {
        gains.iter().map(|g| g.registers.as_ref().map(f)).collect()
    };
    let smem = |f: fn(&(i64, i64, f64)) -> f64| -> Vec<Option<f64>> {
        gains.iter().map(|g| g.smem.as_ref().map(f)).collect()
    };
    let to_i64 = |values: Vec<Option<f64>>| -> Vec<Option<i64>> {
        values.into_iter().map(|v| v.map(|v| v as i64)).collect()
    };
    vec![
        Column::new(REGISTERS.into(), to_i64(registers(|r| f64::from(r.0)))),
        Column::new(REGISTERS_BLOCKS.into(), to_i64(registers(|r| r.1 as f64))),
        Column::new(REGISTERS_OCCUPANCY.into(), registers(|r| r.2)),
        Column::new(
            BLOCK_SIZE.into(),
            gains
                .iter()
                .map(|g| g.block_size.map(|b| i64::from(b.0)))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            BLOCK_SIZE_OCCUPANCY.into(),
            gains
                .iter()
                .map(|g| g.block_size.map(|b| b.1))
                .collect::<Vec<_>>(),
        ),
        Column::new(SMEM_BYTES.into(), to_i64(smem(|s| s.0 as f64))),
        Column::new(SMEM_BLOCKS.into(), to_i64(smem(|s| s.1 as f64))),
        Column::new(SMEM_OCCUPANCY.into(), smem(|s| s.2)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bisection and the one-round evaluation of the register candidates give the same
    /// suggestions (and the same blocks and occupancy), for every register count of several block
    /// sizes on three architectures; `tests/what_if.rs` checks the suggestions themselves against
    /// an exhaustive search with the occupancy calculator.
    #[test]
    fn bisected_and_one_round_register_searches_agree() -> Result<(), Box<dyn std::error::Error>> {
        let mut rows: Vec<(i64, i64, i64, i64)> = Vec::new();
        for (major, minor) in [(9, 0), (8, 6), (7, 5)] {
            for block in [64, 128, 256, 512] {
                for registers in 2..=255 {
                    rows.push((major, minor, block, registers));
                }
            }
        }
        let n = rows.len();
        let launches = df!(
            lt::SOURCE_FILE => vec!["t.csv"; n],
            lt::LAUNCH_ID => (0..n as i64).collect::<Vec<_>>(),
            lt::KERNEL_NAME => vec!["k"; n],
            lt::CC_MAJOR => rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            lt::CC_MINOR => rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            lt::BLOCK_X => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            lt::BLOCK_Y => vec![1i64; n],
            lt::BLOCK_Z => vec![1i64; n],
            lt::GRID_X => vec![1000i64; n],
            lt::GRID_Y => vec![1i64; n],
            lt::GRID_Z => vec![1i64; n],
            lt::REGISTERS_PER_THREAD => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        )?;
        let registry = warpsight_test_support::plugins::registry();
        let config = ModelConfig::default();
        let launches = warpsight_ingest::launch_table::conform(launches.lazy())?;
        let configs = warpsight_model::evaluate(launches, &registry, &config)?.collect()?;
        let one_round = config_gains(&configs, &registry, &config, RegisterSearchPlan::OneRound)?;
        let bisected = config_gains(&configs, &registry, &config, RegisterSearchPlan::Bisect)?;
        assert_eq!(one_round, bisected);
        let suggested = one_round.iter().filter(|g| g.registers.is_some()).count();
        assert!(
            suggested > 1000,
            "register suggestions compared: {suggested}"
        );
        Ok(())
    }

    #[test]
    fn the_shared_memory_change_of_the_occupancy_example() {
        // OCCUPANCY.md TV10, as in `tests/what_if.rs`: 102 400 B capacity, 2 blocks of 44 928 B.
        assert_eq!(
            smem_change(102_400, 44_928, 2, 43_780, 0),
            Some(SmemChange {
                static_smem: 32_900,
                dynamic_smem: 0,
                total: 32_900
            })
        );
    }

    #[test]
    fn hostile_shared_memory_values_give_no_change_and_no_panic() {
        // Issue #14: dynamic shared memory `1e308` (saturated to i64::MAX) or i64::MAX, and
        // active blocks of -1 (a division by zero before the arithmetic was checked).
        for dynamic in [i64::MAX, i64::MIN, -1, 1 << 40] {
            assert_eq!(smem_change(102_400, 44_928, 2, 0, dynamic), None);
        }
        assert_eq!(smem_change(102_400, 44_928, -1, 0, 0), None);
        assert_eq!(smem_change(102_400, i64::MAX, 2, 0, 0), None);
        assert_eq!(smem_change(0, 0, 0, 0, 0), None);
        assert_eq!(smem_change(i64::MAX, i64::MAX, i64::MAX, i64::MAX, 0), None);
    }
}
