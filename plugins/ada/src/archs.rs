//! Ada Lovelace compute capability 8.9. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` row 8.9 (PG-legacy CUDA 13.0 Table 27 and §20.7,
//!   `cuda_occupancy.h`, CCCL `arch_traits.h`, ncu "Block Limit SM 24" dumps);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`; DEV: `DEVICES.csv`.
//!
//! Latency source: Luo et al. 2024 (arXiv:2402.13499) on an RTX 4090 (LAT §3), with LAT §2's
//! advice of 4 cycles for FP32/INT32.
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 8.9, bytes (OCC §2: 0, 8, 16, 32, 64, 100 KB).
const CARVEOUTS_AD10X: &[u32] = &[0, kib(8), kib(16), kib(32), kib(64), kib(100)];

/// AD10x dense FP16 tensor FLOP per clock per SM with FP32 accumulate on data-centre parts:
/// DEV L40S 362 TF / (142 SMs × 2.52 GHz) = 1012 and DEV L4 121 TF / (58 × 2.04 GHz) = 1023 → 1024.
/// GeForce parts run it at half rate (DEV RTX 4090: 165.2 TF / (128 × 2.52 GHz) = 512); their
/// device peak says so.
const AD10X_TENSOR_FP16: f64 = 1024.0;

/// CC 8.9, Ada AD10x.
fn ad10x() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(8, 9),
        name: "Ada AD10x".into(),
        threads_per_warp: 32,                            // ARCHS 8.9
        max_warps_per_sm: 48,                            // ARCHS 8.9
        max_threads_per_sm: 1536,                        // ARCHS 8.9
        max_blocks_per_sm: 24,                           // ARCHS 8.9; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 8.9
        regs_per_sm: 65536,                              // ARCHS 8.9
        max_regs_per_block: 65536,                       // ARCHS 8.9
        max_regs_per_thread: 255,                        // ARCHS 8.9
        reg_alloc_unit: 256,                             // ARCHS 8.9; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 8.9
        sub_partitions: 4,                               // ARCHS 8.9; OCC §2
        smem_per_sm: 102400,                             // ARCHS 8.9 (100 KB)
        smem_per_block_default: 49152,                   // ARCHS 8.9
        smem_per_block_optin: 101376,                    // ARCHS 8.9 (99 KB)
        smem_alloc_unit: 128,                            // ARCHS 8.9; OCC §2
        smem_reserved_per_block: 1024,                   // ARCHS 8.9; OCC §2
        carveouts: CARVEOUTS_AD10X.to_vec(),
        barrier_multiplier: 1,           // OCC §2 (other 8.x: 1)
        virtual_resources_per_sm: 0,     // OCC §2
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // ARCHS 8.9; LAT §1
        issue_per_scheduler_per_clk: 1,  // LAT §1 (4L)
        latencies: Latencies {
            fp32: 4.0,     // LAT §2 advice (third-party RTX 4070 Ti Super note: ≈4.5 incl. loop)
            int32: 4.0,    // LAT §2 advice
            shared: 30.1,  // LAT §3, RTX 4090, Luo et al. 2024
            l1_hit: 43.4,  // LAT §3, same
            l2_hit: 273.0, // LAT §3, same
            dram: 541.5,   // LAT §3, same (DRAM latency is method-dependent: calibrate)
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            fma: 4.0,     // SPEC §2.2: ARCHS 8.9 fp32_lanes_per_sm 128 / 32
            fp64: 0.0625, // SPEC §2.2: ARCHS 8.9 fp64 2 / 32
            alu: 2.0,     // SPEC §2.2: PG-T 64 INT32 results/clk (7.0 and later)
            xu: 0.5,      // SPEC §2.2: PG-T 16 MUFU results/clk (7.0 and later)
            // UNCERTAIN (no 8.9 export has pipe counters): the Ada whitepaper's SM diagram has 4
            // LD/ST units per SMSP = 16 lanes per SM, the GA10x layout, whose LSU pipe ncu's
            // counters put at 0.5 (docs/plugins.md, "Sources: ncu peak_sustained per CC"); TU10x
            // (also 16 lanes) measures 0.5 exactly. The old value 1.0 was GA100's.
            lsu: 0.5,
            fma_fp16: 2.0, // SPEC §2.2: NV-FRM, FP16x2 at 0.5 per SMSP (7.x/8.0) or on FMA pipes (8.6+)
            // SPEC §2.2: tensor FLOP/clk/SM / FLOP per HMMA.16816 (both this arch's throughput values).
            tensor_hmma: AD10X_TENSOR_FP16 / 4096.0,
            ..UNKNOWN_PIPES
        },
        // PG shared memory: 32 banks × 4 B per clock = one 128-B wavefront per SM per cycle;
        // ncu's L1 peaks give 1.0 on 7.5, 8.6 and 9.0 (docs/plugins.md). UNCERTAIN: not measured on
        // 8.9 (the RTX 4050 Laptop reports give only the L2→L1 fill peak, 32 B per SM per cycle).
        l1_wavefronts_per_clk: 1.0,
        // No mma.sync per-type peaks here: the model times HMMA/IMMA/DMMA with the pipe rates
        // above, as before ABI minor 2 (docs/plugins.md).
        mma: UNKNOWN_MMA,
        throughput: Throughput {
            fp32: 128.0, // ARCHS 8.9
            fp64: 2.0,   // ARCHS 8.9 (PG-legacy §20.7.1)
            tensor_fp16_flop: AD10X_TENSOR_FP16,
            // UNCERTAIN: BF16 equal to FP16 (DEV lists "BF16/FP16 TC" for L4 and L40S).
            tensor_bf16_flop: AD10X_TENSOR_FP16,
            // UNCERTAIN: FP8 at twice the FP16 rate (DEV RTX 4090 notes: FP8 FP32-acc 330.3 TF =
            // 2 × 165.2).
            tensor_fp8_flop: AD10X_TENSOR_FP16 * 2.0,
            // UNCERTAIN: one HMMA.16816 warp instruction = 4096 FLOP (as on Ampere).
            flop_per_tensor_inst: 4096.0,
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// All Ada compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![ad10x()]
}
