//! Pascal compute capabilities. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` rows 6.0, 6.1, 6.2 (`cuda_occupancy.h`, Occupancy
//!   Calculator XLS data, CCCL `arch_traits.h`, PG throughput table, deviceQuery dumps);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`.
//!
//! Latency sources, one per CC: 6.0 and 6.2 use Arafa et al. 2019 class `Pascal` (LAT §2, §3);
//! 6.1 uses the MT4G results of a Quadro P6000, a CC 6.1 part (LAT §3, primary tool output).
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Fixed 64 KB shared memory (OCC §2).
const CARVEOUTS_64K: &[u32] = &[kib(64)];
/// Fixed 96 KB shared memory (OCC §2).
const CARVEOUTS_96K: &[u32] = &[kib(96)];

/// Arafa et al. class `Pascal` latencies (LAT §2, §3).
const ARAFA_PASCAL: Latencies = Latencies {
    fp32: 6.0,     // LAT §2 (and LAT advice: 6 on 5.x/6.x)
    int32: 6.0,    // LAT §2
    shared: 25.0,  // LAT §3
    l1_hit: 81.0,  // LAT §3
    l2_hit: 252.0, // LAT §3
    dram: 482.0,   // LAT §3
    ..UNKNOWN_LATENCIES
};

/// CC 6.0, Pascal GP100: the only CC with 2 sub-partitions and 2 schedulers.
fn gp100() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(6, 0),
        name: "Pascal GP100".into(),
        threads_per_warp: 32,                            // ARCHS 6.0
        max_warps_per_sm: 64,                            // ARCHS 6.0
        max_threads_per_sm: 2048,                        // ARCHS 6.0
        max_blocks_per_sm: 32,                           // ARCHS 6.0; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 6.0
        regs_per_sm: 65536,                              // ARCHS 6.0
        max_regs_per_block: 65536,                       // ARCHS 6.0
        max_regs_per_thread: 255,                        // ARCHS 6.0; OCC §2
        reg_alloc_unit: 256,                             // ARCHS 6.0; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 6.0
        sub_partitions: 2,                               // ARCHS 6.0; OCC §2 (GP100 = 2)
        smem_per_sm: 65536,                              // ARCHS 6.0
        smem_per_block_default: 49152,                   // ARCHS 6.0
        smem_per_block_optin: 49152,                     // ARCHS 6.0
        smem_alloc_unit: 256,                            // ARCHS 6.0; OCC §2
        smem_reserved_per_block: 0,                      // ARCHS 6.0
        carveouts: CARVEOUTS_64K.to_vec(),
        barrier_multiplier: 2,           // OCC §2 (6.x: 2)
        virtual_resources_per_sm: 0,     // OCC §2
        partitioned_gc_supported: false, // OCC §2 (not 6.0)
        warp_schedulers_per_sm: 2,       // ARCHS 6.0; LAT §1 (2L)
        issue_per_scheduler_per_clk: 1,  // LAT §1
        latencies: Latencies {
            fp64: 8.0, // LAT §2, Arafa Pascal DFMA (GP100-class)
            ..ARAFA_PASCAL
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            fma: 2.0,  // SPEC §2.2: ARCHS 6.0 fp32_lanes_per_sm 64 / 32
            fp64: 1.0, // SPEC §2.2: ARCHS 6.0 fp64 32 / 32
            // UNCERTAIN: PG-T (6.0 column, recalled) 64 INT32 add and 16 SFU results/clk.
            alu: 2.0,
            xu: 0.5,
            lsu: 1.0, // UNCERTAIN: 32 LD/ST units per SM assumed
            ..UNKNOWN_PIPES
        },
        // PG shared memory: 32 banks × 4 B per clock = one 128-B wavefront per SM per cycle.
        // UNCERTAIN: SPEC §2.1 verifies this only on 9.0; assumed for every CC with 32 banks.
        l1_wavefronts_per_clk: 1.0,
        // No mma.sync per-type peaks here: the model times HMMA/IMMA/DMMA with the pipe rates
        // above, as before ABI minor 2 (docs/plugins.md).
        mma: UNKNOWN_MMA,
        throughput: Throughput {
            fp32: 64.0, // ARCHS 6.0
            fp64: 32.0, // ARCHS 6.0
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// CC 6.1, Pascal GP10x.
fn gp10x() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(6, 1),
        name: "Pascal GP10x".into(),
        sub_partitions: 4,  // ARCHS 6.1
        smem_per_sm: 98304, // ARCHS 6.1
        carveouts: CARVEOUTS_96K.to_vec(),
        partitioned_gc_supported: true, // OCC §2
        warp_schedulers_per_sm: 4,      // ARCHS 6.1; LAT §1 (4L)
        latencies: Latencies {
            fp32: 6.0,     // LAT §2 advice for 5.x/6.x
            int32: 6.0,    // LAT §2 advice
            shared: 39.6,  // LAT §3, MT4G Quadro P6000
            l1_hit: 106.4, // LAT §3, same
            l2_hit: 226.9, // LAT §3, same
            dram: 415.3,   // LAT §3, same
            ..UNKNOWN_LATENCIES
        },
        pipes: PipeRates {
            fma: 4.0,    // SPEC §2.2: ARCHS 6.1 fp32_lanes_per_sm 128 / 32
            fp64: 0.125, // SPEC §2.2: ARCHS 6.1 fp64 4 / 32
            // UNCERTAIN: PG-T (6.1 column, recalled) 128 INT32 add and 32 SFU results/clk.
            alu: 4.0,
            xu: 1.0,
            ..gp100().pipes
        },
        throughput: Throughput {
            fp32: 128.0, // ARCHS 6.1
            fp64: 4.0,   // ARCHS 6.1
            fp16: 2.0,   // ARCHS 6.1 notes: FP16 rate 2/clk/SM
            ..UNKNOWN_THROUGHPUT
        },
        ..gp100()
    }
}

/// CC 6.2, Pascal GP10B (Tegra X2).
fn gp10b() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(6, 2),
        name: "Pascal GP10B".into(),
        smem_per_sm: 65536, // ARCHS 6.2
        carveouts: CARVEOUTS_64K.to_vec(),
        max_regs_per_block: 32768, // ARCHS 6.2 (deviceQuery 'NVIDIA Tegra X2')
        // UNCERTAIN: no GP10B measurement in LAT; Arafa's Pascal class is used, without its
        // GP100-class DFMA latency.
        latencies: ARAFA_PASCAL,
        throughput: Throughput {
            fp32: 128.0, // ARCHS 6.2
            fp64: 4.0,   // ARCHS 6.2
            ..UNKNOWN_THROUGHPUT
        },
        ..gp10x()
    }
}

/// All Pascal compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![gp100(), gp10x(), gp10b()]
}
