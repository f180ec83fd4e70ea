//! Hopper compute capability 9.0. Sources, abbreviated in the comments:
//! - ARCHS: `/work/shared/reference/ARCHS.csv` row 9.0 (PG-legacy CUDA 13.0 §20.2 Table 27 and
//!   §20.8, `cuda_occupancy.h`, CCCL `arch_traits.h`, MT4G H100 deviceProp dump);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`; DEV: `DEVICES.csv` (H100 SXM5 row).

use warpsight_plugin::{
    ArchData, Cc, LatencyDesc, RegAlloc, ThroughputDesc, UNKNOWN_LATENCIES, UNKNOWN_THROUGHPUT, kib,
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

/// GH100 dense FP16 tensor FLOP per clock per SM: DEV H100 SXM5 989.4 TF / (132 SMs × 1.83 GHz)
/// = 4096. UNCERTAIN: DEV's notes say NVIDIA's tensor peaks correspond to ~1830 MHz, not the
/// 1980 MHz max boost.
const GH100_TENSOR_FP16: f64 = 4096.0;

/// CC 9.0, Hopper GH100.
fn gh100() -> ArchData {
    ArchData {
        cc: Cc(9, 0),
        name: "Hopper GH100",
        threads_per_warp: 32,                  // ARCHS 9.0
        max_warps_per_sm: 64,                  // ARCHS 9.0
        max_threads_per_sm: 2048,              // ARCHS 9.0
        max_blocks_per_sm: 32,                 // ARCHS 9.0; OCC §2
        max_threads_per_block: 1024,           // ARCHS 9.0
        regs_per_sm: 65536,                    // ARCHS 9.0
        max_regs_per_block: 65536,             // ARCHS 9.0
        max_regs_per_thread: 255,              // ARCHS 9.0
        reg_alloc_unit: 256,                   // ARCHS 9.0; OCC §2
        reg_alloc_granularity: RegAlloc::Warp, // ARCHS 9.0
        sub_partitions: 4,                     // ARCHS 9.0; OCC §2
        smem_per_sm: 233472,                   // ARCHS 9.0 (228 KB)
        smem_per_block_default: 49152,         // ARCHS 9.0
        smem_per_block_optin: 232448,          // ARCHS 9.0 (227 KB)
        smem_alloc_unit: 128,                  // ARCHS 9.0; OCC §2
        smem_reserved_per_block: 1024,         // ARCHS 9.0; OCC §2
        carveouts: CARVEOUTS_GH100,
        barrier_multiplier: 2,           // OCC §2 (9.0: 2); ARCHS notes
        virtual_resources_per_sm: 0,     // OCC §2 (only CC 10–12)
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // LAT §1 (PG-legacy §20.8.1)
        issue_per_scheduler_per_clk: 1,  // LAT §1
        latencies: LatencyDesc {
            // UNCERTAIN: LAT §2 found no Hopper ALU measurement; its advice is 4 cycles on 7.0–12.x.
            fp32: 4.0,
            int32: 4.0,
            shared: 29.0,  // LAT §3, H800 PCIe, Luo et al. 2024 (arXiv:2402.13499)
            l1_hit: 40.7,  // LAT §3, same source
            l2_hit: 263.0, // LAT §3, same source
            dram: 478.8,   // LAT §3, same source (DRAM latency is method-dependent: calibrate)
            ..UNKNOWN_LATENCIES
        },
        throughput: ThroughputDesc {
            fp32: 128.0, // ARCHS 9.0
            fp64: 64.0,  // ARCHS 9.0
            tensor_fp16_flop: GH100_TENSOR_FP16,
            // UNCERTAIN: BF16 equal to FP16 (DEV lists "BF16/FP16 TC").
            tensor_bf16_flop: GH100_TENSOR_FP16,
            // UNCERTAIN: H100 datasheet FP8 and INT8 at twice, TF32 at half the FP16 rate (not in DEV).
            tensor_fp8_flop: GH100_TENSOR_FP16 * 2.0,
            tensor_int8_op: GH100_TENSOR_FP16 * 2.0,
            tensor_tf32_flop: GH100_TENSOR_FP16 / 2.0,
            // DEV H100 SXM5: FP64 tensor 66.9 TF / (132 × 1.98 GHz) = 256.
            tensor_fp64_flop: 256.0,
            // UNCERTAIN: one HMMA.16816 warp instruction = 4096 FLOP (mma.sync); wgmma kernels
            // count differently.
            flop_per_tensor_inst: 4096.0,
            ..UNKNOWN_THROUGHPUT
        },
    }
}

/// All Hopper compute capabilities.
pub fn archs() -> Vec<ArchData> {
    vec![gh100()]
}
