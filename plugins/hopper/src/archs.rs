//! Hopper compute capability 9.0. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` row 9.0 (PG-legacy CUDA 13.0 §20.2 Table 27 and
//!   §20.8, `cuda_occupancy.h`, CCCL `arch_traits.h`, MT4G H100 deviceProp dump);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`; DEV: `DEVICES.csv` (H100 SXM5 row);
//! - SPEC: `docs/model-v2/SPEC.md` §2.1, which cites PG-T (the Programming Guide's arithmetic
//!   throughput table, column 9.0), WP (the H100 whitepaper's SM diagram), NV-FRM (NVIDIA forum,
//!   FP16x2 dual issue) and NCU-PK (ncu `*.peak_sustained` metrics of the H100 captures).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, MmaRates, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 9.0, bytes (OCC §2: 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KB).
const CARVEOUTS_GH100: &[u32] = &[
    0,
    kib(8),
    kib(16),
    kib(32),
    kib(64),
    kib(100),
    kib(132),
    kib(164),
    kib(196),
    kib(228),
];

/// GH100 dense FP16 tensor FLOP per clock per SM on the wgmma path: ncu
/// `sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.avg.peak_sustained` = 4096 (H100 captures);
/// also DEV H100 SXM5 989.4 TF / (132 SMs × 1.83 GHz), the tensor clock of DEV's notes.
const GH100_TENSOR_FP16: f64 = 4096.0;

/// CC 9.0, Hopper GH100.
fn gh100() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(9, 0),
        name: "Hopper GH100".into(),
        threads_per_warp: 32,                            // ARCHS 9.0
        max_warps_per_sm: 64,                            // ARCHS 9.0
        max_threads_per_sm: 2048,                        // ARCHS 9.0
        max_blocks_per_sm: 32,                           // ARCHS 9.0; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 9.0
        regs_per_sm: 65536,                              // ARCHS 9.0
        max_regs_per_block: 65536,                       // ARCHS 9.0
        max_regs_per_thread: 255,                        // ARCHS 9.0
        reg_alloc_unit: 256,                             // ARCHS 9.0; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 9.0
        sub_partitions: 4,                               // ARCHS 9.0; OCC §2
        smem_per_sm: 233472,                             // ARCHS 9.0 (228 KB)
        smem_per_block_default: 49152,                   // ARCHS 9.0
        smem_per_block_optin: 232448,                    // ARCHS 9.0 (227 KB)
        smem_alloc_unit: 128,                            // ARCHS 9.0; OCC §2
        smem_reserved_per_block: 1024,                   // ARCHS 9.0; OCC §2
        carveouts: CARVEOUTS_GH100.to_vec(),
        barrier_multiplier: 2,           // OCC §2 (9.0: 2); ARCHS notes
        virtual_resources_per_sm: 0,     // OCC §2 (only CC 10–12)
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // LAT §1 (PG-legacy §20.8.1)
        issue_per_scheduler_per_clk: 1,  // LAT §1
        latencies: Latencies {
            // UNCERTAIN: LAT §2 found no Hopper ALU measurement; its advice is 4 cycles on 7.0–12.x.
            fp32: 4.0,
            int32: 4.0,
            shared: 29.0,  // LAT §3, H800 PCIe, Luo et al. 2024 (arXiv:2402.13499)
            l1_hit: 40.7,  // LAT §3, same source
            l2_hit: 263.0, // LAT §3, same source
            dram: 478.8,   // LAT §3, same source (DRAM latency is method-dependent: calibrate)
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.1). NCU-PK: the
        // `*.peak_sustained` metrics of `traces/h100-80gb-hbm3/*.ncu-raw.csv` (the CLI tests compare
        // them with these numbers).
        pipes: PipeRates {
            fma: 4.0, // PG-T 128 FP32 results/clk (ARCHS 9.0); NCU-PK ffma 128 thread-inst/clk
            // NV-FRM: an FP16x2 instruction is dual-issued to FMAheavy and FMAlite; the kit's
            // fma_chain_fp16x2 runs at 0.98 of 2.0 (SPEC §2.1). NCU-PK hfma says 128 thread-inst/clk
            // (4.0), which GH100 does not reach.
            fma_fp16: 2.0,
            fp64: 2.0,    // PG-T 64 (ARCHS 9.0); WP 16 FP64 lanes/SMSP; NCU-PK dfma 64
            alu: 2.0,     // PG-T 64 INT32 results/clk; WP 16 INT32 lanes/SMSP
            xu: 0.5,      // PG-T 16 results/clk; WP 4 SFU/SMSP
            lsu: 1.0,     // WP 8 LD/ST/SMSP; NCU-PK l1tex__lsu_writeback_active_mem_lgds 1/SM/clk
            adu: 1.0,     // UNCERTAIN: no public number (SPEC §2.1)
            cbu: 2.0,     // UNCERTAIN: no public number (SPEC §2.1)
            uniform: 4.0, // UNCERTAIN: one uniform datapath per SMSP (SPEC §2.1)
            ipa: 0.5,     // UNCERTAIN: graphics only (SPEC §2.1)
            tex: 0.25,    // UNCERTAIN: ATTR num_tex_per_multiprocessor = 1 (SPEC §2.1)
            tma: 0.5,     // UNCERTAIN: never limiting in practice (SPEC §2.1)
            // NCU-PK sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32 2730.67 FLOP/clk (= 8192 / 3)
            // / 4096 FLOP per HMMA.16816.
            tensor_hmma: 2.0 / 3.0,
            // NCU-PK sm__ops_path_tensor_op_imma_src_int8 5461.33 OP/clk (= 16384 / 3) / 8192 OP
            // per IMMA.16832.
            tensor_imma: 2.0 / 3.0,
            // NCU-PK sm__ops_path_tensor_src_fp64 256 FLOP/clk / 512 FLOP per DMMA.884.
            tensor_dmma: 0.5,
            // Fallback only (SPEC §2.1): one warp's share of wgmma m64n128k16, 65,536 FLOP, at
            // 4096 FLOP/clk/SM (assumes N = 128).
            tensor_gmma: 0.0625,
        },
        // PG shared memory 32 banks × 4 B/clk = one 128-B wavefront per SM per cycle; NCU-PK
        // derived__l1tex__lsu_writeback_bytes_mem_lgds 16,896 B/clk = 128 × 132 SMs (SPEC §2.1).
        l1_wavefronts_per_clk: 1.0,
        // The mma.sync path (SPEC §2.1, "tensor pipe"). NCU-HO: the `*.peak_sustained` metrics of
        // `traces/{h100-80gb-hbm3,h200}-holdout/tensor_peak.ncu-raw.csv`, equal on both GPUs
        // (`core/model/tests/tensor_pipe.rs` compares them with these numbers).
        mma: MmaRates {
            // NCU-HO sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off 2730.67 (= 8192 / 3),
            // also ..._src_fp16_dst_fp16_sparsity_off.
            fp16_flop: 8192.0 / 3.0,
            // NCU-HO sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off 2730.67.
            bf16_flop: 8192.0 / 3.0,
            // NCU-HO sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_off 1365.33 (= 4096 / 3).
            tf32_flop: 4096.0 / 3.0,
            // UNCERTAIN: ncu lists no HMMA FP8 peak on 9.0 (FP8 runs on wgmma); the FP16 rate, as
            // the wgmma path's FP8 : FP16 ratio is not known for mma.sync.
            fp8_flop: 8192.0 / 3.0,
            // NCU-HO sm__ops_path_tensor_op_imma_src_int8_sparsity_off 5461.33 (= 16384 / 3).
            int8_op: 16384.0 / 3.0,
            // NCU-HO sm__ops_path_tensor_src_fp64 256; DEV H100 SXM5 FP64 tensor 66.9 TF /
            // (132 × 1.98 GHz) = 256.
            fp64_flop: 256.0,
            // Measured on the holdout tensor_peak chains (tensor pipe ≥ 92 % busy, both GPUs):
            // HMMA.1684.TF32 (1024 FLOP) and HMMA.1688.F32 (2048 FLOP) issue at 0.99 and 0.92 per
            // SM cycle, above their FLOP ÷ peak (0.75 cycles): one instruction per cycle at most.
            hmma_min_cycles: 1.0,
            // IMMA.16816 (4096 OP, 0.75 cycles by its peak) runs at 0.97 per cycle: 1 cycle.
            imma_min_cycles: 1.0,
            // DMMA.884 (512 FLOP, 2 cycles by its peak) runs at 0.247 per cycle: 4 cycles;
            // DMMA.16x8x16 (4096 FLOP) at 1/16 = its peak.
            dmma_min_cycles: 4.0,
        },
        // Tensor rates are the wgmma path, dense FLOP (OP) per clock per SM (SPEC §2.1), each
        // equal to the NCU-PK `sm__ops_path_tensor_op_{hgmma,igmma}_*_sparsity_off` peak.
        throughput: Throughput {
            fp32: 128.0, // ARCHS 9.0
            fp64: 64.0,  // ARCHS 9.0
            // NCU-PK hgmma fp16 4096; DEV H100 SXM5 989.4 TF / (132 SMs × 1.83 GHz) = 4096.
            tensor_fp16_flop: GH100_TENSOR_FP16,
            // NCU-PK hgmma bf16 4096.
            tensor_bf16_flop: GH100_TENSOR_FP16,
            // NCU-PK sm__ops_path_tensor_src_fp8_sparsity_off 8192.
            tensor_fp8_flop: GH100_TENSOR_FP16 * 2.0,
            // NCU-PK igmma int8 8192.
            tensor_int8_op: GH100_TENSOR_FP16 * 2.0,
            // NCU-PK hgmma tf32 2048.
            tensor_tf32_flop: GH100_TENSOR_FP16 / 2.0,
            // NCU-PK sm__ops_path_tensor_src_fp64 256; DEV H100 SXM5 FP64 tensor 66.9 TF /
            // (132 × 1.98 GHz) = 256.
            tensor_fp64_flop: 256.0,
            // UNCERTAIN: one HMMA.16816 warp instruction = 4096 FLOP (mma.sync); wgmma kernels
            // count differently.
            flop_per_tensor_inst: 4096.0,
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// All Hopper compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![gh100()]
}
