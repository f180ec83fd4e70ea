//! Loading: the shipped plugins, every fault variant, truncated and foreign files, older ABI
//! minors, bad plugins beside good ones, and the rule for duplicates.

use std::path::PathBuf;

use warpsight_model::arch::ComputeCapability;
use warpsight_plugin_host::{PluginConfig, PluginError, load_plugin, load_registry};
use warpsight_test_support::plugins::{
    FAULT_VARIANTS, fault_dirs, fault_file, plugin_dir, plugin_packages,
};

use crate::TestResult;

#[test]
fn each_fault_is_rejected_with_its_own_error() -> TestResult {
    match load_plugin(&fault_file("missing_entry")?) {
        Err(PluginError::MissingEntry { symbol, .. }) => assert_eq!(symbol, "warpsight_plugin_v1"),
        other => panic!("missing entry: {other:?}"),
    }
    match load_plugin(&fault_file("wrong_major")?) {
        Err(PluginError::AbiMajor { found, expected }) => assert_eq!((found, expected), (2, 1)),
        other => panic!("wrong major: {other:?}"),
    }
    match load_plugin(&fault_file("wrong_magic")?) {
        Err(PluginError::WrongMagic { found, .. }) => {
            assert_eq!(found, u64::from_le_bytes(*b"NOTAPLUG"))
        }
        other => panic!("wrong magic: {other:?}"),
    }
    match load_plugin(&fault_file("entry_panic")?) {
        Err(PluginError::EntryPanicked { message }) => {
            assert!(message.contains("panics on purpose"), "{message}")
        }
        other => panic!("entry panic: {other:?}"),
    }
    for (variant, field, words) in [
        ("zero_sms", "sm_count", "is 0"),
        (
            "carveouts_descending",
            "carveouts",
            "not strictly ascending",
        ),
        (
            "warps_exceed_threads",
            "max_warps_per_sm",
            "exceeds max_threads_per_sm / 32",
        ),
        (
            "bad_sass_pipe",
            "sass_pipes",
            "entry #1: opcode \"ffma.ftz\" is not upper-case",
        ),
    ] {
        match load_plugin(&fault_file(variant)?) {
            Err(PluginError::InvalidValues { problems }) => {
                assert!(
                    problems
                        .iter()
                        .any(|p| p.field == field && p.message.contains(words)),
                    "{variant}: {problems:?}"
                );
                assert!(
                    problems
                        .iter()
                        .all(|p| p.item == "arch 42.0" || p.item.contains("Fault Test GPU"))
                );
            }
            other => panic!("{variant}: {other:?}"),
        }
    }
    Ok(())
}

#[cfg(target_os = "linux")]
#[test]
fn truncated_plugins_are_rejected_before_dlopen() -> TestResult {
    // Issue #14: a plugin cut anywhere between ~1 KB and ~300 KB killed warpsight with SIGBUS.
    let real = warpsight_test_support::plugins::plugin_file("warpsight-plugin-ampere");
    let bytes = std::fs::read(&real)?;
    let dir = tempfile::tempdir()?;
    for size in [0, 1024, 100 * 1024, 300 * 1024, bytes.len() - 1] {
        let size = size.min(bytes.len() - 1);
        let file = dir.path().join(format!("libwarpsight_plugin_cut{size}.so"));
        std::fs::write(&file, &bytes[..size])?;
        match load_plugin(&file) {
            Err(PluginError::Incomplete(detail)) => {
                assert!(
                    detail.contains("cut short") || detail.contains("not an ELF"),
                    "{size}: {detail}"
                )
            }
            other => panic!("{size} bytes: {:?}", other.map(|p| p.name)),
        }
    }
    // A complete copy still loads, and a text file gets the check's message, not a crash.
    let whole = dir.path().join("libwarpsight_plugin_whole.so");
    std::fs::write(&whole, &bytes)?;
    assert_eq!(
        load_plugin(&whole).map_err(|e| e.to_string())?.name,
        "ampere"
    );
    Ok(())
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn the_loader_reason_is_reported() -> TestResult {
    // A complete ELF shared library that is not loadable here: the fault plugin with one byte of
    // its ELF header's machine field changed makes the loader refuse it; the message must
    // carry the loader's own reason after libloading's "dlopen failed".
    let real = warpsight_test_support::plugins::plugin_file("warpsight-plugin-ampere");
    let mut bytes = std::fs::read(&real)?;
    bytes[18] = 0x03; // e_machine = EM_386: a complete file for another machine.
    bytes[19] = 0x00;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("libwarpsight_plugin_foreign.so");
    std::fs::write(&file, &bytes)?;
    match load_plugin(&file) {
        Err(PluginError::Open(message)) => {
            assert!(message.starts_with("dlopen failed: "), "{message}");
            assert!(message.len() > "dlopen failed: ".len() + 5, "{message}");
        }
        other => panic!("{:?}", other.map(|p| p.name)),
    }
    Ok(())
}

#[test]
fn a_minor_0_plugin_loads_with_the_documented_defaults() -> TestResult {
    let plugin = load_plugin(&fault_file("abi_minor_0")?)?;
    assert_eq!(
        (plugin.name.as_str(), plugin.abi_minor),
        ("fault-test-minor-0", 0)
    );
    // Two descriptors at the minor-0 stride: the second is read where it starts.
    let ccs: Vec<String> = plugin.archs.iter().map(|a| a.cc.to_string()).collect();
    assert_eq!(ccs, vec!["42.0", "42.1"]);
    assert_eq!(
        (
            plugin.archs[0].max_blocks_per_sm,
            plugin.archs[1].max_blocks_per_sm
        ),
        (32, 16)
    );
    for arch in &plugin.archs {
        // Pipes from the throughput (64 FP32 lanes, 2 FP64 results per clock), fixed ALU/XU/LSU.
        let p = &arch.pipes;
        assert_eq!(
            (p.fma, p.fp64, p.alu, p.xu, p.lsu),
            (2.0, 0.0625, 2.0, 0.5, 1.0),
            "{}",
            arch.cc
        );
        assert!(p.fma_fp16.is_nan() && p.tensor_hmma.is_nan() && p.tensor_gmma.is_nan());
        assert_eq!(arch.l1_wavefronts_per_clk, 1.0);
    }
    let device = &plugin.devices[0];
    assert_eq!(device.name, "Fault Test GPU");
    assert_eq!(device.dram_achievable_fraction, 0.85);
    assert_eq!(
        device.dram_latency_cycles, 500.0,
        "the 42.0 arch's latencies.dram"
    );
    assert!(device.l2_achievable_bandwidth.is_nan());
    assert_eq!(device.l2_slices, 0);
    assert_eq!(device.tensor_clock_hz, device.sm_clock_hz);
    // Minor 3's fields: no opcode table (the plugin's data has one, past the minor-0 stride), no
    // base clock.
    assert!(plugin.archs.iter().all(|a| a.sass_pipes.is_empty()));
    assert!(device.base_clock_hz.is_nan());
    Ok(())
}

#[test]
fn a_minor_2_plugin_loads_without_opcode_tables_or_base_clocks() -> TestResult {
    let plugin = load_plugin(&fault_file("abi_minor_2")?)?;
    assert_eq!(
        (plugin.name.as_str(), plugin.abi_minor),
        ("fault-test-minor-2", 2)
    );
    // Two descriptors at the minor-2 stride: the second is read where it starts.
    let ccs: Vec<String> = plugin.archs.iter().map(|a| a.cc.to_string()).collect();
    assert_eq!(ccs, vec!["42.0", "42.1"]);
    for arch in &plugin.archs {
        // Everything up to `mma` is read; the opcode table past the stride is not.
        assert_eq!(arch.mma.fp16_flop, 512.0, "{}", arch.cc);
        assert!(arch.sass_pipes.is_empty(), "{}", arch.cc);
    }
    // The device's minor-1 fields are read; the base clock (0.5 GHz in the data) is not.
    let device = &plugin.devices[0];
    assert_eq!(device.tensor_clock_hz, 1e9);
    assert!(device.base_clock_hz.is_nan());
    Ok(())
}

#[test]
fn bad_plugins_do_not_stop_the_good_ones() -> TestResult {
    let dirs = fault_dirs()?;
    let mut search: Vec<PathBuf> = FAULT_VARIANTS
        .iter()
        .filter(|(_, name)| *name != "duplicate_cc")
        .filter_map(|(_, name)| dirs.get(name).cloned())
        .collect();
    search.push(plugin_dir());
    let (registry, report) = load_registry(&PluginConfig::only_dirs(&search));
    // Eight faults fail at load time; the shipped plugins load, the three rules variants too (their
    // faults are in the hook), and so do the minor-0 and minor-2 plugins (no fault).
    assert_eq!(report.rejected.len(), 8, "{:#?}", report.rejected);
    for rejected in &report.rejected {
        assert!(
            rejected
                .to_string()
                .contains(&rejected.file.display().to_string()),
            "the message names the file"
        );
    }
    assert_eq!(report.loaded.len(), plugin_packages()?.len() + 3 + 2);
    assert!(registry.arch(ComputeCapability::new(8, 0)).is_some());
    assert!(registry.device("NVIDIA H200").is_some());
    Ok(())
}

#[test]
fn the_first_plugin_found_wins_a_duplicate() -> TestResult {
    let impostor = fault_dirs()?
        .get("duplicate_cc")
        .ok_or("no duplicate variant")?
        .clone();
    let workspace = plugin_dir();
    // The impostor's directory comes first, so its CC 8.0 (7 blocks per SM) wins.
    let (registry, report) = load_registry(&PluginConfig::only_dirs(&[
        impostor.clone(),
        workspace.clone(),
    ]));
    assert_eq!(
        registry
            .arch(ComputeCapability::new(8, 0))
            .ok_or("no 8.0")?
            .max_blocks_per_sm,
        7
    );
    let duplicate = report
        .overridden
        .iter()
        .find(|o| o.item == "arch 8.0")
        .ok_or("no override reported")?;
    assert!(duplicate.kept.starts_with(&impostor));
    assert!(duplicate.ignored.ends_with(format!(
        "{}warpsight_plugin_ampere.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    )));
    // In the other order the Ampere plugin's 32 blocks (ARCHS.csv) win.
    let (registry, report) =
        load_registry(&PluginConfig::only_dirs(&[workspace, impostor.clone()]));
    assert_eq!(
        registry
            .arch(ComputeCapability::new(8, 0))
            .ok_or("no 8.0")?
            .max_blocks_per_sm,
        32
    );
    let duplicate = report
        .overridden
        .iter()
        .find(|o| o.item == "arch 8.0")
        .ok_or("no override reported")?;
    assert!(duplicate.ignored.starts_with(&impostor));
    Ok(())
}

#[test]
fn workspace_plugins_load_without_rejections() -> TestResult {
    let (registry, report) = warpsight_test_support::workspace_plugins();
    assert!(
        report.rejected.is_empty(),
        "rejected: {:?}",
        report.rejected
    );
    assert!(
        report.overridden.is_empty(),
        "overridden: {:?}",
        report.overridden
    );
    // ARCHS.csv 8.0: 2048 threads, 32 blocks, 167936 B of shared memory per SM.
    let a100 = registry
        .arch(ComputeCapability::new(8, 0))
        .ok_or("no 8.0")?;
    assert_eq!(
        (
            a100.max_threads_per_sm,
            a100.max_blocks_per_sm,
            a100.smem_per_sm
        ),
        (2048, 32, 167936)
    );
    // DEVICES.csv H100 SXM5: 132 SMs, 3350 GB/s.
    let h100 = registry.device("H100 SXM5 80GB").ok_or("no H100")?;
    assert_eq!(h100.sm_count, 132);
    assert_eq!(h100.dram_bandwidth, 3.35e12);
    Ok(())
}
