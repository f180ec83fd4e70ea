//! Which ncu pipe executes each SASS opcode on Hopper (GH100), CC 9.0: the table of
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
//! - REGS: measured on `traces/ncu-rep/regs_64_65.ncu-rep` (the project's H100 capture, 2 kernels;
//!   absolute pipe counters also in `traces/h100-80gb-hbm3/regs_64_65.ncu-raw.csv`): the per-opcode
//!   counts summed by this table against the pipe counters of the same launch. Where a report has
//!   only `sm__inst_executed_pipe_<p>.*.pct_of_peak_sustained_active`, "X = `p` at r" means that Σ
//!   X ÷ (pct × `sm__cycles_active.sum`) is the same rate r (warp instructions per SM per cycle) on
//!   every launch, i.e. X is what ncu counts in `p`. `plugins/tools/check_sass_pipes.py` prints
//!   these figures; docs/plugins.md has them.

use warpsight_plugin::{Pipe, opcode_pipes};

/// The opcode → pipe pairs of the family (opcode without modifiers).
const TABLE: &[(&str, Pipe)] = &[
    // FMA pipe.
    // KPG `fma`: FP32 FADD/FMUL/FMAD, integer IMUL/IMAD and integer dot products. ISA: the 32I
    // forms take a 32-bit immediate. REGS: FFMA+FADD+IMAD+VIADD = `fma` exactly on both kernels.
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
    // FMA pipe: VIADD.
    // ISA (9.0+): VIADD, integer add. REGS: without it `fma` is short by exactly the VIADD count
    // on both kernels (2,031,616 and 2,621,440).
    ("VIADD", Pipe::Fma),
    // ALU pipe: integer, logic, bit manipulation, moves, predicates.
    // KPG `alu`: most bit manipulation and logic instructions, integer instructions except IMAD
    // and IMUL. REGS: ISETP+IADD3+IABS+SEL+MOV+LOP3 = `alu` exactly on both kernels.
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
    // 8.0+). UNCERTAIN: KPG says it of Ampere; assumed to stay on the ALU, not measured.
    ("F2FP", Pipe::Alu),
    // XU pipe: special functions and conversions.
    // KPG `xu`: special functions (sin, cos, reciprocal square root: MUFU) and int-to-float /
    // float-to-int conversions. REGS: MUFU+I2F+F2I = `xu` exactly on both kernels.
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
    // KPG `fp64`: double-precision instructions; ISA: DADD, DFMA, DMUL, DSETP. REGS: no launch
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
    // S2R lands here. REGS: LDG+STG+LDL+STL+S2R(thread index) = `lsu` exactly on both kernels.
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
    ("STSM", Pipe::Lsu),
    ("STAS", Pipe::Lsu),
    // LSU pipe: CTA-level arrive/wait barriers.
    // KPG `lsu`: CTA-level arrive/wait barrier instructions (ISA: ARRIVES 8.0+, SYNCS 9.0+, the
    // mbarrier operations); not measured.
    ("ARRIVES", Pipe::Lsu),
    ("SYNCS", Pipe::Lsu),
    // ADU pipe: constant loads and block barriers.
    // KPG `adu`: address divergence of branches and jumps, constant loads, block-level barriers.
    // REGS: LDC+S2R(CTA index) = `adu` within 1.3 % (the rest: divergent branches, see the end of
    // the table).
    ("LDC", Pipe::Adu),
    ("BAR", Pipe::Adu),
    // ADU pipe: register to uniform register.
    // UNCERTAIN: R2UR is counted in `adu` on GA10x (74 M on one launch, docs/plugins.md); no REGS
    // launch executes it.
    ("R2UR", Pipe::Adu),
    // CBU pipe: convergence, calls, exit.
    // KPG `cbu`: warp-level convergence, barrier and branch instructions (ISA: BSSY, BSYNC, BMOV,
    // BREAK, WARPSYNC, CALL, RET, EXIT, KILL, BPT). REGS: EXIT = `cbu` exactly on both kernels.
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
    // all threads; ISA "Uniform Datapath Instructions" (7.5+). REGS: `uniform` is 0 on both
    // kernels although each executes 262,144 ULDC, and no pipe counts them; so ULDC is left out on
    // 9.0. Other uniform instructions: not measured.
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
    ("QMMA", Pipe::TensorHmma),
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
    // Tensor pipe: warpgroup MMA.
    // NCU-DESC `sm__inst_executed_pipe_tensor_op_gmma`: "tensor pipe (HGMMA/QGMMA/IGMMA/BGMMA
    // ops)" (wgmma, ISA 9.0); not measured.
    ("HGMMA", Pipe::TensorGmma),
    ("QGMMA", Pipe::TensorGmma),
    ("IGMMA", Pipe::TensorGmma),
    ("BGMMA", Pipe::TensorGmma),
    // TMA pipe.
    // KPG `tma`: the tensor memory accelerator; ISA "Tensor Memory Access Instructions" (UTMALDG,
    // UTMASTG, UTMAPF, UTMAREDG, UTMACCTL, UTMACMDFLUSH) and the bulk copies it executes (UBLKCP,
    // UBLKPF, UBLKRED). Not measured.
    ("UTMALDG", Pipe::Tma),
    ("UTMASTG", Pipe::Tma),
    ("UTMAPF", Pipe::Tma),
    ("UTMAREDG", Pipe::Tma),
    ("UTMACCTL", Pipe::Tma),
    ("UTMACMDFLUSH", Pipe::Tma),
    ("UBLKCP", Pipe::Tma),
    ("UBLKPF", Pipe::Tma),
    ("UBLKRED", Pipe::Tma),
    // Left out, so counted only in the total instructions: F2F (pipe depends on the modifiers, see
    // XU); MEMBAR, ERRBAR, CCTL, MATCH, QSPC, VOTE, REDUX, CS2R, S2UR, NOP, YIELD, NANOSLEEP,
    // DEPBAR, LDGDEPBAR, B2R, BRX, JMP, JMX and the other opcodes of ISA not listed above (no
    // source for their pipe; on GA10x MEMBAR and ERRBAR, always executed together there, go one to
    // `lsu` and one to `tex` (measured, docs/plugins.md), which a per-opcode table cannot
    // express). BRA: REGS: the 1,048,576 BRA of each kernel are in no pipe but for 0.6 % (6,129
    // and 4,224 divergent executions) in `adu`. ULDC: in no pipe (REGS, see Uniform). VIMNMX,
    // VIMNMX3, VIADDMNMX, I2FP, F2IP, ELECT, FENCE, ACQBULK, UCGABAR_*, ENDCOLLECTIVE: pipe
    // unknown.
];

/// The family's SASS opcode → ncu pipe table.
pub(crate) fn table() -> Vec<(String, Pipe)> {
    opcode_pipes(TABLE)
}

#[cfg(test)]
mod tests {
    use warpsight_plugin::Pipe;

    /// The per-opcode counts of REGS' two kernels (`sass__inst_executed_per_opcode`).
    const REGS64: &[(&str, f64)] = &[
        ("FFMA", 60_882_944.0),
        ("IMAD", 21_430_272.0),
        ("ISETP", 12_582_912.0),
        ("IADD3", 10_485_760.0),
        ("IABS", 3_866_624.0),
        ("SEL", 3_801_088.0),
        ("LDG", 3_801_088.0),
        ("FADD", 3_801_088.0),
        ("VIADD", 2_031_616.0),
        ("MOV", 1_245_184.0),
        ("BRA", 1_048_576.0),
        ("LDC", 327_680.0),
        ("ULDC", 262_144.0),
        ("S2R", 262_144.0),
        ("EXIT", 131_072.0),
        ("STL", 65_536.0),
        ("STG", 65_536.0),
        ("MUFU", 65_536.0),
        ("LOP3", 65_536.0),
        ("LDL", 65_536.0),
        ("I2F", 65_536.0),
        ("HFMA2", 65_536.0),
        ("F2I", 65_536.0),
    ];
    const REGS65: &[(&str, f64)] = &[
        ("FFMA", 60_882_944.0),
        ("IMAD", 20_905_984.0),
        ("ISETP", 12_582_912.0),
        ("IADD3", 9_502_720.0),
        ("IABS", 3_866_624.0),
        ("SEL", 3_801_088.0),
        ("LDG", 3_801_088.0),
        ("FADD", 3_801_088.0),
        ("VIADD", 2_621_440.0),
        ("MOV", 1_310_720.0),
        ("BRA", 1_048_576.0),
        ("ULDC", 262_144.0),
        ("S2R", 262_144.0),
        ("LDC", 262_144.0),
        ("EXIT", 131_072.0),
        ("STG", 65_536.0),
        ("MUFU", 65_536.0),
        ("LOP3", 65_536.0),
        ("I2F", 65_536.0),
        ("HFMA2", 65_536.0),
        ("F2I", 65_536.0),
    ];

    /// The table's per-pipe sums of `counts`, and what it leaves unmapped.
    fn sums(counts: &[(&str, f64)]) -> ([f64; 16], f64) {
        let arch = crate::archs::archs().remove(0);
        arch.sum_by_pipe(counts.iter().copied())
    }

    #[test]
    fn the_table_reproduces_the_h100_pipe_counters() {
        // ncu's `sm__inst_executed_pipe_<p>.sum` of the same launches
        // (`traces/h100-80gb-hbm3/regs_64_65.ncu-raw.csv`): fma, alu, xu, lsu, adu, cbu,
        // tensor_op_hmma, and the two kernels' S2R of SR_CTAID (one of the two S2R per thread).
        for (counts, fma, alu, lsu, adu, ctaid_s2r) in [
            (
                REGS64,
                88_145_920.0,
                32_047_104.0,
                4_128_768.0,
                464_881.0,
                131_072.0,
            ),
            (
                REGS65,
                88_211_456.0,
                31_129_600.0,
                3_997_696.0,
                397_440.0,
                131_072.0,
            ),
        ] {
            let (s, unmapped) = sums(counts);
            let at = |pipe: Pipe| s[pipe.code() as usize];
            assert_eq!(at(Pipe::Fma), fma);
            assert_eq!(at(Pipe::Alu), alu);
            assert_eq!(at(Pipe::Xu), 196_608.0);
            assert_eq!(at(Pipe::Cbu), 131_072.0);
            // Every S2R is put on the LSU; ncu counts the CTA-index reads in `adu`.
            assert_eq!(at(Pipe::Lsu), lsu + ctaid_s2r);
            let adu_from_table = at(Pipe::Adu) + ctaid_s2r;
            assert!(adu_from_table <= adu && adu_from_table > 0.98 * adu);
            // HFMA2.MMA is counted in `tensor_op_hmma`; the table puts HFMA2 on the FP16 pipe.
            assert_eq!(at(Pipe::FmaFp16), 65_536.0);
            assert_eq!(at(Pipe::TensorHmma), 0.0);
            // BRA and ULDC are in no pipe.
            assert_eq!(unmapped, 1_048_576.0 + 262_144.0);
        }
    }
}
