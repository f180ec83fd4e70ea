//! Ampere compute capabilities. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` (itself from PG-legacy CUDA 13.0 §20.2 Table 27 and
//!   §20.7, `cuda_occupancy.h` and CCCL `arch_traits.h`);
//! - OCC: `OCCUPANCY.md` §2 (per-CC constants of `cuda_occupancy.h` H-13.5);
//! - LAT: `LATENCIES.md` (§1 issue model, §2 ALU latency advice, §3 memory latencies);
//! - DEV: `DEVICES.csv` (datasheet peaks, used to derive tensor FLOP per clock per SM).
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).
//! - NCU-PK: ncu's own `*.peak_sustained` metric in the RTX 3060 Laptop GPU (8.6, 30 SMs) reports
//!   `../shared/traces/ncu-other-gpus/CUDA_Learning__{report,shared_report}.ncu-rep` (table
//!   "Sources: ncu peak_sustained per CC" in docs/plugins.md). No 8.0 export has them (the A30
//!   reports carry no pipe or peak metrics), so the 8.0 rates rest on PG-T and the whitepaper.
//! - NCU-PCT: a pipe rate recovered from the same 8.6 reports: ncu's
//!   `sm__inst_executed_pipe_<p>.avg.pct_of_peak_sustained_active` is the pipe's instructions ÷
//!   (rate × active SM cycles), and the reports carry the per-opcode SASS counts
//!   (`sass__inst_executed_per_opcode`), so rate = Σ opcodes of the pipe ÷ (pct × cycles); the
//!   same on all 12 launches (docs/plugins.md).
//! - WP: the A100 (GA100) and GA102 whitepapers' SM diagrams: 8 LD/ST units per SM sub-partition
//!   on GA100, 4 on GA10x.

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, PipeRates, RegisterAllocation, Throughput, UNKNOWN_LATENCIES,
    UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 8.0 and 8.7, bytes (OCC §2: 0, 8, 16, 32, 64, 100, 132, 164 KB).
const CARVEOUTS_GA100: &[u32] = &[
    0,
    kib(8),
    kib(16),
    kib(32),
    kib(64),
    kib(100),
    kib(132),
    kib(164),
];
/// Carveouts of CC 8.6, bytes (OCC §2: 0, 8, 16, 32, 64, 100 KB).
const CARVEOUTS_GA10X: &[u32] = &[0, kib(8), kib(16), kib(32), kib(64), kib(100)];

/// GA100 tensor rates, dense FLOP per clock per SM, derived from DEV (A100 SXM4: 108 SMs at
/// 1410 MHz): FP16 312 TF / (108 × 1.41 GHz) = 2049 → 2048.
const GA100_TENSOR_FP16: f64 = 2048.0;

/// CC 8.0, Ampere GA100.
fn ga100() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(8, 0),
        name: "Ampere GA100".into(),
        threads_per_warp: 32,                            // ARCHS 8.0
        max_warps_per_sm: 64,                            // ARCHS 8.0
        max_threads_per_sm: 2048,                        // ARCHS 8.0
        max_blocks_per_sm: 32,                           // ARCHS 8.0; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 8.0
        regs_per_sm: 65536,                              // ARCHS 8.0
        max_regs_per_block: 65536,                       // ARCHS 8.0
        max_regs_per_thread: 255, // ARCHS 8.0 (PG Table 27; OCC §2: the compiler cap)
        reg_alloc_unit: 256,      // ARCHS 8.0; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 8.0
        sub_partitions: 4,        // ARCHS 8.0 warp_alloc_granularity; OCC §2
        smem_per_sm: 167936,      // ARCHS 8.0 (164 KB)
        smem_per_block_default: 49152, // ARCHS 8.0
        smem_per_block_optin: 166912, // ARCHS 8.0
        smem_alloc_unit: 128,     // ARCHS 8.0; OCC §2
        smem_reserved_per_block: 1024, // ARCHS 8.0; OCC §2
        carveouts: CARVEOUTS_GA100.to_vec(),
        barrier_multiplier: 2,           // OCC §2 (8.0: 2)
        virtual_resources_per_sm: 0,     // OCC §2 (only CC 10–12 have the limit)
        partitioned_gc_supported: false, // OCC §2 (5.2, 5.3, 6.1, 6.2 only)
        warp_schedulers_per_sm: 4,       // LAT §1 (PG-legacy §20.7.1)
        issue_per_scheduler_per_clk: 1,  // LAT §1 (4L)
        latencies: warpsight_plugin::Latencies {
            fp32: 4.0,     // LAT §2 advice: 4 cycles on CC 7.0–12.x (PG-mp "typically 4")
            int32: 4.0,    // LAT §2 advice, as above
            shared: 29.0,  // LAT §3, A100 PCIe, Luo et al. 2024 (arXiv:2402.13499)
            l1_hit: 38.0,  // LAT §3, same source
            l2_hit: 262.0, // LAT §3, same source
            dram: 466.0,   // LAT §3, same source (DRAM latency is method-dependent: calibrate)
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            fma: 2.0,  // SPEC §2.2: ARCHS 8.0 fp32_lanes_per_sm 64 / 32
            fp64: 1.0, // SPEC §2.2: ARCHS 8.0 fp64 32 / 32
            alu: 2.0,  // SPEC §2.2: PG-T 64 INT32 results/clk (7.0 and later)
            xu: 0.5,   // SPEC §2.2: PG-T 16 MUFU results/clk (7.0 and later)
            // UNCERTAIN (not measured on 8.0): WP 8 LD/ST units per SMSP = 32 lanes per SM, as on
            // GV100, where NCU-PCT gives 1.0; 16-lane SMs (TU10x, GA10x) measure 0.5.
            lsu: 1.0,
            fma_fp16: 2.0, // SPEC §2.2: NV-FRM, FP16x2 at 0.5 per SMSP (7.x/8.0) or on FMA pipes (8.6+)
            // SPEC §2.2: tensor FLOP/clk/SM / FLOP per HMMA.16816 = 2048 / 4096.
            tensor_hmma: 0.5,
            // SPEC §2.2: INT8 4096 OP/clk/SM (this arch's UNCERTAIN tensor_int8_op) / 8192 per IMMA.16832.
            tensor_imma: 0.5,
            // SPEC §2.2: FP64 tensor 128 FLOP/clk/SM / 512 per DMMA.884.
            tensor_dmma: 0.25,
            ..UNKNOWN_PIPES
        },
        // PG shared memory: 32 banks × 4 B per clock = one 128-B wavefront per SM per cycle.
        // UNCERTAIN: ncu's L1 peaks confirm it on 7.5, 8.6 and 9.0 (docs/plugins.md), not here.
        l1_wavefronts_per_clk: 1.0,
        // No mma.sync per-type peaks here: the model times HMMA/IMMA/DMMA with the pipe rates
        // above, as before ABI minor 2 (docs/plugins.md).
        mma: UNKNOWN_MMA,
        throughput: Throughput {
            fp32: 64.0, // ARCHS 8.0 fp32_lanes_per_sm
            fp64: 32.0, // ARCHS 8.0 fp64_results_per_clk_per_sm
            tensor_fp16_flop: GA100_TENSOR_FP16,
            // UNCERTAIN: BF16 assumed equal to FP16 (A100 whitepaper lists the same 312 TF; not in DEV).
            tensor_bf16_flop: GA100_TENSOR_FP16,
            // DEV A100: FP64 tensor 19.5 TF / (108 × 1.41 GHz) = 128.
            tensor_fp64_flop: 128.0,
            // UNCERTAIN: TF32 156 TF and INT8 624 TOPS from the A100 whitepaper (not in DEV),
            // i.e. half and twice the FP16 rate.
            tensor_tf32_flop: GA100_TENSOR_FP16 / 2.0,
            tensor_int8_op: GA100_TENSOR_FP16 * 2.0,
            // UNCERTAIN: one HMMA.16816 (m16n8k16) warp instruction = 2 × 16 × 8 × 16 FLOP.
            flop_per_tensor_inst: 4096.0,
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// CC 8.6, Ampere GA10x: the GA100 table with the values ARCHS/OCC give for 8.6.
fn ga10x() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(8, 6),
        name: "Ampere GA10x".into(),
        max_warps_per_sm: 48,         // ARCHS 8.6
        max_threads_per_sm: 1536,     // ARCHS 8.6
        max_blocks_per_sm: 16,        // ARCHS 8.6; OCC §2
        smem_per_sm: 102400,          // ARCHS 8.6 (100 KB)
        smem_per_block_optin: 101376, // ARCHS 8.6
        carveouts: CARVEOUTS_GA10X.to_vec(),
        barrier_multiplier: 1, // OCC §2 (other 8.x: 1)
        latencies: warpsight_plugin::Latencies {
            fp32: 4.0,     // LAT §2 advice (and YKTian RTX 3060 measurement: 4)
            int32: 4.0,    // LAT §2 advice
            shared: 23.0,  // LAT §3, RTX 3060, YKTian-x2b/AmpereArchViaMicroBenchMark
            l1_hit: 33.0,  // LAT §3, same source
            l2_hit: 220.0, // LAT §3, same source (219–222)
            dram: 515.0,   // LAT §3, same source (≈515)
            ..UNKNOWN_LATENCIES
        },
        pipes: PipeRates {
            // ARCHS 8.6 fp32_lanes_per_sm 128 / 32; NCU-PK ..._op_ffma_pred_on 128 per SM;
            // NCU-PCT: IMAD (all forms) at exactly 4.0 (ncu's fma pipe counts FMA-heavy and -lite).
            fma: 4.0,
            // ARCHS 8.6 fp64 2 / 32; NCU-PK ..._op_dfma_pred_on 2 per SM.
            fp64: 0.0625,
            // PG-T 64 INT32 results/clk; NCU-PCT: MOV, IADD3, ISETP, LOP3, SHF, SEL, PLOP3 at
            // exactly 2.0.
            alu: 2.0,
            // PG-T 16 MUFU results/clk; NCU-PCT: MUFU + I2F + F2I at exactly 0.5 (4 launches).
            xu: 0.5,
            // NCU-PCT: at 0.5 the memory opcodes (LD, ST, LDS, STS, half the S2R, as on TU10x)
            // explain 88–96 % of ncu's LSU busy time on the five large launches (barriers and
            // fences plausibly the rest), at 1.0 under half; WP GA102: 4 LD/ST units per SMSP = 16
            // lanes per SM, as TU10x (measured 0.5 exactly). The old value 1.0 was GA100's.
            lsu: 0.5,
            // SPEC §2.2: tensor FLOP/clk/SM / FLOP per HMMA.16816 = 1024 / 4096.
            tensor_hmma: 0.25,
            // UNCERTAIN: no INT8 or FP64 tensor rate of GA10x in DEV.
            tensor_imma: f64::NAN,
            tensor_dmma: f64::NAN,
            ..ga100().pipes
        },
        // One 128-B wavefront per SM per cycle: ncu's peak of
        // l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (its value ÷ its
        // pct_of_peak_sustained_elapsed ÷ cycles) is 30 per cycle on the 30-SM RTX 3060 Laptop GPU,
        // as are those of the global-load and -store wavefronts.
        l1_wavefronts_per_clk: 1.0,
        throughput: Throughput {
            fp32: 128.0, // ARCHS 8.6
            fp64: 2.0,   // ARCHS 8.6
            // DEV A10: FP16 tensor 125 TF / (72 × 1.695 GHz) = 1024.
            tensor_fp16_flop: 1024.0,
            // UNCERTAIN: BF16 assumed equal to FP16 (A10 datasheet lists "BF16/FP16 TC 125").
            tensor_bf16_flop: 1024.0,
            // DEV A10 source: TF32 62.5 TF / (72 × 1.695 GHz) = 512.
            tensor_tf32_flop: 512.0,
            // UNCERTAIN: one HMMA.16816 warp instruction = 4096 FLOP (as on GA100).
            flop_per_tensor_inst: 4096.0,
            ..UNKNOWN_THROUGHPUT
        },
        ..ga100()
    }
}

/// CC 8.7, Ampere GA10B (Jetson AGX Orin).
fn ga10b() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(8, 7),
        name: "Ampere GA10B".into(),
        smem_per_sm: 167936,                 // ARCHS 8.7 (164 KB)
        smem_per_block_optin: 166912,        // ARCHS 8.7
        carveouts: CARVEOUTS_GA100.to_vec(), // OCC §2 (8.0, 8.7 share the list)
        // The rest equals ARCHS 8.7: 48 warps, 1536 threads, 16 blocks, 128 FP32 and 2 FP64 lanes,
        // barrier multiplier 1 (OCC §2).
        // UNCERTAIN: no latency measurement of GA10B in LAT; the GA10x (RTX 3060) numbers are used.
        // UNCERTAIN: tensor rates assumed equal to GA10x (no Orin row in DEV).
        // UNCERTAIN: pipe rates (LSU 0.5) and L1 wavefronts assumed equal to GA10x (no 8.7 export).
        ..ga10x()
    }
}

/// All Ampere compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![ga100(), ga10x(), ga10b()]
}
