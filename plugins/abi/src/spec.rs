//! The architecture and device specification types: plain, owned Rust values that plugin authors
//! fill ([`ArchSpec`], [`DeviceSpec`]) and that the host's model reads (`warpsight_model::arch`
//! re-exports them). They never cross the C boundary themselves: the SDK turns them into the C
//! descriptors of [`crate::types`] ([`crate::sdk::build_table`]) and the host turns the descriptors
//! back into them (`warpsight_plugin_host`, `core/plugin-host/src/convert.rs`).
//!
//! Units: bytes, Hz, bytes/s, FLOP/s, SM cycles; per-SM rates are per SM clock cycle.
//! `f64::NAN` marks a number the plugin does not know.

/// A compute capability, e.g. 8.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputeCapability {
    /// Major part.
    pub major: u32,
    /// Minor part.
    pub minor: u32,
}

impl ComputeCapability {
    /// Makes a compute capability.
    pub const fn new(major: u32, minor: u32) -> Self {
        ComputeCapability { major, minor }
    }

    /// Parses `"8.0"`, `"9.0"`, `"12.0"`, also `"80"`/`"sm_80"`/`"sm_120"` style.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let text = text.strip_prefix("sm_").unwrap_or(text);
        if let Some((major, minor)) = text.split_once('.') {
            return Some(ComputeCapability::new(
                major.parse().ok()?,
                minor.parse().ok()?,
            ));
        }
        if text.len() >= 2 && text.chars().all(|c| c.is_ascii_digit()) {
            let (major, minor) = text.split_at(text.len() - 1);
            return Some(ComputeCapability::new(
                major.parse().ok()?,
                minor.parse().ok()?,
            ));
        }
        None
    }
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How registers are allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterAllocation {
    /// Per warp (every CC from 3.x on).
    Warp,
    /// Per block (CC 1.x–2.x; kept for completeness).
    Block,
}

/// Latencies in SM cycles by class. NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latencies {
    /// Dependent-issue latency of FP32 FMA/ADD.
    pub fp32: f64,
    /// Dependent-issue latency of INT32 ADD.
    pub int32: f64,
    /// Dependent-issue latency of FP64 FMA.
    pub fp64: f64,
    /// Special-function unit latency.
    pub sfu: f64,
    /// Tensor (MMA) latency.
    pub tensor: f64,
    /// Shared-memory load latency.
    pub shared: f64,
    /// L1 hit load latency.
    pub l1_hit: f64,
    /// L2 hit load latency.
    pub l2_hit: f64,
    /// DRAM (L2 miss) load latency.
    pub dram: f64,
}

impl Latencies {
    /// Every latency unknown, to be overridden field by field.
    pub const UNKNOWN: Latencies = Latencies {
        fp32: f64::NAN,
        int32: f64::NAN,
        fp64: f64::NAN,
        sfu: f64::NAN,
        tensor: f64::NAN,
        shared: f64::NAN,
        l1_hit: f64::NAN,
        l2_hit: f64::NAN,
        dram: f64::NAN,
    };
}

/// Throughput per SM per cycle, in thread-level results (lanes) per clock, by instruction class.
/// Tensor rates are dense FLOP per clock per SM. NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throughput {
    /// FP32 add/mul/fma results per clock per SM.
    pub fp32: f64,
    /// FP64 results per clock per SM.
    pub fp64: f64,
    /// FP16 (non-tensor) results per clock per SM.
    pub fp16: f64,
    /// INT32 results per clock per SM.
    pub int32: f64,
    /// SFU results per clock per SM.
    pub sfu: f64,
    /// Tensor FP16 (FP32 accumulate) dense FLOP per clock per SM; on 9.0 the wgmma path.
    pub tensor_fp16_flop: f64,
    /// Tensor BF16 dense FLOP per clock per SM; on 9.0 the wgmma path.
    pub tensor_bf16_flop: f64,
    /// Tensor TF32 dense FLOP per clock per SM; on 9.0 the wgmma path.
    pub tensor_tf32_flop: f64,
    /// Tensor FP8 dense FLOP per clock per SM; on 9.0 the wgmma path.
    pub tensor_fp8_flop: f64,
    /// Tensor INT8 dense OP per clock per SM; on 9.0 the wgmma path.
    pub tensor_int8_op: f64,
    /// Tensor FP64 FLOP per clock per SM.
    pub tensor_fp64_flop: f64,
    /// FLOP per warp-level tensor instruction (as counted by `sm__inst_executed_pipe_tensor`),
    /// for the architecture's common FP16 MMA shape.
    pub flop_per_tensor_inst: f64,
    /// L1/shared bandwidth, bytes per clock per SM.
    pub l1_bytes_per_clk: f64,
}

impl Throughput {
    /// Every throughput unknown, to be overridden field by field.
    pub const UNKNOWN: Throughput = Throughput {
        fp32: f64::NAN,
        fp64: f64::NAN,
        fp16: f64::NAN,
        int32: f64::NAN,
        sfu: f64::NAN,
        tensor_fp16_flop: f64::NAN,
        tensor_bf16_flop: f64::NAN,
        tensor_tf32_flop: f64::NAN,
        tensor_fp8_flop: f64::NAN,
        tensor_int8_op: f64::NAN,
        tensor_fp64_flop: f64::NAN,
        flop_per_tensor_inst: f64::NAN,
        l1_bytes_per_clk: f64::NAN,
    };
}

/// Pipe issue rates: **warp instructions per SM per cycle** that each ncu pipe
/// (`sm__inst_executed_pipe_<name>`) accepts. NaN when unknown. The model divides a launch's
/// instruction count of a pipe by this rate to get that pipe's busy cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipeRates {
    /// FMA pipe: FP32 FFMA/FADD/FMUL and IMAD (4.0 on 9.0).
    pub fma: f64,
    /// ncu pipe `fma_type_fp16`: HFMA2/HADD2/HMUL2 (2.0 on 9.0).
    pub fma_fp16: f64,
    /// FP64 pipe: DFMA/DADD/DMUL.
    pub fp64: f64,
    /// ALU pipe: INT32 add/logic/shift/compare, FP32 compare/min/max.
    pub alu: f64,
    /// XU pipe: MUFU (rcp, rsqrt, ex2, lg2, sin, cos) and conversions.
    pub xu: f64,
    /// LSU pipe: LD/ST/ATOM, LDS/STS, shuffles, S2R.
    pub lsu: f64,
    /// ADU pipe (address divergence unit: branches, barriers).
    pub adu: f64,
    /// CBU pipe (convergence barrier unit).
    pub cbu: f64,
    /// Uniform datapath pipe.
    pub uniform: f64,
    /// IPA pipe (attribute interpolation; graphics only).
    pub ipa: f64,
    /// TEX pipe (texture and surface instructions).
    pub tex: f64,
    /// TMA pipe (tensor memory accelerator instructions; 9.0 and later).
    pub tma: f64,
    /// Tensor pipe, `mma.sync` HMMA (FP16/BF16/TF32) instructions.
    pub tensor_hmma: f64,
    /// Tensor pipe, IMMA (integer) instructions.
    pub tensor_imma: f64,
    /// Tensor pipe, DMMA (FP64) instructions.
    pub tensor_dmma: f64,
    /// Tensor pipe, wgmma (GMMA) instructions: a per-instruction fallback used only when the FLOP
    /// count is unknown (the FLOP rates are [`Throughput`]'s `tensor_*` fields).
    pub tensor_gmma: f64,
}

impl PipeRates {
    /// Every rate unknown, to be overridden field by field.
    pub const UNKNOWN: PipeRates = PipeRates {
        fma: f64::NAN,
        fma_fp16: f64::NAN,
        fp64: f64::NAN,
        alu: f64::NAN,
        xu: f64::NAN,
        lsu: f64::NAN,
        adu: f64::NAN,
        cbu: f64::NAN,
        uniform: f64::NAN,
        ipa: f64::NAN,
        tex: f64::NAN,
        tma: f64::NAN,
        tensor_hmma: f64::NAN,
        tensor_imma: f64::NAN,
        tensor_dmma: f64::NAN,
        tensor_gmma: f64::NAN,
    };

    /// The rates a plugin built against ABI minor 0 gets (it has no pipe rates): `fma` = FP32
    /// lanes / 32, `fp64` = FP64 results / 32 (both from `throughput`, NaN when that is unknown),
    /// `alu` 2.0, `xu` 0.5, `lsu` 1.0 (PG throughput table, CC 7.0 and later), the rest NaN.
    pub fn defaults_from(throughput: &Throughput) -> PipeRates {
        PipeRates {
            fma: throughput.fp32 / 32.0,
            fp64: throughput.fp64 / 32.0,
            alu: 2.0,
            xu: 0.5,
            lsu: 1.0,
            ..PipeRates::UNKNOWN
        }
    }

    /// Every rate with its field name, in declaration order (for validation and listings).
    pub fn named(&self) -> [(&'static str, f64); 16] {
        [
            ("fma", self.fma),
            ("fma_fp16", self.fma_fp16),
            ("fp64", self.fp64),
            ("alu", self.alu),
            ("xu", self.xu),
            ("lsu", self.lsu),
            ("adu", self.adu),
            ("cbu", self.cbu),
            ("uniform", self.uniform),
            ("ipa", self.ipa),
            ("tex", self.tex),
            ("tma", self.tma),
            ("tensor_hmma", self.tensor_hmma),
            ("tensor_imma", self.tensor_imma),
            ("tensor_dmma", self.tensor_dmma),
            ("tensor_gmma", self.tensor_gmma),
        ]
    }
}

/// An ncu pipe: the pipes of [`PipeRates`], in its field order. The discriminant is the ABI's
/// `PIPE_*` value (`crate::types::PIPE_FMA` …) that a SASS opcode table entry carries across the
/// boundary ([`crate::types::SassPipeDesc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum Pipe {
    /// `fma`: FP32 FFMA/FADD/FMUL, IMAD.
    Fma = 0,
    /// `fma_type_fp16`: HFMA2/HADD2/HMUL2.
    FmaFp16 = 1,
    /// `fp64`: DFMA/DADD/DMUL.
    Fp64 = 2,
    /// `alu`: integer and logic, FP32 compare/min/max.
    Alu = 3,
    /// `xu`: MUFU and conversions.
    Xu = 4,
    /// `lsu`: loads, stores, shuffles.
    Lsu = 5,
    /// `adu`: branches, barriers.
    Adu = 6,
    /// `cbu`: convergence barriers, warp-synchronous branches.
    Cbu = 7,
    /// `uniform`: the uniform datapath.
    Uniform = 8,
    /// `ipa`: attribute interpolation.
    Ipa = 9,
    /// `tex`: texture and surface.
    Tex = 10,
    /// `tma`: tensor memory accelerator.
    Tma = 11,
    /// `tensor_op_hmma`.
    TensorHmma = 12,
    /// `tensor_op_imma`.
    TensorImma = 13,
    /// `tensor_op_dmma`.
    TensorDmma = 14,
    /// `tensor_op_gmma`.
    TensorGmma = 15,
}

impl Pipe {
    /// Every pipe, in [`PipeRates`]' field order (which is also the order of the codes).
    pub const ALL: [Pipe; 16] = [
        Pipe::Fma,
        Pipe::FmaFp16,
        Pipe::Fp64,
        Pipe::Alu,
        Pipe::Xu,
        Pipe::Lsu,
        Pipe::Adu,
        Pipe::Cbu,
        Pipe::Uniform,
        Pipe::Ipa,
        Pipe::Tex,
        Pipe::Tma,
        Pipe::TensorHmma,
        Pipe::TensorImma,
        Pipe::TensorDmma,
        Pipe::TensorGmma,
    ];

    /// The pipe of an ABI code (`crate::types::PIPE_*`), or None when the code is out of range.
    pub const fn from_u32(code: u32) -> Option<Pipe> {
        if (code as usize) < Pipe::ALL.len() {
            Some(Pipe::ALL[code as usize])
        } else {
            None
        }
    }

    /// The ABI code of this pipe (`crate::types::PIPE_*`).
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// ncu's name of the pipe: the `<suffix>` of `sm__inst_executed_pipe_<suffix>.sum`.
    pub const fn ncu_name(self) -> &'static str {
        match self {
            Pipe::Fma => "fma",
            Pipe::FmaFp16 => "fma_type_fp16",
            Pipe::Fp64 => "fp64",
            Pipe::Alu => "alu",
            Pipe::Xu => "xu",
            Pipe::Lsu => "lsu",
            Pipe::Adu => "adu",
            Pipe::Cbu => "cbu",
            Pipe::Uniform => "uniform",
            Pipe::Ipa => "ipa",
            Pipe::Tex => "tex",
            Pipe::Tma => "tma",
            Pipe::TensorHmma => "tensor_op_hmma",
            Pipe::TensorImma => "tensor_op_imma",
            Pipe::TensorDmma => "tensor_op_dmma",
            Pipe::TensorGmma => "tensor_op_gmma",
        }
    }

    /// The pipe whose [`Pipe::ncu_name`] is `name`.
    pub fn from_ncu_name(name: &str) -> Option<Pipe> {
        Pipe::ALL.into_iter().find(|pipe| pipe.ncu_name() == name)
    }

    /// The name of this pipe's field in [`PipeRates`] (as [`PipeRates::named`] gives it).
    pub const fn field_name(self) -> &'static str {
        match self {
            Pipe::Fma => "fma",
            Pipe::FmaFp16 => "fma_fp16",
            Pipe::Fp64 => "fp64",
            Pipe::Alu => "alu",
            Pipe::Xu => "xu",
            Pipe::Lsu => "lsu",
            Pipe::Adu => "adu",
            Pipe::Cbu => "cbu",
            Pipe::Uniform => "uniform",
            Pipe::Ipa => "ipa",
            Pipe::Tex => "tex",
            Pipe::Tma => "tma",
            Pipe::TensorHmma => "tensor_hmma",
            Pipe::TensorImma => "tensor_imma",
            Pipe::TensorDmma => "tensor_dmma",
            Pipe::TensorGmma => "tensor_gmma",
        }
    }

    /// This pipe's issue rate in `rates` (warp instructions per SM per cycle; NaN when unknown).
    pub const fn rate_in(self, rates: &PipeRates) -> f64 {
        match self {
            Pipe::Fma => rates.fma,
            Pipe::FmaFp16 => rates.fma_fp16,
            Pipe::Fp64 => rates.fp64,
            Pipe::Alu => rates.alu,
            Pipe::Xu => rates.xu,
            Pipe::Lsu => rates.lsu,
            Pipe::Adu => rates.adu,
            Pipe::Cbu => rates.cbu,
            Pipe::Uniform => rates.uniform,
            Pipe::Ipa => rates.ipa,
            Pipe::Tex => rates.tex,
            Pipe::Tma => rates.tma,
            Pipe::TensorHmma => rates.tensor_hmma,
            Pipe::TensorImma => rates.tensor_imma,
            Pipe::TensorDmma => rates.tensor_dmma,
            Pipe::TensorGmma => rates.tensor_gmma,
        }
    }
}

impl std::fmt::Display for Pipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.ncu_name())
    }
}

/// The opcode of a SASS instruction or of an ncu `sass__inst_executed_per_opcode` instance as the
/// opcode tables ([`ArchSpec::sass_pipes`]) key it: without modifiers (the text before the first
/// `.`), without a predicate guard (`@P0 `), trimmed and upper-case. `"ffma.ftz"` → `"FFMA"`.
pub fn sass_opcode_key(text: &str) -> String {
    let text = text.trim();
    let text = match text.strip_prefix('@') {
        Some(guarded) => guarded
            .split_once(char::is_whitespace)
            .map_or("", |(_, rest)| rest.trim_start()),
        None => text,
    };
    let opcode = text
        .split(|c: char| c == '.' || c.is_whitespace())
        .next()
        .unwrap_or("");
    opcode.to_ascii_uppercase()
}

/// The `mma.sync` tensor path of an architecture (ABI minor 2): the warp-level HMMA, IMMA and DMMA
/// instructions that ncu counts in `sm__inst_executed_pipe_tensor_op_{hmma,imma,dmma}`. Dense
/// FLOP (OP for INT8) per SM per cycle by source type, as ncu's
/// `sm__ops_path_tensor_op_{hmma,imma}_*_sparsity_off` and `sm__ops_path_tensor_src_fp64` peaks
/// give them, and the fewest SM cycles one warp instruction of each kind holds its pipe. The model
/// times these instructions as `max(Σ_type FLOP_type / peak_type, instructions × min cycles)`
/// when the export has the FLOP counters by type (`sm__ops_path_tensor_src_*`). NaN when unknown:
/// the model then uses the per-instruction rates of [`PipeRates`] (a plugin built against ABI
/// minor 0 or 1 gets [`MmaRates::UNKNOWN`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MmaRates {
    /// HMMA with FP16 sources, dense FLOP per SM per cycle.
    pub fp16_flop: f64,
    /// HMMA with BF16 sources, dense FLOP per SM per cycle.
    pub bf16_flop: f64,
    /// HMMA with TF32 sources, dense FLOP per SM per cycle.
    pub tf32_flop: f64,
    /// HMMA with FP8 sources, dense FLOP per SM per cycle.
    pub fp8_flop: f64,
    /// IMMA with INT8 sources, dense OP per SM per cycle.
    pub int8_op: f64,
    /// DMMA (FP64), FLOP per SM per cycle.
    pub fp64_flop: f64,
    /// Fewest SM cycles one HMMA warp instruction holds the SM's tensor pipe.
    pub hmma_min_cycles: f64,
    /// Fewest SM cycles one IMMA warp instruction holds the SM's tensor pipe.
    pub imma_min_cycles: f64,
    /// Fewest SM cycles one DMMA warp instruction holds the SM's tensor pipe.
    pub dmma_min_cycles: f64,
}

impl MmaRates {
    /// Every number unknown, to be overridden field by field.
    pub const UNKNOWN: MmaRates = MmaRates {
        fp16_flop: f64::NAN,
        bf16_flop: f64::NAN,
        tf32_flop: f64::NAN,
        fp8_flop: f64::NAN,
        int8_op: f64::NAN,
        fp64_flop: f64::NAN,
        hmma_min_cycles: f64::NAN,
        imma_min_cycles: f64::NAN,
        dmma_min_cycles: f64::NAN,
    };

    /// Every number with its field name, in declaration order (for validation and listings).
    pub fn named(&self) -> [(&'static str, f64); 9] {
        [
            ("fp16_flop", self.fp16_flop),
            ("bf16_flop", self.bf16_flop),
            ("tf32_flop", self.tf32_flop),
            ("fp8_flop", self.fp8_flop),
            ("int8_op", self.int8_op),
            ("fp64_flop", self.fp64_flop),
            ("hmma_min_cycles", self.hmma_min_cycles),
            ("imma_min_cycles", self.imma_min_cycles),
            ("dmma_min_cycles", self.dmma_min_cycles),
        ]
    }
}

/// Everything the model needs to know about one compute capability.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchSpec {
    /// Compute capability.
    pub cc: ComputeCapability,
    /// Human name, e.g. "Ampere GA100".
    pub name: String,
    /// Threads per warp (32).
    pub threads_per_warp: u32,
    /// Max resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Max resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Max resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Max threads per block.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// Max registers per block.
    pub max_regs_per_block: u32,
    /// Max registers per thread accepted.
    pub max_regs_per_thread: u32,
    /// Register allocation unit size (registers), 256.
    pub reg_alloc_unit: u32,
    /// Register allocation granularity.
    pub reg_alloc_granularity: RegisterAllocation,
    /// Sub-partitions per SM (warp allocation granularity): 4, or 2 on CC 6.0.
    pub sub_partitions: u32,
    /// Shared memory per SM, bytes: the largest carveout.
    pub smem_per_sm: u32,
    /// Default max shared memory per block, bytes (48 KiB).
    pub smem_per_block_default: u32,
    /// Opt-in max shared memory per block, bytes.
    pub smem_per_block_optin: u32,
    /// Shared-memory allocation unit, bytes.
    pub smem_alloc_unit: u32,
    /// Shared memory reserved per block by the system, bytes (1024 on CC >= 8.0).
    pub smem_reserved_per_block: u32,
    /// Allowed SM shared-memory capacities (carveouts), bytes, ascending. For fixed-size
    /// architectures this is one value equal to `smem_per_sm`.
    pub carveouts: Vec<u32>,
    /// Barrier multiplier `k` (named barriers available = k × max blocks); 0 when the barrier
    /// limit does not apply (CC < 9.0).
    pub barrier_multiplier: u32,
    /// Virtual resources per SM (CUDA 13 header; 0 = no limit).
    pub virtual_resources_per_sm: u32,
    /// Whether partitioned global caching exists on this CC.
    pub partitioned_gc_supported: bool,
    /// Warp schedulers per SM.
    pub warp_schedulers_per_sm: u32,
    /// Instructions issued per scheduler per clock (1; dual issue counts 2).
    pub issue_per_scheduler_per_clk: u32,
    /// Latencies by class, cycles.
    pub latencies: Latencies,
    /// Throughputs by class, per SM per clock.
    pub throughput: Throughput,
    /// Pipe issue rates, warp instructions per SM per cycle (ABI minor 1).
    pub pipes: PipeRates,
    /// L1TEX data-stage wavefronts per SM per cycle; shared and global accesses share it (ABI
    /// minor 1; 1.0 = 128 bytes per cycle on 9.0).
    pub l1_wavefronts_per_clk: f64,
    /// The `mma.sync` tensor path: per-type peaks and minimum cycles per instruction (ABI minor 2).
    pub mma: MmaRates,
    /// Which ncu pipe executes each SASS opcode (ABI minor 3): `(opcode, pipe)` with the opcode
    /// without modifiers, upper-case ASCII (e.g. `"FFMA"`), each opcode at most once. Summing an
    /// export's `sass__inst_executed_per_opcode` instances by this table reproduces its
    /// `sm__inst_executed_pipe_<pipe>.sum` counters. Opcodes not listed count only in the total
    /// instructions; an empty table (a plugin built against minor 2 or earlier, or an architecture
    /// nobody mapped) maps nothing.
    pub sass_pipes: Vec<(String, Pipe)>,
}

impl ArchSpec {
    /// The pipe [`ArchSpec::sass_pipes`] gives an opcode; modifiers and case are ignored
    /// ([`sass_opcode_key`]), so `"FFMA.FTZ"` finds the `"FFMA"` entry.
    pub fn sass_pipe(&self, opcode: &str) -> Option<Pipe> {
        let key = sass_opcode_key(opcode);
        self.sass_pipes
            .iter()
            .find(|(name, _)| *name == key)
            .map(|&(_, pipe)| pipe)
    }

    /// Sums warp-level instruction counts by opcode (`(opcode, count)`, e.g. an export's
    /// `sass__inst_executed_per_opcode` instances; modifiers and case are ignored) into the pipes of
    /// [`ArchSpec::sass_pipes`]: the per-pipe sums indexed by [`Pipe::code`], and the count of the
    /// opcodes the table does not map (they count only in the total instructions).
    pub fn sum_by_pipe<'a>(
        &self,
        counts: impl IntoIterator<Item = (&'a str, f64)>,
    ) -> ([f64; Pipe::ALL.len()], f64) {
        let mut sums = [0.0; Pipe::ALL.len()];
        let mut unmapped = 0.0;
        for (opcode, count) in counts {
            match self.sass_pipe(opcode) {
                Some(pipe) => sums[pipe.code() as usize] += count,
                None => unmapped += count,
            }
        }
        (sums, unmapped)
    }
}

/// Peak rates of a device, FLOP/s (dense). NaN when unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeakFlops {
    /// FP64 (vector / CUDA cores).
    pub fp64: f64,
    /// FP32 (CUDA cores).
    pub fp32: f64,
    /// FP16 (non-tensor).
    pub fp16: f64,
    /// FP64 tensor.
    pub fp64_tensor: f64,
    /// TF32 tensor.
    pub tf32_tensor: f64,
    /// FP16 / BF16 tensor with FP32 accumulate.
    pub fp16_tensor: f64,
    /// FP8 tensor.
    pub fp8_tensor: f64,
    /// INT8 tensor (OP/s).
    pub int8_tensor: f64,
}

impl PeakFlops {
    /// Every peak unknown, to be overridden field by field.
    pub const UNKNOWN: PeakFlops = PeakFlops {
        fp64: f64::NAN,
        fp32: f64::NAN,
        fp16: f64::NAN,
        fp64_tensor: f64::NAN,
        tf32_tensor: f64::NAN,
        fp16_tensor: f64::NAN,
        fp8_tensor: f64::NAN,
        int8_tensor: f64::NAN,
    };
}

/// The DRAM fraction a device without a measurement gets (SPEC §2.2: 0.85 unless measured), also
/// the default for plugins built against ABI minor 0.
pub const DEFAULT_DRAM_ACHIEVABLE_FRACTION: f64 = 0.85;

/// One GPU product.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceSpec {
    /// Name as profilers print it, e.g. "NVIDIA A100-SXM4-40GB"; matching is done on a normalised form.
    pub name: String,
    /// Other names the device is printed under (e.g. "A100 SXM4 40GB", "NVIDIA A100 80GB PCIe").
    pub aliases: Vec<String>,
    /// Compute capability.
    pub cc: ComputeCapability,
    /// Number of SMs.
    pub sm_count: u32,
    /// SM boost clock, Hz.
    pub sm_clock_hz: f64,
    /// Memory clock, Hz (NaN when unknown).
    pub mem_clock_hz: f64,
    /// DRAM bandwidth, bytes/s.
    pub dram_bandwidth: f64,
    /// L2 size, bytes.
    pub l2_bytes: u64,
    /// L2 bandwidth, bytes/s (NaN when unknown).
    pub l2_bandwidth: f64,
    /// Peak FLOP/s per precision.
    pub peak: PeakFlops,
    /// Achievable fraction of `dram_bandwidth`, in (0, 1] (ABI minor 1).
    pub dram_achievable_fraction: f64,
    /// Unloaded DRAM load-to-use latency, SM cycles (NaN when unknown; ABI minor 1).
    pub dram_latency_cycles: f64,
    /// Achievable L2 bandwidth, bytes/s (NaN when unknown; ABI minor 1).
    pub l2_achievable_bandwidth: f64,
    /// Number of L2 slices (0 = unknown; ABI minor 1).
    pub l2_slices: u32,
    /// The clock the tensor peaks are quoted at, Hz (ABI minor 1).
    pub tensor_clock_hz: f64,
    /// SM base clock, Hz (NaN when unknown; ABI minor 3): the clock ncu's default
    /// `--clock-control base` locks the SM at, at most `sm_clock_hz` (the boost clock).
    pub base_clock_hz: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_capabilities_parse_and_print() {
        assert_eq!(
            ComputeCapability::parse("9.0"),
            Some(ComputeCapability::new(9, 0))
        );
        assert_eq!(
            ComputeCapability::parse("sm_120"),
            Some(ComputeCapability::new(12, 0))
        );
        assert_eq!(
            ComputeCapability::parse("86"),
            Some(ComputeCapability::new(8, 6))
        );
        assert_eq!(ComputeCapability::parse("x"), None);
        assert_eq!(ComputeCapability::new(10, 3).to_string(), "10.3");
    }

    #[test]
    fn pipes_have_ncu_names_and_abi_codes() {
        let names: Vec<&str> = Pipe::ALL.iter().map(|p| p.ncu_name()).collect();
        assert_eq!(
            names,
            vec![
                "fma",
                "fma_type_fp16",
                "fp64",
                "alu",
                "xu",
                "lsu",
                "adu",
                "cbu",
                "uniform",
                "ipa",
                "tex",
                "tma",
                "tensor_op_hmma",
                "tensor_op_imma",
                "tensor_op_dmma",
                "tensor_op_gmma"
            ]
        );
        for (index, pipe) in Pipe::ALL.into_iter().enumerate() {
            assert_eq!(pipe.code() as usize, index);
            assert_eq!(Pipe::from_u32(pipe.code()), Some(pipe));
            assert_eq!(Pipe::from_ncu_name(pipe.ncu_name()), Some(pipe));
        }
        assert_eq!(Pipe::from_u32(16), None);
        assert_eq!(Pipe::from_u32(u32::MAX), None);
        assert_eq!(Pipe::TensorHmma.to_string(), "tensor_op_hmma");
        // The field names are those of `PipeRates::named`, in the same order.
        let rates = PipeRates {
            xu: 0.5,
            ..PipeRates::UNKNOWN
        };
        for (pipe, (field, value)) in Pipe::ALL.into_iter().zip(rates.named()) {
            assert_eq!(pipe.field_name(), field);
            assert_eq!(pipe.rate_in(&rates).to_bits(), value.to_bits());
        }
        assert_eq!(
            Pipe::ALL.map(|p| p.code()),
            [
                crate::types::PIPE_FMA,
                crate::types::PIPE_FMA_FP16,
                crate::types::PIPE_FP64,
                crate::types::PIPE_ALU,
                crate::types::PIPE_XU,
                crate::types::PIPE_LSU,
                crate::types::PIPE_ADU,
                crate::types::PIPE_CBU,
                crate::types::PIPE_UNIFORM,
                crate::types::PIPE_IPA,
                crate::types::PIPE_TEX,
                crate::types::PIPE_TMA,
                crate::types::PIPE_TENSOR_HMMA,
                crate::types::PIPE_TENSOR_IMMA,
                crate::types::PIPE_TENSOR_DMMA,
                crate::types::PIPE_TENSOR_GMMA,
            ]
        );
        assert_eq!(crate::types::PIPE_COUNT as usize, Pipe::ALL.len());
    }

    #[test]
    fn counts_sum_by_pipe() {
        let table = vec![
            ("FFMA".to_string(), Pipe::Fma),
            ("IMAD".to_string(), Pipe::Fma),
            ("IADD3".to_string(), Pipe::Alu),
        ];
        let (sums, unmapped) = table_arch(table).sum_by_pipe([
            ("FFMA", 10.0),
            ("IMAD.MOV.U32", 5.0),
            ("iadd3", 2.0),
            ("BRA", 7.0),
        ]);
        assert_eq!(sums[Pipe::Fma.code() as usize], 15.0);
        assert_eq!(sums[Pipe::Alu.code() as usize], 2.0);
        assert_eq!(sums.iter().sum::<f64>(), 17.0);
        assert_eq!(unmapped, 7.0);
    }

    /// A minimal arch with only an opcode table (the other numbers do not matter here).
    fn table_arch(sass_pipes: Vec<(String, Pipe)>) -> ArchSpec {
        ArchSpec {
            cc: ComputeCapability::new(9, 0),
            name: "table".into(),
            threads_per_warp: 32,
            max_warps_per_sm: 64,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            max_threads_per_block: 1024,
            regs_per_sm: 65536,
            max_regs_per_block: 65536,
            max_regs_per_thread: 255,
            reg_alloc_unit: 256,
            reg_alloc_granularity: RegisterAllocation::Warp,
            sub_partitions: 4,
            smem_per_sm: 1024,
            smem_per_block_default: 1024,
            smem_per_block_optin: 1024,
            smem_alloc_unit: 128,
            smem_reserved_per_block: 0,
            carveouts: vec![1024],
            barrier_multiplier: 0,
            virtual_resources_per_sm: 0,
            partitioned_gc_supported: false,
            warp_schedulers_per_sm: 4,
            issue_per_scheduler_per_clk: 1,
            latencies: Latencies::UNKNOWN,
            throughput: Throughput::UNKNOWN,
            pipes: PipeRates::UNKNOWN,
            l1_wavefronts_per_clk: 1.0,
            mma: MmaRates::UNKNOWN,
            sass_pipes,
        }
    }

    #[test]
    fn opcode_keys_drop_modifiers_and_guards() {
        assert_eq!(sass_opcode_key("FFMA"), "FFMA");
        assert_eq!(sass_opcode_key("ffma.ftz.rn"), "FFMA");
        assert_eq!(sass_opcode_key(" @!P0 LDG.E.128 R4, [R2] "), "LDG");
        assert_eq!(sass_opcode_key("HMMA.16816.F32"), "HMMA");
        assert_eq!(sass_opcode_key(""), "");
    }

    #[test]
    fn minor_0_pipe_defaults_follow_the_throughput() {
        let throughput = Throughput {
            fp32: 128.0,
            fp64: 64.0,
            ..Throughput::UNKNOWN
        };
        let pipes = PipeRates::defaults_from(&throughput);
        assert_eq!(
            (pipes.fma, pipes.fp64, pipes.alu, pipes.xu, pipes.lsu),
            (4.0, 2.0, 2.0, 0.5, 1.0)
        );
        assert!(pipes.fma_fp16.is_nan() && pipes.tensor_gmma.is_nan());
        assert!(PipeRates::defaults_from(&Throughput::UNKNOWN).fma.is_nan());
    }
}
