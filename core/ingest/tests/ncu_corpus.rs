//! The Nsight Compute readers against the real exports in `../shared/traces/` (see its
//! `MANIFEST.md`): launch counts, devices, zero rejected rows, base-unit conversions checked
//! against values read off the file text, and the raw page (#13) agreeing with the details page
//! (#14) of the same 30 launches. Skips with a message when the corpus folder is absent.

use std::path::PathBuf;

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::Trace;
use warpsight_ingest::{Format, IngestError, ReadConfig, read_path};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `../shared/traces`, or `None` (the skip is reported once, when the test binary exits).
fn corpus() -> Option<PathBuf> {
    warpsight_test_support::paths::shared_traces()
}

fn read(dir: &std::path::Path, name: &str) -> Result<Trace, IngestError> {
    read_path(&dir.join(name), &ReadConfig::default())
}

fn i64s(frame: &DataFrame, name: &str) -> Result<Vec<Option<i64>>, PolarsError> {
    Ok(frame.column(name)?.i64()?.iter().collect())
}

fn f64s(frame: &DataFrame, name: &str) -> Result<Vec<Option<f64>>, PolarsError> {
    Ok(frame.column(name)?.f64()?.iter().collect())
}

fn strs(frame: &DataFrame, name: &str) -> Result<Vec<Option<String>>, PolarsError> {
    Ok(frame
        .column(name)?
        .str()?
        .iter()
        .map(|s| s.map(str::to_string))
        .collect())
}

/// (MANIFEST number, file, format, launches, compute capability if the file records it).
type CorpusFile = (u32, &'static str, Format, usize, Option<(i64, i64)>);

const FILES: &[CorpusFile] = &[
    (
        1,
        "xplacer__cfd_kernel-level-measurement_nsight_cfd_097K.log",
        Format::NcuDetails,
        100,
        None,
    ),
    (
        3,
        "xplacer__bfs_lassen-kernel-level-measurement_nsight_bfs_graph4096.log",
        Format::NcuDetails,
        13,
        None,
    ),
    (
        4,
        "gpucachesim__nsight_vectoradd_100_32_metrics_all.csv",
        Format::NcuRaw,
        3,
        Some((6, 1)),
    ),
    (
        5,
        "gpucachesim__nsight_vectoradd_100_32_metrics_all.txt",
        Format::NcuRaw,
        3,
        Some((6, 1)),
    ),
    (
        6,
        "opparam__bert_torch_nsight.csv",
        Format::NcuDetails,
        26,
        None,
    ),
    (
        7,
        "opparam__pooling_nsight16.csv",
        Format::NcuDetails,
        240,
        Some((8, 0)),
    ),
    (
        9,
        "llm-perf-opt__kernel_0001_ncu.details.csv",
        Format::NcuDetails,
        1,
        Some((12, 0)),
    ),
    (
        10,
        "llm-perf-opt__kernel_0004_ncu.details.csv",
        Format::NcuDetails,
        1,
        Some((12, 0)),
    ),
    (
        13,
        "moeresearch__R_short_decode_ncu_raw_full.csv",
        Format::NcuRaw,
        30,
        Some((9, 0)),
    ),
    (
        14,
        "moeresearch__R_short_decode_ncu_details_setfull.csv",
        Format::NcuDetails,
        30,
        Some((9, 0)),
    ),
    (
        16,
        "moeresearch__v9b_stalls_agent_decode_b32_ncu_details.csv",
        Format::NcuDetails,
        24,
        Some((9, 0)),
    ),
    (
        17,
        "moeresearch__cutlass_microbench_ncu_metrics.csv",
        Format::NcuDetails,
        4,
        Some((9, 0)),
    ),
];

/// Files with an Occupancy section (or the raw equivalents).
const WITH_OCCUPANCY: &[u32] = &[1, 3, 6, 7, 9, 10, 13, 14, 16];

/// Files with a Launch Statistics section (registers, shared memory) or its raw equivalents.
const WITH_LAUNCH_STATS: &[u32] = &[1, 3, 6, 7, 13, 14];

#[test]
fn every_ncu_file_reads_with_the_manifest_launch_count() -> TestResult {
    let Some(dir) = corpus() else { return Ok(()) };
    for &(number, name, format, launches, cc) in FILES {
        let trace = read(&dir, name)?;
        assert_eq!(trace.format, format, "#{number}");
        assert_eq!(trace.launch_count(), launches, "#{number} launch count");
        assert!(
            trace.rejected.is_empty(),
            "#{number} rejected: {:?}",
            &trace.rejected[..trace.rejected.len().min(3)]
        );
        let l = &trace.launches;
        let ids = l.column(lt::LAUNCH_ID)?.n_unique()?;
        assert_eq!(ids, launches, "#{number} distinct ids");
        if let Some((major, minor)) = cc {
            assert!(
                i64s(l, lt::CC_MAJOR)?.iter().all(|v| *v == Some(major)),
                "#{number} cc major"
            );
            assert!(
                i64s(l, lt::CC_MINOR)?.iter().all(|v| *v == Some(minor)),
                "#{number} cc minor"
            );
        }
        if WITH_LAUNCH_STATS.contains(&number) {
            for name in [
                lt::REGISTERS_PER_THREAD,
                lt::STATIC_SMEM_BYTES,
                lt::DYNAMIC_SMEM_BYTES,
                lt::SMEM_CONFIG_BYTES,
            ] {
                assert_eq!(
                    l.column(name)?.null_count(),
                    0,
                    "#{number} {name} has nulls"
                );
            }
        }
        if number != 4 && number != 5 {
            // Block size from the `Block Size` column or the Launch Statistics product.
            assert_eq!(
                l.column(lt::BLOCK_X)?.null_count(),
                0,
                "#{number} block_x has nulls"
            );
        }
        if WITH_OCCUPANCY.contains(&number) {
            let occupancy = f64s(l, lt::NCU_THEORETICAL_OCCUPANCY)?;
            assert!(
                occupancy
                    .iter()
                    .all(|v| v.is_some_and(|v| v > 0.0 && v <= 1.0)),
                "#{number} theoretical occupancy must be a ratio: {occupancy:?}"
            );
        }
    }
    Ok(())
}

#[test]
fn values_are_converted_to_base_units() -> TestResult {
    let Some(dir) = corpus() else { return Ok(()) };
    // #14, launch 0: `Shared Memory Configuration Size` "Kbyte","32.77"; `Driver Shared Memory
    // Per Block` "Kbyte/block","1.02"; `Duration` "us","2.46"; `Theoretical Occupancy` "%","100";
    // `Block Size` column "(128, 1, 1)"; `Registers Per Thread` 32.
    let t14 = read(&dir, "moeresearch__R_short_decode_ncu_details_setfull.csv")?;
    let l = &t14.launches;
    assert_eq!(i64s(l, lt::SMEM_CONFIG_BYTES)?[0], Some(32_770));
    assert_eq!(i64s(l, lt::DRIVER_SMEM_BYTES)?[0], Some(1_020));
    assert!((f64s(l, lt::DURATION_NS)?[0].ok_or("duration")? - 2_460.0).abs() < 1e-6);
    assert_eq!(f64s(l, lt::NCU_THEORETICAL_OCCUPANCY)?[0], Some(1.0));
    assert_eq!(i64s(l, lt::BLOCK_X)?[0], Some(128));
    assert_eq!(i64s(l, lt::REGISTERS_PER_THREAD)?[0], Some(32));
    assert!(t14.side.rules.height() > 0, "#14 has rule rows");
    let multi_line = t14
        .side
        .rules
        .column(warpsight_ingest::trace::rules_col::DESCRIPTION)?
        .str()?
        .iter()
        .flatten()
        .any(|d| d.contains('\n'));
    assert!(
        multi_line,
        "#14 has a rule description spanning several lines"
    );

    // #13 raw page, launch 0: `launch__shared_mem_config_size` "Kbyte" 32.768000 and the device
    // attributes `NVIDIA H200`.
    let t13 = read(&dir, "moeresearch__R_short_decode_ncu_raw_full.csv")?;
    assert_eq!(i64s(&t13.launches, lt::SMEM_CONFIG_BYTES)?[0], Some(32_768));
    assert_eq!(i64s(&t13.launches, lt::DRIVER_SMEM_BYTES)?[0], Some(1_024));
    assert_eq!(
        strs(&t13.launches, lt::DEVICE_NAME)?[0].as_deref(),
        Some("NVIDIA H200")
    );

    // #6 (A100, 2022): thousands separators, `byte` units: `Shared Memory Configuration Size`
    // "byte","16,384" is among its values, and `Driver Shared Memory Per Block` is 1,024 bytes.
    let t6 = read(&dir, "opparam__bert_torch_nsight.csv")?;
    assert!(
        i64s(&t6.launches, lt::DRIVER_SMEM_BYTES)?
            .iter()
            .all(|v| *v == Some(1024))
    );
    assert!(i64s(&t6.launches, lt::SMEM_CONFIG_BYTES)?.contains(&Some(16_384)));
    assert!(f64s(&t6.launches, lt::INST_FFMA)?.contains(&Some(8_388_608.0)));

    // #1 (V100, 2020): `Kernel Time` becomes start_ns, `SM Frequency` is cycle/second (Hz).
    let t1 = read(
        &dir,
        "xplacer__cfd_kernel-level-measurement_nsight_cfd_097K.log",
    )?;
    assert!(
        i64s(&t1.launches, lt::START_NS)?
            .iter()
            .all(|v| v.is_some_and(|v| v > 1_500_000_000_000_000_000))
    );
    assert!(
        f64s(&t1.launches, lt::SM_CLOCK_HZ)?
            .iter()
            .all(|v| v.is_some_and(|v| v > 1e9 && v < 2e9))
    );
    Ok(())
}

#[test]
fn raw_and_details_pages_of_the_same_launches_agree() -> TestResult {
    let Some(dir) = corpus() else { return Ok(()) };
    let raw = read(&dir, "moeresearch__R_short_decode_ncu_raw_full.csv")?.launches;
    let details = read(&dir, "moeresearch__R_short_decode_ncu_details_setfull.csv")?.launches;
    assert_eq!(raw.height(), 30);
    assert_eq!(details.height(), 30);
    for name in [
        lt::LAUNCH_ID,
        lt::GRID_X,
        lt::GRID_Y,
        lt::GRID_Z,
        lt::BLOCK_X,
        lt::BLOCK_Y,
        lt::BLOCK_Z,
        lt::REGISTERS_PER_THREAD,
        lt::NCU_BLOCK_LIMIT_REGISTERS,
        lt::NCU_BLOCK_LIMIT_SHARED_MEM,
        lt::NCU_BLOCK_LIMIT_WARPS,
    ] {
        assert_eq!(i64s(&raw, name)?, i64s(&details, name)?, "{name}");
    }
    assert_eq!(
        strs(&raw, lt::KERNEL_NAME)?,
        strs(&details, lt::KERNEL_NAME)?
    );
    // Details values are rounded for display (2 decimals of the printed unit).
    for name in [
        lt::STATIC_SMEM_BYTES,
        lt::DYNAMIC_SMEM_BYTES,
        lt::DRIVER_SMEM_BYTES,
        lt::SMEM_CONFIG_BYTES,
    ] {
        for (r, d) in i64s(&raw, name)?.into_iter().zip(i64s(&details, name)?) {
            let (r, d) = (r.ok_or(name)?, d.ok_or(name)?);
            assert!(
                (r - d).abs() <= 10.max(r / 200),
                "{name}: raw {r} vs details {d}"
            );
        }
    }
    for name in [lt::NCU_THEORETICAL_OCCUPANCY, lt::DURATION_NS] {
        for (r, d) in f64s(&raw, name)?.into_iter().zip(f64s(&details, name)?) {
            let (r, d) = (r.ok_or(name)?, d.ok_or(name)?);
            assert!(
                (r - d).abs() <= 0.005 * r.abs().max(1e-9) + 1e-9 || (r - d).abs() <= 5.0,
                "{name}: raw {r} vs details {d}"
            );
        }
    }
    Ok(())
}

#[test]
fn ncu_plain_text_output_is_unrecognized_with_a_csv_hint() {
    let Some(dir) = corpus() else { return };
    match read(&dir, "gpumode-lectures__lecture_001_ncu_logs.txt") {
        Err(IngestError::Unrecognized { hint, .. }) => assert!(hint.contains("--csv"), "{hint}"),
        other => panic!("expected Unrecognized, got {:?}", other.map(|t| t.format)),
    }
}
