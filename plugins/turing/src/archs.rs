//! Turing compute capability 7.5. Sources, abbreviated in the comments:
//! - ARCHS: `../shared/reference/ARCHS.csv` row 7.5 (PG-legacy CUDA 13.0 Table 27 and §20.6.4,
//!   `cuda_occupancy.h`, XLS data, CCCL `arch_traits.h`, PG throughput table);
//! - OCC: `OCCUPANCY.md` §2; LAT: `LATENCIES.md`; DEV: `DEVICES.csv`;
//! - NCU-PK: ncu's own `*.peak_sustained` metric in the T4 reports
//!   `../shared/traces/ncu-other-gpus/cuda-mlp-inference__report*.ncu-rep` (40 SMs) and the
//!   GTX 1660 SUPER reports `.../CudaCode__*.ncu-rep` (22 SMs), equal per SM on both (table
//!   "Sources: ncu peak_sustained per CC" in docs/plugins.md);
//! - NCU-PCT: a pipe rate recovered from the same reports: ncu's
//!   `sm__inst_executed_pipe_<p>.avg.pct_of_peak_sustained_active` is the pipe's instructions ÷
//!   (rate × active SM cycles), and the reports carry the per-opcode SASS counts
//!   (`sass__inst_executed_per_opcode`), so rate = Σ opcodes of the pipe ÷ (pct × cycles); the
//!   same on all 17 launches of the two GPUs (docs/plugins.md).
//!
//! Latency sources: ALU from `NMSU-PEARL/GPUs-ISA-Latencies` (TITAN RTX raw outputs, LAT §2,
//! primary); memory from Arafa et al. class `RTX` (TITAN RTX, LAT §3).
//! - SPEC: `docs/model-v2/SPEC.md` §2.2 (how the pipe rates derive from ARCHS; PG-T is the
//!   Programming Guide's arithmetic throughput table, NV-FRM the NVIDIA forum answer on FP16x2).

use crate::sass_pipes;
use warpsight_plugin::{
    ArchSpec, ComputeCapability, Latencies, PipeRates, RegisterAllocation, Throughput,
    UNKNOWN_LATENCIES, UNKNOWN_MMA, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT, kib,
};

/// Carveouts of CC 7.5, bytes (OCC §2: 32, 64 KB; no 0 KB carveout).
const CARVEOUTS_TU10X: &[u32] = &[kib(32), kib(64)];

/// CC 7.5, Turing TU10x.
fn tu10x() -> ArchSpec {
    ArchSpec {
        cc: ComputeCapability::new(7, 5),
        name: "Turing TU10x".into(),
        threads_per_warp: 32,                            // ARCHS 7.5
        max_warps_per_sm: 32,                            // ARCHS 7.5
        max_threads_per_sm: 1024,                        // ARCHS 7.5
        max_blocks_per_sm: 16,                           // ARCHS 7.5; OCC §2
        max_threads_per_block: 1024,                     // ARCHS 7.5
        regs_per_sm: 65536,                              // ARCHS 7.5
        max_regs_per_block: 65536,                       // ARCHS 7.5
        max_regs_per_thread: 255,                        // ARCHS 7.5
        reg_alloc_unit: 256,                             // ARCHS 7.5; OCC §2
        reg_alloc_granularity: RegisterAllocation::Warp, // ARCHS 7.5
        sub_partitions: 4,                               // ARCHS 7.5; OCC §2
        smem_per_sm: 65536,                              // ARCHS 7.5 (64 KB)
        smem_per_block_default: 49152,                   // ARCHS 7.5
        smem_per_block_optin: 65536,                     // ARCHS 7.5
        smem_alloc_unit: 256,                            // ARCHS 7.5; OCC §2
        smem_reserved_per_block: 0,                      // ARCHS 7.5
        carveouts: CARVEOUTS_TU10X.to_vec(),
        barrier_multiplier: 2,           // OCC §2 (7.x: 2)
        virtual_resources_per_sm: 0,     // OCC §2
        partitioned_gc_supported: false, // OCC §2
        warp_schedulers_per_sm: 4,       // ARCHS 7.5; LAT §1
        issue_per_scheduler_per_clk: 1,  // LAT §1 (4L)
        latencies: Latencies {
            fp32: 4.0,     // LAT §2, TITAN RTX FFMA (NMSU-PEARL)
            int32: 4.0,    // LAT §2, TITAN RTX IADD (NMSU-PEARL)
            fp64: 45.0,    // LAT §2, TITAN RTX DFMA (NMSU-PEARL)
            shared: 21.0,  // LAT §3, Arafa class RTX
            l1_hit: 27.0,  // LAT §3, same
            l2_hit: 234.0, // LAT §3, same
            dram: 424.0,   // LAT §3, same
            ..UNKNOWN_LATENCIES
        },
        // Pipe issue rates, warp instructions per SM per cycle (SPEC §2.2 derivations).
        pipes: PipeRates {
            // ARCHS 7.5 fp32_lanes_per_sm 64 / 32; NCU-PK ..._op_ffma_pred_on 64 per SM;
            // NCU-PCT: FFMA + FADD + FMUL + IMAD (all forms) at exactly 2.0.
            fma: 2.0,
            // ARCHS 7.5 fp64 2 / 32; NCU-PK ..._op_dfma_pred_on 2 per SM.
            fp64: 0.0625,
            // PG-T 64 INT32 results/clk; NCU-PCT: MOV, IADD3, ISETP, LOP3, SHF, LEA, PLOP3 at
            // exactly 2.0.
            alu: 2.0,
            // UNCERTAIN (not measured here: no MUFU in the reports): PG-T 16 MUFU results/clk.
            xu: 0.5,
            // NCU-PCT: LDG, STG, LDS, STS, RED (+ half the S2R) at exactly 0.5, i.e. two SM cycles
            // per memory instruction (Turing whitepaper: 4 LD/ST units per SMSP = 16 lanes per SM).
            // The old value 1.0 assumed Volta's 8 LD/ST units per SMSP.
            lsu: 0.5,
            fma_fp16: 2.0, // SPEC §2.2: NV-FRM, FP16x2 at 0.5 per SMSP (7.x/8.0) or on FMA pipes (8.6+)
            // SPEC §2.2: tensor FLOP/clk/SM / FLOP per instruction = 1024 / 2048 (HMMA.1688; both
            // numbers are this arch's throughput values, the second UNCERTAIN).
            tensor_hmma: 0.5,
            ..UNKNOWN_PIPES
        },
        // PG shared memory: 32 banks × 4 B per clock = one 128-B wavefront per SM per cycle;
        // ncu's peak of l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (its value ÷ its
        // pct_of_peak_sustained_elapsed ÷ cycles) is 40 per cycle on the T4 (40 SMs) and 22 on the
        // GTX 1660 SUPER (22 SMs), that of l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum
        // likewise: 1.0 per SM per cycle.
        l1_wavefronts_per_clk: 1.0,
        // No mma.sync per-type peaks here: the model times HMMA/IMMA/DMMA with the pipe rates
        // above, as before ABI minor 2 (docs/plugins.md).
        mma: UNKNOWN_MMA,
        throughput: Throughput {
            fp32: 64.0, // ARCHS 7.5
            fp64: 2.0,  // ARCHS 7.5 (PG footnote: 2 FP64 for 7.5)
            // DEV T4: FP16 tensor 65 TF / (40 SMs × 1.59 GHz) = 1022 → 1024 dense FLOP/clk/SM.
            tensor_fp16_flop: 1024.0,
            // UNCERTAIN: one HMMA.1688 (m16n8k8) warp instruction = 2 × 16 × 8 × 8 FLOP.
            flop_per_tensor_inst: 2048.0,
            ..UNKNOWN_THROUGHPUT
        },
        sass_pipes: sass_pipes::table(),
    }
}

/// All Turing compute capabilities.
pub fn archs() -> Vec<ArchSpec> {
    vec![tu10x()]
}
