//! Theoretical occupancy exactly as CUDA's `cuda_occupancy.h` computes it (OCCUPANCY.md §3),
//! written as polars expressions over the whole launch frame.
//!
//! `add_columns` expects the launch-table columns plus the per-architecture parameter columns of
//! `super::params` (joined on by [`super::evaluate`]) and the three control columns
//! `USE_EXPORT`, `CARVEOUT_PERCENT` and `BARRIER_COUNT`. The scalar [`calculate`] (used by
//! `warpsight occupancy`) builds a one-row frame and runs the very same expressions, so the two
//! can never disagree; [`max_potential_block_size`] runs them over one row per candidate size.
//!
//! Integer arithmetic follows the header's order of operations (floor divisions, rounding up to
//! allocation units). A block limit of null means "unlimited" (the header's `INT_MAX`).

use polars::prelude::*;

use super::ModelError;
use super::columns as out;
use super::params as p;
use super::resolve::IS_OVERRIDE;
use crate::arch::ArchSpec;
use warpsight_ingest::launch_table::column_names as lt;

/// Control column: true to take the SM shared capacity from the export's `smem_config_bytes`.
pub(crate) const USE_EXPORT: &str = "__o_use_export";
/// Control column: carveout preference in percent (0–100), null for the default (maximum).
pub(crate) const CARVEOUT_PERCENT: &str = "__o_carveout_percent";
/// Control column: named barriers per block (the header's `numBlockBarriers`, 1 by default).
pub(crate) const BARRIER_COUNT: &str = "__o_barrier_count";

const REGS: &str = "__o_regs";
const STATIC: &str = "__o_static";
const DYNAMIC: &str = "__o_dynamic";
const REGS_ALLOC_PER_BLOCK: &str = "__o_regs_alloc_per_block";
const REGS_HW_PER_BLOCK: &str = "__o_regs_hw_per_block";
const REGS_HW_PER_BLOCK_4: &str = "__o_regs_hw_per_block_4";
const REGS_ILLEGAL: &str = "__o_regs_illegal";
const MAX_DYNAMIC: &str = "__o_max_dynamic";
const SMEM_BLOCK_LIMIT: &str = "__o_smem_block_limit";
const SMEM_ILLEGAL: &str = "__o_smem_illegal";
const SMEM_PREFERRED: &str = "__o_smem_preferred";

/// `x` rounded up to a multiple of `unit`.
fn round_up(x: Expr, unit: Expr) -> Expr {
    (x + unit.clone() - lit(1i64)).floor_div(unit.clone()) * unit
}

/// `ceil(x / d)` for non-negative integers.
fn ceil_div(x: Expr, d: Expr) -> Expr {
    (x + d.clone() - lit(1i64)).floor_div(d)
}

fn null_i64() -> Expr {
    lit(NULL).cast(DataType::Int64)
}

/// The smallest carveout of the row's architecture that is at least `bytes` (null when none is):
/// the header's `AlignUpCarveout`.
pub(crate) fn align_up_carveout(bytes: Expr) -> PolarsResult<Expr> {
    let candidates: Vec<Expr> = (0..p::MAX_CARVEOUTS)
        .map(|i| {
            let c = col(p::carveout(i));
            when(c.clone().gt_eq(bytes.clone()))
                .then(c)
                .otherwise(null_i64())
        })
        .collect();
    polars::lazy::dsl::min_horizontal(candidates)
}

/// Largest difference, in bytes, between an exported carveout size and a listed carveout for the
/// two to be taken as the same: Nsight Compute's details page prints `Kbyte` values with two
/// decimals (16384 B as `16.38 Kbyte`), so a converted value can be off by up to 5 bytes.
pub(crate) const CARVEOUT_DISPLAY_TOLERANCE: i64 = 5;

/// The listed carveout within [`CARVEOUT_DISPLAY_TOLERANCE`] of `bytes`, else `bytes` unchanged.
pub(crate) fn snap_to_carveout(bytes: Expr) -> PolarsResult<Expr> {
    let candidates: Vec<Expr> = (0..p::MAX_CARVEOUTS)
        .map(|i| {
            let c = col(p::carveout(i));
            when(
                (c.clone() - bytes.clone())
                    .abs()
                    .lt_eq(lit(CARVEOUT_DISPLAY_TOLERANCE)),
            )
            .then(c)
            .otherwise(null_i64())
        })
        .collect();
    Ok(polars::lazy::dsl::min_horizontal(candidates)?.fill_null(bytes))
}

/// Threads per block: block x × y × z, a missing y or z counting as 1 (null without block x).
pub(crate) fn threads_per_block() -> Expr {
    col(lt::BLOCK_X).cast(DataType::Int64)
        * col(lt::BLOCK_Y).cast(DataType::Int64).fill_null(lit(1i64))
        * col(lt::BLOCK_Z).cast(DataType::Int64).fill_null(lit(1i64))
}

/// Blocks in the grid: grid x × y × z, a missing y or z counting as 1 (null without grid x). It
/// is the only column of [`add_columns`] that does not depend on the launch configuration alone,
/// which is why [`super::occupancy_table`] computes it per launch with this same expression.
pub(crate) fn grid_blocks() -> Expr {
    col(lt::GRID_X).cast(DataType::Int64)
        * col(lt::GRID_Y).cast(DataType::Int64).fill_null(lit(1i64))
        * col(lt::GRID_Z).cast(DataType::Int64).fill_null(lit(1i64))
}

/// Adds the occupancy columns of [`super::columns`] (threads, warps and grid sizes, allocations,
/// the SM shared capacity and its source, each block limit, active blocks and warps, theoretical
/// occupancy, the limiter(s) and `not_launchable`).
pub(crate) fn add_columns(frame: LazyFrame) -> PolarsResult<LazyFrame> {
    let cc_major = || col(p::CC_MAJOR);
    let frame = frame.with_columns([
        threads_per_block().alias(out::THREADS_PER_BLOCK),
        grid_blocks().alias(out::GRID_BLOCKS),
        col(lt::REGISTERS_PER_THREAD)
            .cast(DataType::Int64)
            .alias(REGS),
        col(lt::STATIC_SMEM_BYTES)
            .cast(DataType::Int64)
            .fill_null(lit(0i64))
            .alias(STATIC),
        col(lt::DYNAMIC_SMEM_BYTES)
            .cast(DataType::Int64)
            .fill_null(lit(0i64))
            .alias(DYNAMIC),
    ]);

    // Warps per block (partial warps count whole), registers per warp, shared memory per block.
    let frame = frame.with_columns([
        ceil_div(col(out::THREADS_PER_BLOCK), col(p::WARP_SIZE)).alias(out::WARPS_PER_BLOCK),
        round_up(col(REGS) * col(p::WARP_SIZE), col(p::REG_UNIT)).alias(out::REGS_PER_WARP),
        round_up(
            col(STATIC) + col(p::SMEM_RESERVED) + col(DYNAMIC),
            col(p::SMEM_UNIT),
        )
        .alias(out::SMEM_PER_BLOCK),
    ]);

    // §3.1 inputs, §3.2 warp limit, §3.3 block slots, §3.4 (a) per-block legality inputs.
    let frame = frame.with_columns([
        (col(out::REGS_PER_WARP) * col(out::WARPS_PER_BLOCK)).alias(REGS_ALLOC_PER_BLOCK),
        (col(out::REGS_PER_WARP) * round_up(col(out::WARPS_PER_BLOCK), col(p::SUB_PARTITIONS)))
            .alias(REGS_HW_PER_BLOCK),
        (col(out::REGS_PER_WARP) * round_up(col(out::WARPS_PER_BLOCK), lit(4i64)))
            .alias(REGS_HW_PER_BLOCK_4),
        polars::lazy::dsl::max_horizontal([
            col(DYNAMIC),
            col(p::SMEM_DEFAULT) - col(STATIC),
            lit(0i64),
        ])?
        .alias(MAX_DYNAMIC),
        when(col(out::THREADS_PER_BLOCK).gt(col(p::MAX_THREADS_PER_BLOCK)))
            .then(lit(0i64))
            .otherwise(col(p::MAX_WARPS).floor_div(col(out::WARPS_PER_BLOCK)))
            .alias(out::LIMIT_WARPS),
        col(p::MAX_BLOCKS).alias(out::LIMIT_BLOCKS),
    ]);

    let regs_illegal = |hw: &str| {
        col(p::MAX_REGS_PER_BLOCK)
            .lt(col(hw))
            .or(col(p::MAX_REGS_PER_BLOCK).lt(col(REGS_ALLOC_PER_BLOCK)))
            .or(col(REGS).gt(col(p::MAX_REGS_PER_THREAD)))
    };
    // Opt-in applies from CC 7.0 when the block may use more than the default per-block limit.
    let uses_optin = cc_major()
        .gt_eq(lit(7i64))
        .and((col(STATIC) + col(p::SMEM_RESERVED) + col(MAX_DYNAMIC)).gt(col(p::SMEM_DEFAULT)));
    let preferred = when(cc_major().lt(lit(7i64)))
        .then(col(p::SMEM_PER_SM))
        .when(col(USE_EXPORT).and(col(lt::SMEM_CONFIG_BYTES).is_not_null()))
        .then(snap_to_carveout(
            col(lt::SMEM_CONFIG_BYTES).cast(DataType::Int64),
        )?)
        .when(col(CARVEOUT_PERCENT).is_not_null())
        .then(align_up_carveout(
            (col(CARVEOUT_PERCENT).cast(DataType::Int64) * col(p::SMEM_PER_SM))
                .floor_div(lit(100i64)),
        )?)
        .otherwise(align_up_carveout(col(p::SMEM_PER_SM))?);
    let source = when(col(p::ARCH_FOUND).is_null())
        .then(lit(NULL).cast(DataType::String))
        .when(cc_major().lt(lit(7i64)))
        .then(lit("fixed"))
        .when(col(USE_EXPORT).and(col(lt::SMEM_CONFIG_BYTES).is_not_null()))
        .then(lit("export"))
        .when(col(CARVEOUT_PERCENT).is_not_null())
        .then(lit("preference"))
        .otherwise(lit("policy"));
    let frame = frame.with_columns([
        regs_illegal(REGS_HW_PER_BLOCK).alias(REGS_ILLEGAL),
        (when(uses_optin)
            .then(col(p::SMEM_OPTIN))
            .otherwise(col(p::SMEM_DEFAULT))
            + col(p::SMEM_RESERVED))
        .alias(SMEM_BLOCK_LIMIT),
        preferred.alias(SMEM_PREFERRED),
        source.alias(out::SMEM_CAPACITY_SOURCE),
    ]);

    // §3.1 register limit with the per-sub-partition split and the GP100 rule for CC 6.0.
    let by_regs = |parts: Expr| {
        (col(p::REGS_PER_SM)
            .floor_div(parts.clone())
            .floor_div(col(out::REGS_PER_WARP))
            * parts)
            .floor_div(col(out::WARPS_PER_BLOCK))
    };
    let base_regs = when(col(REGS_ILLEGAL))
        .then(lit(0i64))
        .when(col(out::REGS_PER_WARP).eq(lit(0i64)))
        .then(null_i64())
        .otherwise(by_regs(col(p::SUB_PARTITIONS)));
    let gp100 = cc_major().eq(lit(6i64)).and(col(p::CC_MINOR).eq(lit(0i64)));
    let gp10x_fails = regs_illegal(REGS_HW_PER_BLOCK_4).or(by_regs(lit(4i64)).eq(lit(0i64)));
    let limit_regs = when(gp100.and(base_regs.clone().gt(lit(0i64))).and(gp10x_fails))
        .then(lit(0i64))
        .otherwise(base_regs);
    let frame = frame.with_columns([
        limit_regs.alias(out::LIMIT_REGISTERS),
        col(out::SMEM_PER_BLOCK)
            .gt(col(SMEM_BLOCK_LIMIT))
            .alias(SMEM_ILLEGAL),
    ]);

    // §3.4 (b) shared capacity: the preference when one block fits, else the smallest carveout
    // that fits one block (CC >= 7.0) or the fixed size.
    let capacity = when(col(SMEM_ILLEGAL))
        .then(col(SMEM_PREFERRED))
        .when(col(SMEM_PREFERRED).gt_eq(col(out::SMEM_PER_BLOCK)))
        .then(col(SMEM_PREFERRED))
        .when(cc_major().gt_eq(lit(7i64)))
        .then(align_up_carveout(col(out::SMEM_PER_BLOCK))?)
        .otherwise(col(p::SMEM_PER_SM));
    let frame = frame.with_columns([capacity.alias(out::SMEM_CAPACITY)]);
    let limit_smem = when(col(SMEM_ILLEGAL).or(col(out::SMEM_CAPACITY).is_null()))
        .then(lit(0i64))
        .when(col(out::SMEM_PER_BLOCK).eq(lit(0i64)))
        .then(null_i64())
        .otherwise(col(out::SMEM_CAPACITY).floor_div(col(out::SMEM_PER_BLOCK)));
    // §3.5 barrier limit, CC >= 9.0 only.
    let limit_barriers = when(
        cc_major()
            .gt_eq(lit(9i64))
            .and(col(p::BARRIER_MULTIPLIER).gt(lit(0i64)))
            .and(col(BARRIER_COUNT).gt(lit(0i64))),
    )
    .then((col(p::BARRIER_MULTIPLIER) * col(p::MAX_BLOCKS)).floor_div(col(BARRIER_COUNT)))
    .otherwise(null_i64());
    let frame = frame.with_columns([
        when(
            col(out::THREADS_PER_BLOCK)
                .is_null()
                .or(col(p::ARCH_FOUND).is_null()),
        )
        .then(null_i64())
        .otherwise(limit_smem)
        .alias(out::LIMIT_SHARED_MEM),
        when(col(out::THREADS_PER_BLOCK).is_null())
            .then(null_i64())
            .otherwise(limit_barriers)
            .alias(out::LIMIT_BARRIERS),
    ]);

    // §3.7 combine; §3.8 occupancy.
    let limits = [
        (out::LIMIT_REGISTERS, "registers"),
        (out::LIMIT_SHARED_MEM, "shared_memory"),
        (out::LIMIT_WARPS, "warps"),
        (out::LIMIT_BLOCKS, "blocks"),
        (out::LIMIT_BARRIERS, "barriers"),
    ];
    let active = when(
        col(out::THREADS_PER_BLOCK)
            .is_null()
            .or(col(REGS).is_null()),
    )
    .then(null_i64())
    .otherwise(polars::lazy::dsl::min_horizontal(
        limits.iter().map(|(c, _)| col(*c)).collect::<Vec<_>>(),
    )?);
    let frame = frame.with_columns([active.alias(out::ACTIVE_BLOCKS)]);
    // The limits equal to the active blocks, joined by `+` in the order of `limits` (null when
    // none is known).
    let mut inputs = vec![col(out::ACTIVE_BLOCKS)];
    inputs.extend(limits.iter().map(|(c, _)| col(*c)));
    let names: Vec<&'static str> = limits.iter().map(|(_, name)| *name).collect();
    let limiter = super::text::text_column(out::LIMITER, inputs, move |inputs, row, text| {
        let Some(active) = inputs.number(0, row) else {
            return false;
        };
        for (index, name) in names.iter().enumerate() {
            if inputs.number(index + 1, row) == Some(active) {
                if !text.is_empty() {
                    text.push('+');
                }
                text.push_str(name);
            }
        }
        !text.is_empty()
    });
    let frame = frame.with_columns([
        (col(out::ACTIVE_BLOCKS) * col(out::WARPS_PER_BLOCK)).alias(out::ACTIVE_WARPS),
        limiter,
    ]);
    let frame = frame.with_columns([
        (col(out::ACTIVE_WARPS).cast(DataType::Float64)
            / col(p::MAX_WARPS).cast(DataType::Float64))
        .alias(out::THEORETICAL_OCCUPANCY),
        reason_code().alias(REASON_CODE),
    ]);
    let frame = frame.with_columns([not_launchable().alias(out::NOT_LAUNCHABLE)]);
    Ok(frame)
}

/// Which reason applies (internal): a small code, so that the text is built only on its rows.
const REASON_CODE: &str = "__o_reason_code";

/// Classifies each launch by the first reason it cannot run, or null when it can (or when its
/// configuration is unknown).
fn reason_code() -> Expr {
    when(col(out::THREADS_PER_BLOCK).is_null())
        .then(lit(NULL).cast(DataType::Int32))
        .when(
            col(p::ARCH_FOUND)
                .is_null()
                .and(col(p::TARGET_CC_MAJOR).is_not_null()),
        )
        .then(lit(1i32))
        .when(col(p::ARCH_FOUND).is_null())
        .then(lit(2i32))
        .when(col(out::THREADS_PER_BLOCK).gt(col(p::MAX_THREADS_PER_BLOCK)))
        .then(lit(3i32))
        .when(col(out::THREADS_PER_BLOCK).lt_eq(lit(0i64)))
        .then(lit(4i32))
        .when(col(REGS).gt(col(p::MAX_REGS_PER_THREAD)))
        .then(lit(5i32))
        .when(col(REGS_ILLEGAL))
        .then(lit(6i32))
        .when(col(SMEM_ILLEGAL))
        .then(lit(7i32))
        .when(col(out::ACTIVE_BLOCKS).eq(lit(0i64)))
        .then(lit(8i32))
        .otherwise(lit(NULL).cast(DataType::Int32))
}

/// The reason text for the code of [`reason_code`], written only for the rows with a code.
fn not_launchable() -> Expr {
    let inputs = vec![
        col(REASON_CODE),
        col(p::TARGET_CC_MAJOR),
        col(p::TARGET_CC_MINOR),
        col(out::THREADS_PER_BLOCK),
        col(p::MAX_THREADS_PER_BLOCK),
        col(REGS),
        col(p::MAX_REGS_PER_THREAD),
        col(REGS_HW_PER_BLOCK),
        col(p::MAX_REGS_PER_BLOCK),
        col(STATIC) + col(DYNAMIC),
        col(SMEM_BLOCK_LIMIT) - col(p::SMEM_RESERVED),
        col(out::LIMITER),
        col(IS_OVERRIDE),
        col(p::DEV_NAME),
    ];
    super::text::text_column(out::NOT_LAUNCHABLE, inputs, write_not_launchable)
}

/// Positions of [`not_launchable`]'s inputs.
mod input {
    pub(crate) const CODE: usize = 0;
    pub(crate) const CC_MAJOR: usize = 1;
    pub(crate) const CC_MINOR: usize = 2;
    pub(crate) const THREADS: usize = 3;
    pub(crate) const MAX_THREADS: usize = 4;
    pub(crate) const REGS: usize = 5;
    pub(crate) const MAX_REGS: usize = 6;
    pub(crate) const BLOCK_REGS: usize = 7;
    pub(crate) const MAX_BLOCK_REGS: usize = 8;
    pub(crate) const SMEM: usize = 9;
    pub(crate) const MAX_SMEM: usize = 10;
    pub(crate) const LIMITER: usize = 11;
    pub(crate) const OVERRIDE: usize = 12;
    pub(crate) const DEVICE: usize = 13;
}

/// The prefix of a reason on another device than the launch's own (`--on`, `--device`): the
/// device named, so that the reason says where the launch cannot run.
pub(crate) const NOT_LAUNCHABLE_ON: &str = "not launchable on ";

/// Writes the reason text of a row from [`not_launchable`]'s inputs ([`input`]). A text that
/// needs a value the row lacks is null. On another device the reason opens with
/// `not launchable on DEVICE: `.
fn write_not_launchable(
    inputs: &super::text::TextInputs<'_>,
    row: usize,
    text: &mut String,
) -> bool {
    let code = inputs.number(input::CODE, row);
    let on_other_device = inputs.flag(input::OVERRIDE, row) == Some(true);
    if let (true, Some(device), Some(3.0..=8.0)) =
        (on_other_device, inputs.text(input::DEVICE, row), code)
    {
        text.push_str(NOT_LAUNCHABLE_ON);
        text.push_str(device);
        text.push_str(": ");
    }
    // "needs <a> <what>, the device allows <b>" with inputs a and b.
    let needs = |text: &mut String, what: &str, a: usize, b: usize| {
        text.push_str("needs ");
        let known = inputs.write_number(a, row, text);
        text.push(' ');
        text.push_str(what);
        text.push_str(", the device allows ");
        known && inputs.write_number(b, row, text)
    };
    match code {
        Some(1.0) => {
            text.push_str("unknown compute capability ");
            let known = inputs.write_number(input::CC_MAJOR, row, text);
            text.push('.');
            let known = known && inputs.write_number(input::CC_MINOR, row, text);
            text.push_str(" (no plugin provides it)");
            known
        }
        Some(2.0) => {
            text.push_str(
                "unknown compute capability (the export has none and the device is not known)",
            );
            true
        }
        Some(3.0) => needs(
            text,
            "threads per block",
            input::THREADS,
            input::MAX_THREADS,
        ),
        Some(4.0) => {
            text.push_str("block of 0 threads");
            true
        }
        Some(5.0) => needs(text, "registers per thread", input::REGS, input::MAX_REGS),
        Some(6.0) => needs(
            text,
            "registers per block",
            input::BLOCK_REGS,
            input::MAX_BLOCK_REGS,
        ),
        Some(7.0) => match (
            inputs.number(input::SMEM, row),
            inputs.number(input::MAX_SMEM, row),
        ) {
            (Some(needed), Some(allowed)) => {
                let (needed, allowed) = smem_sizes(needed, allowed);
                text.push_str("needs ");
                text.push_str(&needed);
                text.push_str(" shared memory per block, the device allows ");
                text.push_str(&allowed);
                true
            }
            _ => false,
        },
        Some(8.0) => match inputs.text(input::LIMITER, row) {
            Some(limiter) => {
                text.push_str("no block fits on an SM (limited by ");
                text.push_str(limiter);
                text.push(')');
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// The shared memory a block asks for and the most the device allows, in KiB (one decimal where
/// not whole), or both in bytes where the two would print alike (227.0004 KiB against 227 KiB).
fn smem_sizes(needed: f64, allowed: f64) -> (String, String) {
    let kib = |bytes: f64| {
        let text = format!("{:.1}", bytes / 1024.0);
        let text = text.strip_suffix(".0").map_or(text.clone(), str::to_string);
        format!("{text} KiB")
    };
    let (a, b) = (kib(needed), kib(allowed));
    if a == b {
        (format!("{needed:.0} B"), format!("{allowed:.0} B"))
    } else {
        (a, b)
    }
}

/// One launch configuration for [`calculate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Threads per block.
    pub block_size: u32,
    /// Registers per thread.
    pub registers_per_thread: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u64,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u64,
    /// The SM shared capacity (carveout) the driver chose, bytes, e.g. ncu's "Shared Memory
    /// Configuration Size". `None` uses the carveout preference, else the maximum.
    pub smem_config: Option<u64>,
    /// Carveout preference in percent (0–100), the `cudaFuncAttributePreferredSharedMemoryCarveout`
    /// value; `None` is the default (-1), i.e. the maximum.
    pub carveout_percent: Option<u8>,
    /// Named barriers per block (1 by default, as the header's C++ constructor sets).
    pub barriers: u32,
}

impl LaunchConfig {
    /// A configuration with no shared memory, the default carveout and one barrier.
    pub fn new(block_size: u32, registers_per_thread: u32) -> Self {
        LaunchConfig {
            block_size,
            registers_per_thread,
            static_smem: 0,
            dynamic_smem: 0,
            smem_config: None,
            carveout_percent: None,
            barriers: 1,
        }
    }
}

/// Which resource limits the number of resident blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limiter {
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Resident warps.
    Warps,
    /// Resident block slots.
    Blocks,
    /// Named barriers (CC >= 9.0).
    Barriers,
}

impl Limiter {
    /// The stable name used in the `limiter` column and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared_memory",
            Limiter::Warps => "warps",
            Limiter::Blocks => "blocks",
            Limiter::Barriers => "barriers",
        }
    }

    /// Parses a name printed by [`Limiter::name`].
    pub(crate) fn from_name(name: &str) -> Option<Limiter> {
        [
            Limiter::Registers,
            Limiter::SharedMemory,
            Limiter::Warps,
            Limiter::Blocks,
            Limiter::Barriers,
        ]
        .into_iter()
        .find(|l| l.name() == name)
    }
}

/// Per-resource block limits; `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockLimits {
    /// Limit by registers.
    pub registers: Option<u32>,
    /// Limit by shared memory.
    pub shared_memory: Option<u32>,
    /// Limit by warps.
    pub warps: Option<u32>,
    /// Limit by block slots.
    pub blocks: Option<u32>,
    /// Limit by named barriers (`None` below CC 9.0).
    pub barriers: Option<u32>,
}

/// The occupancy of one launch configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct OccupancyResult {
    /// Each block limit.
    pub limits: BlockLimits,
    /// Active blocks per SM.
    pub active_blocks: u32,
    /// Active warps per SM.
    pub active_warps: u32,
    /// Theoretical occupancy, 0–1.
    pub occupancy: f64,
    /// The limiting factor(s), in the order registers, shared memory, warps, blocks, barriers.
    pub limiters: Vec<Limiter>,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Registers allocated per warp.
    pub regs_per_warp: u32,
    /// Shared memory allocated per block, bytes.
    pub smem_per_block: u64,
    /// SM shared capacity used, bytes.
    pub smem_capacity: Option<u64>,
    /// Where the capacity came from: `export`, `preference`, `policy` or `fixed`.
    pub smem_capacity_source: String,
    /// Why the configuration cannot launch, if it cannot.
    pub not_launchable: Option<String>,
}

/// A one-row-per-configuration launch frame with the control columns and the architecture's
/// parameters, ready for [`add_columns`].
fn config_frame(arch: &ArchSpec, configs: &[LaunchConfig]) -> PolarsResult<LazyFrame> {
    let i64s = |f: &dyn Fn(&LaunchConfig) -> i64| configs.iter().map(f).collect::<Vec<i64>>();
    let ones = vec![1i64; configs.len()];
    let frame = DataFrame::new_infer_height(vec![
        Column::new(lt::BLOCK_X.into(), i64s(&|c| i64::from(c.block_size))),
        Column::new(lt::BLOCK_Y.into(), ones.clone()),
        Column::new(lt::BLOCK_Z.into(), ones.clone()),
        Column::new(lt::GRID_X.into(), ones.clone()),
        Column::new(lt::GRID_Y.into(), ones.clone()),
        Column::new(lt::GRID_Z.into(), ones),
        Column::new(
            lt::REGISTERS_PER_THREAD.into(),
            i64s(&|c| i64::from(c.registers_per_thread)),
        ),
        Column::new(
            lt::STATIC_SMEM_BYTES.into(),
            i64s(&|c| saturating_i64(c.static_smem)),
        ),
        Column::new(
            lt::DYNAMIC_SMEM_BYTES.into(),
            i64s(&|c| saturating_i64(c.dynamic_smem)),
        ),
        Column::new(
            lt::SMEM_CONFIG_BYTES.into(),
            configs
                .iter()
                .map(|c| c.smem_config.map(saturating_i64))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            USE_EXPORT.into(),
            configs
                .iter()
                .map(|c| c.smem_config.is_some())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            CARVEOUT_PERCENT.into(),
            configs
                .iter()
                .map(|c| c.carveout_percent.map(i64::from))
                .collect::<Vec<_>>(),
        ),
        Column::new(BARRIER_COUNT.into(), i64s(&|c| i64::from(c.barriers))),
    ])?;
    let mut params = p::arch_literals(arch);
    params.push(lit(i64::from(arch.cc.major)).alias(p::TARGET_CC_MAJOR));
    params.push(lit(i64::from(arch.cc.minor)).alias(p::TARGET_CC_MINOR));
    // The architecture alone: no device, and no other device than the launch's own.
    params.push(lit(false).alias(IS_OVERRIDE));
    params.push(lit(NULL).cast(DataType::String).alias(p::DEV_NAME));
    add_columns(frame.lazy().with_columns(params))
}

fn saturating_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Reads the occupancy columns of row `i` of a frame produced by [`add_columns`].
fn read_row(frame: &DataFrame, i: usize) -> Result<OccupancyResult, ModelError> {
    let int = |name: &str| -> Result<Option<i64>, ModelError> {
        Ok(frame.column(name)?.cast(&DataType::Int64)?.i64()?.get(i))
    };
    let small = |v: Option<i64>| v.map(|v| u32::try_from(v.max(0)).unwrap_or(u32::MAX));
    let limiters = frame
        .column(out::LIMITER)?
        .str()?
        .get(i)
        .map(|text| text.split('+').filter_map(Limiter::from_name).collect())
        .unwrap_or_default();
    Ok(OccupancyResult {
        limits: BlockLimits {
            registers: small(int(out::LIMIT_REGISTERS)?),
            shared_memory: small(int(out::LIMIT_SHARED_MEM)?),
            warps: small(int(out::LIMIT_WARPS)?),
            blocks: small(int(out::LIMIT_BLOCKS)?),
            barriers: small(int(out::LIMIT_BARRIERS)?),
        },
        active_blocks: small(int(out::ACTIVE_BLOCKS)?).unwrap_or(0),
        active_warps: small(int(out::ACTIVE_WARPS)?).unwrap_or(0),
        occupancy: frame
            .column(out::THEORETICAL_OCCUPANCY)?
            .f64()?
            .get(i)
            .unwrap_or(0.0),
        limiters,
        warps_per_block: small(int(out::WARPS_PER_BLOCK)?).unwrap_or(0),
        regs_per_warp: small(int(out::REGS_PER_WARP)?).unwrap_or(0),
        smem_per_block: int(out::SMEM_PER_BLOCK)?.map_or(0, |v| v.max(0).unsigned_abs()),
        smem_capacity: int(out::SMEM_CAPACITY)?.map(|v| v.max(0).unsigned_abs()),
        smem_capacity_source: frame
            .column(out::SMEM_CAPACITY_SOURCE)?
            .str()?
            .get(i)
            .unwrap_or("policy")
            .to_string(),
        not_launchable: frame
            .column(out::NOT_LAUNCHABLE)?
            .str()?
            .get(i)
            .map(str::to_string),
    })
}

/// The occupancy of one launch configuration on one architecture, computed by the same
/// expressions as the frame-wide model.
pub fn calculate(arch: &ArchSpec, config: &LaunchConfig) -> Result<OccupancyResult, ModelError> {
    let frame = config_frame(arch, std::slice::from_ref(config))?.collect()?;
    read_row(&frame, 0)
}

/// The header's `cudaOccMaxPotentialOccupancyBlockSize` (OCCUPANCY.md §4).
#[derive(Debug, Clone, PartialEq)]
pub struct PotentialBlockSize {
    /// The block size with the most resident threads per SM (the larger one on ties).
    pub block_size: u32,
    /// Blocks needed to fill the device once: active blocks per SM × SMs.
    pub min_grid_size: u64,
    /// The occupancy at that block size.
    pub occupancy: OccupancyResult,
}

/// Searches block sizes from the largest allowed down in warp steps and keeps the one with the
/// most resident threads per SM (strictly more; ties keep the larger block), as the header does.
/// `kernel_max_threads` is the kernel's `__launch_bounds__` limit (None = the architecture's);
/// `dynamic_smem` gives the dynamic shared memory for a block size.
pub fn max_potential_block_size(
    arch: &ArchSpec,
    template: &LaunchConfig,
    kernel_max_threads: Option<u32>,
    sm_count: u32,
    dynamic_smem: &dyn Fn(u32) -> u64,
) -> Result<Option<PotentialBlockSize>, ModelError> {
    let warp = arch.threads_per_warp.max(1);
    let limit = kernel_max_threads.map_or(arch.max_threads_per_block, |k| {
        k.min(arch.max_threads_per_block)
    });
    let start = limit.div_ceil(warp) * warp;
    let sizes: Vec<u32> = (1..=start / warp)
        .rev()
        .map(|k| (k * warp).min(limit))
        .collect();
    let configs: Vec<LaunchConfig> = sizes
        .iter()
        .map(|&size| LaunchConfig {
            block_size: size,
            dynamic_smem: dynamic_smem(size),
            ..template.clone()
        })
        .collect();
    if configs.is_empty() {
        return Ok(None);
    }
    let frame = config_frame(arch, &configs)?.collect()?;
    let mut best: Option<(u64, usize)> = None;
    for (i, size) in sizes.iter().enumerate() {
        let blocks = frame
            .column(out::ACTIVE_BLOCKS)?
            .i64()?
            .get(i)
            .unwrap_or(0)
            .max(0)
            .unsigned_abs();
        let threads = u64::from(*size) * blocks;
        if best.is_none_or(|(t, _)| threads > t) {
            best = Some((threads, i));
        }
        if threads == u64::from(arch.max_threads_per_sm) {
            break;
        }
    }
    match best {
        Some((threads, i)) if threads > 0 => {
            let occupancy = read_row(&frame, i)?;
            Ok(Some(PotentialBlockSize {
                block_size: sizes[i],
                min_grid_size: u64::from(occupancy.active_blocks) * u64::from(sm_count),
                occupancy,
            }))
        }
        _ => Ok(None),
    }
}
