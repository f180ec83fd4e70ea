//! Checks every number a plugin delivers before the model may use it: no zero counts or clocks,
//! limits that agree with each other (max warps × 32 = max threads, opt-in ≤ per-SM shared memory,
//! carveouts ascending up to the per-SM size, ...), allocation units that are powers of two, and
//! rates that are finite and positive or NaN (unknown).

use super::errors::{PluginError, ValueProblem};
use crate::arch::{ArchSpec, DeviceSpec};

/// Collects problems about one item.
struct Checker<'a> {
    item: String,
    problems: &'a mut Vec<ValueProblem>,
}

impl Checker<'_> {
    fn fail(&mut self, field: &'static str, message: String) {
        self.problems.push(ValueProblem { item: self.item.clone(), field, message });
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
            self.fail(field, format!("is {value}; expected a finite positive number or NaN (unknown)"));
        }
    }

    /// A number that must be known: finite and positive.
    fn positive(&mut self, field: &'static str, value: f64) {
        if !(value.is_finite() && value > 0.0) {
            self.fail(field, format!("is {value}; expected a finite positive number"));
        }
    }
}

/// Problems of one architecture.
fn check_arch(arch: &ArchSpec, problems: &mut Vec<ValueProblem>) {
    let mut c = Checker { item: format!("arch {}", arch.cc), problems };
    c.in_range("cc_major", u64::from(arch.cc.major), 1, 99);
    c.in_range("cc_minor", u64::from(arch.cc.minor), 0, 9);
    if arch.name.trim().is_empty() {
        c.fail("name", "is empty".to_string());
    }
    if arch.threads_per_warp != 32 {
        c.fail("threads_per_warp", format!("is {}; expected 32", arch.threads_per_warp));
    }
    c.at_least("max_warps_per_sm", u64::from(arch.max_warps_per_sm), 1);
    c.at_least("max_threads_per_sm", u64::from(arch.max_threads_per_sm), 1);
    let warp = u64::from(arch.threads_per_warp.max(1));
    let threads_as_warps = u64::from(arch.max_threads_per_sm) / warp;
    if u64::from(arch.max_warps_per_sm) > threads_as_warps {
        c.fail(
            "max_warps_per_sm",
            format!("is {}; exceeds max_threads_per_sm / 32 = {threads_as_warps}", arch.max_warps_per_sm),
        );
    } else if u64::from(arch.max_warps_per_sm) * warp != u64::from(arch.max_threads_per_sm) {
        c.fail(
            "max_threads_per_sm",
            format!("is {}; expected max_warps_per_sm × 32 = {}", arch.max_threads_per_sm, u64::from(arch.max_warps_per_sm) * warp),
        );
    }
    c.at_least("max_blocks_per_sm", u64::from(arch.max_blocks_per_sm), 1);
    c.in_range("max_threads_per_block", u64::from(arch.max_threads_per_block), 1, u64::from(arch.max_threads_per_sm.max(1)));
    c.at_least("regs_per_sm", u64::from(arch.regs_per_sm), 1);
    c.in_range("max_regs_per_block", u64::from(arch.max_regs_per_block), 1, u64::from(arch.regs_per_sm.max(1)));
    c.in_range("max_regs_per_thread", u64::from(arch.max_regs_per_thread), 1, 256);
    c.power_of_two("reg_alloc_unit", arch.reg_alloc_unit);
    c.in_range("sub_partitions", u64::from(arch.sub_partitions), 1, 4);
    c.at_least("smem_per_sm", u64::from(arch.smem_per_sm), 1);
    if arch.smem_per_block_optin > arch.smem_per_sm {
        c.fail("smem_per_block_optin", format!("is {}; exceeds smem_per_sm {}", arch.smem_per_block_optin, arch.smem_per_sm));
    }
    if arch.smem_per_block_default > arch.smem_per_block_optin {
        c.fail(
            "smem_per_block_default",
            format!("is {}; exceeds smem_per_block_optin {}", arch.smem_per_block_default, arch.smem_per_block_optin),
        );
    }
    c.power_of_two("smem_alloc_unit", arch.smem_alloc_unit);
    if arch.smem_reserved_per_block >= arch.smem_per_sm.max(1) {
        c.fail("smem_reserved_per_block", format!("is {}; must be below smem_per_sm", arch.smem_reserved_per_block));
    }
    match arch.carveouts.last() {
        None => c.fail("carveouts", "is empty; expected at least the per-SM size".to_string()),
        Some(&last) => {
            if let Some(pair) = arch.carveouts.windows(2).find(|w| w[0] >= w[1]) {
                c.fail("carveouts", format!("are not strictly ascending ({} then {})", pair[0], pair[1]));
            }
            if last != arch.smem_per_sm {
                c.fail("carveouts", format!("end at {last}; expected the largest to equal smem_per_sm {}", arch.smem_per_sm));
            }
        }
    }
    c.in_range("barrier_multiplier", u64::from(arch.barrier_multiplier), 0, 16);
    c.in_range("warp_schedulers_per_sm", u64::from(arch.warp_schedulers_per_sm), 1, 8);
    c.in_range("issue_per_scheduler_per_clk", u64::from(arch.issue_per_scheduler_per_clk), 1, 4);
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
}

/// Problems of one device.
fn check_device(device: &DeviceSpec, problems: &mut Vec<ValueProblem>) {
    let mut c = Checker { item: format!("device {:?}", device.name), problems };
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
}

/// Validates everything one plugin provides; duplicates inside one plugin are problems too.
pub fn validate(archs: &[ArchSpec], devices: &[DeviceSpec]) -> Result<(), PluginError> {
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
            problems.push(ValueProblem { item: format!("arch {}", arch.cc), field: "cc", message: "appears twice".into() });
        }
    }
    let mut seen_name = std::collections::HashSet::new();
    for device in devices {
        if !seen_name.insert(crate::arch::registry::normalize_device_name(&device.name)) {
            problems.push(ValueProblem {
                item: format!("device {:?}", device.name),
                field: "name",
                message: "appears twice".into(),
            });
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(PluginError::InvalidValues { problems }) }
}
