//! Checks every number a plugin delivers before the model may use it: no zero counts or clocks,
//! limits that agree with each other (max warps × 32 = max threads, opt-in ≤ per-SM shared memory,
//! carveouts ascending up to the per-SM size, ...), allocation units that are powers of two, rates
//! that are finite and positive or NaN (unknown), pipe rates no higher than the SM's issue rate,
//! an achievable DRAM fraction in (0, 1], SASS opcode tables whose opcodes are upper-case names
//! without modifiers, each once, with a pipe the ABI knows, and a base clock no higher than the
//! boost clock.

use crate::errors::{PluginError, ValueProblem};
use warpsight_model::arch::{ArchSpec, ComputeCapability, DeviceSpec, Pipe};

/// The pipe of entry `index` (opcode `opcode`) of arch `cc`'s SASS opcode table, whose ABI code is
/// `code`: an invalid value named `sass_pipes` when the code is out of range. The conversion
/// calls this, since a [`Pipe`] cannot hold an unknown code.
pub(crate) fn pipe_code(
    cc: ComputeCapability,
    index: usize,
    opcode: &str,
    code: u32,
) -> Result<Pipe, PluginError> {
    Pipe::from_u32(code).ok_or_else(|| PluginError::InvalidValues {
        problems: vec![ValueProblem {
            item: format!("arch {cc}"),
            field: "sass_pipes",
            message: format!(
                "entry #{index} ({opcode:?}) has pipe {code}; expected 0..={} (PIPE_FMA … PIPE_TENSOR_GMMA)",
                Pipe::ALL.len() - 1
            ),
        }],
    })
}

/// What is wrong with an opcode of a SASS opcode table, if anything: it must be a non-empty
/// upper-case ASCII name of letters, digits and `_` that starts with a letter, without modifiers
/// (`"FFMA"`, not `"FFMA.FTZ"` or `"ffma"`).
fn opcode_problem(opcode: &str) -> Option<&'static str> {
    if opcode.is_empty() {
        Some("is empty")
    } else if !opcode.is_ascii() {
        Some("is not ASCII")
    } else if opcode.chars().any(|c| c.is_ascii_whitespace()) {
        Some("contains whitespace")
    } else if opcode.chars().any(|c| c.is_ascii_lowercase()) {
        Some("is not upper-case")
    } else if opcode.contains('.') {
        Some("has modifiers (the opcode is the text before the first '.')")
    } else if !opcode.starts_with(|c: char| c.is_ascii_uppercase())
        || !opcode
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        Some("is not an opcode name (A-Z first, then A-Z, 0-9 or _)")
    } else {
        None
    }
}

/// Collects problems about one item.
struct Checker<'a> {
    item: String,
    problems: &'a mut Vec<ValueProblem>,
}

impl Checker<'_> {
    fn fail(&mut self, field: &'static str, message: String) {
        self.problems.push(ValueProblem {
            item: self.item.clone(),
            field,
            message,
        });
    }

    fn at_least(&mut self, field: &'static str, value: u64, min: u64) {
        if value < min {
            self.fail(field, format!("is {value}; expected at least {min}"));
        }
    }

    fn in_range(&mut self, field: &'static str, value: u64, min: u64, max: u64) {
        if value < min || value > max {
            self.fail(field, format!("is {value}; expected {min}..={max}"));
        }
    }

    fn power_of_two(&mut self, field: &'static str, value: u32) {
        if !value.is_power_of_two() {
            self.fail(field, format!("is {value}; expected a power of two"));
        }
    }

    /// A rate or latency: finite and positive, or NaN for unknown.
    fn positive_or_nan(&mut self, field: &'static str, value: f64) {
        if !(value.is_nan() || (value.is_finite() && value > 0.0)) {
            self.fail(
                field,
                format!("is {value}; expected a finite positive number or NaN (unknown)"),
            );
        }
    }

    /// A number that must be known: finite and positive.
    fn positive(&mut self, field: &'static str, value: f64) {
        if !(value.is_finite() && value > 0.0) {
            self.fail(
                field,
                format!("is {value}; expected a finite positive number"),
            );
        }
    }
}

/// Problems of one architecture.
fn check_arch(arch: &ArchSpec, problems: &mut Vec<ValueProblem>) {
    let mut c = Checker {
        item: format!("arch {}", arch.cc),
        problems,
    };
    c.in_range("cc_major", u64::from(arch.cc.major), 1, 99);
    c.in_range("cc_minor", u64::from(arch.cc.minor), 0, 9);
    if arch.name.trim().is_empty() {
        c.fail("name", "is empty".to_string());
    }
    if arch.threads_per_warp != 32 {
        c.fail(
            "threads_per_warp",
            format!("is {}; expected 32", arch.threads_per_warp),
        );
    }
    c.at_least("max_warps_per_sm", u64::from(arch.max_warps_per_sm), 1);
    c.at_least("max_threads_per_sm", u64::from(arch.max_threads_per_sm), 1);
    let warp = u64::from(arch.threads_per_warp.max(1));
    let threads_as_warps = u64::from(arch.max_threads_per_sm) / warp;
    if u64::from(arch.max_warps_per_sm) > threads_as_warps {
        c.fail(
            "max_warps_per_sm",
            format!(
                "is {}; exceeds max_threads_per_sm / 32 = {threads_as_warps}",
                arch.max_warps_per_sm
            ),
        );
    } else if u64::from(arch.max_warps_per_sm) * warp != u64::from(arch.max_threads_per_sm) {
        c.fail(
            "max_threads_per_sm",
            format!(
                "is {}; expected max_warps_per_sm × 32 = {}",
                arch.max_threads_per_sm,
                u64::from(arch.max_warps_per_sm) * warp
            ),
        );
    }
    c.at_least("max_blocks_per_sm", u64::from(arch.max_blocks_per_sm), 1);
    c.in_range(
        "max_threads_per_block",
        u64::from(arch.max_threads_per_block),
        1,
        u64::from(arch.max_threads_per_sm.max(1)),
    );
    c.at_least("regs_per_sm", u64::from(arch.regs_per_sm), 1);
    c.in_range(
        "max_regs_per_block",
        u64::from(arch.max_regs_per_block),
        1,
        u64::from(arch.regs_per_sm.max(1)),
    );
    c.in_range(
        "max_regs_per_thread",
        u64::from(arch.max_regs_per_thread),
        1,
        256,
    );
    c.power_of_two("reg_alloc_unit", arch.reg_alloc_unit);
    c.in_range("sub_partitions", u64::from(arch.sub_partitions), 1, 4);
    c.at_least("smem_per_sm", u64::from(arch.smem_per_sm), 1);
    if arch.smem_per_block_optin > arch.smem_per_sm {
        c.fail(
            "smem_per_block_optin",
            format!(
                "is {}; exceeds smem_per_sm {}",
                arch.smem_per_block_optin, arch.smem_per_sm
            ),
        );
    }
    if arch.smem_per_block_default > arch.smem_per_block_optin {
        c.fail(
            "smem_per_block_default",
            format!(
                "is {}; exceeds smem_per_block_optin {}",
                arch.smem_per_block_default, arch.smem_per_block_optin
            ),
        );
    }
    c.power_of_two("smem_alloc_unit", arch.smem_alloc_unit);
    if arch.smem_reserved_per_block >= arch.smem_per_sm.max(1) {
        c.fail(
            "smem_reserved_per_block",
            format!(
                "is {}; must be below smem_per_sm",
                arch.smem_reserved_per_block
            ),
        );
    }
    match arch.carveouts.last() {
        None => c.fail(
            "carveouts",
            "is empty; expected at least the per-SM size".to_string(),
        ),
        Some(&last) => {
            if let Some(pair) = arch.carveouts.windows(2).find(|w| w[0] >= w[1]) {
                c.fail(
                    "carveouts",
                    format!("are not strictly ascending ({} then {})", pair[0], pair[1]),
                );
            }
            if last != arch.smem_per_sm {
                c.fail(
                    "carveouts",
                    format!(
                        "end at {last}; expected the largest to equal smem_per_sm {}",
                        arch.smem_per_sm
                    ),
                );
            }
        }
    }
    c.in_range(
        "barrier_multiplier",
        u64::from(arch.barrier_multiplier),
        0,
        16,
    );
    c.in_range(
        "warp_schedulers_per_sm",
        u64::from(arch.warp_schedulers_per_sm),
        1,
        8,
    );
    c.in_range(
        "issue_per_scheduler_per_clk",
        u64::from(arch.issue_per_scheduler_per_clk),
        1,
        4,
    );
    let l = &arch.latencies;
    for (field, value) in [
        ("latencies.fp32", l.fp32),
        ("latencies.int32", l.int32),
        ("latencies.fp64", l.fp64),
        ("latencies.sfu", l.sfu),
        ("latencies.tensor", l.tensor),
        ("latencies.shared", l.shared),
        ("latencies.l1_hit", l.l1_hit),
        ("latencies.l2_hit", l.l2_hit),
        ("latencies.dram", l.dram),
    ] {
        c.positive_or_nan(field, value);
    }
    let t = &arch.throughput;
    for (field, value) in [
        ("throughput.fp32", t.fp32),
        ("throughput.fp64", t.fp64),
        ("throughput.fp16", t.fp16),
        ("throughput.int32", t.int32),
        ("throughput.sfu", t.sfu),
        ("throughput.tensor_fp16_flop", t.tensor_fp16_flop),
        ("throughput.tensor_bf16_flop", t.tensor_bf16_flop),
        ("throughput.tensor_tf32_flop", t.tensor_tf32_flop),
        ("throughput.tensor_fp8_flop", t.tensor_fp8_flop),
        ("throughput.tensor_int8_op", t.tensor_int8_op),
        ("throughput.tensor_fp64_flop", t.tensor_fp64_flop),
        ("throughput.flop_per_tensor_inst", t.flop_per_tensor_inst),
        ("throughput.l1_bytes_per_clk", t.l1_bytes_per_clk),
    ] {
        c.positive_or_nan(field, value);
    }
    // A pipe cannot accept more warp instructions per cycle than the SM issues.
    let issue =
        f64::from(arch.warp_schedulers_per_sm) * f64::from(arch.issue_per_scheduler_per_clk);
    for (field, (name, value)) in PIPE_FIELDS.into_iter().zip(arch.pipes.named()) {
        debug_assert_eq!(field.strip_prefix("pipes."), Some(name));
        c.positive_or_nan(field, value);
        if value.is_finite() && value > issue {
            c.fail(
                field,
                format!(
                    "is {value}; exceeds the SM's issue rate of {issue} warp instructions per cycle"
                ),
            );
        }
    }
    c.positive_or_nan("l1_wavefronts_per_clk", arch.l1_wavefronts_per_clk);
    for (field, (name, value)) in MMA_FIELDS.into_iter().zip(arch.mma.named()) {
        debug_assert_eq!(field.strip_prefix("mma."), Some(name));
        c.positive_or_nan(field, value);
    }
    if arch.l1_wavefronts_per_clk > 64.0 {
        c.fail(
            "l1_wavefronts_per_clk",
            format!(
                "is {}; expected at most 64 per SM per cycle",
                arch.l1_wavefronts_per_clk
            ),
        );
    }
    let mut seen_opcode = std::collections::HashSet::new();
    for (index, (opcode, pipe)) in arch.sass_pipes.iter().enumerate() {
        if let Some(problem) = opcode_problem(opcode) {
            c.fail(
                "sass_pipes",
                format!("entry #{index}: opcode {opcode:?} {problem}"),
            );
        } else if !seen_opcode.insert(opcode.as_str()) {
            c.fail(
                "sass_pipes",
                format!("entry #{index}: opcode {opcode} appears twice (the second is {pipe})"),
            );
        }
    }
}

/// The field names of the `mma.sync` numbers as problems name them, in the order of
/// `MmaRates::named`.
const MMA_FIELDS: [&str; 9] = [
    "mma.fp16_flop",
    "mma.bf16_flop",
    "mma.tf32_flop",
    "mma.fp8_flop",
    "mma.int8_op",
    "mma.fp64_flop",
    "mma.hmma_min_cycles",
    "mma.imma_min_cycles",
    "mma.dmma_min_cycles",
];

/// The field names of the pipe rates as problems name them, in the order of `PipeRates::named`.
const PIPE_FIELDS: [&str; 16] = [
    "pipes.fma",
    "pipes.fma_fp16",
    "pipes.fp64",
    "pipes.alu",
    "pipes.xu",
    "pipes.lsu",
    "pipes.adu",
    "pipes.cbu",
    "pipes.uniform",
    "pipes.ipa",
    "pipes.tex",
    "pipes.tma",
    "pipes.tensor_hmma",
    "pipes.tensor_imma",
    "pipes.tensor_dmma",
    "pipes.tensor_gmma",
];

/// Problems of one device.
fn check_device(device: &DeviceSpec, problems: &mut Vec<ValueProblem>) {
    let mut c = Checker {
        item: format!("device {:?}", device.name),
        problems,
    };
    if device.name.trim().is_empty() {
        c.fail("name", "is empty".to_string());
    }
    c.in_range("cc_major", u64::from(device.cc.major), 1, 99);
    c.in_range("cc_minor", u64::from(device.cc.minor), 0, 9);
    c.at_least("sm_count", u64::from(device.sm_count), 1);
    c.positive("sm_clock_hz", device.sm_clock_hz);
    c.positive_or_nan("mem_clock_hz", device.mem_clock_hz);
    c.positive("dram_bandwidth", device.dram_bandwidth);
    c.at_least("l2_bytes", device.l2_bytes, 1);
    c.positive_or_nan("l2_bandwidth", device.l2_bandwidth);
    let p = &device.peak;
    for (field, value) in [
        ("peak.fp64", p.fp64),
        ("peak.fp32", p.fp32),
        ("peak.fp16", p.fp16),
        ("peak.fp64_tensor", p.fp64_tensor),
        ("peak.tf32_tensor", p.tf32_tensor),
        ("peak.fp16_tensor", p.fp16_tensor),
        ("peak.fp8_tensor", p.fp8_tensor),
        ("peak.int8_tensor", p.int8_tensor),
    ] {
        c.positive_or_nan(field, value);
    }
    let fraction = device.dram_achievable_fraction;
    if !(fraction.is_finite() && fraction > 0.0 && fraction <= 1.0) {
        c.fail(
            "dram_achievable_fraction",
            format!("is {fraction}; expected a fraction in (0, 1]"),
        );
    }
    c.positive_or_nan("dram_latency_cycles", device.dram_latency_cycles);
    c.positive_or_nan("l2_achievable_bandwidth", device.l2_achievable_bandwidth);
    if device.l2_slices > 1024 {
        c.fail(
            "l2_slices",
            format!(
                "is {}; expected at most 1024 (0 = unknown)",
                device.l2_slices
            ),
        );
    }
    c.positive("tensor_clock_hz", device.tensor_clock_hz);
    let base = device.base_clock_hz;
    if !base.is_nan() {
        if !(base.is_finite() && base > 0.0) {
            c.fail(
                "base_clock_hz",
                format!("is {base}; expected a finite positive number or NaN (unknown)"),
            );
        } else if base > device.sm_clock_hz {
            c.fail(
                "base_clock_hz",
                format!(
                    "is {base}; exceeds the boost clock sm_clock_hz {}",
                    device.sm_clock_hz
                ),
            );
        }
    }
}

/// Validates everything one plugin provides; duplicates inside one plugin are problems too.
pub(crate) fn validate(archs: &[ArchSpec], devices: &[DeviceSpec]) -> Result<(), PluginError> {
    let mut problems = Vec::new();
    for arch in archs {
        check_arch(arch, &mut problems);
    }
    for device in devices {
        check_device(device, &mut problems);
    }
    let mut seen_cc = std::collections::HashSet::new();
    for arch in archs {
        if !seen_cc.insert(arch.cc) {
            problems.push(ValueProblem {
                item: format!("arch {}", arch.cc),
                field: "cc",
                message: "appears twice".into(),
            });
        }
    }
    let mut seen_name = std::collections::HashSet::new();
    for device in devices {
        if !seen_name.insert(warpsight_model::arch::registry::normalize_device_name(
            &device.name,
        )) {
            problems.push(ValueProblem {
                item: format!("device {:?}", device.name),
                field: "name",
                message: "appears twice".into(),
            });
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(PluginError::InvalidValues { problems })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use warpsight_model::arch::{Latencies, PeakFlops, PipeRates, RegisterAllocation, Throughput};

    /// CC 8.0 as ARCHS.csv gives it (a consistent fixture; latencies and rates unknown).
    pub(crate) fn a100_arch() -> ArchSpec {
        let nan = f64::NAN;
        ArchSpec {
            cc: ComputeCapability::new(8, 0),
            name: "Ampere GA100".into(),
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
            smem_per_sm: 167_936,
            smem_per_block_default: 49_152,
            smem_per_block_optin: 166_912,
            smem_alloc_unit: 128,
            smem_reserved_per_block: 1024,
            carveouts: [0, 8, 16, 32, 64, 100, 132, 164]
                .iter()
                .map(|kb| kb * 1024)
                .collect(),
            barrier_multiplier: 2,
            virtual_resources_per_sm: 0,
            partitioned_gc_supported: false,
            warp_schedulers_per_sm: 4,
            issue_per_scheduler_per_clk: 1,
            latencies: Latencies {
                fp32: 4.0,
                int32: nan,
                fp64: nan,
                sfu: nan,
                tensor: nan,
                shared: nan,
                l1_hit: nan,
                l2_hit: nan,
                dram: nan,
            },
            throughput: Throughput {
                fp32: 64.0,
                fp64: nan,
                fp16: nan,
                int32: nan,
                sfu: nan,
                tensor_fp16_flop: nan,
                tensor_bf16_flop: nan,
                tensor_tf32_flop: nan,
                tensor_fp8_flop: nan,
                tensor_int8_op: nan,
                tensor_fp64_flop: nan,
                flop_per_tensor_inst: nan,
                l1_bytes_per_clk: nan,
            },
            pipes: PipeRates {
                fma: 2.0,
                fp64: 1.0,
                ..PipeRates::UNKNOWN
            },
            l1_wavefronts_per_clk: 1.0,
            mma: warpsight_model::arch::MmaRates::UNKNOWN,
            sass_pipes: Vec::new(),
        }
    }

    /// DEVICES.csv "A100 SXM4 40GB".
    pub(crate) fn a100_device() -> DeviceSpec {
        let nan = f64::NAN;
        DeviceSpec {
            name: "NVIDIA A100-SXM4-40GB".into(),
            aliases: vec![],
            cc: ComputeCapability::new(8, 0),
            sm_count: 108,
            sm_clock_hz: 1.41e9,
            mem_clock_hz: nan,
            dram_bandwidth: 1.555e12,
            l2_bytes: 40 << 20,
            l2_bandwidth: nan,
            peak: PeakFlops {
                fp64: 9.7e12,
                fp32: 19.5e12,
                fp16: nan,
                fp64_tensor: 19.5e12,
                tf32_tensor: nan,
                fp16_tensor: 312e12,
                fp8_tensor: nan,
                int8_tensor: nan,
            },
            dram_achievable_fraction: 0.85,
            dram_latency_cycles: nan,
            l2_achievable_bandwidth: nan,
            l2_slices: 0,
            tensor_clock_hz: 1.41e9,
            base_clock_hz: f64::NAN,
        }
    }

    /// The fields named by the problems of one broken arch.
    fn arch_problems(change: impl FnOnce(&mut ArchSpec)) -> Vec<&'static str> {
        let mut arch = a100_arch();
        change(&mut arch);
        match validate(&[arch], &[]) {
            Ok(()) => vec![],
            Err(PluginError::InvalidValues { problems }) => {
                problems.iter().map(|p| p.field).collect()
            }
            Err(other) => panic!("unexpected error {other}"),
        }
    }

    #[test]
    fn reference_values_pass() {
        assert!(validate(&[a100_arch()], &[a100_device()]).is_ok());
    }

    #[test]
    fn each_impossible_arch_value_is_named() {
        assert_eq!(
            arch_problems(|a| a.max_warps_per_sm = 65),
            vec!["max_warps_per_sm"]
        );
        assert_eq!(
            arch_problems(|a| a.max_threads_per_sm = 2047),
            vec!["max_warps_per_sm"]
        );
        assert_eq!(
            arch_problems(|a| a.max_warps_per_sm = 48),
            vec!["max_threads_per_sm"]
        );
        assert_eq!(
            arch_problems(|a| a.sub_partitions = 5),
            vec!["sub_partitions"]
        );
        assert_eq!(
            arch_problems(|a| a.smem_alloc_unit = 100),
            vec!["smem_alloc_unit"]
        );
        assert_eq!(
            arch_problems(|a| a.reg_alloc_unit = 0),
            vec!["reg_alloc_unit"]
        );
        assert_eq!(
            arch_problems(|a| a.smem_per_block_optin = 200_000),
            vec!["smem_per_block_optin"]
        );
        assert_eq!(arch_problems(|a| a.carveouts.swap(0, 1)), vec!["carveouts"]);
        assert_eq!(
            arch_problems(|a| {
                a.carveouts.pop();
            }),
            vec!["carveouts"]
        );
        assert_eq!(
            arch_problems(|a| a.cc = ComputeCapability::new(8, 12)),
            vec!["cc_minor"]
        );
        assert_eq!(
            arch_problems(|a| a.latencies.dram = -1.0),
            vec!["latencies.dram"]
        );
        assert_eq!(
            arch_problems(|a| a.throughput.fp32 = f64::INFINITY),
            vec!["throughput.fp32"]
        );
        assert_eq!(
            arch_problems(|a| a.max_blocks_per_sm = 0),
            vec!["max_blocks_per_sm"]
        );
        assert_eq!(arch_problems(|a| a.pipes.fma = 0.0), vec!["pipes.fma"]);
        assert_eq!(
            arch_problems(|a| a.pipes.tensor_gmma = f64::INFINITY),
            vec!["pipes.tensor_gmma"]
        );
        assert_eq!(arch_problems(|a| a.pipes.alu = 5.0), vec!["pipes.alu"]);
        assert_eq!(
            arch_problems(|a| a.mma.tf32_flop = -1.0),
            vec!["mma.tf32_flop"]
        );
        assert_eq!(
            arch_problems(|a| a.mma.dmma_min_cycles = 0.0),
            vec!["mma.dmma_min_cycles"]
        );
        assert_eq!(
            arch_problems(|a| a.l1_wavefronts_per_clk = -1.0),
            vec!["l1_wavefronts_per_clk"]
        );
        assert_eq!(arch_problems(|a| a.pipes.xu = f64::NAN), Vec::<&str>::new());
    }

    #[test]
    fn impossible_sass_opcode_tables_are_named() {
        let entry = |opcode: &str, pipe| (opcode.to_string(), pipe);
        let good = vec![
            entry("FFMA", Pipe::Fma),
            entry("IADD3", Pipe::Alu),
            entry("UTMALDG", Pipe::Uniform),
            entry("I2F_X", Pipe::Xu),
        ];
        let with = |table: Vec<(String, Pipe)>| arch_problems(move |a| a.sass_pipes = table);
        assert_eq!(with(good.clone()), Vec::<&str>::new());
        for bad in [
            "", "ffma", "Ffma", "FFMA.FTZ", "FF MA", " FFMA", "FFMÄ", "2FMA", "FF-MA",
        ] {
            let mut table = good.clone();
            table.push(entry(bad, Pipe::Fma));
            assert_eq!(with(table), vec!["sass_pipes"], "{bad:?}");
        }
        let mut twice = good.clone();
        twice.push(entry("FFMA", Pipe::FmaFp16));
        let mut arch = a100_arch();
        arch.sass_pipes = twice;
        let Err(PluginError::InvalidValues { problems }) = validate(&[arch], &[]) else {
            panic!("expected invalid values");
        };
        assert_eq!(
            problems[0].to_string(),
            "arch 8.0: sass_pipes entry #4: opcode FFMA appears twice (the second is fma_type_fp16)"
        );
        // A pipe code the ABI does not know is rejected while the table is converted.
        let cc = ComputeCapability::new(8, 0);
        assert_eq!(pipe_code(cc, 0, "HMMA", 12).ok(), Some(Pipe::TensorHmma));
        match pipe_code(cc, 3, "FFMA", 16) {
            Err(PluginError::InvalidValues { problems }) => {
                assert_eq!(problems[0].field, "sass_pipes");
                assert_eq!(
                    problems[0].to_string(),
                    "arch 8.0: sass_pipes entry #3 (\"FFMA\") has pipe 16; expected 0..=15 (PIPE_FMA … PIPE_TENSOR_GMMA)"
                );
            }
            other => panic!("expected invalid values, got {other:?}"),
        }
    }

    #[test]
    fn impossible_base_clocks_are_named() {
        let fields = |base: f64| {
            let mut device = a100_device();
            device.base_clock_hz = base;
            match validate(&[], &[device]) {
                Ok(()) => vec![],
                Err(PluginError::InvalidValues { problems }) => {
                    problems.iter().map(|p| p.message.clone()).collect()
                }
                Err(other) => panic!("unexpected error {other}"),
            }
        };
        // Unknown, below and at the boost clock (1.41 GHz) are fine.
        for ok in [f64::NAN, 1.095e9, 1.41e9] {
            assert_eq!(fields(ok), Vec::<String>::new(), "{ok}");
        }
        assert_eq!(
            fields(1.5e9),
            vec!["is 1500000000; exceeds the boost clock sm_clock_hz 1410000000".to_string()]
        );
        for bad in [0.0, -1e9, f64::INFINITY] {
            let problems = fields(bad);
            assert_eq!(problems.len(), 1, "{bad}");
            assert!(
                problems[0].contains("finite positive"),
                "{bad}: {problems:?}"
            );
        }
        let mut device = a100_device();
        device.base_clock_hz = 0.0;
        let Err(PluginError::InvalidValues { problems }) = validate(&[], &[device]) else {
            panic!("expected invalid values");
        };
        assert_eq!(problems[0].field, "base_clock_hz");
    }

    #[test]
    fn impossible_time_model_device_values_are_named() {
        let mut device = a100_device();
        device.dram_achievable_fraction = 1.2;
        device.dram_latency_cycles = 0.0;
        device.l2_achievable_bandwidth = f64::NEG_INFINITY;
        device.l2_slices = 5000;
        device.tensor_clock_hz = f64::NAN;
        let Err(PluginError::InvalidValues { problems }) = validate(&[], &[device]) else {
            panic!("expected invalid values");
        };
        let fields: Vec<&str> = problems.iter().map(|p| p.field).collect();
        assert_eq!(
            fields,
            vec![
                "dram_achievable_fraction",
                "dram_latency_cycles",
                "l2_achievable_bandwidth",
                "l2_slices",
                "tensor_clock_hz"
            ]
        );
        assert!(problems[0].message.contains("(0, 1]"), "{}", problems[0]);
        let mut device = a100_device();
        device.dram_achievable_fraction = 0.0;
        assert!(validate(&[], &[device]).is_err());
    }

    #[test]
    fn impossible_device_values_and_duplicates_are_named() {
        let mut device = a100_device();
        device.sm_count = 0;
        device.sm_clock_hz = f64::NAN;
        device.peak.fp32 = 0.0;
        let Err(PluginError::InvalidValues { problems }) =
            validate(&[a100_arch(), a100_arch()], &[device])
        else {
            panic!("expected invalid values");
        };
        let fields: Vec<&str> = problems.iter().map(|p| p.field).collect();
        assert_eq!(fields, vec!["sm_count", "sm_clock_hz", "peak.fp32", "cc"]);
        assert_eq!(
            problems[0].to_string(),
            "device \"NVIDIA A100-SXM4-40GB\": sm_count is 0; expected at least 1"
        );
    }
}
