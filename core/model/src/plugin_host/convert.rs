//! Copies the plugin's C descriptors into the model's safe Rust types ([`ArchSpec`],
//! [`DeviceSpec`]), checking strings for UTF-8 and pointers for null on the way. Numbers are
//! checked afterwards by [`super::validate`].

use warpsight_plugin::{
    ArchDesc, DeviceDesc, LatencyDesc, PeakDesc, REG_ALLOC_BLOCK, REG_ALLOC_WARP, Str, ThroughputDesc,
};

use super::errors::PluginError;
use crate::arch::{ArchSpec, ComputeCapability, DeviceSpec, Latencies, PeakFlops, RegisterAllocation, Throughput};

/// The most entries any array in a table may have; more means a corrupt count.
pub const MAX_ENTRIES: usize = 4096;

/// Copies a plugin string.
///
/// # Safety
/// `text` points into the loaded library (valid for `len` bytes) or is null with `len` 0.
pub unsafe fn copy_str(text: Str, what: impl Fn() -> String) -> Result<String, PluginError> {
    if text.ptr.is_null() && text.len > 0 {
        return Err(PluginError::Malformed(format!(
            "{} is a null pointer with length {}",
            what(),
            text.len
        )));
    }
    if text.len > 1 << 20 {
        return Err(PluginError::Malformed(format!(
            "{} has an implausible length {}",
            what(),
            text.len
        )));
    }
    // SAFETY: non-null (or empty) and valid for `len` bytes by the caller's guarantee.
    let bytes = unsafe { text.as_bytes() };
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| PluginError::InvalidUtf8 { what: what() })
}

/// Copies `count` values of `T` starting at `ptr`.
///
/// # Safety
/// `ptr` is valid for `count` reads of `T` (or null with `count` 0).
pub unsafe fn copy_array<T: Copy>(ptr: *const T, count: usize, what: &str) -> Result<Vec<T>, PluginError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(PluginError::Malformed(format!(
            "{what} is a null pointer with {count} entries"
        )));
    }
    if count > MAX_ENTRIES {
        return Err(PluginError::Malformed(format!(
            "{what} has an implausible {count} entries"
        )));
    }
    // SAFETY: non-null and valid for `count` elements by the caller's guarantee; unaligned reads
    // keep us safe from a plugin that misaligned its data.
    Ok((0..count).map(|i| unsafe { ptr.add(i).read_unaligned() }).collect())
}

fn latencies(l: &LatencyDesc) -> Latencies {
    Latencies {
        fp32: l.fp32,
        int32: l.int32,
        fp64: l.fp64,
        sfu: l.sfu,
        tensor: l.tensor,
        shared: l.shared,
        l1_hit: l.l1_hit,
        l2_hit: l.l2_hit,
        dram: l.dram,
    }
}

fn throughput(t: &ThroughputDesc) -> Throughput {
    Throughput {
        fp32: t.fp32,
        fp64: t.fp64,
        fp16: t.fp16,
        int32: t.int32,
        sfu: t.sfu,
        tensor_fp16_flop: t.tensor_fp16_flop,
        tensor_bf16_flop: t.tensor_bf16_flop,
        tensor_tf32_flop: t.tensor_tf32_flop,
        tensor_fp8_flop: t.tensor_fp8_flop,
        tensor_int8_op: t.tensor_int8_op,
        tensor_fp64_flop: t.tensor_fp64_flop,
        flop_per_tensor_inst: t.flop_per_tensor_inst,
        l1_bytes_per_clk: t.l1_bytes_per_clk,
    }
}

fn peak(p: &PeakDesc) -> PeakFlops {
    PeakFlops {
        fp64: p.fp64,
        fp32: p.fp32,
        fp16: p.fp16,
        fp64_tensor: p.fp64_tensor,
        tf32_tensor: p.tf32_tensor,
        fp16_tensor: p.fp16_tensor,
        fp8_tensor: p.fp8_tensor,
        int8_tensor: p.int8_tensor,
    }
}

/// Converts an architecture descriptor.
///
/// # Safety
/// The descriptor's pointers point into the loaded library, valid as its counts say.
pub unsafe fn arch_spec(desc: &ArchDesc, index: usize) -> Result<ArchSpec, PluginError> {
    let cc = ComputeCapability::new(desc.cc_major, desc.cc_minor);
    // SAFETY: forwarded from the caller.
    let name = unsafe { copy_str(desc.name, || format!("the name of arch #{index} ({cc})")) }?;
    // SAFETY: forwarded from the caller.
    let carveouts = unsafe {
        copy_array(
            desc.carveouts,
            desc.carveout_count,
            &format!("the carveouts of arch {cc}"),
        )
    }?;
    let reg_alloc_granularity = match desc.reg_alloc_granularity {
        REG_ALLOC_WARP => RegisterAllocation::Warp,
        REG_ALLOC_BLOCK => RegisterAllocation::Block,
        other => {
            return Err(PluginError::Malformed(format!(
                "arch {cc}: reg_alloc_granularity {other} is neither {REG_ALLOC_WARP} (warp) nor {REG_ALLOC_BLOCK} (block)"
            )));
        }
    };
    let partitioned_gc_supported = match desc.partitioned_gc_supported {
        0 => false,
        1 => true,
        other => {
            return Err(PluginError::Malformed(format!(
                "arch {cc}: partitioned_gc_supported is {other}, expected 0 or 1"
            )));
        }
    };
    Ok(ArchSpec {
        cc,
        name,
        threads_per_warp: desc.threads_per_warp,
        max_warps_per_sm: desc.max_warps_per_sm,
        max_threads_per_sm: desc.max_threads_per_sm,
        max_blocks_per_sm: desc.max_blocks_per_sm,
        max_threads_per_block: desc.max_threads_per_block,
        regs_per_sm: desc.regs_per_sm,
        max_regs_per_block: desc.max_regs_per_block,
        max_regs_per_thread: desc.max_regs_per_thread,
        reg_alloc_unit: desc.reg_alloc_unit,
        reg_alloc_granularity,
        sub_partitions: desc.sub_partitions,
        smem_per_sm: desc.smem_per_sm,
        smem_per_block_default: desc.smem_per_block_default,
        smem_per_block_optin: desc.smem_per_block_optin,
        smem_alloc_unit: desc.smem_alloc_unit,
        smem_reserved_per_block: desc.smem_reserved_per_block,
        carveouts,
        barrier_multiplier: desc.barrier_multiplier,
        virtual_resources_per_sm: desc.virtual_resources_per_sm,
        partitioned_gc_supported,
        warp_schedulers_per_sm: desc.warp_schedulers_per_sm,
        issue_per_scheduler_per_clk: desc.issue_per_scheduler_per_clk,
        latencies: latencies(&desc.latencies),
        throughput: throughput(&desc.throughput),
        // Interim defaults until the ABI carries pipe rates: SPEC §2.2 derivations.
        pipes: crate::arch::PipeRates {
            fma: desc.throughput.fp32 / 32.0,
            fma_fp16: 2.0,
            fp64: desc.throughput.fp64 / 32.0,
            alu: 2.0,
            xu: 0.5,
            lsu: 1.0,
            adu: 1.0,
            cbu: 2.0,
            uniform: 4.0,
            ipa: 0.5,
            tex: 0.25,
            tma: 0.5,
            tensor_hmma: 0.667,
            tensor_imma: 0.667,
            tensor_dmma: 0.5,
            tensor_gmma: 0.0625,
        },
        l1_wavefronts_per_clk: 1.0,
    })
}

/// Converts a device descriptor.
///
/// # Safety
/// The descriptor's pointers point into the loaded library, valid as its counts say.
pub unsafe fn device_spec(desc: &DeviceDesc, index: usize) -> Result<DeviceSpec, PluginError> {
    // SAFETY: forwarded from the caller.
    let name = unsafe { copy_str(desc.name, || format!("the name of device #{index}")) }?;
    // SAFETY: forwarded from the caller.
    let raw_aliases = unsafe {
        copy_array(
            desc.aliases,
            desc.alias_count,
            &format!("the aliases of device {name:?}"),
        )
    }?;
    let aliases = raw_aliases
        .into_iter()
        .enumerate()
        // SAFETY: forwarded from the caller.
        .map(|(i, alias)| unsafe { copy_str(alias, || format!("alias #{i} of device {name:?}")) })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DeviceSpec {
        name,
        aliases,
        cc: ComputeCapability::new(desc.cc_major, desc.cc_minor),
        sm_count: desc.sm_count,
        sm_clock_hz: desc.sm_clock_hz,
        mem_clock_hz: desc.mem_clock_hz,
        dram_bandwidth: desc.dram_bandwidth,
        l2_bytes: desc.l2_bytes,
        l2_bandwidth: desc.l2_bandwidth,
        peak: peak(&desc.peak),
        // Interim defaults until the ABI carries these numbers.
        dram_achievable_fraction: 0.85,
        dram_latency_cycles: f64::NAN,
        l2_achievable_bandwidth: f64::NAN,
        l2_slices: 0,
        tensor_clock_hz: desc.sm_clock_hz,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_must_be_utf8_and_non_null() {
        static BAD: [u8; 3] = [b'a', 0xff, b'b'];
        let bad = Str { ptr: BAD.as_ptr(), len: BAD.len() };
        // SAFETY: `BAD` is a static valid for its length.
        let result = unsafe { copy_str(bad, || "the device name".to_string()) };
        assert_eq!(result.map_err(|e| e.to_string()), Err("the device name is not valid UTF-8".to_string()));
        let dangling = Str { ptr: std::ptr::null(), len: 4 };
        // SAFETY: a null pointer is rejected before any read.
        let result = unsafe { copy_str(dangling, || "the name".to_string()) };
        assert!(matches!(result, Err(PluginError::Malformed(_))));
        // SAFETY: a static string.
        assert_eq!(unsafe { copy_str(Str::from_static("H200"), String::new) }.ok(), Some("H200".to_string()));
    }

    #[test]
    fn implausible_counts_are_rejected_before_reading() {
        let one = [1u32];
        // SAFETY: the count is rejected before any read past the single element.
        let result = unsafe { copy_array(one.as_ptr(), MAX_ENTRIES + 1, "carveouts") };
        assert!(matches!(result, Err(PluginError::Malformed(m)) if m.contains("implausible")));
    }
}
