//! The hierarchical roofline: FLOP per precision, bytes per memory level, arithmetic intensity,
//! the ceilings of the device and the one that binds.
//!
//! FLOP: FP32 = fadd + fmul + 2·ffma (likewise FP64 and FP16), tensor = the tensor FLOP counters
//! (`sm__ops_path_tensor_src_*`, every instruction shape and wgmma counted exactly) where the export
//! has them, else tensor-pipe instructions × the architecture's FLOP per tensor instruction. Bytes: DRAM = read + write, L2 = `lts__t_bytes`,
//! L1 = `l1tex__t_bytes`. Compute ceiling for the launch's mix = total FLOP / Σ (FLOP_p / peak_p),
//! which is the single peak when one precision is used. Memory ceilings: AI_level × bandwidth_level
//! (DRAM and L2 from the device, L1 = bytes per clock per SM × SMs × SM clock). Attainable = the
//! lowest ceiling; the binding ceiling is its name (`fp32`, `fp64`, `fp16`, `tensor` for compute: the
//! precision taking the most time at peak).

use polars::prelude::*;

use super::columns as out;
use super::empty_columns::EmptyColumns;
use super::params as p;
use super::resolve::{CLOCK_SCALE, SM_CLOCK, SM_COUNT};
use super::time::inputs::Inputs;
use warpsight_ingest::launch_table::column_names as lt;

use crate::arch::{ArchSpec, DeviceSpec};

/// Seconds the launch's FLOP take at each precision's peak, summed (internal).
pub(crate) const T_COMPUTE_PEAK: &str = "__r_t_compute_peak_s";
/// L1 bandwidth of the whole device, bytes/s (internal).
pub(crate) const L1_BANDWIDTH: &str = "__r_l1_bw";
const T_FP64: &str = "__r_t_fp64";
const T_FP32: &str = "__r_t_fp32";
const T_FP16: &str = "__r_t_fp16";
const T_TENSOR: &str = "__r_t_tensor";
const ROOF_DRAM: &str = "__r_roof_dram";
const ROOF_L2: &str = "__r_roof_l2";
const ROOF_L1: &str = "__r_roof_l1";

fn null_f64() -> Expr {
    lit(NULL).cast(DataType::Float64)
}

/// `a + b + 2·fma` with missing counters as 0, or null when all three are missing.
fn precision_flop(add: &str, mul: &str, fma: &str) -> Expr {
    let all_missing = col(add)
        .is_null()
        .and(col(mul).is_null())
        .and(col(fma).is_null());
    when(all_missing).then(null_f64()).otherwise(
        col(add).fill_null(lit(0.0))
            + col(mul).fill_null(lit(0.0))
            + lit(2.0) * col(fma).fill_null(lit(0.0)),
    )
}

/// `numerator / denominator`, null when the denominator is not positive.
fn ratio(numerator: Expr, denominator: Expr) -> Expr {
    when(denominator.clone().gt(lit(0.0)))
        .then(numerator / denominator)
        .otherwise(null_f64())
}

/// The FLOP/s achieved over the measured duration: [`out::FLOP_TOTAL`] / `measured`.
pub(crate) fn achieved_flops(measured: Expr) -> Expr {
    ratio(col(out::FLOP_TOTAL), measured * lit(1e-9))
}

/// The achieved FLOP/s as a fraction of the attainable ones.
pub(crate) fn pct_of_roof() -> Expr {
    ratio(col(out::ACHIEVED_FLOPS), col(out::ATTAINABLE_FLOPS))
}

/// Seconds for `flop` at `peak` (scaled to the run's SM clock): 0 when there is no such work,
/// null when the peak is unknown.
fn time_at_peak(flop: &str, peak: &str) -> Expr {
    when(col(flop).fill_null(lit(0.0)).eq(lit(0.0)))
        .then(lit(0.0))
        .otherwise(col(flop) / (col(peak) * col(CLOCK_SCALE)))
}

/// The tensor FLOP of a launch: the `sm__ops_path_tensor_src_*` counters summed where the row has
/// any, else tensor-pipe instructions × the architecture's FLOP per tensor instruction (one
/// instruction shape: a wgmma instruction carries 8 to 16 times an `HMMA.16816`'s 4 096 FLOP, an
/// `HMMA.1684` a quarter of it).
fn tensor_flop(inputs: &Inputs) -> Expr {
    let per_instruction = col(lt::INST_TENSOR) * col(p::FLOP_PER_TENSOR_INST);
    let counters: Vec<Expr> = crate::time::inputs::TENSOR_OPS
        .iter()
        .filter(|(metric, _)| inputs.has(metric))
        .map(|(metric, _)| col(*metric).cast(DataType::Float64))
        .collect();
    let any = counters
        .iter()
        .cloned()
        .map(Expr::is_not_null)
        .reduce(|a, b| a.or(b));
    let sum = counters
        .into_iter()
        .map(|counter| counter.fill_null(lit(0.0)))
        .reduce(|a, b| a + b);
    match (any, sum) {
        (Some(any), Some(sum)) => when(any).then(sum).otherwise(per_instruction),
        _ => per_instruction,
    }
}

/// Adds the roofline columns of [`super::columns`]. The `empty` input columns (null on every row)
/// are planned as absent.
pub(crate) fn add_columns(mut frame: LazyFrame, empty: &EmptyColumns) -> PolarsResult<LazyFrame> {
    let schema = crate::plan_schema::schema_of(&mut frame)?;
    // Bytes per memory level, with their documented equivalents (sectors × 32 B).
    let inputs = Inputs::planned_without(schema, empty.clone());
    let frame = frame.with_columns([
        precision_flop(lt::INST_DADD, lt::INST_DMUL, lt::INST_DFMA).alias(out::FLOP_FP64),
        precision_flop(lt::INST_FADD, lt::INST_FMUL, lt::INST_FFMA).alias(out::FLOP_FP32),
        precision_flop(lt::INST_HADD, lt::INST_HMUL, lt::INST_HFMA).alias(out::FLOP_FP16),
        tensor_flop(&inputs).alias(out::FLOP_TENSOR),
        when(
            inputs
                .dram_read()
                .is_null()
                .and(inputs.dram_write().is_null()),
        )
        .then(null_f64())
        .otherwise(inputs.dram_read().fill_null(lit(0.0)) + inputs.dram_write().fill_null(lit(0.0)))
        .alias(out::DRAM_BYTES),
        (col(p::L1_BYTES_PER_CLK) * col(SM_COUNT).cast(DataType::Float64) * col(SM_CLOCK))
            .alias(L1_BANDWIDTH),
    ]);
    let flops = [
        out::FLOP_FP64,
        out::FLOP_FP32,
        out::FLOP_FP16,
        out::FLOP_TENSOR,
    ];
    let all_missing = flops
        .iter()
        .fold(lit(true), |acc, f| acc.and(col(*f).is_null()));
    let frame = frame.with_columns([
        when(all_missing)
            .then(null_f64())
            .otherwise(polars::lazy::dsl::sum_horizontal(
                flops.iter().map(|f| col(*f)).collect::<Vec<_>>(),
                true,
            )?)
            .alias(out::FLOP_TOTAL),
        time_at_peak(out::FLOP_FP64, p::DEV_PEAK_FP64).alias(T_FP64),
        time_at_peak(out::FLOP_FP32, p::DEV_PEAK_FP32).alias(T_FP32),
        time_at_peak(out::FLOP_FP16, p::DEV_PEAK_FP16).alias(T_FP16),
        time_at_peak(out::FLOP_TENSOR, p::DEV_PEAK_TENSOR).alias(T_TENSOR),
    ]);
    let frame = frame.with_columns([
        when(col(out::FLOP_TOTAL).is_null())
            .then(null_f64())
            .otherwise(col(T_FP64) + col(T_FP32) + col(T_FP16) + col(T_TENSOR))
            .alias(T_COMPUTE_PEAK),
        ratio(col(out::FLOP_TOTAL), col(out::DRAM_BYTES)).alias(out::AI_DRAM),
        ratio(col(out::FLOP_TOTAL), inputs.l2_bytes()).alias(out::AI_L2),
        ratio(col(out::FLOP_TOTAL), inputs.l1_bytes()).alias(out::AI_L1),
    ]);
    let frame = frame.with_columns([
        ratio(col(out::FLOP_TOTAL), col(T_COMPUTE_PEAK)).alias(out::COMPUTE_CEILING),
        (col(out::AI_DRAM) * col(p::DEV_DRAM_BW)).alias(ROOF_DRAM),
        (col(out::AI_L2) * col(p::DEV_L2_BW)).alias(ROOF_L2),
        (col(out::AI_L1) * col(L1_BANDWIDTH)).alias(ROOF_L1),
    ]);
    let attainable = polars::lazy::dsl::min_horizontal([
        col(out::COMPUTE_CEILING),
        col(ROOF_DRAM),
        col(ROOF_L2),
        col(ROOF_L1),
    ])?;
    let frame = frame.with_columns([
        attainable.alias(out::ATTAINABLE_FLOPS),
        ratio(col(out::COMPUTE_CEILING), col(p::DEV_DRAM_BW)).alias(out::RIDGE_AI_DRAM),
        achieved_flops(col(lt::DURATION_NS)).alias(out::ACHIEVED_FLOPS),
    ]);
    let slowest =
        polars::lazy::dsl::max_horizontal([col(T_FP64), col(T_FP32), col(T_FP16), col(T_TENSOR)])?;
    let dominant = when(col(T_TENSOR).eq(slowest.clone()))
        .then(lit("tensor"))
        .when(col(T_FP64).eq(slowest.clone()))
        .then(lit("fp64"))
        .when(col(T_FP16).eq(slowest.clone()))
        .then(lit("fp16"))
        .otherwise(lit("fp32"));
    let binding = when(col(out::ATTAINABLE_FLOPS).is_null())
        .then(lit(NULL).cast(DataType::String))
        .when(col(ROOF_DRAM).eq(col(out::ATTAINABLE_FLOPS)))
        .then(lit("dram"))
        .when(col(ROOF_L2).eq(col(out::ATTAINABLE_FLOPS)))
        .then(lit("l2"))
        .when(col(ROOF_L1).eq(col(out::ATTAINABLE_FLOPS)))
        .then(lit("l1"))
        .otherwise(dominant);
    Ok(frame.with_columns([
        binding.alias(out::BINDING_CEILING),
        pct_of_roof().alias(out::PCT_OF_ROOF),
    ]))
}

/// A memory ceiling: FLOP/s = bandwidth × intensity.
#[derive(Debug, Clone)]
pub struct MemoryCeiling {
    /// Level name, e.g. `DRAM`.
    pub label: String,
    /// Bandwidth, bytes/s.
    pub bandwidth: f64,
}

/// A compute ceiling: a peak FLOP/s of one precision.
#[derive(Debug, Clone)]
pub struct ComputeCeiling {
    /// Precision name, e.g. `FP32`.
    pub label: String,
    /// Peak, FLOP/s.
    pub peak: f64,
}

/// Bytes one L1TEX wavefront moves (one 128-byte line per SM per cycle at one wavefront per clock).
const BYTES_PER_L1_WAVEFRONT: f64 = 128.0;

/// FLOP one lane of a packed FP16x2 FMA does: two halves × (multiply + add).
const FLOP_PER_FP16X2_FMA_LANE: f64 = 4.0;

/// The first finite, positive value of `candidates`, or NaN.
fn first_known(candidates: &[f64]) -> f64 {
    candidates
        .iter()
        .copied()
        .find(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(f64::NAN)
}

/// The full hierarchy of ceilings of a device for the HTML review's roofline, every one the plugin
/// knows (unknown ones are left out, not returned as NaN).
///
/// Memory, fastest level last: DRAM (`dram_bandwidth`), L2 (`l2_bandwidth`, else the measured
/// `l2_achievable_bandwidth`), L1/shared (`l1_bytes_per_clk`, else `l1_wavefronts_per_clk` × 128 B,
/// per SM per clock × SMs × SM clock). Compute: FP64, FP32 and FP16 from the device's peaks, else
/// from the architecture's per-SM rates × SMs × SM clock (FP16 from the FP16x2 pipe rate when the
/// throughput table has no FP16 figure); then one tensor ceiling per data type (FP64, TF32, FP16,
/// BF16, FP8, INT8) from the device's peaks, else the per-SM dense rates × SMs × the tensor clock
/// (the SM clock when that is unknown). Compute ceilings are listed slowest first within each group.
pub fn hierarchical_ceilings(
    device: &DeviceSpec,
    arch: Option<&ArchSpec>,
) -> (Vec<MemoryCeiling>, Vec<ComputeCeiling>) {
    let sms = f64::from(device.sm_count);
    let per_device = |per_sm_per_clk: f64| per_sm_per_clk * sms * device.sm_clock_hz;
    let tensor_clock = first_known(&[device.tensor_clock_hz, device.sm_clock_hz]);
    let per_device_tensor = |per_sm_per_clk: f64| per_sm_per_clk * sms * tensor_clock;
    let nan = f64::NAN;
    let (throughput, pipes, wavefronts) = match arch {
        Some(a) => (Some(&a.throughput), Some(&a.pipes), a.l1_wavefronts_per_clk),
        None => (None, None, nan),
    };
    let rate = |pick: fn(&crate::arch::Throughput) -> f64| throughput.map_or(nan, pick);
    let memory = [
        ("DRAM", device.dram_bandwidth),
        (
            "L2",
            first_known(&[device.l2_bandwidth, device.l2_achievable_bandwidth]),
        ),
        (
            "L1/shared",
            first_known(&[
                per_device(rate(|t| t.l1_bytes_per_clk)),
                per_device(wavefronts * BYTES_PER_L1_WAVEFRONT),
            ]),
        ),
    ];
    let fp16_from_pipe = pipes.map_or(nan, |p| {
        per_device(p.fma_fp16 * 32.0 * FLOP_PER_FP16X2_FMA_LANE)
    });
    let peak = device.peak;
    let compute = [
        (
            "FP64",
            first_known(&[peak.fp64, per_device(2.0 * rate(|t| t.fp64))]),
        ),
        (
            "FP32",
            first_known(&[peak.fp32, per_device(2.0 * rate(|t| t.fp32))]),
        ),
        (
            "FP16",
            first_known(&[
                peak.fp16,
                per_device(2.0 * rate(|t| t.fp16)),
                fp16_from_pipe,
            ]),
        ),
        (
            "Tensor FP64",
            first_known(&[
                peak.fp64_tensor,
                per_device_tensor(rate(|t| t.tensor_fp64_flop)),
            ]),
        ),
        (
            "Tensor TF32",
            first_known(&[
                peak.tf32_tensor,
                per_device_tensor(rate(|t| t.tensor_tf32_flop)),
            ]),
        ),
        (
            "Tensor FP16",
            first_known(&[
                peak.fp16_tensor,
                per_device_tensor(rate(|t| t.tensor_fp16_flop)),
            ]),
        ),
        (
            "Tensor BF16",
            per_device_tensor(rate(|t| t.tensor_bf16_flop)),
        ),
        (
            "Tensor FP8",
            first_known(&[
                peak.fp8_tensor,
                per_device_tensor(rate(|t| t.tensor_fp8_flop)),
            ]),
        ),
        (
            "Tensor INT8",
            first_known(&[
                peak.int8_tensor,
                per_device_tensor(rate(|t| t.tensor_int8_op)),
            ]),
        ),
    ];
    let known = |v: &f64| v.is_finite() && *v > 0.0;
    (
        memory
            .into_iter()
            .filter(|(_, bw)| known(bw))
            .map(|(label, bandwidth)| MemoryCeiling {
                label: label.into(),
                bandwidth,
            })
            .collect(),
        compute
            .into_iter()
            .filter(|(_, peak)| known(peak))
            .map(|(label, peak)| ComputeCeiling {
                label: label.into(),
                peak,
            })
            .collect(),
    )
}
