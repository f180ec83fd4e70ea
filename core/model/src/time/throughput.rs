//! The throughput terms of the time model: each resource's work on the busiest SM at the
//! resource's achievable rate, in seconds (docs/model-v2/SPEC.md §3.2).
//!
//! Sources: the CUDA Programming Guide's throughput table and "Maximize Instruction Throughput"
//! (pipe rates, per CC from the plugins); the Programming Guide's shared-memory banks and ncu's
//! Memory Workload Analysis (shared wavefronts including bank-conflict replays, L1 wavefronts,
//! sectors per request); ncu's metric reference (`lts__t_requests`: L2 tag requests); the achievable
//! DRAM and L2 bandwidths measured on the same GPUs (reference LATENCIES.md §5, per device from the
//! plugins).

use polars::prelude::*;

use super::FittedConstants;
use super::inputs::{self as i, Inputs};
use crate::arch::DEFAULT_DRAM_ACHIEVABLE_FRACTION;
use crate::clock;
use crate::columns as out;
use crate::params as p;

/// One throughput term: its column and the resource name [`super::bottleneck`] reports.
pub(crate) struct Term {
    /// Internal column holding the term, seconds.
    pub(crate) column: &'static str,
    /// The resource's name.
    pub(crate) resource: &'static str,
}

/// Every throughput term, in the order ties are broken (the first largest wins).
pub(crate) const TERMS: &[Term] = &[
    Term {
        column: "__tm_t_issue",
        resource: "issue",
    },
    Term {
        column: "__tm_t_fma",
        resource: "fma",
    },
    Term {
        column: "__tm_t_fp64",
        resource: "fp64",
    },
    Term {
        column: "__tm_t_alu",
        resource: "alu",
    },
    Term {
        column: "__tm_t_xu",
        resource: "xu",
    },
    Term {
        column: "__tm_t_adu",
        resource: "adu",
    },
    Term {
        column: "__tm_t_cbu",
        resource: "cbu",
    },
    Term {
        column: "__tm_t_uniform",
        resource: "uniform",
    },
    Term {
        column: "__tm_t_ipa",
        resource: "ipa",
    },
    Term {
        column: "__tm_t_tex",
        resource: "tex",
    },
    Term {
        column: "__tm_t_tma",
        resource: "tma",
    },
    Term {
        column: "__tm_t_hmma",
        resource: "tensor_hmma",
    },
    Term {
        column: "__tm_t_imma",
        resource: "tensor_imma",
    },
    Term {
        column: "__tm_t_dmma",
        resource: "tensor_dmma",
    },
    Term {
        column: "__tm_t_gmma",
        resource: "tensor_gmma",
    },
    Term {
        column: "__tm_t_lsu",
        resource: "lsu",
    },
    Term {
        column: "__tm_t_l1",
        resource: "l1",
    },
    Term {
        column: "__tm_t_l2",
        resource: "l2",
    },
    Term {
        column: "__tm_t_l2_requests",
        resource: "l2_requests",
    },
    Term {
        column: "__tm_t_dram",
        resource: "dram",
    },
    Term {
        column: "__tm_t_blocks",
        resource: "blocks",
    },
];

/// The term column of a resource.
pub(crate) fn term(resource: &str) -> &'static str {
    TERMS
        .iter()
        .find(|t| t.resource == resource)
        .map_or("__tm_t_missing", |t| t.column)
}

/// The largest throughput term, seconds.
pub(crate) const T_THROUGHPUT: &str = "__tm_t_throughput";
/// The resource of the largest throughput term.
pub(crate) const TOP: &str = "__tm_top";

/// Launch geometry shared by the terms: the SM count, SM clock, tensor clock, blocks, warps per
/// block, warps and the busiest SM's share of the launch.
pub(crate) const SMS: &str = "__tm_sms";
/// The clock the launch is timed at: [`crate::columns::MODEL_SM_CLOCK_HZ`] (the export's SM
/// frequency reading by default, `crate::clock`), except at the boost clock, where a launch running
/// HMMA, IMMA or wgmma tensor work ([`TENSOR_LAUNCH`]) is timed at the device's tensor clock (with
/// wgmma, that clock × `FittedConstants::wgmma_clock_fraction`). Every term and the latency are
/// timed at it.
pub(crate) const CLOCK: &str = "__tm_clock";
/// Tensor clock: the clock the device's tensor peaks are quoted at (× the wgmma fraction in a
/// launch that runs wgmma).
pub(crate) const TENSOR_CLOCK: &str = "__tm_tensor_clock";
/// Whether the launch runs HMMA, IMMA or wgmma tensor work: a non-FP64 tensor FLOP counter
/// (`sm__ops_path_tensor_src_*`) above 0, or wgmma instructions. Not decided from
/// `sm__inst_executed_pipe_tensor_op_hmma`, which also counts `HFMA2.MMA` in kernels without
/// tensor work; DMMA alone does not raise the clock (the captures' DMMA-only kernels ran at the
/// SM boost clock).
pub(crate) const TENSOR_LAUNCH: &str = "__tm_tensor_launch";
/// Blocks in the grid.
pub(crate) const BLOCKS: &str = "__tm_blocks";
/// Warps per block.
pub(crate) const WARPS_PER_BLOCK: &str = "__tm_wpb";
/// Warps launched.
pub(crate) const WARPS: &str = "__tm_warps";
/// Resident blocks per SM (theoretical occupancy).
pub(crate) const BLOCKS_PER_SM: &str = "__tm_bps";
/// The busiest SM's share of the work: ceil(blocks / SMs) / blocks.
pub(crate) const SHARE: &str = "__tm_share";

fn null() -> Expr {
    lit(NULL).cast(DataType::Float64)
}

/// Adds the geometry columns; `sm_count` and `active_blocks` come from the occupancy stage.
pub(crate) fn add_geometry(
    frame: LazyFrame,
    inputs: &Inputs,
    fitted: &FittedConstants,
    geometry: [Expr; 4],
) -> LazyFrame {
    let [sm_count, active_blocks, grid_blocks, threads] = geometry;
    // A launch running wgmma holds a lower clock than the tensor clock the peaks are quoted at
    // (`FittedConstants::wgmma_clock_fraction`); mma.sync launches run at the tensor clock.
    let gmma = inputs.pipe("tensor_op_gmma").gt(lit(0.0));
    let tensor_clock = col(p::DEV_TENSOR_CLOCK).fill_null(col(p::DEV_SM_CLOCK));
    let tensor_clock = when(gmma.clone())
        .then(tensor_clock.clone() * lit(fitted.wgmma_clock_fraction))
        .otherwise(tensor_clock);
    // The tensor-clock rule holds only at the boost clock; a measured, base or fixed clock is the
    // clock of every term (`crate::clock`).
    let tensor_clock = when(col(clock::AT_BOOST))
        .then(tensor_clock)
        .otherwise(col(out::MODEL_SM_CLOCK_HZ));
    let tensor_launch = tensor_flop(inputs).gt(lit(0.0)).or(gmma);
    // The launch's tensor clock and whether it is a tensor launch are columns first, so that the
    // clock reads them instead of computing them again (the build has no common-subexpression
    // elimination).
    let frame = frame.with_columns([
        tensor_launch.alias(TENSOR_LAUNCH),
        tensor_clock.alias(TENSOR_CLOCK),
    ]);
    let frame = frame.with_columns([
        sm_count.cast(DataType::Float64).alias(SMS),
        when(col(TENSOR_LAUNCH).and(col(clock::AT_BOOST)))
            .then(col(TENSOR_CLOCK))
            .otherwise(col(out::MODEL_SM_CLOCK_HZ))
            .alias(CLOCK),
        grid_blocks
            .cast(DataType::Float64)
            .fill_null(lit(1.0))
            .alias(BLOCKS),
        (threads.cast(DataType::Float64).fill_null(lit(32.0)) / lit(32.0))
            .ceil()
            .alias(WARPS_PER_BLOCK),
        when(active_blocks.clone().cast(DataType::Float64).gt(lit(0.0)))
            .then(active_blocks.cast(DataType::Float64))
            .otherwise(lit(1.0))
            .alias(BLOCKS_PER_SM),
    ]);
    let launched = inputs.get(i::WARPS_LAUNCHED);
    frame.with_columns([
        when(launched.clone().gt(lit(0.0)))
            .then(launched)
            .otherwise(col(BLOCKS) * col(WARPS_PER_BLOCK))
            .alias(WARPS),
        ((col(BLOCKS) / col(SMS)).ceil() / col(BLOCKS)).alias(SHARE),
    ])
}

/// The tensor FLOP (OP) of the HMMA, IMMA and wgmma types (every `sm__ops_path_tensor_src_*`
/// counter but FP64), 0 where the export has none.
fn tensor_flop(inputs: &Inputs) -> Expr {
    i::TENSOR_OPS
        .iter()
        .filter(|(_, kind)| *kind != "fp64")
        .map(|(metric, _)| inputs.or_zero(metric))
        .reduce(|a, b| a + b)
        .unwrap_or(lit(0.0))
}

/// The busy SM cycles of one mma.sync pipe from the FLOP counters by type (SPEC §3.2, "tensor
/// pipe"): `max(Σ_type FLOP_type / peak_type, instructions × min cycles)`, with the plugin's
/// per-type peaks ([`p::MMA_FP16_FLOP`] …) and minimum cycles per instruction. Null where the
/// export lacks the FLOP counters or the plugin lacks a number; the caller then falls back to the
/// per-instruction rate.
fn mma_cycles(inputs: &Inputs, instructions: Expr, kinds: &[&str], min_cycles: &str) -> Expr {
    let counters: Vec<&str> = i::TENSOR_OPS.iter().map(|(metric, _)| *metric).collect();
    let by_type = i::TENSOR_OPS
        .iter()
        .filter(|(_, kind)| kinds.contains(kind))
        .map(|(metric, kind)| {
            let peak = match *kind {
                "fp16" => p::MMA_FP16_FLOP,
                "bf16" => p::MMA_BF16_FLOP,
                "tf32" => p::MMA_TF32_FLOP,
                "fp8" => p::MMA_FP8_FLOP,
                "int8" => p::MMA_INT8_OP,
                _ => p::MMA_FP64_FLOP,
            };
            let ops = inputs.or_zero(metric);
            // A type the launch does not run needs no peak; one it runs needs a known peak.
            when(ops.clone().gt(lit(0.0)))
                .then(ops / col(peak))
                .otherwise(lit(0.0))
        })
        .reduce(|a, b| a + b)
        .unwrap_or(lit(0.0));
    let per_instruction = instructions * col(min_cycles);
    // The counters exist on this row (ncu's full set or the kit's metrics), and the plugin knows
    // the minimum cycles; a null peak of a type the launch runs makes `by_type` null.
    let known = inputs
        .sum(&counters)
        .is_not_null()
        .and(per_instruction.clone().is_not_null())
        .and(by_type.clone().is_not_null());
    when(known)
        .then(
            when(by_type.clone().gt(per_instruction.clone()))
                .then(by_type)
                .otherwise(per_instruction),
        )
        .otherwise(null())
}

/// Adds every term of [`TERMS`], then [`T_THROUGHPUT`] and [`TOP`].
pub(crate) fn add_terms(
    frame: LazyFrame,
    inputs: &Inputs,
    fitted: &FittedConstants,
) -> PolarsResult<LazyFrame> {
    let f = || col(CLOCK);
    let ft = || col(TENSOR_CLOCK);
    let share = || col(SHARE);
    let rate = |name: &str| col(name);
    let pipe = |name: &str| inputs.pipe(name);
    let issue_rate = col(p::SCHEDULERS).cast(DataType::Float64)
        * col(p::ISSUE_PER_SCHEDULER).cast(DataType::Float64);
    let mut terms = vec![
        (inputs.instructions() * share() / issue_rate / f()).alias(term("issue")),
        ((pipe("fma") + pipe("fma_type_fp16")) * share() / rate(p::PIPE_FMA) / f())
            .alias(term("fma")),
    ];
    for (pipe_name, rate_column) in [
        ("fp64", p::PIPE_FP64),
        ("alu", p::PIPE_ALU),
        ("xu", p::PIPE_XU),
        ("adu", p::PIPE_ADU),
        ("cbu", p::PIPE_CBU),
        ("uniform", p::PIPE_UNIFORM),
        ("ipa", p::PIPE_IPA),
        ("tex", p::PIPE_TEX),
        ("tma", p::PIPE_TMA),
    ] {
        terms.push((pipe(pipe_name) * share() / rate(rate_column) / f()).alias(term(pipe_name)));
    }
    // mma.sync (HMMA, IMMA, DMMA): from the FLOP counters by type at the per-type peaks, at least
    // the minimum cycles per instruction, at the launch's clock. Without the counters, or with
    // wgmma in the launch (the counters then also hold wgmma's FLOP), or without the plugin's
    // numbers: the per-instruction rate at the tensor clock (one common shape per pipe).
    let no_gmma = pipe("tensor_op_gmma").eq(lit(0.0));
    for (pipe_name, rate_column, resource, kinds, min_cycles) in [
        (
            "tensor_op_hmma",
            p::PIPE_HMMA,
            "tensor_hmma",
            &["fp16", "bf16", "tf32", "fp8"][..],
            p::MMA_HMMA_MIN_CYCLES,
        ),
        (
            "tensor_op_imma",
            p::PIPE_IMMA,
            "tensor_imma",
            &["int8"][..],
            p::MMA_IMMA_MIN_CYCLES,
        ),
        (
            "tensor_op_dmma",
            p::PIPE_DMMA,
            "tensor_dmma",
            &["fp64"][..],
            p::MMA_DMMA_MIN_CYCLES,
        ),
    ] {
        let by_flop = mma_cycles(inputs, pipe(pipe_name), kinds, min_cycles);
        let by_instruction = pipe(pipe_name) * share() / rate(rate_column) / ft();
        terms.push(
            when(no_gmma.clone().and(by_flop.clone().is_not_null()))
                .then(by_flop * share() / f())
                .otherwise(by_instruction)
                .alias(term(resource)),
        );
    }
    // wgmma: exact work from the FLOP counters by source type when the export has them.
    let mut ops_time: Option<Expr> = None;
    let mut any_ops: Option<Expr> = None;
    for (metric, kind) in i::TENSOR_OPS {
        if !inputs.has(metric) {
            continue;
        }
        let rate_column = match *kind {
            "fp16" => p::GMMA_FP16_FLOP,
            "bf16" => p::GMMA_BF16_FLOP,
            "tf32" => p::GMMA_TF32_FLOP,
            "fp8" => p::GMMA_FP8_FLOP,
            "int8" => p::GMMA_INT8_OP,
            _ => p::GMMA_FP64_FLOP,
        };
        let ops = inputs.or_zero(metric);
        let part = when(ops.clone().gt(lit(0.0)))
            .then(ops.clone() / col(rate_column))
            .otherwise(lit(0.0));
        ops_time = Some(match ops_time {
            Some(sum) => sum + part,
            None => part,
        });
        let positive = ops.gt(lit(0.0));
        any_ops = Some(match any_ops {
            Some(any) => any.or(positive),
            None => positive,
        });
    }
    let gmma_by_inst = pipe("tensor_op_gmma") * share() / rate(p::PIPE_GMMA) / ft();
    terms.push(
        match (ops_time, any_ops) {
            (Some(ops_time), Some(any_ops)) => {
                when(pipe("tensor_op_gmma").gt(lit(0.0)).and(any_ops))
                    .then(ops_time * share() / ft())
                    .otherwise(gmma_by_inst)
            }
            _ => gmma_by_inst,
        }
        .alias(term("tensor_gmma")),
    );
    let eta = lit(fitted.l1_efficiency);
    terms
        .push((pipe("lsu") * share() / (rate(p::PIPE_LSU) * eta.clone()) / f()).alias(term("lsu")));
    let shared_wavefronts = inputs.get(i::SHARED_WAVEFRONTS);
    let global_wavefronts = inputs.sum(i::GLOBAL_WAVEFRONTS);
    terms.push(
        when(
            shared_wavefronts
                .clone()
                .is_not_null()
                .or(global_wavefronts.clone().is_not_null()),
        )
        .then(
            (shared_wavefronts.fill_null(lit(0.0)) + global_wavefronts.fill_null(lit(0.0)))
                * share()
                / (col(p::L1_WAVEFRONTS_PER_CLK) * eta)
                / f(),
        )
        .otherwise(null())
        .alias(term("l1")),
    );
    // L1<->L2 bytes: the L2 sectors L1TEX requested; without them min(L2 bytes, L1 bytes)
    // (`lts__t_bytes` also counts the traffic between the two L2 partitions).
    let l2_tex = inputs.get(i::L2_TEX_SECTORS);
    let l1_bytes = inputs.l1_bytes();
    let lts_bytes = inputs.l2_bytes().fill_null(lit(0.0));
    let l2_bytes = when(l2_tex.clone().is_not_null())
        .then(l2_tex * lit(32.0))
        .when(l1_bytes.clone().is_not_null())
        .then(polars::lazy::dsl::min_horizontal([
            lts_bytes.clone(),
            l1_bytes,
        ])?)
        .otherwise(lts_bytes);
    let l2_bandwidth = col(p::DEV_L2_ACHIEVABLE).fill_null(col(p::DEV_L2_BW));
    terms.push((l2_bytes / l2_bandwidth).alias(term("l2")));
    let l2_requests = inputs.get(i::L2_REQUESTS);
    terms.push(
        (l2_requests / (col(p::DEV_L2_SLICES) * lit(fitted.l2_requests_per_slice_clk) * f()))
            .alias(term("l2_requests")),
    );
    // DRAM bytes as the roofline stage totals them (read + write, or ncu's `dram__bytes.sum`).
    let dram_bytes = if inputs.has(crate::columns::DRAM_BYTES) {
        inputs.or_zero(crate::columns::DRAM_BYTES)
    } else {
        inputs.dram_read().fill_null(lit(0.0)) + inputs.dram_write().fill_null(lit(0.0))
    };
    terms.push(
        (dram_bytes
            / (col(p::DEV_DRAM_BW)
                * col(clock::DRAM_SCALE)
                * col(p::DEV_DRAM_FRACTION).fill_null(lit(DEFAULT_DRAM_ACHIEVABLE_FRACTION))))
        .alias(term("dram")),
    );
    terms.push((col(BLOCKS) / (lit(fitted.blocks_per_clk) * f())).alias(term("blocks")));
    let frame = frame.with_columns(terms);
    // NaN (an unknown rate) never wins: treat it as missing.
    let frame = frame.with_columns(
        TERMS
            .iter()
            .map(|t| {
                when(col(t.column).is_nan())
                    .then(null())
                    .otherwise(col(t.column))
                    .alias(t.column)
            })
            .collect::<Vec<_>>(),
    );
    let frame = frame.with_columns([polars::lazy::dsl::max_horizontal(
        TERMS.iter().map(|t| col(t.column)).collect::<Vec<_>>(),
    )?
    .alias(T_THROUGHPUT)]);
    let mut top = lit(NULL).cast(DataType::String);
    for t in TERMS.iter().rev() {
        top = when(col(t.column).eq(col(T_THROUGHPUT)))
            .then(lit(t.resource))
            .otherwise(top);
    }
    Ok(frame.with_columns([top.alias(TOP)]))
}
