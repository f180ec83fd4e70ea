//! Volta compute capabilities. Sources, abbreviated in the comments:
//! - ARCHS: `/work/shared/reference/ARCHS.csv` rows 7.0, 7.2 (PG-legacy CUDA 13.0 Table 27 and
//!   §20.6, `cuda_occupancy.h`, XLS data, CCCL `arch_traits.h`);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`; DEV: `DEVICES.csv`.
//!
//! Latency sources: ALU from `NMSU-PEARL/GPUs-ISA-Latencies` (TITAN V raw outputs, LAT §2,
//! primary); memory from MT4G on a V100-PCIE-16GB (LAT §3, primary tool output).

use warpsight_plugin::{
    ArchData, Cc, LatencyDesc, RegAlloc, ThroughputDesc, UNKNOWN_LATENCIES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 7.0 and 7.2, bytes (OCC §2: 0, 8, 16, 32, 64, 96 KB).
const CARVEOUTS_GV100: &[u32] = &[0, kib(8), kib(16), kib(32), kib(64), kib(96)];

/// CC 7.0, Volta GV100.
fn gv100() -> ArchData {
    ArchData {
        cc: Cc(7, 0),
        name: "Volta GV100",
        threads_per_warp: 32,                  // ARCHS 7.0
        max_warps_per_sm: 64,                  // ARCHS 7.0
        max_threads_per_sm: 2048,              // ARCHS 7.0
        max_blocks_per_sm: 32,                 // ARCHS 7.0; OCC §2
        max_threads_per_block: 1024,           // ARCHS 7.0
        regs_per_sm: 65536,                    // ARCHS 7.0
        max_regs_per_block: 65536,             // ARCHS 7.0
        max_regs_per_thread: 255,              // ARCHS 7.0 (OCC §2: the header accepts 256, ptxas emits <= 255)
        reg_alloc_unit: 256,                   // ARCHS 7.0; OCC §2
        reg_alloc_granularity: RegAlloc::Warp, // ARCHS 7.0
        sub_partitions: 4,                     // ARCHS 7.0; OCC §2
        smem_per_sm: 98304,                    // ARCHS 7.0 (96 KB)
        smem_per_block_default: 49152,         // ARCHS 7.0
        smem_per_block_optin: 98304,           // ARCHS 7.0
        smem_alloc_unit: 256,                  // ARCHS 7.0; OCC §2
        smem_reserved_per_block: 0,            // ARCHS 7.0
        carveouts: CARVEOUTS_GV100,
        barrier_multiplier: 2,           // OCC §2 (7.x: 2)
        virtual_resources_per_sm: 0,     // OCC §2
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // ARCHS 7.0; LAT §1
        issue_per_scheduler_per_clk: 1,  // LAT §1 (4L)
        latencies: LatencyDesc {
            fp32: 4.0,     // LAT §2, TITAN V FFMA (NMSU-PEARL)
            int32: 4.0,    // LAT §2, TITAN V IADD (NMSU-PEARL)
            fp64: 8.0,     // LAT §2, TITAN V DFMA (NMSU-PEARL)
            shared: 23.5,  // LAT §3, MT4G V100-PCIE-16GB
            l1_hit: 30.1,  // LAT §3, same
            l2_hit: 214.5, // LAT §3, same
            dram: 407.9,   // LAT §3, same
            ..UNKNOWN_LATENCIES
        },
        throughput: ThroughputDesc {
            fp32: 64.0, // ARCHS 7.0
            fp64: 32.0, // ARCHS 7.0
            // DEV V100 SXM2: tensor 125 TF / (80 SMs × 1.53 GHz) = 1021 → 1024 dense FLOP/clk/SM.
            tensor_fp16_flop: 1024.0,
            // UNCERTAIN: a 16×16×16 WMMA (8192 FLOP) compiles to 16 HMMA.884 instructions on Volta,
            // so 512 FLOP per tensor instruction (recalled from Jia et al. 2018, not re-read).
            flop_per_tensor_inst: 512.0,
            ..UNKNOWN_THROUGHPUT
        },
    }
}

/// CC 7.2, Volta GV10B (Jetson AGX Xavier).
fn gv10b() -> ArchData {
    ArchData {
        cc: Cc(7, 2),
        // UNCERTAIN: ARCHS 7.2 infers every value from the header's "CC 7 and not 7.5" branch; FP64
        // 32/clk is the PG 7.x column (Xavier not verified). The GV100 latencies are reused.
        name: "Volta GV10B",
        ..gv100()
    }
}

/// All Volta compute capabilities.
pub fn archs() -> Vec<ArchData> {
    vec![gv100(), gv10b()]
}
