//! Which ncu pipe executes each SASS opcode on Turing (TU10x), CC 7.5: the table of
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
//! - TU: measured on
//!   `../shared/traces/ncu-other-gpus/CudaCode__{dot_product,global_mem_coalesce,naive,vec_add}.ncu-rep`
//!   (GeForce GTX 1660 SUPER) and `cuda-mlp-inference__report*.ncu-rep` (Tesla T4): 17 launches:
//!   the per-opcode counts summed by this table against the pipe counters of the same launch. Where
//!   a report has only `sm__inst_executed_pipe_<p>.*.pct_of_peak_sustained_active`, "X = `p` at r"
//!   means that Σ X ÷ (pct × `sm__cycles_active.sum`) is the same rate r (warp instructions per SM
//!   per cycle) on every launch, i.e. X is what ncu counts in `p`.
//!   `plugins/tools/check_sass_pipes.py` prints these figures; docs/plugins.md has them.

use warpsight_plugin::{Pipe, opcode_pipes};

/// The opcode → pipe pairs of the family (opcode without modifiers).
const TABLE: &[(&str, Pipe)] = &[
    // FMA pipe.
    // KPG `fma`: FP32 FADD/FMUL/FMAD, integer IMUL/IMAD and integer dot products. ISA: the 32I
    // forms take a 32-bit immediate. TU: FFMA+FADD+FMUL+IMAD = `fma` at 2.0 per SM per cycle on
    // every launch.
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
    // and IMUL. TU: IADD3+ISETP+LOP3+SHF+LEA+MOV+PLOP3 = `alu` at 2.0 on every launch (SEL is in
    // the same fit).
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
    // float-to-int conversions. TU: no launch executes them.
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
    // KPG `fp64`: double-precision instructions; ISA: DADD, DFMA, DMUL, DSETP. TU: no launch
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
    // S2R lands here. TU: LDG+STG+LDS+STS+RED+S2R(thread index) = `lsu` at 0.5 on every launch.
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
    // ADU pipe: constant loads and block barriers.
    // KPG `adu`: address divergence of branches and jumps, constant loads, block-level barriers.
    // TU: BAR+S2R(CTA index) = `adu` at 0.5 on every launch.
    ("LDC", Pipe::Adu),
    ("BAR", Pipe::Adu),
    // ADU pipe: register to uniform register.
    // UNCERTAIN: R2UR (ISA 7.5+) is counted in `adu` on GA10x (74 M on one launch,
    // docs/plugins.md); no TU launch executes it.
    ("R2UR", Pipe::Adu),
    // CBU pipe: convergence, calls, exit.
    // KPG `cbu`: warp-level convergence, barrier and branch instructions (ISA: BSSY, BSYNC, BMOV,
    // BREAK, WARPSYNC, CALL, RET, EXIT, KILL, BPT). TU: EXIT = `cbu` at 4.0 on every launch (BRA
    // is not counted, see below).
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
    // all threads; ISA "Uniform Datapath Instructions" (7.5+). TU: UIADD3+USHF+ULDC = `uniform` at
    // 2.0 on every launch.
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
    // Left out, so counted only in the total instructions: F2F (pipe depends on the modifiers, see
    // XU); MEMBAR, ERRBAR, CCTL, MATCH, QSPC, VOTE, REDUX, CS2R, S2UR, NOP, YIELD, NANOSLEEP,
    // DEPBAR, LDGDEPBAR, B2R, BRX, JMP, JMX and the other opcodes of ISA not listed above (no
    // source for their pipe; on GA10x MEMBAR and ERRBAR, always executed together there, go one to
    // `lsu` and one to `tex` (measured, docs/plugins.md), which a per-opcode table cannot
    // express). BRA: TU has 2.3 M BRA on naive_gemm that no pipe counts (ncu counts a BRA only
    // when its target diverges, in `adu` from TU10x on).
];

/// The family's SASS opcode → ncu pipe table.
pub(crate) fn table() -> Vec<(String, Pipe)> {
    opcode_pipes(TABLE)
}

#[cfg(test)]
mod tests {
    use warpsight_plugin::Pipe;

    /// TU `naive_gemm` (GTX 1660 SUPER): `sass__inst_executed_per_opcode`.
    const NAIVE_GEMM: &[(&str, f64)] = &[
        ("LDG", 67_141_632.0),
        ("IMAD", 35_848_192.0),
        ("FFMA", 33_587_200.0),
        ("MOV", 4_489_216.0),
        ("IADD3", 4_259_840.0),
        ("UIADD3", 4_194_304.0),
        ("ISETP", 2_392_064.0),
        ("BRA", 2_326_528.0),
        ("S2R", 131_072.0),
        ("PLOP3", 65_536.0),
        ("EXIT", 65_536.0),
        ("ULDC", 32_768.0),
        ("STG", 32_768.0),
        ("LOP3", 32_768.0),
        ("FMUL", 32_768.0),
    ];

    /// TU `dot_prod` (GTX 1660 SUPER): `sass__inst_executed_per_opcode`.
    const DOT_PROD: &[(&str, f64)] = &[
        ("ISETP", 622_592.0),
        ("LDS", 528_384.0),
        ("STS", 294_912.0),
        ("SHF", 294_912.0),
        ("BRA", 294_912.0),
        ("BAR", 294_912.0),
        ("LEA", 262_144.0),
        ("FADD", 262_144.0),
        ("IMAD", 172_032.0),
        ("S2R", 65_536.0),
        ("MOV", 65_536.0),
        ("LDG", 65_536.0),
        ("EXIT", 36_864.0),
        ("USHF", 32_768.0),
        ("ULDC", 32_768.0),
        ("FMUL", 32_768.0),
        ("STG", 4_096.0),
    ];

    #[test]
    fn the_table_reproduces_the_turing_pipe_counters() {
        let arch = crate::archs::archs().remove(0);
        // ncu's counts of each launch: `sm__inst_executed_pipe_<p>.sum.pct_of_peak_sustained_active`
        // × `sm__cycles_active.sum` × the pipe's rate (fma 2, alu 2, lsu 0.5, cbu 4, uniform 2,
        // adu 0.5: the rates at which every launch of TU agrees), and the S2R of SR_CTAID.
        for (counts, fma, alu, lsu, cbu, uniform, adu, ctaid_s2r, bra) in [
            (
                NAIVE_GEMM,
                69_468_160.0,
                11_239_424.0,
                67_239_936.0,
                65_536.0,
                4_227_072.0,
                65_536.0,
                65_536.0,
                2_326_528.0,
            ),
            (
                DOT_PROD,
                466_944.0,
                1_245_184.0,
                925_696.0,
                36_864.0,
                65_536.0,
                327_680.0,
                32_768.0,
                294_912.0,
            ),
        ] {
            let (s, unmapped) = arch.sum_by_pipe(counts.iter().copied());
            let at = |pipe: Pipe| s[pipe.code() as usize];
            assert_eq!(at(Pipe::Fma), fma);
            assert_eq!(at(Pipe::Alu), alu);
            assert_eq!(at(Pipe::Cbu), cbu);
            assert_eq!(at(Pipe::Uniform), uniform);
            // Every S2R is put on the LSU; ncu counts the CTA-index reads in `adu`.
            assert_eq!(at(Pipe::Lsu), lsu + ctaid_s2r);
            assert_eq!(at(Pipe::Adu), adu - ctaid_s2r);
            // BRA is in no pipe.
            assert_eq!(unmapped, bra);
        }
    }
}
