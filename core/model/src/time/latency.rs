//! The latency term of the time model, by Little's law per SM (docs/model-v2/SPEC.md §3.3).
//!
//! Per SM, the resident warps each complete one dependent path per `chain` cycles, so when too few
//! warps × ILP are in flight the SM needs `waves × chain` cycles. With ILP = 1 this is the
//! Programming Guide's rule ("Multiprocessor Level": about 4L instructions in flight hide a latency
//! of L). The path is the warp's instructions at the dependent-issue latency, plus its dependent
//! load round trips (loads of one loop trip are independent, so the rounds are at most the loop
//! trips: branches not spent on divergence guards), plus one L2 round trip at exit. The DRAM
//! latency grows with DRAM utilisation (loaded latency), and the first wave is dispatched block by
//! block. Kernels that move data with TMA or `cp.async` or compute with wgmma have no per-load
//! round trips: their bytes in flight come from the copy engine, not from warps. Each wave still
//! pays its warps' dependent issue chain and one DRAM round trip to fill the copy pipeline, plus
//! the exit's L2 round trip.
//!
//! Latencies per CC and the DRAM latency per device come from the plugins (measured on these GPUs:
//! reference LATENCIES.md §5).

use polars::prelude::*;

use super::FittedConstants;
use super::inputs::{self as i, Inputs};
use super::throughput::{BLOCKS, BLOCKS_PER_SM, CLOCK, SMS, T_THROUGHPUT, WARPS, term};
use crate::params as p;

/// The latency term, seconds.
pub(crate) const T_LATENCY: &str = "__tm_t_latency";
/// The dependent path of one warp, cycles.
pub(crate) const CHAIN: &str = "__tm_chain";
/// Waves of resident blocks: ceil(blocks / (SMs × blocks per SM)).
pub(crate) const WAVES: &str = "__tm_waves";
/// Whether the launch moves data asynchronously (TMA, wgmma, `cp.async`).
pub(crate) const ASYNC: &str = "__tm_async";

const ROUNDS: &str = "__tm_rounds";
const HIT: &str = "__tm_hit";
const DRAM_SHARE: &str = "__tm_dram_share";
const DRAM_LATENCY: &str = "__tm_dram_latency";
const CHAIN0: &str = "__tm_chain0";

/// Adds [`T_LATENCY`], [`CHAIN`], [`WAVES`] and [`ASYNC`]; needs the throughput terms.
pub(crate) fn add_columns(
    frame: LazyFrame,
    inputs: &Inputs,
    fitted: &FittedConstants,
) -> LazyFrame {
    let warps = || col(WARPS);
    let inst_w = inputs.instructions().fill_null(lit(0.0)) / warps();
    let fp64_w = inputs.pipe("fp64") / warps();
    let issue_chain = (inst_w - fp64_w.clone()) * col(p::LAT_FP32)
        + fp64_w * col(p::LAT_FP64).fill_null(col(p::LAT_FP32));
    let load_inst = inputs.sum(i::LOAD_INST);
    let l1_bytes = inputs.l1_bytes().fill_null(lit(0.0));
    let loads_w = when(load_inst.clone().is_not_null())
        .then(load_inst / warps())
        .otherwise(
            when(inputs.pipe("lsu").lt(l1_bytes.clone() / lit(256.0)))
                .then(inputs.pipe("lsu"))
                .otherwise(l1_bytes.clone() / lit(256.0))
                / warps(),
        );
    let branches = inputs
        .first(&[i::BRANCHES, i::BRANCHES_LABEL])
        .fill_null(lit(0.0));
    let trips = (branches - inputs.pipe("cbu")) / warps();
    let trips_w = when(trips.clone().gt(lit(1.0)))
        .then(trips)
        .otherwise(lit(1.0));
    let rounds = when(loads_w.clone().gt(lit(0.0)))
        .then(
            when(loads_w.clone().lt(trips_w.clone()))
                .then(loads_w)
                .otherwise(trips_w),
        )
        .otherwise(lit(0.0));
    let hit = inputs
        .get(i::LOAD_HIT_RATE)
        .fill_null(inputs.first(&[i::L1_HIT_RATE, i::L1_HIT_RATE_LABEL]))
        .fill_null(lit(0.0));
    let load_sectors = inputs.get(i::LOAD_SECTORS);
    let frame = frame.with_columns([
        rounds.alias(ROUNDS),
        hit.alias(HIT),
        // The DRAM latency in SM cycles is quoted at the boost clock (the microbenchmarks ran
        // there); it is a time in the DRAM's own clock domain, so at a lower SM clock (ncu's base
        // clock lock) it spans proportionally fewer SM cycles. `CLOCK_SCALE` is the launch's clock
        // over the boost clock (1 at boost and across devices).
        (col(p::DEV_DRAM_LATENCY).fill_null(col(p::LAT_DRAM))
            * col(crate::resolve::CLOCK_SCALE).fill_null(lit(1.0)))
        .alias(DRAM_LATENCY),
        issue_chain.alias(CHAIN0),
    ]);
    let l2_reads = when(load_sectors.clone().is_not_null())
        .then(load_sectors * lit(32.0))
        .otherwise(l1_bytes)
        * (lit(1.0) - col(HIT));
    let dram_reads = inputs.dram_read().fill_null(lit(0.0));
    let share = when(l2_reads.clone().gt(lit(0.0)))
        .then(
            when((dram_reads.clone() / l2_reads.clone()).lt(lit(1.0)))
                .then(dram_reads / l2_reads)
                .otherwise(lit(1.0)),
        )
        .otherwise(lit(0.0));
    let frame = frame.with_columns([share.alias(DRAM_SHARE)]);
    let miss = || lit(1.0) - col(HIT);
    let memory_latency = col(HIT) * col(p::LAT_L1)
        + miss()
            * ((lit(1.0) - col(DRAM_SHARE)) * col(p::LAT_L2) + col(DRAM_SHARE) * col(DRAM_LATENCY));
    let chain1 = col(CHAIN0) + col(ROUNDS) * memory_latency + col(p::LAT_L2);
    let waves = (col(BLOCKS) / (col(SMS) * col(BLOCKS_PER_SM))).ceil();
    let frame = frame.with_columns([chain1.alias(CHAIN), waves.alias(WAVES)]);
    // Loaded DRAM latency: queueing grows with DRAM utilisation (one first-pass estimate).
    let latency_time = col(WAVES) * col(CHAIN) / col(CLOCK);
    let busy = polars::lazy::dsl::max_horizontal([col(T_THROUGHPUT), latency_time, lit(1e-12)])
        .unwrap_or(lit(1e-12));
    let utilisation = col(term("dram")).fill_null(lit(0.0)) / busy;
    let utilisation = when(utilisation.clone().lt(lit(1.0)))
        .then(utilisation)
        .otherwise(lit(1.0));
    let frame = frame.with_columns([(col(CHAIN)
        + col(ROUNDS)
            * miss()
            * col(DRAM_SHARE)
            * col(DRAM_LATENCY)
            * lit(fitted.dram_queueing)
            * utilisation)
        .alias(CHAIN)]);
    let resident = col(SMS) * col(BLOCKS_PER_SM);
    let first_wave = when(col(BLOCKS).lt(resident.clone()))
        .then(col(BLOCKS))
        .otherwise(resident);
    let ramp = first_wave / (lit(fitted.blocks_per_clk) * col(CLOCK));
    let asynchronous = inputs
        .pipe("tma")
        .gt(lit(0.0))
        .or(inputs.pipe("tensor_op_gmma").gt(lit(0.0)))
        .or(inputs.or_zero(i::LDGSTS).gt(lit(0.0)));
    frame.with_columns([
        asynchronous.clone().alias(ASYNC),
        (ramp
            + when(asynchronous)
                .then(col(WAVES) * (col(CHAIN0) + col(DRAM_LATENCY) + col(p::LAT_L2)) / col(CLOCK))
                .otherwise(col(WAVES) * col(CHAIN) / col(CLOCK)))
        .alias(T_LATENCY),
    ])
}
