//! Copies the plugin's C descriptors into the spec types ([`ArchSpec`], [`DeviceSpec`]): the one
//! conversion from the C descriptors to the spec, checking strings for UTF-8 and pointers for null
//! on the way. Fields a plugin does not have (it was built against an older ABI minor, see
//! [`Layout`]) get the documented defaults. Numbers are checked afterwards by [`crate::validate`].

use std::mem::{offset_of, size_of};

use warpsight_plugin::{
    ArchDesc, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceDesc, LatencyDesc, MmaRatesDesc, PeakDesc,
    PipeRatesDesc, REG_ALLOC_BLOCK, REG_ALLOC_WARP, SassPipeDesc, Str, ThroughputDesc,
};

use crate::errors::PluginError;
use warpsight_model::arch::{
    ArchSpec, ComputeCapability, DeviceSpec, Latencies, MmaRates, PeakFlops, Pipe, PipeRates,
    RegisterAllocation, Throughput,
};

/// What a plugin's table says about its descriptors: the ABI minor it was built with and the
/// descriptor sizes (strides). A field appended in minor `m` is read only when the plugin's minor
/// is at least `m` and its descriptor size covers the whole field; otherwise it gets its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The plugin's `abi_minor`.
    pub(crate) abi_minor: u32,
    /// The plugin's `arch_desc_size`.
    pub(crate) arch_desc_size: usize,
    /// The plugin's `device_desc_size`.
    pub(crate) device_desc_size: usize,
}

impl Layout {
    /// The layout of a plugin built with this host's SDK.
    #[cfg(test)]
    pub(crate) const CURRENT: Layout = Layout {
        abi_minor: warpsight_plugin::ABI_MINOR,
        arch_desc_size: size_of::<ArchDesc>(),
        device_desc_size: size_of::<DeviceDesc>(),
    };

    /// Whether an arch-descriptor field of `len` bytes at `offset`, appended in minor `minor`, is
    /// present.
    fn arch_has(&self, minor: u32, offset: usize, len: usize) -> bool {
        self.abi_minor >= minor && self.arch_desc_size >= offset + len
    }

    /// Whether a device-descriptor field of `len` bytes at `offset`, appended in minor `minor`, is
    /// present.
    fn device_has(&self, minor: u32, offset: usize, len: usize) -> bool {
        self.abi_minor >= minor && self.device_desc_size >= offset + len
    }
}

/// The most entries any array in a table may have; more means a corrupt count.
pub(crate) const MAX_ENTRIES: usize = 4096;

/// Copies a plugin string.
///
/// # Safety
/// `text` points into the loaded library (valid for `len` bytes) or is null with `len` 0.
pub(crate) unsafe fn copy_str(text: Str, what: impl Fn() -> String) -> Result<String, PluginError> {
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
pub(crate) unsafe fn copy_array<T: Copy>(
    ptr: *const T,
    count: usize,
    what: &str,
) -> Result<Vec<T>, PluginError> {
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
    Ok((0..count)
        .map(|i| unsafe { ptr.add(i).read_unaligned() })
        .collect())
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

fn pipes(p: &PipeRatesDesc) -> PipeRates {
    PipeRates {
        fma: p.fma,
        fma_fp16: p.fma_fp16,
        fp64: p.fp64,
        alu: p.alu,
        xu: p.xu,
        lsu: p.lsu,
        adu: p.adu,
        cbu: p.cbu,
        uniform: p.uniform,
        ipa: p.ipa,
        tex: p.tex,
        tma: p.tma,
        tensor_hmma: p.tensor_hmma,
        tensor_imma: p.tensor_imma,
        tensor_dmma: p.tensor_dmma,
        tensor_gmma: p.tensor_gmma,
    }
}

fn mma(m: &MmaRatesDesc) -> MmaRates {
    MmaRates {
        fp16_flop: m.fp16_flop,
        bf16_flop: m.bf16_flop,
        tf32_flop: m.tf32_flop,
        fp8_flop: m.fp8_flop,
        int8_op: m.int8_op,
        fp64_flop: m.fp64_flop,
        hmma_min_cycles: m.hmma_min_cycles,
        imma_min_cycles: m.imma_min_cycles,
        dmma_min_cycles: m.dmma_min_cycles,
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

/// Copies an architecture's SASS opcode → pipe table (ABI minor 3). Opcode strings must be UTF-8;
/// a pipe code out of range is an invalid value named `sass_pipes` ([`crate::validate::pipe_code`]);
/// the opcodes themselves are checked by [`crate::validate`].
///
/// # Safety
/// `desc.sass_pipes` is valid for `desc.sass_pipe_count` entries (or null with count 0), and
/// their strings point into the loaded library.
unsafe fn sass_pipes(
    desc: &ArchDesc,
    cc: ComputeCapability,
) -> Result<Vec<(String, Pipe)>, PluginError> {
    // SAFETY: forwarded from the caller.
    let entries: Vec<SassPipeDesc> = unsafe {
        copy_array(
            desc.sass_pipes,
            desc.sass_pipe_count,
            &format!("the SASS opcode table of arch {cc}"),
        )
    }?;
    entries
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            // SAFETY: the entry's string points into the loaded library (caller's guarantee).
            let opcode = unsafe {
                copy_str(entry.opcode, || {
                    format!("opcode #{i} of the SASS opcode table of arch {cc}")
                })
            }?;
            let pipe = crate::validate::pipe_code(cc, i, &opcode, entry.pipe)?;
            Ok((opcode, pipe))
        })
        .collect()
}

/// Converts an architecture descriptor. Fields that `layout` says are absent (minor 1: `pipes`,
/// `l1_wavefronts_per_clk`; minor 2: `mma`; minor 3: `sass_pipes`) get their defaults: pipes from
/// [`PipeRates::defaults_from`] the throughput, one L1 wavefront per cycle, [`MmaRates::UNKNOWN`],
/// an empty opcode table (every opcode then counts only in the total instructions).
///
/// # Safety
/// The descriptor's pointers point into the loaded library, valid as its counts say.
pub(crate) unsafe fn arch_spec(
    desc: &ArchDesc,
    layout: &Layout,
    index: usize,
) -> Result<ArchSpec, PluginError> {
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
    let throughput = throughput(&desc.throughput);
    let pipes = if layout.arch_has(1, offset_of!(ArchDesc, pipes), size_of::<PipeRatesDesc>()) {
        pipes(&desc.pipes)
    } else {
        PipeRates::defaults_from(&throughput)
    };
    let l1_wavefronts_per_clk = if layout.arch_has(
        1,
        offset_of!(ArchDesc, l1_wavefronts_per_clk),
        size_of::<f64>(),
    ) {
        desc.l1_wavefronts_per_clk
    } else {
        1.0
    };
    let mma = if layout.arch_has(2, offset_of!(ArchDesc, mma), size_of::<MmaRatesDesc>()) {
        mma(&desc.mma)
    } else {
        MmaRates::UNKNOWN
    };
    let sass_pipes = if layout.arch_has(
        3,
        offset_of!(ArchDesc, sass_pipes),
        size_of::<*const SassPipeDesc>() + size_of::<usize>(),
    ) {
        // SAFETY: the field is present, so the plugin promises its table as the ABI describes;
        // the rest is forwarded from the caller.
        unsafe { sass_pipes(desc, cc) }?
    } else {
        Vec::new()
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
        throughput,
        pipes,
        l1_wavefronts_per_clk,
        mma,
        sass_pipes,
    })
}

/// Converts a device descriptor. Fields that `layout` says are absent (minor 1 and 3) get their
/// defaults: DRAM fraction [`DEFAULT_DRAM_ACHIEVABLE_FRACTION`], DRAM latency the `latencies.dram`
/// of the same plugin's arch of the device's CC (NaN when the plugin has none), L2 achievable
/// bandwidth NaN, L2 slices 0, tensor clock the SM clock, base clock NaN (unknown).
///
/// # Safety
/// The descriptor's pointers point into the loaded library, valid as its counts say.
pub(crate) unsafe fn device_spec(
    desc: &DeviceDesc,
    layout: &Layout,
    archs: &[ArchSpec],
    index: usize,
) -> Result<DeviceSpec, PluginError> {
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
    let cc = ComputeCapability::new(desc.cc_major, desc.cc_minor);
    let f64_field = |minor: u32, offset: usize, value: f64, default: f64| {
        if layout.device_has(minor, offset, size_of::<f64>()) {
            value
        } else {
            default
        }
    };
    let arch_dram_latency = archs
        .iter()
        .find(|a| a.cc == cc)
        .map_or(f64::NAN, |a| a.latencies.dram);
    let dram_achievable_fraction = f64_field(
        1,
        offset_of!(DeviceDesc, dram_achievable_fraction),
        desc.dram_achievable_fraction,
        DEFAULT_DRAM_ACHIEVABLE_FRACTION,
    );
    let dram_latency_cycles = f64_field(
        1,
        offset_of!(DeviceDesc, dram_latency_cycles),
        desc.dram_latency_cycles,
        arch_dram_latency,
    );
    let l2_achievable_bandwidth = f64_field(
        1,
        offset_of!(DeviceDesc, l2_achievable_bandwidth),
        desc.l2_achievable_bandwidth,
        f64::NAN,
    );
    let tensor_clock_hz = f64_field(
        1,
        offset_of!(DeviceDesc, tensor_clock_hz),
        desc.tensor_clock_hz,
        desc.sm_clock_hz,
    );
    let base_clock_hz = f64_field(
        3,
        offset_of!(DeviceDesc, base_clock_hz),
        desc.base_clock_hz,
        f64::NAN,
    );
    let l2_slices = if layout.device_has(1, offset_of!(DeviceDesc, l2_slices), size_of::<u32>()) {
        desc.l2_slices
    } else {
        0
    };
    Ok(DeviceSpec {
        name,
        aliases,
        cc,
        sm_count: desc.sm_count,
        sm_clock_hz: desc.sm_clock_hz,
        mem_clock_hz: desc.mem_clock_hz,
        dram_bandwidth: desc.dram_bandwidth,
        l2_bytes: desc.l2_bytes,
        l2_bandwidth: desc.l2_bandwidth,
        peak: peak(&desc.peak),
        dram_achievable_fraction,
        dram_latency_cycles,
        l2_achievable_bandwidth,
        l2_slices,
        tensor_clock_hz,
        base_clock_hz,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_must_be_utf8_and_non_null() {
        static BAD: [u8; 3] = [b'a', 0xff, b'b'];
        let bad = Str {
            ptr: BAD.as_ptr(),
            len: BAD.len(),
        };
        // SAFETY: `BAD` is a static valid for its length.
        let result = unsafe { copy_str(bad, || "the device name".to_string()) };
        assert_eq!(
            result.map_err(|e| e.to_string()),
            Err("the device name is not valid UTF-8".to_string())
        );
        let dangling = Str {
            ptr: std::ptr::null(),
            len: 4,
        };
        // SAFETY: a null pointer is rejected before any read.
        let result = unsafe { copy_str(dangling, || "the name".to_string()) };
        assert!(matches!(result, Err(PluginError::Malformed(_))));
        // SAFETY: a static string.
        let copied = unsafe { copy_str(Str::from_static("H200"), String::new) };
        assert_eq!(copied.ok(), Some("H200".to_string()));
    }

    /// The fixture arch and device with a known DRAM latency, through the SDK's conversion.
    fn descriptors() -> (ArchSpec, DeviceSpec, ArchDesc, DeviceDesc) {
        let mut arch = crate::validate::tests::a100_arch();
        arch.latencies.dram = 466.0;
        arch.pipes.tensor_gmma = 0.0625;
        arch.l1_wavefronts_per_clk = 2.0;
        arch.mma.fp16_flop = 1024.0;
        arch.mma.hmma_min_cycles = 2.0;
        arch.sass_pipes = vec![
            ("FFMA".to_string(), Pipe::Fma),
            ("HMMA".to_string(), Pipe::TensorHmma),
            ("UTMALDG".to_string(), Pipe::Tma),
        ];
        let mut device = crate::validate::tests::a100_device();
        device.dram_achievable_fraction = 0.9;
        device.l2_slices = 80;
        device.tensor_clock_hz = 1.3e9;
        device.base_clock_hz = 1.095e9;
        let (arch_desc, device_desc) = (
            warpsight_plugin::arch_desc(&arch),
            warpsight_plugin::device_desc(&device),
        );
        (arch, device, arch_desc, device_desc)
    }

    #[test]
    fn spec_round_trips_through_the_c_descriptors() {
        let (arch, device, arch_desc, device_desc) = descriptors();
        // SAFETY: the descriptors point at leaked, valid SDK data.
        let back_arch =
            unsafe { arch_spec(&arch_desc, &Layout::CURRENT, 0) }.expect("arch converts");
        // SAFETY: as above.
        let back_device = unsafe { device_spec(&device_desc, &Layout::CURRENT, &[], 0) }
            .expect("device converts");
        // NaN ≠ NaN, so compare the debug forms (which print NaN as "NaN").
        assert_eq!(format!("{back_arch:?}"), format!("{arch:?}"));
        assert_eq!(format!("{back_device:?}"), format!("{device:?}"));
    }

    #[test]
    fn a_minor_0_descriptor_gets_the_documented_defaults() {
        let (arch, device, arch_desc, device_desc) = descriptors();
        let minor_0 = Layout {
            abi_minor: 0,
            arch_desc_size: warpsight_plugin::ARCH_DESC_SIZE_MINOR_0,
            device_desc_size: warpsight_plugin::DEVICE_DESC_SIZE_MINOR_0,
        };
        // SAFETY: the descriptors point at leaked, valid SDK data.
        let old_arch = unsafe { arch_spec(&arch_desc, &minor_0, 0) }.expect("arch converts");
        // The appended fields are ignored; everything before them is read.
        assert_eq!(old_arch.l1_wavefronts_per_clk, 1.0);
        assert_eq!(
            format!("{:?}", old_arch.pipes),
            format!("{:?}", PipeRates::defaults_from(&arch.throughput))
        );
        assert_eq!(
            (old_arch.pipes.fma, old_arch.pipes.alu, old_arch.pipes.xu),
            (2.0, 2.0, 0.5)
        );
        assert!(old_arch.pipes.tensor_gmma.is_nan());
        assert!(old_arch.mma.fp16_flop.is_nan() && old_arch.mma.hmma_min_cycles.is_nan());
        assert!(old_arch.sass_pipes.is_empty());
        assert_eq!(old_arch.smem_per_sm, arch.smem_per_sm);
        // SAFETY: as above.
        let old_device = unsafe { device_spec(&device_desc, &minor_0, &[old_arch], 0) }
            .expect("device converts");
        assert_eq!(
            old_device.dram_achievable_fraction,
            DEFAULT_DRAM_ACHIEVABLE_FRACTION
        );
        assert_eq!(
            old_device.dram_latency_cycles, 466.0,
            "the arch's latencies.dram"
        );
        assert!(old_device.l2_achievable_bandwidth.is_nan());
        assert_eq!(old_device.l2_slices, 0);
        assert_eq!(old_device.tensor_clock_hz, device.sm_clock_hz);
        assert!(old_device.base_clock_hz.is_nan());
        assert_eq!(old_device.sm_count, device.sm_count);
        // Without an arch of its CC in the same plugin the DRAM latency is unknown.
        // SAFETY: as above.
        let lone = unsafe { device_spec(&device_desc, &minor_0, &[], 0) }.expect("device converts");
        assert!(lone.dram_latency_cycles.is_nan());
        // A minor-1 plugin whose descriptor stops short of a field does not have that field.
        let short = Layout {
            arch_desc_size: std::mem::offset_of!(ArchDesc, l1_wavefronts_per_clk),
            ..Layout::CURRENT
        };
        // SAFETY: as above.
        let partial = unsafe { arch_spec(&arch_desc, &short, 0) }.expect("arch converts");
        assert_eq!(
            (partial.pipes.tensor_gmma, partial.l1_wavefronts_per_clk),
            (0.0625, 1.0)
        );
    }

    #[test]
    fn a_minor_1_descriptor_has_no_mma_path() {
        let (arch, _, arch_desc, _) = descriptors();
        let minor_1 = Layout {
            abi_minor: 1,
            arch_desc_size: warpsight_plugin::ARCH_DESC_SIZE_MINOR_1,
            ..Layout::CURRENT
        };
        // SAFETY: the descriptors point at leaked, valid SDK data.
        let old = unsafe { arch_spec(&arch_desc, &minor_1, 0) }.expect("arch converts");
        assert_eq!(format!("{:?}", old.mma), format!("{:?}", MmaRates::UNKNOWN));
        // Everything of minor 1 is still read.
        assert_eq!(old.l1_wavefronts_per_clk, 2.0);
        assert_eq!(format!("{:?}", old.pipes), format!("{:?}", arch.pipes));
        // A minor-2 table whose stride stops short of `mma` does not have it either.
        let short = Layout {
            arch_desc_size: warpsight_plugin::ARCH_DESC_SIZE_MINOR_1,
            ..Layout::CURRENT
        };
        // SAFETY: as above.
        let partial = unsafe { arch_spec(&arch_desc, &short, 0) }.expect("arch converts");
        assert!(partial.mma.fp16_flop.is_nan());
        // SAFETY: as above.
        let current = unsafe { arch_spec(&arch_desc, &Layout::CURRENT, 0) }.expect("converts");
        assert_eq!(
            (current.mma.fp16_flop, current.mma.hmma_min_cycles),
            (1024.0, 2.0)
        );
    }

    #[test]
    fn a_minor_2_descriptor_has_no_opcode_table_and_no_base_clock() {
        let (arch, device, arch_desc, device_desc) = descriptors();
        // Minor 2 appended only `mma` to `ArchDesc`; its `DeviceDesc` is minor 1's.
        let minor_2 = Layout {
            abi_minor: 2,
            arch_desc_size: warpsight_plugin::ARCH_DESC_SIZE_MINOR_2,
            device_desc_size: warpsight_plugin::DEVICE_DESC_SIZE_MINOR_1,
        };
        // SAFETY: the descriptors point at leaked, valid SDK data.
        let old = unsafe { arch_spec(&arch_desc, &minor_2, 0) }.expect("arch converts");
        assert!(old.sass_pipes.is_empty());
        // Everything of minor 2 is still read.
        assert_eq!(old.mma.fp16_flop, 1024.0);
        assert_eq!(format!("{:?}", old.pipes), format!("{:?}", arch.pipes));
        // SAFETY: as above.
        let old_device = unsafe { device_spec(&device_desc, &minor_2, &[], 0) }.expect("converts");
        assert!(old_device.base_clock_hz.is_nan());
        assert_eq!(
            (old_device.l2_slices, old_device.tensor_clock_hz),
            (device.l2_slices, device.tensor_clock_hz)
        );
        // A minor-3 table whose strides stop short of the new fields does not have them either:
        // the arch stride covers the table pointer but not its count.
        let short = Layout {
            arch_desc_size: warpsight_plugin::ARCH_DESC_SIZE_MINOR_2 + 8,
            device_desc_size: warpsight_plugin::DEVICE_DESC_SIZE_MINOR_1,
            ..Layout::CURRENT
        };
        // SAFETY: as above.
        let partial = unsafe { arch_spec(&arch_desc, &short, 0) }.expect("arch converts");
        assert!(partial.sass_pipes.is_empty());
        // SAFETY: as above.
        let partial = unsafe { device_spec(&device_desc, &short, &[], 0) }.expect("converts");
        assert!(partial.base_clock_hz.is_nan());
        // SAFETY: as above.
        let current = unsafe { arch_spec(&arch_desc, &Layout::CURRENT, 0) }.expect("converts");
        assert_eq!(current.sass_pipe("HMMA.16816.F32"), Some(Pipe::TensorHmma));
        assert_eq!(current.sass_pipes.len(), 3);
        // SAFETY: as above.
        let current = unsafe { device_spec(&device_desc, &Layout::CURRENT, &[], 0) }
            .expect("device converts");
        assert_eq!(current.base_clock_hz, 1.095e9);
    }

    #[test]
    fn opcode_tables_with_an_unknown_pipe_or_bad_strings_are_rejected() {
        let (_, _, mut arch_desc, _) = descriptors();
        let bad_pipe = [
            SassPipeDesc {
                opcode: Str::from_static("FFMA"),
                pipe: warpsight_plugin::PIPE_FMA,
            },
            SassPipeDesc {
                opcode: Str::from_static("IMAD"),
                pipe: warpsight_plugin::PIPE_COUNT,
            },
        ];
        arch_desc.sass_pipes = bad_pipe.as_ptr();
        arch_desc.sass_pipe_count = bad_pipe.len();
        // SAFETY: the table is a local array valid for its length; its strings are statics.
        match unsafe { arch_spec(&arch_desc, &Layout::CURRENT, 0) } {
            Err(PluginError::InvalidValues { problems }) => {
                assert_eq!(problems.len(), 1);
                assert_eq!(problems[0].field, "sass_pipes");
                assert!(
                    problems[0].message.contains("\"IMAD\") has pipe 16"),
                    "{problems:?}"
                );
            }
            other => panic!("expected invalid values, got {other:?}"),
        }
        static BAD_UTF8: [u8; 2] = [b'F', 0xff];
        let bad_string = [SassPipeDesc {
            opcode: Str {
                ptr: BAD_UTF8.as_ptr(),
                len: 2,
            },
            pipe: warpsight_plugin::PIPE_ALU,
        }];
        arch_desc.sass_pipes = bad_string.as_ptr();
        arch_desc.sass_pipe_count = 1;
        // SAFETY: as above.
        let result = unsafe { arch_spec(&arch_desc, &Layout::CURRENT, 0) };
        assert!(
            matches!(result, Err(PluginError::InvalidUtf8 { .. })),
            "{result:?}"
        );
        // A count without a table is malformed, not read.
        arch_desc.sass_pipes = std::ptr::null();
        arch_desc.sass_pipe_count = 3;
        // SAFETY: a null pointer with a non-zero count is rejected before any read.
        let result = unsafe { arch_spec(&arch_desc, &Layout::CURRENT, 0) };
        assert!(
            matches!(result, Err(PluginError::Malformed(_))),
            "{result:?}"
        );
    }

    #[test]
    fn implausible_counts_are_rejected_before_reading() {
        let one = [1u32];
        // SAFETY: the count is rejected before any read past the single element.
        let result = unsafe { copy_array(one.as_ptr(), MAX_ENTRIES + 1, "carveouts") };
        assert!(matches!(result, Err(PluginError::Malformed(m)) if m.contains("implausible")));
    }
}
