//! The time model's fitted constants: each with its value, what it stands for, and how it was
//! fitted and cross-validated (docs/model-v2/SPEC.md §2.4, reproduced by
//! `python3 docs/model-v2/model_v2.py --refit`).
//!
//! Fitted on the 86 launches of the project's own capture kit (`traces/h100-80gb-hbm3`,
//! `traces/h200`: 9 cases on each GPU, both GPUs pooled) by minimising the mean
//! |ln(predicted / measured)| (Nelder–Mead from the physical prior). Leave-one-case-out: 9 folds,
//! each refitting all five on the other 8 cases and predicting the held-out case on both GPUs; the
//! range of each constant over the folds is given below, and the resulting errors are in
//! `docs/accuracy.md`.

/// The fitted constants of the time model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FittedConstants {
    /// Launch overhead inside ncu's `gpu__time_duration`, seconds. Prior 2.0 µs, bounded to
    /// [1, 2.5] µs. Fitted 2.12 µs; folds 2.06–2.50 µs. Identified by the 1-block reduction and the
    /// 1 M-element copies.
    pub(crate) launch_overhead_s: f64,
    /// Achievable fraction of the L1TEX data stage (wavefronts per cycle) and of the LSU pipe.
    /// Prior 1.0. Fitted 0.907; folds 0.836–0.961. Identified by sgemm and transpose_tiled.
    pub(crate) l1_efficiency: f64,
    /// L2 tag requests per L2 slice per SM cycle. Prior 0.86 (one per slice per L2 clock of about
    /// 1.7 GHz). Fitted 0.560; folds 0.56–0.57, but 2.0 (its bound) when transpose is held out:
    /// only transpose_naive identifies it.
    pub(crate) l2_requests_per_slice_clk: f64,
    /// Blocks the GPU front end dispatches per SM cycle, whole GPU. Prior 1.0. Fitted 0.864 (1.71
    /// blocks/ns at 1.98 GHz); folds 0.833–0.866. Identified by block_sweep and outer_product.
    pub(crate) blocks_per_clk: f64,
    /// Growth of the DRAM latency per unit of DRAM utilisation (loaded latency). Prior 0. Fitted
    /// 0.395; folds 0.383–0.473. Identified by block_sweep and smem_limited.
    pub(crate) dram_queueing: f64,
    /// Exponent of the smooth maximum of throughput and latency time. Not fitted: 2 (a fitted
    /// exponent drifts along a flat ridge with the launch overhead).
    pub(crate) blend_exponent: f64,
    /// The clock of a launch that runs wgmma, as a fraction of the device's tensor clock. Prior 1.
    /// Not part of the kit's fit (the kit has no wgmma): the median of the SM clock ncu measured
    /// (`sm__cycles_elapsed.avg.per_second`) over the 18 cuBLAS wgmma GEMMs of
    /// `traces/{h100-80gb-hbm3,h200}-wgmma` (1.484–1.786 GHz, median 1.604 GHz) divided by the
    /// H100/H200 tensor clock of 1.83 GHz: 0.876. Validated on clocks it was not taken from: the
    /// 20 wgmma launches (cuBLAS `nvjet` GEMMs and cuDNN flash attention) of the PyTorch layers of
    /// `traces/pytorch-layers/` ran at 1.596–1.662 GHz, median 1.627 GHz (the constant is 1.5 %
    /// below it). Only SXM boards were measured.
    pub wgmma_clock_fraction: f64,
}

impl Default for FittedConstants {
    fn default() -> Self {
        FittedConstants {
            launch_overhead_s: 2.12e-6,
            l1_efficiency: 0.907,
            l2_requests_per_slice_clk: 0.560,
            blocks_per_clk: 0.864,
            dram_queueing: 0.395,
            blend_exponent: 2.0,
            wgmma_clock_fraction: 0.876,
        }
    }
}
