//! Plugin tests: the shipped family plugins cover every required compute capability with the
//! numbers of the reference tables; the CLI lists what is loaded and rejected; plugin findings
//! reach the analysis. How the host loads, rejects and merges plugins and runs their rules hook is
//! tested in `core/plugin-host/tests/`.

use std::path::PathBuf;
use std::process::Command;

use polars::prelude::*;
use warpsight_model::arch::{ComputeCapability, Registry};
use warpsight_plugin_host::load_plugin;
use warpsight_test_support::plugins::{fault_dirs, fault_file, registry};

type TestResult = Result<(), Box<dyn std::error::Error>>;

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
        side: warpsight_ingest::trace::SideTables::default(),
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
