//! What [`crate::export_plugin!`] expands to: the entry symbol, the rules-hook trampoline and the
//! free function, each wrapped in `std::panic::catch_unwind` so that no panic unwinds across the C
//! boundary. Errors and caught panics become a [`Status`] plus a message in the host's
//! [`ErrorBuffer`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use crate::arrow_c::{ArrowArray, ArrowSchema};
use crate::batch::LaunchBatch;
use crate::sdk::{PluginData, RulesImpl, build_table};
use crate::types::{
    ErrorBuffer, Finding, Findings, FreeFindingsFn, PluginTable, RulesFn, STATUS_ERROR,
    STATUS_INVALID_ARGUMENT, STATUS_OK, STATUS_PANIC, Status, Str,
};

/// The state one plugin library keeps after its entry symbol ran once.
#[derive(Debug)]
pub struct Exported {
    table: *const PluginTable,
    rules: Option<RulesImpl>,
}

// SAFETY: `table` points at leaked, never-mutated data; sharing it between threads is sound.
unsafe impl Send for Exported {}
// SAFETY: as above, the pointed-to data is immutable for the life of the process.
unsafe impl Sync for Exported {}

/// Writes `message` into the host's buffer, cut at a character boundary to fit.
///
/// # Safety
/// `error` is null or points at a valid [`ErrorBuffer`] whose `ptr` is valid for `capacity` bytes.
pub unsafe fn write_error(error: *mut ErrorBuffer, message: &str) {
    if error.is_null() {
        return;
    }
    // SAFETY: non-null and valid by the caller's guarantee.
    let buffer = unsafe { &mut *error };
    if buffer.ptr.is_null() || buffer.capacity == 0 {
        buffer.len = 0;
        return;
    }
    let mut len = message.len().min(buffer.capacity);
    while !message.is_char_boundary(len) {
        len -= 1;
    }
    // SAFETY: `len` <= capacity, the host's buffer is valid for `capacity` bytes and does not
    // overlap the message (which lives in plugin memory).
    unsafe { std::ptr::copy_nonoverlapping(message.as_ptr(), buffer.ptr, len) };
    buffer.len = len;
}

/// The message of a caught panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// Runs `body`, turning `Err` into [`STATUS_ERROR`] and a panic into [`STATUS_PANIC`], with the
/// message written to `error`.
///
/// # Safety
/// `error` as for [`write_error`].
pub unsafe fn guard(
    error: *mut ErrorBuffer,
    body: impl FnOnce() -> Result<(), (Status, String)>,
) -> Status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => STATUS_OK,
        Ok(Err((status, message))) => {
            // SAFETY: forwarded from the caller.
            unsafe { write_error(error, &message) };
            status
        }
        Err(payload) => {
            let message = format!("plugin panicked: {}", panic_message(payload.as_ref()));
            // SAFETY: forwarded from the caller.
            unsafe { write_error(error, &message) };
            STATUS_PANIC
        }
    }
}

/// The body of the entry symbol: builds the table once (calling `build`) and returns it.
///
/// # Safety
/// `out` is null or valid for a write; `error` as for [`write_error`].
pub unsafe fn plugin_entry(
    state: &'static OnceLock<Exported>,
    build: fn() -> PluginData,
    rules: RulesFn,
    out: *mut *const PluginTable,
    error: *mut ErrorBuffer,
) -> Status {
    let body = || {
        if out.is_null() {
            return Err((
                STATUS_INVALID_ARGUMENT,
                "the out pointer is null".to_string(),
            ));
        }
        let exported = state.get_or_init(|| {
            let data = build();
            Exported {
                table: build_table(&data, rules, free_findings),
                rules: data.rules,
            }
        });
        // SAFETY: `out` is non-null and valid for a write by the caller's guarantee.
        unsafe { *out = exported.table };
        Ok(())
    };
    // SAFETY: `error` is forwarded from the caller.
    unsafe { guard(error, body) }
}

/// Owns the findings handed to the host until [`free_findings`] drops it.
struct FindingsOwner {
    _strings: Vec<String>,
    items: Vec<Finding>,
}

/// The body of the rules hook: wraps the batch, calls the plugin's rules function and hands the
/// findings over.
///
/// # Safety
/// The pointers are those of [`RulesFn`]'s contract.
pub unsafe fn rules_entry(
    state: &'static OnceLock<Exported>,
    array: *const ArrowArray,
    schema: *const ArrowSchema,
    out: *mut Findings,
    error: *mut ErrorBuffer,
) -> Status {
    let body = || {
        if out.is_null() {
            return Err((
                STATUS_INVALID_ARGUMENT,
                "the out pointer is null".to_string(),
            ));
        }
        // SAFETY: non-null; the host passes a writable `Findings`.
        unsafe { *out = Findings::EMPTY };
        let Some(rules) = state.get().and_then(|s| s.rules) else {
            return Err((
                STATUS_ERROR,
                "the rules hook was called before the entry symbol".to_string(),
            ));
        };
        // SAFETY: the host passes valid Arrow C structs borrowed for the call.
        let batch = unsafe { LaunchBatch::from_raw(array, schema) }
            .map_err(|e| (STATUS_INVALID_ARGUMENT, e.to_string()))?;
        let findings = rules(&batch).map_err(|message| (STATUS_ERROR, message))?;
        let strings: Vec<String> = findings
            .iter()
            .flat_map(|f| [f.rule_id.clone(), f.message.clone()])
            .collect();
        let items: Vec<Finding> = findings
            .iter()
            .zip(strings.chunks(2))
            .map(|(f, s)| Finding {
                launch_id: f.launch_id,
                rule_id: Str {
                    ptr: s[0].as_ptr(),
                    len: s[0].len(),
                },
                severity: f.severity.code(),
                message: Str {
                    ptr: s[1].as_ptr(),
                    len: s[1].len(),
                },
            })
            .collect();
        let owner = Box::new(FindingsOwner {
            _strings: strings,
            items,
        });
        let (ptr, len) = (owner.items.as_ptr(), owner.items.len());
        // SAFETY: `out` is non-null and writable (checked above).
        unsafe {
            *out = Findings {
                ptr,
                len,
                owner: Box::into_raw(owner).cast(),
            }
        };
        Ok(())
    };
    // SAFETY: `error` is forwarded from the caller.
    unsafe { guard(error, body) }
}

/// Frees findings returned by [`rules_entry`]. Never unwinds.
///
/// # Safety
/// `findings` is null or points at a [`Findings`] this plugin returned and that was not freed yet.
pub unsafe extern "C" fn free_findings(findings: *mut Findings) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if findings.is_null() {
            return;
        }
        // SAFETY: non-null and returned by this plugin by the caller's guarantee.
        let findings = unsafe { &mut *findings };
        if !findings.owner.is_null() {
            // SAFETY: `owner` came from `Box::into_raw` in `rules_entry` and is freed once.
            drop(unsafe { Box::from_raw(findings.owner.cast::<FindingsOwner>()) });
        }
        *findings = Findings::EMPTY;
    }));
}

/// Type check that [`free_findings`] has the ABI's signature.
const _: FreeFindingsFn = free_findings;

/// Generates the plugin's exports from a function `fn() -> PluginData`: the entry symbol
/// `warpsight_plugin_v1` and the rules-hook trampoline, all wrapped in `catch_unwind`.
///
/// ```
/// use warpsight_plugin::PluginData;
///
/// fn plugin() -> PluginData {
///     PluginData { name: "example", version: "0.1.0", archs: vec![], devices: vec![], rules: None }
/// }
///
/// warpsight_plugin::export_plugin!(plugin);
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($build:path) => {
        #[doc(hidden)]
        static __WARPSIGHT_PLUGIN_STATE: ::std::sync::OnceLock<$crate::export::Exported> =
            ::std::sync::OnceLock::new();

        #[doc(hidden)]
        unsafe extern "C" fn __warpsight_plugin_rules(
            array: *const $crate::ArrowArray,
            schema: *const $crate::ArrowSchema,
            out: *mut $crate::Findings,
            error: *mut $crate::ErrorBuffer,
        ) -> $crate::Status {
            // SAFETY: the host calls the hook with the pointers the `RulesFn` contract describes.
            unsafe {
                $crate::export::rules_entry(&__WARPSIGHT_PLUGIN_STATE, array, schema, out, error)
            }
        }

        /// The plugin's entry symbol (ABI major 1).
        ///
        /// # Safety
        /// `out` must be valid for a write and `error` a valid host error buffer.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn warpsight_plugin_v1(
            out: *mut *const $crate::PluginTable,
            error: *mut $crate::ErrorBuffer,
        ) -> $crate::Status {
            // SAFETY: the host passes the pointers the `EntryFn` contract describes.
            unsafe {
                $crate::export::plugin_entry(
                    &__WARPSIGHT_PLUGIN_STATE,
                    $build,
                    __warpsight_plugin_rules,
                    out,
                    error,
                )
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::fixture;
    use crate::sdk::{FindingData, Severity};
    use crate::spec::{ArchSpec, ComputeCapability, DeviceSpec, RegisterAllocation};
    use crate::types::{ABI_MAJOR, ABI_MINOR, ArchDesc, DeviceDesc, MAGIC, SEVERITY_WARNING};
    use crate::{UNKNOWN_LATENCIES, UNKNOWN_PEAK, UNKNOWN_PIPES, UNKNOWN_THROUGHPUT};

    fn buffer(storage: &mut [u8]) -> ErrorBuffer {
        ErrorBuffer {
            ptr: storage.as_mut_ptr(),
            capacity: storage.len(),
            len: 0,
        }
    }

    #[test]
    fn error_messages_are_cut_at_a_character_boundary() {
        let mut storage = [0u8; 5];
        let mut error = buffer(&mut storage);
        // SAFETY: the buffer is valid for its capacity.
        unsafe { write_error(&mut error, "héllo") };
        // "h" (1 byte) + "é" (2) + "ll" (2) = 5 bytes fit; the "o" does not.
        assert_eq!(error.len, 5);
        assert_eq!(&storage[..5], "héll".as_bytes());
        let mut storage = [0u8; 2];
        let mut error = buffer(&mut storage);
        // SAFETY: as above.
        unsafe { write_error(&mut error, "hé") };
        // "é" would need bytes 1..3, so only "h" is written.
        assert_eq!(error.len, 1);
    }

    #[test]
    fn panics_become_a_status_and_a_message() {
        let mut storage = [0u8; 64];
        let mut error = buffer(&mut storage);
        // SAFETY: the buffer is valid for its capacity.
        let status = unsafe { guard(&mut error, || panic!("boom")) };
        assert_eq!(status, STATUS_PANIC);
        assert_eq!(&storage[..error.len], b"plugin panicked: boom");
        let mut error = buffer(&mut storage);
        // SAFETY: as above.
        let status = unsafe { guard(&mut error, || Err((STATUS_ERROR, "bad".to_string()))) };
        assert_eq!((status, error.len), (STATUS_ERROR, 3));
    }

    fn arch() -> ArchSpec {
        ArchSpec {
            cc: ComputeCapability::new(8, 0),
            name: "test".into(),
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
            smem_per_sm: 167936,
            smem_per_block_default: 49152,
            smem_per_block_optin: 166912,
            smem_alloc_unit: 128,
            smem_reserved_per_block: 1024,
            carveouts: vec![0, 167936],
            barrier_multiplier: 2,
            virtual_resources_per_sm: 0,
            partitioned_gc_supported: false,
            warp_schedulers_per_sm: 4,
            issue_per_scheduler_per_clk: 1,
            latencies: UNKNOWN_LATENCIES,
            throughput: UNKNOWN_THROUGHPUT,
            pipes: UNKNOWN_PIPES,
            l1_wavefronts_per_clk: 1.0,
            mma: crate::spec::MmaRates::UNKNOWN,
            sass_pipes: crate::sdk::opcode_pipes(&[
                ("FFMA", crate::spec::Pipe::Fma),
                ("HMMA", crate::spec::Pipe::TensorHmma),
            ]),
        }
    }

    fn rules(batch: &LaunchBatch<'_>) -> Result<Vec<FindingData>, String> {
        let ids = batch
            .column_i64("launch_id")
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        Ok(ids
            .into_iter()
            .flatten()
            .map(|id| FindingData {
                launch_id: id,
                rule_id: "test.rule".into(),
                severity: Severity::Warning,
                message: format!("launch {id}"),
            })
            .collect())
    }

    fn plugin() -> PluginData {
        PluginData {
            name: "sdk-test",
            version: "1.2.3",
            archs: vec![arch()],
            devices: vec![DeviceSpec {
                name: "Test GPU".into(),
                aliases: vec!["TG".into()],
                cc: ComputeCapability::new(8, 0),
                sm_count: 1,
                sm_clock_hz: 1e9,
                mem_clock_hz: f64::NAN,
                dram_bandwidth: 1e9,
                l2_bytes: 1,
                l2_bandwidth: f64::NAN,
                peak: UNKNOWN_PEAK,
                dram_achievable_fraction: 0.85,
                dram_latency_cycles: f64::NAN,
                l2_achievable_bandwidth: f64::NAN,
                l2_slices: 0,
                tensor_clock_hz: 1e9,
                base_clock_hz: 0.8e9,
            }],
            rules: Some(rules),
        }
    }

    crate::export_plugin!(plugin);

    #[test]
    fn the_macro_exports_a_table_and_a_working_rules_hook() {
        let mut storage = [0u8; 256];
        let mut error = buffer(&mut storage);
        let mut table: *const PluginTable = std::ptr::null();
        // SAFETY: both out-pointers are valid.
        let status = unsafe { warpsight_plugin_v1(&mut table, &mut error) };
        assert_eq!(status, STATUS_OK);
        // SAFETY: the entry returned a valid, leaked table.
        let table = unsafe { &*table };
        assert_eq!((table.magic, table.abi_major), (MAGIC, ABI_MAJOR));
        assert_eq!(table.struct_size, std::mem::size_of::<PluginTable>());
        assert_eq!(table.abi_minor, ABI_MINOR);
        assert_eq!(table.arch_desc_size, std::mem::size_of::<ArchDesc>());
        assert_eq!(table.device_desc_size, std::mem::size_of::<DeviceDesc>());
        // SAFETY: the strings and arrays are leaked plugin data.
        unsafe {
            assert_eq!(table.name.as_bytes(), b"sdk-test");
            assert_eq!(table.arch_count, 1);
            assert_eq!((*table.archs).smem_per_sm, 167936);
            assert_eq!(*(*table.archs).carveouts.add(1), 167936);
            assert_eq!((*(*table.devices).aliases).as_bytes(), b"TG");
            assert_eq!((*table.archs).l1_wavefronts_per_clk, 1.0);
            assert_eq!((*table.devices).dram_achievable_fraction, 0.85);
            assert_eq!((*table.devices).base_clock_hz, 0.8e9);
            let arch = &*table.archs;
            assert_eq!(arch.sass_pipe_count, 2);
            let second = *arch.sass_pipes.add(1);
            assert_eq!(second.opcode.as_bytes(), b"HMMA");
            assert_eq!(second.pipe, crate::types::PIPE_TENSOR_HMMA);
        }

        let data = fixture::batch();
        let mut findings = Findings::EMPTY;
        let rules = table.rules.expect("the table has a rules hook");
        let free = table.free_findings.expect("the table has a free function");
        // SAFETY: the fixture's structs are valid; `findings` is writable.
        let status = unsafe { rules(&data.array, &data.schema, &mut findings, &mut error) };
        assert_eq!(status, STATUS_OK);
        assert_eq!(findings.len, 2);
        // SAFETY: the plugin returned two findings, valid until freed.
        let second = unsafe { *findings.ptr.add(1) };
        assert_eq!((second.launch_id, second.severity), (9, SEVERITY_WARNING));
        // SAFETY: the message lives until the findings are freed.
        assert_eq!(unsafe { second.message.as_bytes() }, b"launch 9");
        // SAFETY: freed once.
        unsafe { free(&mut findings) };
        assert!(findings.owner.is_null() && findings.len == 0);
    }

    #[test]
    fn a_null_out_pointer_is_an_invalid_argument() {
        let mut storage = [0u8; 64];
        let mut error = buffer(&mut storage);
        // SAFETY: a null `out` is what is being tested; the error buffer is valid.
        let status = unsafe { warpsight_plugin_v1(std::ptr::null_mut(), &mut error) };
        assert_eq!(status, STATUS_INVALID_ARGUMENT);
        assert_eq!(&storage[..error.len], b"the out pointer is null");
    }
}
