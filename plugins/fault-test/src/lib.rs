//! Deliberately broken warpsight plugins for the host's fault tests; never shipped
//! (`publish = false`, and its file name does not follow the plugin naming convention, so discovery
//! never loads it: the tests copy each build to a `libwarpsight_plugin_fault_<variant>` file).
//!
//! Each cargo feature builds one fault; without features the library exports no entry symbol.
//! The numbers here are made up for the tests and describe no real GPU (CC 42.0, "Fault Test GPU"),
//! except `duplicate-cc`, which claims CC 8.0 on purpose. `abi-minor-0` and `abi-minor-2` are no
//! faults: plugins laid out as ABI minor 0 or 2 built them, which the host must load with the
//! defaults of the later fields.

/// The consistent, made-up data every SDK-built variant starts from.
#[cfg(any(
    feature = "entry-panic",
    feature = "rules-panic",
    feature = "rules-ok",
    feature = "rules-unknown-launch",
    feature = "zero-sms",
    feature = "carveouts-descending",
    feature = "warps-exceed-threads",
    feature = "duplicate-cc",
    feature = "bad-sass-pipe",
    feature = "abi-minor-0",
    feature = "abi-minor-2",
))]
mod data {
    use warpsight_plugin::{
        ArchSpec, ComputeCapability, DEFAULT_DRAM_ACHIEVABLE_FRACTION, DeviceSpec,
        RegisterAllocation, UNKNOWN_LATENCIES, UNKNOWN_PEAK, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT,
        kib,
    };

    /// Carveouts in the right order.
    const ASCENDING: &[u32] = &[kib(32), kib(64)];
    /// Carveouts in the wrong order.
    #[allow(dead_code)]
    pub(crate) const DESCENDING: &[u32] = &[kib(64), kib(32)];

    /// A consistent, made-up architecture (CC 42.0).
    pub(crate) fn good_arch() -> ArchSpec {
        ArchSpec {
            cc: ComputeCapability::new(42, 0),
            name: "Fault Test Arch".into(),
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
            smem_per_sm: kib(64),
            smem_per_block_default: kib(48),
            smem_per_block_optin: kib(64),
            smem_alloc_unit: 256,
            smem_reserved_per_block: 0,
            carveouts: ASCENDING.to_vec(),
            barrier_multiplier: 0,
            virtual_resources_per_sm: 0,
            partitioned_gc_supported: false,
            warp_schedulers_per_sm: 4,
            issue_per_scheduler_per_clk: 1,
            latencies: UNKNOWN_LATENCIES,
            throughput: UNKNOWN_THROUGHPUT,
            pipes: UNKNOWN_PIPES,
            l1_wavefronts_per_clk: 1.0,
            mma: warpsight_plugin::MmaRates::UNKNOWN,
            sass_pipes: Vec::new(),
        }
    }

    /// A consistent, made-up device.
    pub(crate) fn good_device() -> DeviceSpec {
        DeviceSpec {
            name: "Fault Test GPU".into(),
            aliases: Vec::new(),
            cc: ComputeCapability::new(42, 0),
            sm_count: 10,
            sm_clock_hz: 1e9,
            mem_clock_hz: f64::NAN,
            dram_bandwidth: 1e11,
            l2_bytes: 1 << 20,
            l2_bandwidth: f64::NAN,
            peak: UNKNOWN_PEAK,
            dram_achievable_fraction: DEFAULT_DRAM_ACHIEVABLE_FRACTION,
            dram_latency_cycles: f64::NAN,
            l2_achievable_bandwidth: f64::NAN,
            l2_slices: 0,
            tensor_clock_hz: 1e9,
            base_clock_hz: f64::NAN,
        }
    }
}

#[cfg(any(
    feature = "entry-panic",
    feature = "rules-panic",
    feature = "rules-ok",
    feature = "rules-unknown-launch",
    feature = "zero-sms",
    feature = "carveouts-descending",
    feature = "warps-exceed-threads",
    feature = "duplicate-cc",
    feature = "bad-sass-pipe",
))]
mod sdk_variants {
    use super::data::{DESCENDING, good_arch, good_device};
    use warpsight_plugin::{
        ComputeCapability, FindingData, LaunchBatch, Pipe, PluginData, Severity, opcode_pipes,
    };

    /// Returns one finding per launch (rules-ok) or names a launch that is not in the batch
    /// (rules-unknown-launch); panics (rules-panic).
    #[allow(dead_code)]
    fn rules(batch: &LaunchBatch<'_>) -> Result<Vec<FindingData>, String> {
        if cfg!(feature = "rules-panic") {
            panic!("fault-test rules hook panics on purpose");
        }
        let ids = batch
            .column_i64("launch_id")
            .map_err(|e| e.to_string())?
            .ok_or("no launch_id column")?;
        let mut findings: Vec<FindingData> = ids
            .into_iter()
            .flatten()
            .map(|id| FindingData {
                launch_id: id,
                rule_id: "fault_test.every_launch".to_string(),
                severity: Severity::Warning,
                message: format!("launch {id} seen by the fault-test plugin"),
            })
            .collect();
        if cfg!(feature = "rules-unknown-launch") {
            findings.push(FindingData {
                launch_id: -12345,
                rule_id: "fault_test.unknown".to_string(),
                severity: Severity::Info,
                message: "names a launch that does not exist".to_string(),
            });
        }
        Ok(findings)
    }

    /// The plugin data of the selected variant.
    fn plugin() -> PluginData {
        if cfg!(feature = "entry-panic") {
            panic!("fault-test entry panics on purpose");
        }
        let mut arch = good_arch();
        let mut device = good_device();
        if cfg!(feature = "zero-sms") {
            device.sm_count = 0;
        }
        if cfg!(feature = "carveouts-descending") {
            arch.carveouts = DESCENDING.to_vec();
        }
        if cfg!(feature = "warps-exceed-threads") {
            arch.max_warps_per_sm = 65;
        }
        if cfg!(feature = "bad-sass-pipe") {
            // The first entry is fine; the second is not an opcode as the tables key them.
            arch.sass_pipes = opcode_pipes(&[("FFMA", Pipe::Fma), ("ffma.ftz", Pipe::Fma)]);
        }
        if cfg!(feature = "duplicate-cc") {
            arch.cc = ComputeCapability::new(8, 0);
            arch.name = "Fault Test impostor of 8.0".into();
            arch.max_blocks_per_sm = 7;
            device.cc = ComputeCapability::new(8, 0);
        }
        let with_rules = cfg!(any(
            feature = "rules-panic",
            feature = "rules-ok",
            feature = "rules-unknown-launch"
        ));
        PluginData {
            name: "fault-test",
            version: env!("CARGO_PKG_VERSION"),
            archs: vec![arch],
            devices: vec![device],
            rules: if with_rules { Some(rules) } else { None },
        }
    }

    warpsight_plugin::export_plugin!(plugin);
}

/// A plugin as an SDK of ABI minor 0 (feature `abi-minor-0`) or minor 2 (`abi-minor-2`) built it:
/// that `abi_minor` and that minor's descriptor sizes, with the descriptors laid out at that stride
/// (the fields appended later are not there, although the data below fills them).
#[cfg(any(feature = "abi-minor-0", feature = "abi-minor-2"))]
mod old_minor_variant {
    use super::data::{good_arch, good_device};
    use warpsight_plugin::{
        ABI_MAJOR, ARCH_DESC_SIZE_MINOR_0, ARCH_DESC_SIZE_MINOR_2, ComputeCapability,
        DEVICE_DESC_SIZE_MINOR_0, DEVICE_DESC_SIZE_MINOR_1, ErrorBuffer, MAGIC, Pipe, PluginTable,
        STATUS_OK, Status, Str, arch_desc, device_desc, opcode_pipes,
    };

    /// The ABI minor, descriptor sizes and plugin name of the variant.
    const LAYOUT: (u32, usize, usize, &str) = if cfg!(feature = "abi-minor-0") {
        (
            0,
            ARCH_DESC_SIZE_MINOR_0,
            DEVICE_DESC_SIZE_MINOR_0,
            "fault-test-minor-0",
        )
    } else {
        (
            2,
            ARCH_DESC_SIZE_MINOR_2,
            DEVICE_DESC_SIZE_MINOR_1,
            "fault-test-minor-2",
        )
    };

    /// Copies the first `stride` bytes of each descriptor back to back into a leaked, 8-aligned
    /// buffer: the array a minor-0 plugin would have exported.
    fn pack<T>(descs: &[T], stride: usize) -> *const T {
        assert!(stride.is_multiple_of(8) && stride <= std::mem::size_of::<T>());
        let mut words = vec![0u64; descs.len() * stride / 8];
        for (i, desc) in descs.iter().enumerate() {
            // SAFETY: `desc` is valid for `size_of::<T>()` ≥ `stride` bytes; the buffer holds
            // `descs.len() * stride` bytes, so element `i` fits at `i * stride`; they do not overlap.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    std::ptr::from_ref(desc).cast::<u8>(),
                    words.as_mut_ptr().cast::<u8>().add(i * stride),
                    stride,
                );
            }
        }
        Box::leak(words.into_boxed_slice()).as_ptr().cast::<T>()
    }

    /// The entry symbol of the old-minor plugin: two archs (42.0 and 42.1, so that a wrong stride
    /// shows) and one device. The data has an opcode table, `mma` numbers and a base clock, which a
    /// minor-0 or minor-2 descriptor does not carry: the host must not see them.
    ///
    /// # Safety
    /// `out` must be valid for a write.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn warpsight_plugin_v1(
        out: *mut *const PluginTable,
        _error: *mut ErrorBuffer,
    ) -> Status {
        let mut first = good_arch();
        first.latencies.dram = 500.0;
        first.throughput.fp32 = 64.0;
        first.throughput.fp64 = 2.0;
        first.mma.fp16_flop = 512.0;
        first.sass_pipes = opcode_pipes(&[("FFMA", Pipe::Fma)]);
        let mut second = first.clone();
        second.cc = ComputeCapability::new(42, 1);
        second.name = "Fault Test Arch 42.1".into();
        second.max_blocks_per_sm = 16;
        let mut device = good_device();
        device.base_clock_hz = 0.5e9;
        let archs = [arch_desc(&first), arch_desc(&second)];
        let devices = [device_desc(&device)];
        let (abi_minor, arch_size, device_size, name) = LAYOUT;
        let table = PluginTable {
            magic: MAGIC,
            abi_major: ABI_MAJOR,
            abi_minor,
            struct_size: std::mem::size_of::<PluginTable>(),
            name: Str::from_static(name),
            version: Str::from_static("0"),
            arch_desc_size: arch_size,
            archs: pack(&archs, arch_size),
            arch_count: archs.len(),
            device_desc_size: device_size,
            devices: pack(&devices, device_size),
            device_count: devices.len(),
            rules: None,
            free_findings: None,
        };
        let leaked: &'static PluginTable = Box::leak(Box::new(table));
        // SAFETY: the host passes a pointer valid for a write.
        unsafe { *out = leaked };
        STATUS_OK
    }
}

#[cfg(any(feature = "wrong-major", feature = "wrong-magic"))]
mod raw_variants {
    use warpsight_plugin::{ABI_MAJOR, ErrorBuffer, MAGIC, PluginTable, STATUS_OK, Status, Str};

    /// An empty table with the given header.
    fn table(magic: u64, abi_major: u32) -> PluginTable {
        PluginTable {
            magic,
            abi_major,
            abi_minor: 0,
            struct_size: std::mem::size_of::<PluginTable>(),
            name: Str::from_static("fault-test"),
            version: Str::from_static("0"),
            arch_desc_size: std::mem::size_of::<warpsight_plugin::ArchDesc>(),
            archs: std::ptr::null(),
            arch_count: 0,
            device_desc_size: std::mem::size_of::<warpsight_plugin::DeviceDesc>(),
            devices: std::ptr::null(),
            device_count: 0,
            rules: None,
            free_findings: None,
        }
    }

    /// A hand-written entry symbol returning a table with a wrong header.
    ///
    /// # Safety
    /// `out` must be valid for a write.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn warpsight_plugin_v1(
        out: *mut *const PluginTable,
        _error: *mut ErrorBuffer,
    ) -> Status {
        let header = if cfg!(feature = "wrong-magic") {
            table(u64::from_le_bytes(*b"NOTAPLUG"), ABI_MAJOR)
        } else {
            table(MAGIC, ABI_MAJOR + 1)
        };
        let leaked: &'static PluginTable = Box::leak(Box::new(header));
        // SAFETY: the host passes a pointer valid for a write.
        unsafe { *out = leaked };
        STATUS_OK
    }
}

/// Present in every variant so that the library is never empty.
#[unsafe(no_mangle)]
pub extern "C" fn warpsight_fault_test_marker() -> u32 {
    7
}
