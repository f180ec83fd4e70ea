//! Which ncu pipe executes each SASS opcode on Ampere (GA100, GA10x, GA10B), CC 8.0, 8.6, 8.7: the
//! table of `ArchSpec::sass_pipes` (ABI minor 3). The model sums an export's
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
//! - CL: measured on
//!   `../shared/traces/ncu-other-gpus/CUDA_Learning__{report,shared_report}.ncu-rep` (GeForce RTX
//!   3060 Laptop GPU, 8.6, 12 launches of debug builds): the per-opcode counts summed by this table
//!   against the pipe counters of the same launch. Where a report has only
//!   `sm__inst_executed_pipe_<p>.*.pct_of_peak_sustained_active`, "X = `p` at r" means that Σ X ÷
//!   (pct × `sm__cycles_active.sum`) is the same rate r (warp instructions per SM per cycle) on
//!   every launch, i.e. X is what ncu counts in `p`. `plugins/tools/check_sass_pipes.py` prints
//!   these figures; docs/plugins.md has them.

use warpsight_plugin::{Pipe, opcode_pipes};

/// The opcode → pipe pairs of the family (opcode without modifiers).
const TABLE: &[(&str, Pipe)] = &[
    // FMA pipe.
    // KPG `fma`: FP32 FADD/FMUL/FMAD, integer IMUL/IMAD and integer dot products. ISA: the 32I
    // forms take a 32-bit immediate. CL: IMAD = `fma` at 4.0 on every launch.
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
    // and IMUL. CL: IADD3+ISETP+LOP3+SHF+MOV+PLOP3+SEL = `alu` at 2.0 on every launch.
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
    // ALU pipe: fast FP32 to FP16 conversion.
    // KPG `alu`: on Ampere chips the ALU performs the fast FP32-to-FP16 conversion (F2FP, ISA
    // 8.0+). CL executes none.
    ("F2FP", Pipe::Alu),
    // XU pipe: special functions and conversions.
    // KPG `xu`: special functions (sin, cos, reciprocal square root: MUFU) and int-to-float /
    // float-to-int conversions. CL: MUFU+I2F+F2I = `xu` at 0.5 on every launch.
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
    // KPG `fp64`: double-precision instructions; ISA: DADD, DFMA, DMUL, DSETP. CL: no launch
    // executes them.
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
    // LSU pipe: memory, shuffles, special registers.
    // KPG `lsu`: loads, stores, atomics and reductions to global, local and shared memory, special
    // register reads (S2R) and shuffles. S2R of SR_CTAID.* is counted by ncu in `adu`, not `lsu`
    // (measured on GV100, TU10x and GH100: exactly the CTA-index reads are missing from `lsu` and
    // present in `adu`, docs/plugins.md); the per-opcode counts cannot tell them apart, so every
    // S2R lands here. CL: LD+ST+S2R(part) = `lsu` at 0.5 within 1.3 % (the debug builds there add
    // MEMBAR/ERRBAR, see below).
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
    // LSU pipe: matrix loads and async copies.
    // KPG `lsu` (loads and stores to shared and global memory): LDSM (ISA 7.5+), LDGSTS (8.0+),
    // STSM and STAS (9.0+); not measured.
    ("LDSM", Pipe::Lsu),
    ("LDGSTS", Pipe::Lsu),
    // LSU pipe: CTA-level arrive/wait barriers.
    // KPG `lsu`: CTA-level arrive/wait barrier instructions (ISA: ARRIVES 8.0+, SYNCS 9.0+, the
    // mbarrier operations); not measured.
    ("ARRIVES", Pipe::Lsu),
    // ADU pipe: constant loads and block barriers.
    // KPG `adu`: address divergence of branches and jumps, constant loads, block-level barriers.
    // CL: R2UR+BAR+LDC+S2R(CTA index) = `adu` at 0.5 within 0.6 %.
    ("LDC", Pipe::Adu),
    ("BAR", Pipe::Adu),
    // ADU pipe: register to uniform register.
    // CL: R2UR (ISA 7.5+) is counted in `adu` (74 M R2UR on reduceNeighbored; with them the fit is
    // within 0.6 %, without them 24 % short). Measured on GA10x only.
    ("R2UR", Pipe::Adu),
    // CBU pipe: convergence, calls, exit.
    // KPG `cbu`: warp-level convergence, barrier and branch instructions (ISA: BSSY, BSYNC, BMOV,
    // BREAK, WARPSYNC, CALL, RET, EXIT, KILL, BPT). CL: EXIT, BSSY, BSYNC, WARPSYNC account for
    // most of `cbu` (the debug builds there do not fit one rate exactly).
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
    // Uniform datapath.
    // KPG `uniform`: the scalar unit for instructions whose inputs and outputs are the same for
    // all threads; ISA "Uniform Datapath Instructions" (7.5+). As on TU10x (ULDC included); CL
    // executes none.
    ("UIADD3", Pipe::Uniform),
    ("USHF", Pipe::Uniform),
    ("UMOV", Pipe::Uniform),
    ("ULOP3", Pipe::Uniform),
    ("ULOP", Pipe::Uniform),
    ("ULOP32I", Pipe::Uniform),
    ("UISETP", Pipe::Uniform),
    ("USEL", Pipe::Uniform),
    ("ULEA", Pipe::Uniform),
    ("UIMAD", Pipe::Uniform),
    ("UPRMT", Pipe::Uniform),
    ("UFLO", Pipe::Uniform),
    ("UPOPC", Pipe::Uniform),
    ("UBREV", Pipe::Uniform),
    ("USGXT", Pipe::Uniform),
    ("UBMSK", Pipe::Uniform),
    ("UCLEA", Pipe::Uniform),
    ("USHL", Pipe::Uniform),
    ("USHR", Pipe::Uniform),
    ("UPLOP3", Pipe::Uniform),
    ("UPSETP", Pipe::Uniform),
    ("UP2UR", Pipe::Uniform),
    ("UR2UP", Pipe::Uniform),
    ("VOTEU", Pipe::Uniform),
    ("ULDC", Pipe::Uniform),
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
    // Tensor pipe: DMMA.
    // NCU-DESC `sm__inst_executed_pipe_tensor_op_dmma`: "tensor pipe (DMMA ops)" (ISA 8.0+; ncu
    // lists it as `fp64_op_dmma` on GA100). The model times DMMA with `pipes.tensor_dmma`. Not
    // measured.
    ("DMMA", Pipe::TensorDmma),
    // Left out, so counted only in the total instructions: F2F (pipe depends on the modifiers, see
    // XU); MEMBAR, ERRBAR, CCTL, MATCH, QSPC, VOTE, REDUX, CS2R, S2UR, NOP, YIELD, NANOSLEEP,
    // DEPBAR, LDGDEPBAR, B2R, BRX, JMP, JMX and the other opcodes of ISA not listed above (no
    // source for their pipe; on GA10x MEMBAR and ERRBAR, always executed together there, go one to
    // `lsu` and one to `tex` (measured, docs/plugins.md), which a per-opcode table cannot
    // express). BRA: counted in no pipe from TU10x on unless its target diverges (measured on
    // TU10x and GH100, docs/plugins.md).
];

/// The family's SASS opcode → ncu pipe table.
pub(crate) fn table() -> Vec<(String, Pipe)> {
    opcode_pipes(TABLE)
}

#[cfg(test)]
mod tests {
    use warpsight_plugin::{ComputeCapability, Pipe};

    /// CL `reduceNeighbored` (RTX 3060 Laptop GPU, 8.6, a debug build):
    /// `sass__inst_executed_per_opcode`.
    const REDUCE_NEIGHBORED: &[(&str, f64)] = &[
        ("MOV", 610_271_232.0),
        ("IADD3", 165_675_008.0),
        ("BRA", 109_051_904.0),
        ("IMAD", 90_177_536.0),
        ("ISETP", 79_691_776.0),
        ("R2UR", 74_448_896.0),
        ("SHF", 53_477_376.0),
        ("PLOP3", 50_331_648.0),
        ("SEL", 44_040_192.0),
        ("WARPSYNC", 26_738_688.0),
        ("LD", 24_641_536.0),
        ("MUFU", 14_680_064.0),
        ("LOP3", 14_680_064.0),
        ("I2F", 14_680_064.0),
        ("F2I", 14_680_064.0),
        ("BAR", 14_680_064.0),
        ("ST", 12_582_912.0),
        ("LDC", 6_291_456.0),
        ("S2R", 4_718_592.0),
        ("BSYNC", 2_621_440.0),
        ("MEMBAR", 2_097_152.0),
        ("EXIT", 2_097_152.0),
        ("ERRBAR", 2_097_152.0),
        ("BSSY", 2_097_152.0),
    ];

    #[test]
    fn the_table_reproduces_the_ga10x_pipe_counters() {
        let arch = crate::archs::archs()
            .into_iter()
            .find(|a| a.cc == ComputeCapability::new(8, 6))
            .expect("the plugin provides 8.6");
        let (s, unmapped) = arch.sum_by_pipe(REDUCE_NEIGHBORED.iter().copied());
        let at = |pipe: Pipe| s[pipe.code() as usize];
        // ncu's counts of the launch: `sm__inst_executed_pipe_<p>.sum.pct_of_peak_sustained_active`
        // × `sm__cycles_active.sum` × the pipe's rate (fma 4, alu 2, xu 0.5, adu 0.5, lsu 0.5).
        assert_eq!(at(Pipe::Fma), 90_177_536.0);
        assert_eq!(at(Pipe::Alu), 1_018_167_296.0);
        assert_eq!(at(Pipe::Xu), 44_040_192.0);
        // ncu: adu 98,042,308 and lsu 41,418,752; part of the S2R (and one of MEMBAR/ERRBAR) is
        // counted elsewhere than the table says.
        let close = |ours: f64, ncu: f64, within: f64| (ours / ncu - 1.0).abs() <= within;
        assert!(
            close(at(Pipe::Adu), 98_042_308.0, 0.03),
            "{}",
            at(Pipe::Adu)
        );
        assert!(
            close(at(Pipe::Lsu), 41_418_752.0, 0.015),
            "{}",
            at(Pipe::Lsu)
        );
        // BRA, MEMBAR and ERRBAR are left out.
        assert_eq!(unmapped, 109_051_904.0 + 2.0 * 2_097_152.0);
    }
}
