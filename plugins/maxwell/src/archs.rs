//! Maxwell compute capabilities. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` rows 5.0, 5.2, 5.3 (older PG table,
//!   `cuda_occupancy.h`, Occupancy Calculator XLS data, deviceQuery dumps);
//! - OCC: `OCCUPANCY.md` §2 (per-CC constants of `cuda_occupancy.h`);
//! - LAT: `LATENCIES.md`. One latency source for the family: Arafa et al. 2019 (arXiv:1905.08778)
//!   class `Maxwell`, as tabulated in the LANL PPT config (LAT §2 and §3).
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Fixed 64 KB shared memory (OCC §2: 5.x has one fixed size).
const CARVEOUTS_64K: &[u32] = &[kib(64)];
/// Fixed 96 KB shared memory (OCC §2).
const CARVEOUTS_96K: &[u32] = &[kib(96)];

/// CC 5.0, Maxwell GM107/GM108.
fn gm107() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(5, 0),
        name: "Maxwell GM107/GM108".into(),
        threads_per_warp: 32,                            // ARCHS 5.0
        max_warps_per_sm: 64,                            // ARCHS 5.0
        max_threads_per_sm: 2048,                        // ARCHS 5.0
        max_blocks_per_sm: 32,                           // ARCHS 5.0; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 5.0
        regs_per_sm: 65536,                              // ARCHS 5.0
        max_regs_per_block: 65536,                       // ARCHS 5.0
        max_regs_per_thread: 255,                        // ARCHS 5.0; OCC §2
        reg_alloc_unit: 256,                             // ARCHS 5.0; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 5.0
        sub_partitions: 4,                               // ARCHS 5.0; OCC §2
        smem_per_sm: 65536,                              // ARCHS 5.0
        smem_per_block_default: 49152,                   // ARCHS 5.0
        smem_per_block_optin: 49152,                     // ARCHS 5.0 (no opt-in above 48 KB)
        smem_alloc_unit: 256,                            // ARCHS 5.0; OCC §2
        smem_reserved_per_block: 0,                      // ARCHS 5.0; OCC §2 (1 KB only on CC >= 8)
        carveouts: CARVEOUTS_64K.to_vec(),
        barrier_multiplier: 2,       // OCC §2 (5.x: 2; used only for CC >= 9)
        virtual_resources_per_sm: 0, // OCC §2
        partitioned_gc_supported: false, // OCC §2 (5.2, 5.3, 6.1, 6.2 only)
        warp_schedulers_per_sm: 4,   // ARCHS 5.0; LAT §1
        issue_per_scheduler_per_clk: 1, // LAT §1 (4L)
        latencies: Latencies {
            fp32: 6.0,     // LAT §2, Arafa Maxwell (and LAT advice: 6 on 5.x/6.x)
            int32: 6.0,    // LAT §2, same
            fp64: 48.0,    // LAT §2, same (DFMA)
            shared: 24.0,  // LAT §3, same
            l1_hit: 82.0,  // LAT §3, same
            l2_hit: 225.0, // LAT §3, same
            dram: 379.0,   // LAT §3, same
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            fma: 4.0,    // SPEC §2.2: ARCHS 5.0 fp32_lanes_per_sm 128 / 32
            fp64: 0.125, // SPEC §2.2: ARCHS 5.0 fp64 4 / 32
            // UNCERTAIN: PG-T (5.x column, recalled) 128 INT32 add and 32 SFU results/clk; ncu has no
            // pipe metrics before 7.0, so these are for completeness only.
            alu: 4.0,
            xu: 1.0,
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
            fp32: 128.0, // ARCHS 5.0 fp32_lanes_per_sm
            fp64: 4.0,   // ARCHS 5.0
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// CC 5.2, Maxwell GM20x.
fn gm20x() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(5, 2),
        name: "Maxwell GM20x".into(),
        smem_per_sm: 98304, // ARCHS 5.2
        carveouts: CARVEOUTS_96K.to_vec(),
        // ARCHS 5.2: 64K regs per block per the PG table and deviceQuery (XLS copies say 32K).
        max_regs_per_block: 65536,
        partitioned_gc_supported: true, // OCC §2; ARCHS 5.2 notes
        ..gm107()
    }
}

/// CC 5.3, Maxwell GM20B (Tegra X1).
fn gm20b() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(5, 3),
        name: "Maxwell GM20B".into(),
        smem_per_sm: 65536, // ARCHS 5.3
        carveouts: CARVEOUTS_64K.to_vec(),
        max_regs_per_block: 32768, // ARCHS 5.3 (deviceQuery 'NVIDIA Tegra X1')
        partitioned_gc_supported: true, // OCC §2
        throughput: Throughput {
            fp16: 256.0, // ARCHS 5.3 notes: FP16 at twice the FP32 rate
            ..gm107().throughput
        },
        ..gm107()
    }
}

/// All Maxwell compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![gm107(), gm20x(), gm20b()]
}
