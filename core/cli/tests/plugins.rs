//! Plugin tests: the shipped family plugins cover every required compute capability with the
//! numbers of the reference tables; deliberately broken plugins (`plugins/fault-test`, one cargo
//! feature per fault) are each rejected with their own error while the good plugins stay loaded;
//! the rules hook round-trips a frame; the CLI lists what is loaded.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use polars::prelude::*;
use warpsight_model::arch::{ComputeCapability, Registry};
use warpsight_model::plugin_host::{PluginConfig, PluginError, load_plugin, load_registry};
use warpsight_test_support::plugins::{plugin_dir, profile_dir, registry};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Every fault variant: the cargo feature (None = no feature) and a short name.
const FAULT_VARIANTS: &[(Option<&str>, &str)] = &[
    (None, "missing_entry"),
    (Some("wrong-major"), "wrong_major"),
    (Some("wrong-magic"), "wrong_magic"),
    (Some("entry-panic"), "entry_panic"),
    (Some("rules-panic"), "rules_panic"),
    (Some("rules-ok"), "rules_ok"),
    (Some("rules-unknown-launch"), "rules_unknown_launch"),
    (Some("zero-sms"), "zero_sms"),
    (Some("carveouts-descending"), "carveouts_descending"),
    (Some("warps-exceed-threads"), "warps_exceed_threads"),
    (Some("duplicate-cc"), "duplicate_cc"),
    (Some("bad-sass-pipe"), "bad_sass_pipe"),
    (Some("abi-minor-0"), "abi_minor_0"),
    (Some("abi-minor-2"), "abi_minor_2"),
];

/// Runs `cargo build` for `packages` (with `--release` when the tests are optimised) and extra
/// arguments, from the workspace root. Only the fault variants need this: each is one cargo
/// feature of `warpsight-fault-test`, built one at a time.
fn cargo_build(packages: &[&str], extra: &[&str]) -> Result<(), String> {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(warpsight_test_support::paths::workspace_root())
        .arg("build")
        .arg("--quiet");
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    for package in packages {
        command.arg("-p").arg(package);
    }
    command.args(extra);
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo build` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Builds every fault variant once and copies each into its own directory under a name that
/// follows the plugin naming convention. Returns variant name → directory.
fn fault_dirs() -> Result<&'static HashMap<&'static str, PathBuf>, String> {
    static DIRS: OnceLock<Result<HashMap<&'static str, PathBuf>, String>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let built = profile_dir().join(format!(
            "{}warpsight_fault_test.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        ));
        let mut dirs = HashMap::new();
        for (feature, name) in FAULT_VARIANTS {
            let extra: Vec<&str> = feature.map(|f| vec!["--features", f]).unwrap_or_default();
            cargo_build(&["warpsight-fault-test"], &extra)?;
            let dir = profile_dir().join("fault-test").join(name);
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let dest = dir.join(format!(
                "{}warpsight_plugin_fault_{name}.{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_EXTENSION
            ));
            // Unlink first: replacing a library in place could corrupt a process that maps it.
            let _ = std::fs::remove_file(&dest);
            std::fs::copy(&built, &dest).map_err(|e| format!("copy {}: {e}", built.display()))?;
            dirs.insert(*name, dir);
        }
        Ok(dirs)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The single library file in a fault variant's directory.
fn fault_file(name: &str) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let dir = fault_dirs()?
        .get(name)
        .ok_or(format!("no variant {name}"))?
        .clone();
    let file = std::fs::read_dir(&dir)?
        .next()
        .ok_or("empty variant dir")??
        .path();
    Ok(file)
}

fn cc(text: &str) -> Result<ComputeCapability, String> {
    ComputeCapability::parse(text).ok_or(format!("bad cc {text}"))
}

#[test]
fn archs_cover_every_required_compute_capability() -> TestResult {
    let registry = registry();
    for wanted in [
        "5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9",
        "9.0", "10.0", "10.3", "12.0", "12.1",
    ] {
        assert!(
            registry.arch(cc(wanted)?).is_some(),
            "no plugin provides CC {wanted}"
        );
    }
    Ok(())
}

#[test]
fn spot_checks_match_the_reference_tables() -> TestResult {
    let registry = registry();
    // ARCHS.csv 8.0: 2048 threads, 32 blocks, 167936 B per SM, carveouts up to 164 KB.
    let a100 = registry.arch(cc("8.0")?).ok_or("no 8.0")?;
    assert_eq!(a100.max_threads_per_sm, 2048);
    assert_eq!(a100.max_blocks_per_sm, 32);
    assert_eq!(a100.smem_per_sm, 167_936);
    assert_eq!(a100.carveouts.last(), Some(&(164 * 1024)));
    assert_eq!(a100.smem_reserved_per_block, 1024);
    // ARCHS.csv 6.0: the only CC with 2 sub-partitions; LATENCIES.md §1: 2 schedulers.
    let gp100 = registry.arch(cc("6.0")?).ok_or("no 6.0")?;
    assert_eq!((gp100.sub_partitions, gp100.warp_schedulers_per_sm), (2, 2));
    // ARCHS.csv 7.5: 32 warps, 16 blocks, carveouts 32/64 KB.
    let turing = registry.arch(cc("7.5")?).ok_or("no 7.5")?;
    assert_eq!(
        (turing.max_warps_per_sm, turing.max_blocks_per_sm),
        (32, 16)
    );
    assert_eq!(turing.carveouts, vec![32 * 1024, 64 * 1024]);
    // ARCHS.csv 12.0: 24 blocks (not CCCL's 32).
    assert_eq!(
        registry
            .arch(cc("12.0")?)
            .ok_or("no 12.0")?
            .max_blocks_per_sm,
        24
    );
    // DEVICES.csv H100 SXM5: 132 SMs, 3.35 TB/s.
    let h100 = registry.device("H100 SXM5 80GB").ok_or("no H100")?;
    assert_eq!(h100.sm_count, 132);
    assert_eq!(h100.dram_bandwidth, 3.35e12);
    Ok(())
}

/// Reads a reference CSV of `../shared/reference` as all-string columns, or None when the folder
/// is absent (the skip is reported when the test binary exits).
fn reference_csv(name: &str) -> Result<Option<DataFrame>, Box<dyn std::error::Error>> {
    let Some(dir) = warpsight_test_support::paths::shared_reference() else {
        return Ok(None);
    };
    let path = dir.join(name);
    let frame = CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .try_into_reader_with_file_path(Some(path))?
        .finish()?;
    Ok(Some(frame))
}

fn cell(frame: &DataFrame, column: &str, row: usize) -> Result<String, Box<dyn std::error::Error>> {
    Ok(frame
        .column(column)?
        .str()?
        .get(row)
        .unwrap_or("")
        .trim()
        .to_string())
}

/// The leading number of a cell such as "~1965 (UNCERTAIN)" or "48 (PG) / 64 (CCCL)".
fn leading_number(text: &str) -> Option<f64> {
    let text = text.trim_start_matches('~');
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    text[..end].parse().ok()
}

#[test]
fn every_arch_row_of_archs_csv_matches_the_plugins() -> TestResult {
    let Some(archs) = reference_csv("ARCHS.csv")? else {
        return Ok(());
    };
    let registry = registry();
    let mut compared = 0;
    for row in 0..archs.height() {
        let Some(wanted_cc) = ComputeCapability::parse(&cell(&archs, "cc", row)?) else {
            continue;
        };
        let Some(arch) = registry.arch(wanted_cc) else {
            continue;
        };
        let checks: [(&str, u64); 12] = [
            ("max_warps_per_sm", arch.max_warps_per_sm.into()),
            ("max_threads_per_sm", arch.max_threads_per_sm.into()),
            ("max_blocks_per_sm", arch.max_blocks_per_sm.into()),
            ("max_threads_per_block", arch.max_threads_per_block.into()),
            ("regs_per_sm_32bit", arch.regs_per_sm.into()),
            ("max_regs_per_block", arch.max_regs_per_block.into()),
            ("max_regs_per_thread", arch.max_regs_per_thread.into()),
            ("warp_alloc_granularity", arch.sub_partitions.into()),
            ("smem_per_sm_max_bytes", arch.smem_per_sm.into()),
            (
                "max_smem_per_block_optin_bytes",
                arch.smem_per_block_optin.into(),
            ),
            ("smem_alloc_unit_bytes", arch.smem_alloc_unit.into()),
            (
                "reserved_smem_per_block_bytes",
                arch.smem_reserved_per_block.into(),
            ),
        ];
        for (column, ours) in checks {
            let theirs = cell(&archs, column, row)?;
            let expected =
                leading_number(&theirs).ok_or(format!("{wanted_cc} {column}: {theirs:?}"))?;
            assert_eq!(
                ours as f64, expected,
                "CC {wanted_cc} {column}: plugin {ours}, ARCHS.csv {theirs}"
            );
        }
        let lanes = leading_number(&cell(&archs, "fp32_lanes_per_sm", row)?).ok_or("fp32 lanes")?;
        assert_eq!(arch.throughput.fp32, lanes, "CC {wanted_cc} fp32 lanes");
        let issue =
            leading_number(&cell(&archs, "issue_instr_per_clk_per_sm", row)?).ok_or("issue")?;
        let per_sm = f64::from(arch.warp_schedulers_per_sm * arch.issue_per_scheduler_per_clk);
        assert_eq!(per_sm, issue, "CC {wanted_cc} issue per SM per clock");
        let carveouts: Vec<f64> = cell(&archs, "carveout_sizes_kb", row)?
            .split('/')
            .filter_map(leading_number)
            .map(|kb| kb * 1024.0)
            .collect();
        let ours: Vec<f64> = arch.carveouts.iter().map(|&c| f64::from(c)).collect();
        assert_eq!(ours, carveouts, "CC {wanted_cc} carveouts");
        compared += 1;
    }
    assert_eq!(compared, 18, "every provided CC has a row in ARCHS.csv");
    Ok(())
}

#[test]
fn every_device_row_of_devices_csv_is_provided_with_its_numbers() -> TestResult {
    let Some(devices) = reference_csv("DEVICES.csv")? else {
        return Ok(());
    };
    let registry = registry();
    for row in 0..devices.height() {
        let name = cell(&devices, "device", row)?;
        let Some(wanted_cc) = ComputeCapability::parse(&cell(&devices, "cc", row)?) else {
            continue;
        };
        if wanted_cc < ComputeCapability::new(5, 0) {
            continue;
        }
        let device = registry
            .device(&name)
            .ok_or(format!("DEVICES.csv row {name:?} is not provided"))?;
        assert_eq!(device.cc, wanted_cc, "{name} cc");
        let sms = leading_number(&cell(&devices, "sm_count", row)?).ok_or("sm_count")?;
        assert_eq!(f64::from(device.sm_count), sms, "{name} SMs");
        if let Some(mhz) = leading_number(&cell(&devices, "boost_clock_mhz", row)?) {
            assert_eq!(device.sm_clock_hz, mhz * 1e6, "{name} clock");
        }
        let gbs = leading_number(&cell(&devices, "mem_bandwidth_gbs", row)?).ok_or("bandwidth")?;
        assert_eq!(device.dram_bandwidth, gbs * 1e9, "{name} bandwidth");
        if let Some(tflops) = leading_number(&cell(&devices, "fp32_tflops", row)?) {
            let relative = (device.peak.fp32 / (tflops * 1e12) - 1.0).abs();
            assert!(
                relative < 0.01,
                "{name} FP32 {} vs {tflops} TF",
                device.peak.fp32
            );
        }
        if let Some(tflops) = leading_number(&cell(&devices, "fp16_bf16_tensor_dense_tflops", row)?)
        {
            assert_eq!(device.peak.fp16_tensor, tflops * 1e12, "{name} FP16 tensor");
        }
    }
    Ok(())
}

#[test]
fn names_as_profilers_print_them_resolve() -> TestResult {
    let registry: Registry = registry();
    // Names seen in the real exports (MANIFEST.md) and in the brief.
    for (name, sms) in [
        ("NVIDIA H200", 132),
        ("NVIDIA A100-SXM4-40GB", 108),
        ("Tesla V100-SXM2-16GB", 80),
        ("NVIDIA GeForce RTX 4090", 128),
        ("NVIDIA GeForce RTX 5090", 170),
        ("NVIDIA GeForce GTX 1080", 20),
        ("NVIDIA GeForce RTX 3060", 28),
    ] {
        let device = registry
            .device(name)
            .ok_or(format!("{name} does not resolve"))?;
        assert_eq!(device.sm_count, sms, "{name}");
    }
    Ok(())
}

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
    // Eight faults fail at load time; the three rules variants load (their faults are in the hook),
    // and so do the minor-0 and minor-2 plugins (no fault).
    assert_eq!(report.rejected.len(), 8, "{:#?}", report.rejected);
    for rejected in &report.rejected {
        assert!(
            rejected
                .to_string()
                .contains(&rejected.file.display().to_string()),
            "the message names the file"
        );
    }
    assert_eq!(report.loaded.len(), 8 + 3 + 2);
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

/// A small launch frame with three launches.
fn launches() -> PolarsResult<DataFrame> {
    df!(
        "launch_id" => [10i64, 11, 12],
        "kernel_name" => ["a", "b", "c"],
        "duration_ns" => [1.0f64, 2.0, 3.0],
    )
}

#[test]
fn the_rules_hook_round_trips_and_its_faults_are_reported() -> TestResult {
    let ok = load_plugin(&fault_file("rules_ok")?)?;
    let hook = ok.rules.as_ref().ok_or("rules_ok has no hook")?;
    let findings = hook.run(&launches()?)?;
    let ids: Vec<i64> = findings.iter().map(|f| f.launch_id).collect();
    assert_eq!(ids, vec![10, 11, 12]);
    assert_eq!(
        findings[1].message,
        "launch 11 seen by the fault-test plugin"
    );
    assert_eq!(findings[0].rule_id, "fault_test.every_launch");

    let panicking = load_plugin(&fault_file("rules_panic")?)?;
    match panicking
        .rules
        .as_ref()
        .ok_or("rules_panic has no hook")?
        .run(&launches()?)
    {
        Err(PluginError::HookPanicked { message, .. }) => {
            assert!(message.contains("panics on purpose"), "{message}")
        }
        other => panic!("rules panic: {other:?}"),
    }
    // The host is still fine and the same hook can be called again.
    assert!(hook.run(&launches()?)?.len() == 3);

    let unknown = load_plugin(&fault_file("rules_unknown_launch")?)?;
    match unknown
        .rules
        .as_ref()
        .ok_or("rules_unknown_launch has no hook")?
        .run(&launches()?)
    {
        Err(PluginError::InvalidFindings { message, .. }) => {
            assert!(message.contains("-12345"), "{message}")
        }
        other => panic!("unknown launch: {other:?}"),
    }
    Ok(())
}

/// Runs the warpsight binary with `--plugin-dir` set to the workspace plugins.
fn warpsight(args: &[&str]) -> Result<std::process::Output, Box<dyn std::error::Error>> {
    let dir = warpsight_test_support::plugins::binary_plugin_dir()?;
    let output = Command::new(env!("CARGO_BIN_EXE_warpsight"))
        .arg("--plugin-dir")
        .arg(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("WARPSIGHT_PLUGIN_PATH")
        .output()?;
    Ok(output)
}

#[test]
fn cli_archs_json_lists_every_cc_with_its_plugin() -> TestResult {
    let output = warpsight(&["archs", "--format", "json"])?;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let list = list.as_array().ok_or("not an array")?;
    let a100 = list.iter().find(|a| a["cc"] == "8.0").ok_or("no 8.0")?;
    assert_eq!(a100["plugin"], "ampere");
    assert_eq!(a100["max_threads_per_sm"], 2048);
    assert_eq!(a100["smem_per_sm_bytes"], 167_936);
    let ccs: Vec<&str> = list.iter().filter_map(|a| a["cc"].as_str()).collect();
    assert!(ccs.contains(&"12.0") && ccs.contains(&"5.0"), "{ccs:?}");
    Ok(())
}

#[test]
fn cli_devices_json_names_the_plugin() -> TestResult {
    let output = warpsight(&["devices", "--format", "json"])?;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let h200 = list
        .as_array()
        .ok_or("not an array")?
        .iter()
        .find(|d| d["name"] == "NVIDIA H200")
        .ok_or("no H200")?;
    assert_eq!(h200["plugin"], "hopper");
    assert_eq!(h200["sm_count"], 132);
    Ok(())
}

#[test]
fn cli_plugins_lists_rejected_files_with_the_reason() -> TestResult {
    let wrong_major = fault_dirs()?
        .get("wrong_major")
        .ok_or("no variant")?
        .clone();
    let output = warpsight(&[
        "--plugin-dir",
        &wrong_major.display().to_string(),
        "plugins",
    ])?;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout)?;
    assert!(text.contains("Rejected plugins (1)"), "{text}");
    assert!(text.contains("ABI major version 2"), "{text}");
    assert!(
        text.contains("warpsight_plugin_fault_wrong_major"),
        "{text}"
    );
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

/// The analysis gives each plugin finding its launch's kernel (looked up for the launches the hook
/// named, the first row of a launch id) and the file it came from.
#[test]
fn plugin_findings_name_their_launch_kernel() -> TestResult {
    let ok = load_plugin(&fault_file("rules_ok")?)?;
    let hook = ok.rules.clone().ok_or("rules_ok has no hook")?;
    let frame = df!(
        "source_file" => ["t.csv", "t.csv", "t.csv"],
        "launch_id" => [10i64, 11, 12],
        "kernel_name" => ["a", "b", "c"],
        "duration_ns" => [1.0f64, 2.0, 3.0],
    )?;
    let launches = warpsight_ingest::launch_table::conform(frame.lazy())?.collect()?;
    let loaded = warpsight_report::analysis::load::Loaded {
        files: vec![PathBuf::from("t.csv")],
        launches,
        rules: DataFrame::empty(),
        transfers: DataFrame::empty(),
        kernel_summary: DataFrame::empty(),
        rejected: Vec::new(),
        profiling_failed: Vec::new(),
    };
    let config = warpsight_report::analysis::pipeline::AnalysisConfig {
        rules_hooks: vec![hook],
        ..Default::default()
    };
    let analysis = warpsight_report::analysis::pipeline::analyze(&loaded, &registry(), &config)?;
    let mut seen: Vec<(i64, String, String)> = analysis
        .findings
        .iter()
        .filter(|f| f.source.starts_with("plugin:"))
        .map(|f| {
            (
                f.launch_id.unwrap_or(-1),
                f.kernel.to_string(),
                f.file.to_string(),
            )
        })
        .collect();
    seen.sort();
    let expected: Vec<(i64, String, String)> = [(10, "a"), (11, "b"), (12, "c")]
        .iter()
        .map(|&(id, kernel)| (id, kernel.to_string(), "t.csv".to_string()))
        .collect();
    assert_eq!(seen, expected);
    Ok(())
}
