//! Blackwell compute capabilities. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` rows 10.0, 10.3, 12.0, 12.1 (PG-legacy CUDA 13.0
//!   Table 27 and §20.9–§20.10, `cuda_occupancy.h` H-12.9/H-13.5, CCCL `arch_traits.h`);
//! - OCC: `OCCUPANCY.md` §2 and §6; LAT: `LATENCIES.md`; DEV: `DEVICES.csv`.
//!
//! Latency sources, one per CC: 10.0 Chips and Cheese on a B200 (LAT §3); 10.3 a third-party
//! audit note on a B300 (LAT §2, §3, uncertain); 12.0/12.1 none beyond LAT §2's advice.
//! CC 10.1/11.0 (Jetson Thor) is left out: ARCHS marks its limits as conflicting.
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 10.0 and 10.3, bytes (OCC §2: the 9.0 list, up to 228 KB).
const CARVEOUTS_GB100: &[u32] = &[
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
/// Carveouts of CC 12.x, bytes (OCC §2: 0, 8, 16, 32, 64, 100 KB).
const CARVEOUTS_GB20X: &[u32] = &[0, kib(8), kib(16), kib(32), kib(64), kib(100)];

/// CC 10.0, Blackwell GB100.
fn gb100() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(10, 0),
        name: "Blackwell GB100".into(),
        threads_per_warp: 32,                            // ARCHS 10.0
        max_warps_per_sm: 64,                            // ARCHS 10.0
        max_threads_per_sm: 2048,                        // ARCHS 10.0
        max_blocks_per_sm: 32,                           // ARCHS 10.0; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 10.0
        regs_per_sm: 65536,                              // ARCHS 10.0
        max_regs_per_block: 65536,                       // ARCHS 10.0
        max_regs_per_thread: 255,                        // ARCHS 10.0
        reg_alloc_unit: 256,                             // ARCHS 10.0; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 10.0
        sub_partitions: 4,                               // ARCHS 10.0; OCC §2
        smem_per_sm: 233472,                             // ARCHS 10.0 (228 KB)
        smem_per_block_default: 49152,                   // ARCHS 10.0
        smem_per_block_optin: 232448,                    // ARCHS 10.0 (227 KB)
        smem_alloc_unit: 128,                            // ARCHS 10.0; OCC §2
        smem_reserved_per_block: 1024,                   // ARCHS 10.0; OCC §2
        carveouts: CARVEOUTS_GB100.to_vec(),
        barrier_multiplier: 2,           // OCC §2 (10.0: 2)
        virtual_resources_per_sm: 128,   // OCC §2 (H-13.5: 128 on CC 10, 11, 12)
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // ARCHS 10.0; LAT §1 (PG-legacy §20.9.1)
        issue_per_scheduler_per_clk: 1,  // LAT §1 (4L, extrapolated there)
        latencies: Latencies {
            fp32: 4.0,    // LAT §2 advice (4 cycles on 7.0–12.x)
            int32: 4.0,   // LAT §2 advice
            l1_hit: 39.0, // LAT §3, B200, Chips and Cheese (19.6 ns)
            // UNCERTAIN [S]: LAT §3, B200, Chips and Cheese: L2 hit ≈ 150 ns near, 190–220 ns far,
            // at the clock its L1 figure implies (39 cycles = 19.6 ns: 1.99 GHz) 298 and 378–438
            // cycles; the mean of near and far (random lines hit both partitions, as in LAT §5).
            l2_hit: 353.0,
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            fma: 4.0,  // SPEC §2.2: ARCHS 10.0 fp32_lanes_per_sm 128 / 32
            fp64: 2.0, // SPEC §2.2: ARCHS 10.0 fp64 64 / 32
            alu: 2.0,  // SPEC §2.2: PG-T 64 INT32 results/clk (7.0 and later)
            xu: 0.5,   // SPEC §2.2: PG-T 16 MUFU results/clk (7.0 and later)
            // UNCERTAIN (no 10.0 export has pipe counters): GH100's 1.0 (ncu
            // l1tex__lsu_writeback_active_mem_lgds 1 per SM per cycle on 9.0), assumed for GB100.
            lsu: 1.0,
            fma_fp16: 2.0, // SPEC §2.2: NV-FRM, FP16x2 at 0.5 per SMSP (7.x/8.0) or on FMA pipes (8.6+)
            // UNCERTAIN: tensor pipes of 10.x (tcgen05) are not modelled per instruction.
            ..UNKNOWN_PIPES
        },
        // PG shared memory: 32 banks × 4 B per clock = one 128-B wavefront per SM per cycle.
        // UNCERTAIN: ncu's L1 peaks confirm it on 7.5, 8.6 and 9.0 (docs/plugins.md), not here.
        l1_wavefronts_per_clk: 1.0,
        // No mma.sync per-type peaks here: the model times HMMA/IMMA/DMMA with the pipe rates
        // above, as before ABI minor 2 (docs/plugins.md).
        mma: UNKNOWN_MMA,
        throughput: Throughput {
            fp32: 128.0, // ARCHS 10.0
            fp64: 64.0,  // ARCHS 10.0
            // UNCERTAIN: DEV B200 BF16 dense 2250 TF / (148 SMs × 8192) = 1.86 GHz, a plausible
            // tensor clock; the row itself is marked uncertain.
            tensor_fp16_flop: 8192.0,
            tensor_bf16_flop: 8192.0,
            // UNCERTAIN: DEV B200 FP64 tensor 37 TF / (148 × 1.965 GHz) = 127 → 128.
            tensor_fp64_flop: 128.0,
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// CC 10.3, Blackwell Ultra (B300, GB300).
fn gb110() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(10, 3),
        name: "Blackwell Ultra".into(),
        // UNCERTAIN: not in PG Table 27 (ARCHS 10.3); the header's 10.x values are used.
        // UNCERTAIN: barrier multiplier 1 in H-13.5, 2 in H-12.9 (OCC §2); the newer header is used.
        barrier_multiplier: 1,
        latencies: Latencies {
            fp32: 4.22,   // LAT §2, B300 third-party audit note [S][?]
            int32: 4.25,  // LAT §2, same (IMAD)
            fp64: 63.7,   // LAT §2, same (DFMA)
            tensor: 20.0, // LAT §2, same (HMMA.F16)
            shared: 29.0, // LAT §3, same (LDS)
            l1_hit: 47.0, // LAT §3, same
            ..UNKNOWN_LATENCIES
        },
        pipes: PipeRates {
            fp64: f64::NAN, // ARCHS 10.3: FP64 lanes unknown ("very low")
            ..gb100().pipes
        },
        throughput: Throughput {
            fp32: 128.0, // ARCHS 10.3
            // FP64 lane count unknown (ARCHS 10.3: "very low"); tensor rates not in DEV.
            ..UNKNOWN_THROUGHPUT
        },
        ..gb100()
    }
}

/// CC 12.0, Blackwell GB20x (RTX 50xx, RTX PRO 6000 Blackwell).
fn gb20x() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(12, 0),
        name: "Blackwell GB20x".into(),
        max_warps_per_sm: 48,         // ARCHS 12.0
        max_threads_per_sm: 1536,     // ARCHS 12.0
        max_blocks_per_sm: 24,        // ARCHS 12.0; OCC §2 (CCCL's 32 is contradicted there)
        smem_per_sm: 102400,          // ARCHS 12.0 (100 KB)
        smem_per_block_optin: 101376, // ARCHS 12.0
        carveouts: CARVEOUTS_GB20X.to_vec(),
        barrier_multiplier: 1,         // OCC §2 (12.x: 1)
        virtual_resources_per_sm: 128, // OCC §2
        // UNCERTAIN: no memory latency of CC 12.x in LAT (arXiv:2507.10789 measures an RTX 5080;
        // its tables were not available to this project).
        latencies: Latencies {
            fp32: 4.0,  // LAT §2 advice
            int32: 4.0, // LAT §2 advice
            ..UNKNOWN_LATENCIES
        },
        pipes: PipeRates {
            fp64: 0.0625, // SPEC §2.2: ARCHS 12.0 fp64 2 / 32
            // UNCERTAIN (the 12.0 exports have no pipe counters): the GeForce SM lineage TU10x,
            // GA10x, AD10x has 16 LD/ST lanes per SM and an LSU pipe of 0.5 (measured on 7.5 and
            // 8.6, docs/plugins.md); GB20x is assumed to keep it.
            lsu: 0.5,
            ..gb100().pipes
        },
        throughput: Throughput {
            fp32: 128.0, // ARCHS 12.0
            fp64: 2.0,   // ARCHS 12.0
            ..UNKNOWN_THROUGHPUT
        },
        ..gb100()
    }
}

/// CC 12.1, Blackwell GB10 (DGX Spark).
fn gb10() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(12, 1),
        name: "Blackwell GB10".into(),
        // UNCERTAIN: ARCHS 12.1 is not in PG Table 27; every value is assumed equal to 12.0 (same
        // compute_120f family); the header confirms 24 blocks, carveouts <= 100 KB, multiplier 1.
        ..gb20x()
    }
}

/// All Blackwell compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![gb100(), gb110(), gb20x(), gb10()]
}
