//! Which ncu pipe executes each SASS opcode on Volta (GV100, GV10B), CC 7.0, 7.2: the table of
//! `ArchSpec::sass_pipes` (ABI minor 3). The model sums an export's
//! `sass__inst_executed_per_opcode` instances by it when the export lacks the
//! `sm__inst_executed_pipe_<pipe>.sum` counters; it must reproduce what ncu counts in them. Opcodes
//! not listed count only in the total instructions.
//!
//! Sources, abbreviated in the comments:
//! - KPG: NVIDIA Nsight Compute *Kernel Profiling Guide*, "Metrics Guide", section "Pipelines"
//!   (which instructions each pipe executes: `adu`, `alu`, `cbu`, `fma`, `fmaheavy`, `fmalite`,
//!   `fp16`, `fp64`, `lsu`, `tensor`, `tex`, `tma`, `uniform`, `xu`);
//! - ISA: NVIDIA *CUDA Binary Utilities*, §4 "Instruction Set Reference" (the opcodes of each
//!   architecture);
//! - PG-T: *CUDA C++ Programming Guide*, "Arithmetic Instructions" throughput table;
//! - NCU-DESC: ncu's own metric descriptions (`ncu --query-metrics`);
//! - MW: measured on
//!   `../shared/traces/ncu-other-gpus/GPU_workshop__MW_{Baseline,DivToMult}.ncu-rep` (Tesla
//!   V100-SXM2-32GB, 10 launches, `--set full`): the per-opcode counts summed by this table against
//!   the pipe counters of the same launch. Where a report has only
//!   `sm__inst_executed_pipe_<p>.*.pct_of_peak_sustained_active`, "X = `p` at r" means that Σ X ÷
//!   (pct × `sm__cycles_active.sum`) is the same rate r (warp instructions per SM per cycle) on
//!   every launch, i.e. X is what ncu counts in `p`. `plugins/tools/check_sass_pipes.py` prints
//!   these figures; docs/plugins.md has them.

use warpsight_plugin::{Pipe, opcode_pipes};

/// The opcode → pipe pairs of the family (opcode without modifiers).
const TABLE: &[(&str, Pipe)] = &[
    // FMA pipe.
    // KPG `fma`: FP32 FADD/FMUL/FMAD, integer IMUL/IMAD and integer dot products. ISA: the 32I
    // forms take a 32-bit immediate. MW: not checked (the reports have no `fma` percentage).
    ("FFMA", Pipe::Fma),
    ("FADD", Pipe::Fma),
    ("FMUL", Pipe::Fma),
    ("FFMA32I", Pipe::Fma),
    ("FADD32I", Pipe::Fma),
    ("FMUL32I", Pipe::Fma),
    ("IMAD", Pipe::Fma),
    ("IMUL", Pipe::Fma),
    ("IMUL32I", Pipe::Fma),
    ("IDP", Pipe::Fma),
    // ALU pipe: integer, logic, bit manipulation, moves, predicates.
    // KPG `alu`: most bit manipulation and logic instructions, integer instructions except IMAD
    // and IMUL. MW: not checked (no `alu` percentage in the reports); MOV as on TU10x and later.
    ("IADD3", Pipe::Alu),
    ("IADD", Pipe::Alu),
    ("IABS", Pipe::Alu),
    ("IMNMX", Pipe::Alu),
    ("ISETP", Pipe::Alu),
    ("LEA", Pipe::Alu),
    ("LOP3", Pipe::Alu),
    ("SHF", Pipe::Alu),
    ("SEL", Pipe::Alu),
    ("SGXT", Pipe::Alu),
    ("BMSK", Pipe::Alu),
    ("PRMT", Pipe::Alu),
    ("MOV", Pipe::Alu),
    ("MOV32I", Pipe::Alu),
    ("PLOP3", Pipe::Alu),
    ("PSETP", Pipe::Alu),
    ("P2R", Pipe::Alu),
    ("R2P", Pipe::Alu),
    ("VABSDIFF", Pipe::Alu),
    ("VABSDIFF4", Pipe::Alu),
    // ALU pipe: FP32 compare, select, min/max (UNCERTAIN).
    // UNCERTAIN: FP32 compares and min/max are on the ALU in SPEC §2.1 (docs/model-v2/SPEC.md) and
    // run at the ALU rate in the PG-T table (64 results per SM per clock); no export here has
    // enough of them to check.
    ("FSETP", Pipe::Alu),
    ("FSEL", Pipe::Alu),
    ("FSET", Pipe::Alu),
    ("FMNMX", Pipe::Alu),
    // XU pipe: special functions and conversions.
    // KPG `xu`: special functions (sin, cos, reciprocal square root: MUFU) and int-to-float /
    // float-to-int conversions. MW: MUFU+I2F+F2I = `xu` at 0.5 on every launch (MUFU.RCP64H
    // included).
    ("MUFU", Pipe::Xu),
    ("I2F", Pipe::Xu),
    ("F2I", Pipe::Xu),
    // XU pipe: other conversions and bit counts (UNCERTAIN).
    // UNCERTAIN: PG-T gives type conversions, population count and leading-zero count 16 results
    // per SM per clock, the XU rate (KPG `xu`: conversions); not measured. F2F is left out: KPG
    // puts FP32-FP16 conversions on the FP16 pipe (7.x, GA100) or the FMA pipe (GA10x on), so its
    // pipe depends on the modifiers.
    ("I2I", Pipe::Xu),
    ("FRND", Pipe::Xu),
    ("POPC", Pipe::Xu),
    ("FLO", Pipe::Xu),
    ("BREV", Pipe::Xu),
    // FP64 pipe.
    // KPG `fp64`: double-precision instructions; ISA: DADD, DFMA, DMUL, DSETP. MW:
    // DFMA+DADD+DMUL+DSETP = `fp64` at 1.0 on every launch.
    ("DFMA", Pipe::Fp64),
    ("DADD", Pipe::Fp64),
    ("DMUL", Pipe::Fp64),
    ("DSETP", Pipe::Fp64),
    // FP16x2 pipe (ncu `fp16` on 7.x and GA100, `fma_type_fp16` from GA10x on).
    // KPG `fp16`/`fmaheavy`/`fmalite`: paired FP16 arithmetic HADD2, HMUL2, HFMA2 (ISA: also the
    // 32I forms). The model times them with `pipes.fma_fp16`. HFMA2.MMA, which the compiler uses
    // to move constants, is counted by ncu in `tensor_op_hmma` instead (REGS: 65,536 HFMA2.MMA =
    // `tensor_op_hmma`); the per-opcode counts cannot tell it apart, so it lands here.
    ("HFMA2", Pipe::FmaFp16),
    ("HADD2", Pipe::FmaFp16),
    ("HMUL2", Pipe::FmaFp16),
    ("HFMA2_32I", Pipe::FmaFp16),
    ("HADD2_32I", Pipe::FmaFp16),
    ("HMUL2_32I", Pipe::FmaFp16),
    // FP16 pipe: paired compares and min/max (UNCERTAIN).
    // UNCERTAIN: KPG `fp16` (Volta, Turing): the FP16 pipe performs the paired FP16 instructions,
    // of which ISA lists HSETP2, HSET2 and HMNMX2; not measured. Left out from GA10x on, where KPG
    // names only HADD2, HMUL2 and HFMA2 for the FMA pipes.
    ("HSETP2", Pipe::FmaFp16),
    ("HSET2", Pipe::FmaFp16),
    ("HMNMX2", Pipe::FmaFp16),
    // LSU pipe: memory, shuffles, special registers.
    // KPG `lsu`: loads, stores, atomics and reductions to global, local and shared memory, special
    // register reads (S2R) and shuffles. S2R of SR_CTAID.* is counted by ncu in `adu`, not `lsu`
    // (measured on GV100, TU10x and GH100: exactly the CTA-index reads are missing from `lsu` and
    // present in `adu`, docs/plugins.md); the per-opcode counts cannot tell them apart, so every
    // S2R lands here. MW: LDG+STG+SHFL+S2R(thread index) = `lsu` at 1.0 on every launch.
    ("LD", Pipe::Lsu),
    ("ST", Pipe::Lsu),
    ("LDG", Pipe::Lsu),
    ("STG", Pipe::Lsu),
    ("LDS", Pipe::Lsu),
    ("STS", Pipe::Lsu),
    ("LDL", Pipe::Lsu),
    ("STL", Pipe::Lsu),
    ("ATOM", Pipe::Lsu),
    ("ATOMS", Pipe::Lsu),
    ("ATOMG", Pipe::Lsu),
    ("RED", Pipe::Lsu),
    ("SHFL", Pipe::Lsu),
    ("S2R", Pipe::Lsu),
    // ADU pipe: constant loads and block barriers.
    // KPG `adu`: address divergence of branches and jumps, constant loads, block-level barriers.
    // MW: `adu` is the S2R of SR_CTAID.* only (no LDC or BAR executed); LDC and BAR as KPG says.
    ("LDC", Pipe::Adu),
    ("BAR", Pipe::Adu),
    // CBU pipe: convergence, calls, exit.
    // KPG `cbu`: warp-level convergence, barrier and branch instructions (ISA: BSSY, BSYNC, BMOV,
    // BREAK, WARPSYNC, CALL, RET, EXIT, KILL, BPT). MW: BSSY+BSYNC+BMOV+CALL+RET+BRA+EXIT = `cbu`
    // at 4.0 on every launch.
    ("EXIT", Pipe::Cbu),
    ("BSSY", Pipe::Cbu),
    ("BSYNC", Pipe::Cbu),
    ("BMOV", Pipe::Cbu),
    ("BREAK", Pipe::Cbu),
    ("WARPSYNC", Pipe::Cbu),
    ("CALL", Pipe::Cbu),
    ("RET", Pipe::Cbu),
    ("KILL", Pipe::Cbu),
    ("BPT", Pipe::Cbu),
    // CBU pipe: branches (Volta only).
    // MW: on GV100 every BRA is counted in `cbu` (see above). From TU10x on ncu counts a BRA in no
    // pipe unless its target diverges (then in `adu`), so later families leave BRA out.
    ("BRA", Pipe::Cbu),
    // TEX pipe: texture and surface.
    // KPG `tex`: the texture pipeline forwards texture and surface instructions (ISA "Texture" and
    // "Surface": TEX, TLD, TLD4, TMML, TXD, TXQ, SULD, SUST, SUATOM, SURED); not measured.
    ("TEX", Pipe::Tex),
    ("TLD", Pipe::Tex),
    ("TLD4", Pipe::Tex),
    ("TMML", Pipe::Tex),
    ("TXD", Pipe::Tex),
    ("TXQ", Pipe::Tex),
    ("SULD", Pipe::Tex),
    ("SUST", Pipe::Tex),
    ("SUATOM", Pipe::Tex),
    ("SURED", Pipe::Tex),
    // IPA pipe.
    // KPG `ipa`: attribute interpolation (graphics shaders only; IPA).
    ("IPA", Pipe::Ipa),
    // Tensor pipe: HMMA (and FP8/FP4 mma.sync).
    // NCU-DESC `sm__inst_executed_pipe_tensor_op_hmma`: "tensor pipe (HMMA/QMMA ops)" (QMMA: FP8,
    // ISA 8.9+; OMMA: FP4, 10.x/12.x). Not measured (the HMMA of the reports here are HFMA2.MMA
    // only).
    ("HMMA", Pipe::TensorHmma),
    // Tensor pipe: IMMA and BMMA.
    // NCU-DESC `sm__inst_executed_pipe_tensor_op_imma`: "tensor pipe (IMMA/BMMA ops)"; IMMA from
    // 7.2 (ISA), BMMA from 7.5; not measured.
    ("IMMA", Pipe::TensorImma),
    ("BMMA", Pipe::TensorImma),
    // Left out, so counted only in the total instructions: F2F (pipe depends on the modifiers, see
    // XU); MEMBAR, ERRBAR, CCTL, MATCH, QSPC, VOTE, REDUX, CS2R, S2UR, NOP, YIELD, NANOSLEEP,
    // DEPBAR, LDGDEPBAR, B2R, BRX, JMP, JMX and the other opcodes of ISA not listed above (no
    // source for their pipe; on GA10x MEMBAR and ERRBAR, always executed together there, go one to
    // `lsu` and one to `tex` (measured, docs/plugins.md), which a per-opcode table cannot
    // express).
];

/// The family's SASS opcode → ncu pipe table.
pub(crate) fn table() -> Vec<(String, Pipe)> {
    opcode_pipes(TABLE)
}

#[cfg(test)]
mod tests {
    use warpsight_plugin::Pipe;

    /// MW Baseline, `compute_tendencies_x_279_gpu`: `sass__inst_executed_per_opcode`.
    const TENDENCIES: &[(&str, f64)] = &[
        ("IMAD", 274_381_274.0),
        ("DFMA", 250_895_971.0),
        ("DMUL", 107_521_820.0),
        ("IADD3", 62_656_712.0),
        ("BRA", 61_223_122.0),
        ("DADD", 60_011_904.0),
        ("MOV", 53_135_562.0),
        ("ISETP", 48_162_938.0),
        ("FSETP", 45_891_456.0),
        ("BSYNC", 43_667_151.0),
        ("BSSY", 43_622_303.0),
        ("BMOV", 43_622_303.0),
        ("LOP3", 41_219_154.0),
        ("MUFU", 39_958_195.0),
        ("DSETP", 32_580_238.0),
        ("SEL", 31_403_534.0),
        ("LEA", 23_802_072.0),
        ("FFMA", 22_357_376.0),
        ("LDG", 21_180_672.0),
        ("SHFL", 17_862_959.0),
        ("RET", 16_290_119.0),
        ("CALL", 16_290_119.0),
        ("SHF", 9_547_628.0),
        ("STG", 4_706_816.0),
        ("FSEL", 2_353_408.0),
        ("I2F", 1_310_700.0),
        ("F2I", 1_310_700.0),
        ("S2R", 524_280.0),
        ("EXIT", 524_280.0),
        ("CS2R", 262_140.0),
    ];

    #[test]
    fn the_table_reproduces_the_v100_pipe_counters() {
        let arch = crate::archs::archs().remove(0);
        let (s, unmapped) = arch.sum_by_pipe(TENDENCIES.iter().copied());
        let at = |pipe: Pipe| s[pipe.code() as usize];
        // ncu's counts of the launch: `sm__inst_executed_pipe_<p>.avg.pct_of_peak_sustained_active`
        // × `sm__cycles_active.avg` × 80 SMs × the pipe's rate (xu 0.5, fp64 1, lsu 1, cbu 4,
        // adu 0.5: the rates at which every launch of MW agrees).
        assert_eq!(at(Pipe::Xu), 42_579_595.0);
        assert_eq!(at(Pipe::Fp64), 451_009_933.0);
        assert_eq!(at(Pipe::Cbu), 225_239_397.0);
        // Half of the S2R (the CTA-index reads, 262,140) are ncu's whole `adu` count and missing
        // from its `lsu` count (44,012,587); the table puts every S2R on the LSU.
        assert_eq!(at(Pipe::Lsu), 44_012_587.0 + 262_140.0);
        assert_eq!(at(Pipe::Adu), 0.0);
        // CS2R is left out.
        assert_eq!(unmapped, 262_140.0);
    }
}
