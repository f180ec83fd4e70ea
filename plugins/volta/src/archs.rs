//! Volta compute capabilities. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` rows 7.0, 7.2 (PG-legacy CUDA 13.0 Table 27 and
//!   §20.6, `cuda_occupancy.h`, XLS data, CCCL `arch_traits.h`);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`; DEV: `DEVICES.csv`;
//! - NCU-PK: ncu's own `*.peak_sustained` metric in MW =
//!   `../shared/traces/ncu-other-gpus/GPU_workshop__MW_{Baseline,DivToMult}.ncu-rep` (Tesla
//!   V100-SXM2-32GB, 80 SMs; table "Sources: ncu peak_sustained per CC" in docs/plugins.md);
//! - NCU-PCT: a pipe rate recovered from the same reports: ncu's
//!   `sm__inst_executed_pipe_<p>.avg.pct_of_peak_sustained_active` is the pipe's instructions ÷
//!   (rate × active SM cycles), and the reports carry the per-opcode SASS counts
//!   (`sass__inst_executed_per_opcode`), so rate = Σ opcodes of the pipe ÷ (pct × cycles); the
//!   same on every launch (docs/plugins.md).
//!
//! Latency sources: ALU from `NMSU-PEARL/GPUs-ISA-Latencies` (TITAN V raw outputs, LAT §2,
//! primary); memory from MT4G on a V100-PCIE-16GB (LAT §3, primary tool output).
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 7.0 and 7.2, bytes (OCC §2: 0, 8, 16, 32, 64, 96 KB).
const CARVEOUTS_GV100: &[u32] = &[0, kib(8), kib(16), kib(32), kib(64), kib(96)];

/// CC 7.0, Volta GV100.
fn gv100() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(7, 0),
        name: "Volta GV100".into(),
        threads_per_warp: 32,                            // ARCHS 7.0
        max_warps_per_sm: 64,                            // ARCHS 7.0
        max_threads_per_sm: 2048,                        // ARCHS 7.0
        max_blocks_per_sm: 32,                           // ARCHS 7.0; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 7.0
        regs_per_sm: 65536,                              // ARCHS 7.0
        max_regs_per_block: 65536,                       // ARCHS 7.0
        max_regs_per_thread: 255, // ARCHS 7.0 (OCC §2: the header accepts 256, ptxas emits <= 255)
        reg_alloc_unit: 256,      // ARCHS 7.0; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 7.0
        sub_partitions: 4,        // ARCHS 7.0; OCC §2
        smem_per_sm: 98304,       // ARCHS 7.0 (96 KB)
        smem_per_block_default: 49152, // ARCHS 7.0
        smem_per_block_optin: 98304, // ARCHS 7.0
        smem_alloc_unit: 256,     // ARCHS 7.0; OCC §2
        smem_reserved_per_block: 0, // ARCHS 7.0
        carveouts: CARVEOUTS_GV100.to_vec(),
        barrier_multiplier: 2,           // OCC §2 (7.x: 2)
        virtual_resources_per_sm: 0,     // OCC §2
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // ARCHS 7.0; LAT §1
        issue_per_scheduler_per_clk: 1,  // LAT §1 (4L)
        latencies: Latencies {
            fp32: 4.0,     // LAT §2, TITAN V FFMA (NMSU-PEARL)
            int32: 4.0,    // LAT §2, TITAN V IADD (NMSU-PEARL)
            fp64: 8.0,     // LAT §2, TITAN V DFMA (NMSU-PEARL)
            shared: 23.5,  // LAT §3, MT4G V100-PCIE-16GB
            l1_hit: 30.1,  // LAT §3, same
            l2_hit: 214.5, // LAT §3, same
            dram: 407.9,   // LAT §3, same
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            // ARCHS 7.0 fp32_lanes_per_sm 64 / 32; NCU-PK MW
            // sm__sass_thread_inst_executed_op_ffma_pred_on.sum 5120 / 80 SMs = 64 per SM.
            fma: 2.0,
            // ARCHS 7.0 fp64 32 / 32; NCU-PK MW ..._op_dfma_pred_on.sum 2560 / 80 = 32 per SM;
            // NCU-PCT MW: DFMA + DMUL + DADD + DSETP at exactly 1.0 (6 launches).
            fp64: 1.0,
            alu: 2.0, // SPEC §2.2: PG-T 64 INT32 results/clk (7.0 and later)
            // PG-T 16 MUFU results/clk; NCU-PCT MW: MUFU + I2F + F2I at exactly 0.5 (10 launches).
            xu: 0.5,
            // NCU-PCT MW: LDG + STG + SHFL (+ half the S2R) at exactly 1.0 (10 launches); Volta
            // whitepaper: 8 LD/ST units per SMSP = 32 lanes per SM.
            lsu: 1.0,
            fma_fp16: 2.0, // SPEC §2.2: NV-FRM, FP16x2 at 0.5 per SMSP (7.x/8.0) or on FMA pipes (8.6+)
            // SPEC §2.2: tensor FLOP/clk/SM / FLOP per instruction = 1024 / 512 (HMMA.884; both
            // numbers are this arch's throughput values, the second UNCERTAIN).
            tensor_hmma: 2.0,
            ..UNKNOWN_PIPES
        },
        // PG shared memory: 32 banks × 4 B per clock = one 128-B wavefront per SM per cycle.
        // UNCERTAIN: ncu's L1 peaks confirm it on 7.5, 8.6 and 9.0 (docs/plugins.md), not here.
        l1_wavefronts_per_clk: 1.0,
        // No mma.sync per-type peaks here: the model times HMMA/IMMA/DMMA with the pipe rates
        // above, as before ABI minor 2 (docs/plugins.md).
        mma: UNKNOWN_MMA,
        throughput: Throughput {
            fp32: 64.0, // ARCHS 7.0
            fp64: 32.0, // ARCHS 7.0
            // DEV V100 SXM2: tensor 125 TF / (80 SMs × 1.53 GHz) = 1021 → 1024 dense FLOP/clk/SM.
            tensor_fp16_flop: 1024.0,
            // UNCERTAIN: a 16×16×16 WMMA (8192 FLOP) compiles to 16 HMMA.884 instructions on Volta,
            // so 512 FLOP per tensor instruction (recalled from Jia et al. 2018, not re-read).
            flop_per_tensor_inst: 512.0,
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// CC 7.2, Volta GV10B (Jetson AGX Xavier).
fn gv10b() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(7, 2),
        // UNCERTAIN: ARCHS 7.2 infers every value from the header's "CC 7 and not 7.5" branch; FP64
        // 32/clk is the PG 7.x column (Xavier not verified). The GV100 latencies are reused.
        name: "Volta GV10B".into(),
        ..gv100()
    }
}

/// All Volta compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![gv100(), gv10b()]
}
