//! Nsight Systems ingest against real exports (`../shared/traces/`, skipped with a message when
//! absent) and against the synthetic SQLite / Parquet / Arrow / CSV exports of
//! `ingest::nsys_synthetic` (old and new schema). Expected values are taken from the files'
//! content (see `MANIFEST.md` for the launch counts) or from the generator's per-row formulas.

use std::path::PathBuf;

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::{Trace, kernel_summary_col as ks, transfers_col as tc};
use warpsight_ingest::{Format, ReadConfig, detect, read_path};
use warpsight_test_support::synthetic_nsys::{self as synth, Container, Schema, SyntheticConfig};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `../shared/traces`, or `None` (the skip is reported once, when the test binary exits).
fn corpus() -> Option<PathBuf> {
    warpsight_test_support::paths::shared_traces()
}

fn strict() -> ReadConfig {
    ReadConfig {
        strict: true,
        format: None,
    }
}

fn i64_at(frame: &DataFrame, name: &str, row: usize) -> Result<Option<i64>, PolarsError> {
    Ok(frame.column(name)?.i64()?.get(row))
}

fn f64_at(frame: &DataFrame, name: &str, row: usize) -> Result<Option<f64>, PolarsError> {
    Ok(frame.column(name)?.f64()?.get(row))
}

fn str_at(frame: &DataFrame, name: &str, row: usize) -> Result<Option<String>, PolarsError> {
    Ok(frame.column(name)?.str()?.get(row).map(str::to_string))
}

#[test]
fn kern_sum_exports_give_summaries_and_no_launches() -> TestResult {
    let Some(dir) = corpus() else { return Ok(()) };
    // #11 (RTX 5090) and #18 (Hopper): 113 and 175 kernel names.
    for (file, rows) in [
        ("llm-perf-opt__all-stage_summary_cuda_gpu_kern_sum.csv", 113),
        ("moeresearch__AT_ON_CG_ON_cuda_gpu_kern_sum.csv", 175),
    ] {
        let path = dir.join(file);
        assert_eq!(detect(&path)?, Format::NsysKernSum, "{file}");
        let trace = read_path(&path, &strict())?;
        assert_eq!(trace.format, Format::NsysKernSum);
        assert_eq!(trace.side.kernel_summary.height(), rows, "{file}");
        assert_eq!(
            trace.launch_count(),
            0,
            "{file}: a summary must not become launches"
        );
        assert!(trace.rejected.is_empty(), "{file}: {:?}", trace.rejected);
    }
    // First row of #11: `24.9,1231822285,329035,3743.7,3712.0,2079,5856,416.2,"std::enable_if<!T7, ...`.
    let trace = read_path(
        &dir.join("llm-perf-opt__all-stage_summary_cuda_gpu_kern_sum.csv"),
        &strict(),
    )?;
    let s = &trace.side.kernel_summary;
    assert_eq!(f64_at(s, ks::TIME_SHARE, 0)?, Some(0.249));
    assert_eq!(f64_at(s, ks::TOTAL_NS, 0)?, Some(1_231_822_285.0));
    assert_eq!(i64_at(s, ks::INSTANCES, 0)?, Some(329_035));
    assert_eq!(f64_at(s, ks::AVG_NS, 0)?, Some(3743.7));
    assert_eq!(f64_at(s, ks::MED_NS, 0)?, Some(3712.0));
    assert_eq!(f64_at(s, ks::MIN_NS, 0)?, Some(2079.0));
    assert_eq!(f64_at(s, ks::MAX_NS, 0)?, Some(5856.0));
    assert_eq!(f64_at(s, ks::STDDEV_NS, 0)?, Some(416.2));
    let name = str_at(s, ks::KERNEL_NAME, 0)?.unwrap_or_default();
    assert!(
        name.starts_with("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int,"),
        "{name}"
    );
    assert!(name.ends_with(">(T13)"), "{name}");
    // The shares of #18 add up to about 100 % (each printed with one decimal).
    let trace = read_path(
        &dir.join("moeresearch__AT_ON_CG_ON_cuda_gpu_kern_sum.csv"),
        &strict(),
    )?;
    let total: f64 = trace
        .side
        .kernel_summary
        .column(ks::TIME_SHARE)?
        .f64()?
        .sum()
        .unwrap_or(0.0);
    assert!((total - 1.0).abs() < 0.02, "time shares sum to {total}");
    assert_eq!(
        str_at(&trace.side.kernel_summary, ks::KERNEL_NAME, 0)?.as_deref(),
        Some("tensorrt_llm::kernels::delayStreamKernel(long long)")
    );
    assert_eq!(
        f64_at(&trace.side.kernel_summary, ks::MED_NS, 1)?,
        Some(93_679.5)
    );
    Ok(())
}

#[test]
fn gpu_trace_export_splits_kernels_and_transfers() -> TestResult {
    let Some(dir) = corpus() else { return Ok(()) };
    let path = dir.join("tornadovm__chains_after_cuda_gpu_trace.csv");
    assert_eq!(detect(&path)?, Format::NsysGpuTrace);
    let trace = read_path(&path, &strict())?;
    assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
    // #20: 40 rows, 12 of them kernels (`scale`), 28 memcpy/memset.
    let l = &trace.launches;
    assert_eq!(l.height(), 12);
    assert_eq!(trace.side.transfers.height(), 28);
    // First kernel row: `967219594,1536,74,32,1,1,1024,1,1,22,0.000,0.000,,,,,NVIDIA GeForce RTX 4090 (0),1,,16,scale`.
    assert_eq!(i64_at(l, lt::LAUNCH_ID, 0)?, Some(74));
    assert_eq!(i64_at(l, lt::START_NS, 0)?, Some(967_219_594));
    assert_eq!(f64_at(l, lt::DURATION_NS, 0)?, Some(1536.0));
    assert_eq!(i64_at(l, lt::GRID_X, 0)?, Some(32));
    assert_eq!(i64_at(l, lt::BLOCK_X, 0)?, Some(1024));
    assert_eq!(i64_at(l, lt::REGISTERS_PER_THREAD, 0)?, Some(22));
    assert_eq!(i64_at(l, lt::STATIC_SMEM_BYTES, 0)?, Some(0));
    assert_eq!(i64_at(l, lt::STREAM, 0)?, Some(16));
    assert_eq!(i64_at(l, lt::CONTEXT, 0)?, Some(1));
    assert_eq!(
        str_at(l, lt::DEVICE_NAME, 0)?.as_deref(),
        Some("NVIDIA GeForce RTX 4090")
    );
    assert_eq!(i64_at(l, lt::DEVICE_ORDINAL, 0)?, Some(0));
    assert_eq!(str_at(l, lt::KERNEL_NAME, 0)?.as_deref(), Some("scale"));
    assert_eq!(
        str_at(l, lt::KERNEL_SHORT_NAME, 0)?.as_deref(),
        Some("scale")
    );
    assert_eq!(
        str_at(l, lt::SOURCE_FILE, 0)?,
        Some(path.display().to_string())
    );
    // Last kernel row: `1010914338,1216,292,...,17,scale`.
    assert_eq!(i64_at(l, lt::LAUNCH_ID, 11)?, Some(292));
    assert_eq!(i64_at(l, lt::STREAM, 11)?, Some(17));
    let t = &trace.side.transfers;
    // First row is a memset: `900537763,1408,40,...,0.131,93102.237,Device,,...,7,[CUDA memset]`.
    assert_eq!(str_at(t, tc::KIND, 0)?.as_deref(), Some("memset"));
    assert_eq!(str_at(t, tc::DIRECTION, 0)?, None);
    assert_eq!(i64_at(t, tc::BYTES, 0)?, Some(131_000));
    assert_eq!(i64_at(t, tc::START_NS, 0)?, Some(900_537_763));
    assert_eq!(str_at(t, tc::SRC_KIND, 0)?.as_deref(), Some("Device"));
    assert_eq!(i64_at(t, tc::STREAM, 0)?, Some(7));
    // Second: `901614887,8128,48,...,Pinned,Device,...,15,[CUDA memcpy Host-to-Device]`.
    assert_eq!(str_at(t, tc::KIND, 1)?.as_deref(), Some("memcpy"));
    assert_eq!(
        str_at(t, tc::DIRECTION, 1)?.as_deref(),
        Some("Host-to-Device")
    );
    assert_eq!(str_at(t, tc::DST_KIND, 1)?.as_deref(), Some("Device"));
    assert_eq!(f64_at(t, tc::DURATION_NS, 1)?, Some(8128.0));
    let kinds = t.column(tc::KIND)?.str()?.clone();
    let memsets = kinds.iter().filter(|k| *k == Some("memset")).count();
    let dtoh = t
        .column(tc::DIRECTION)?
        .str()?
        .iter()
        .filter(|d| *d == Some("Device-to-Host"))
        .count();
    assert_eq!(memsets, 4);
    assert_eq!(dtoh, 6);
    Ok(())
}

#[test]
fn sqlite_export_new_schema_joins_names_device_and_process() -> TestResult {
    let Some(dir) = corpus() else { return Ok(()) };
    let path = dir.join("cuda-perf-sandbox__report1.sqlite");
    assert_eq!(detect(&path)?, Format::NsysSqlite);
    let trace = read_path(&path, &strict())?;
    assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
    let l = &trace.launches;
    // #22: one launch of kernVectorAdd on an RTX 3060 (CC 8.6, 28 SMs).
    assert_eq!(l.height(), 1);
    assert_eq!(str_at(l, lt::FORMAT, 0)?.as_deref(), Some("nsys-sqlite"));
    assert_eq!(
        str_at(l, lt::DEVICE_NAME, 0)?.as_deref(),
        Some("NVIDIA GeForce RTX 3060")
    );
    assert_eq!(i64_at(l, lt::CC_MAJOR, 0)?, Some(8));
    assert_eq!(i64_at(l, lt::CC_MINOR, 0)?, Some(6));
    assert_eq!(i64_at(l, lt::SM_COUNT, 0)?, Some(28));
    assert_eq!(f64_at(l, lt::SM_CLOCK_HZ, 0)?, Some(1_792_000_000.0));
    assert_eq!(i64_at(l, "device_max_shmem_per_sm", 0)?, Some(102_400));
    assert_eq!(i64_at(l, "device_max_warps_per_sm", 0)?, Some(48));
    assert_eq!(
        str_at(l, lt::KERNEL_NAME, 0)?.as_deref(),
        Some("kernVectorAdd(const float *, const float *, float *, int)")
    );
    assert_eq!(
        str_at(l, lt::KERNEL_SHORT_NAME, 0)?.as_deref(),
        Some("kernVectorAdd")
    );
    assert_eq!(
        str_at(l, "nsys_mangled_name", 0)?.as_deref(),
        Some("_Z13kernVectorAddPKfS0_Pfi")
    );
    // Row: start 1143927944, end 1143966856, correlationId 126, grid 4096x1x1, block 256x1x1,
    // 16 registers, sharedMemoryExecuted 8192, globalPid 281495881121792 (pid 1246, `./vecAdd`).
    assert_eq!(i64_at(l, lt::LAUNCH_ID, 0)?, Some(126));
    assert_eq!(i64_at(l, lt::START_NS, 0)?, Some(1_143_927_944));
    assert_eq!(f64_at(l, lt::DURATION_NS, 0)?, Some(38_912.0));
    assert_eq!(i64_at(l, lt::GRID_X, 0)?, Some(4096));
    assert_eq!(i64_at(l, lt::BLOCK_X, 0)?, Some(256));
    assert_eq!(i64_at(l, lt::REGISTERS_PER_THREAD, 0)?, Some(16));
    assert_eq!(i64_at(l, lt::SMEM_CONFIG_BYTES, 0)?, Some(8192));
    assert_eq!(i64_at(l, lt::STREAM, 0)?, Some(7));
    assert_eq!(i64_at(l, lt::PROCESS_ID, 0)?, Some(1246));
    assert_eq!(str_at(l, lt::PROCESS_NAME, 0)?.as_deref(), Some("./vecAdd"));
    assert_eq!(i64_at(l, "nsys_green_context_id", 0)?, Some(0));
    assert_eq!(i64_at(l, "nsys_local_memory_total", 0)?, Some(24_772_608));
    // Three 4 MiB copies: two Pageable -> Device, one Device -> Pageable.
    let t = &trace.side.transfers;
    assert_eq!(t.height(), 3);
    assert_eq!(
        str_at(t, tc::DIRECTION, 0)?.as_deref(),
        Some("Host-to-Device")
    );
    assert_eq!(
        str_at(t, tc::DIRECTION, 2)?.as_deref(),
        Some("Device-to-Host")
    );
    assert_eq!(str_at(t, tc::SRC_KIND, 0)?.as_deref(), Some("Pageable"));
    assert_eq!(str_at(t, tc::DST_KIND, 0)?.as_deref(), Some("Device"));
    assert_eq!(i64_at(t, tc::BYTES, 0)?, Some(4_194_304));
    assert_eq!(f64_at(t, tc::DURATION_NS, 0)?, Some(676_416.0));
    assert_eq!(
        str_at(t, tc::DEVICE_NAME, 0)?.as_deref(),
        Some("NVIDIA GeForce RTX 3060")
    );
    Ok(())
}

/// Checks a trace read from a synthetic export against the generator's formulas.
fn check_synthetic(
    trace: &Trace,
    config: &SyntheticConfig,
    format: &str,
    rows: &[usize],
) -> TestResult {
    assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
    let l = &trace.launches;
    assert_eq!(l.height(), config.launches);
    for &i in rows {
        let want = synth::launch(i);
        let kernel = &synth::KERNELS[want.kernel];
        assert_eq!(str_at(l, lt::FORMAT, i)?.as_deref(), Some(format));
        assert_eq!(
            i64_at(l, lt::LAUNCH_ID, i)?,
            Some(want.correlation_id),
            "row {i}"
        );
        assert_eq!(i64_at(l, lt::START_NS, i)?, Some(want.start_ns), "row {i}");
        assert_eq!(
            f64_at(l, lt::DURATION_NS, i)?,
            Some(want.duration_ns as f64),
            "row {i}"
        );
        assert_eq!(i64_at(l, lt::GRID_X, i)?, Some(want.grid[0]), "row {i}");
        assert_eq!(i64_at(l, lt::GRID_Y, i)?, Some(want.grid[1]), "row {i}");
        assert_eq!(i64_at(l, lt::BLOCK_X, i)?, Some(kernel.block[0]), "row {i}");
        assert_eq!(i64_at(l, lt::BLOCK_Y, i)?, Some(kernel.block[1]), "row {i}");
        assert_eq!(
            i64_at(l, lt::REGISTERS_PER_THREAD, i)?,
            Some(kernel.registers),
            "row {i}"
        );
        assert_eq!(
            i64_at(l, lt::STATIC_SMEM_BYTES, i)?,
            Some(kernel.static_smem),
            "row {i}"
        );
        assert_eq!(
            i64_at(l, lt::DYNAMIC_SMEM_BYTES, i)?,
            Some(kernel.dynamic_smem),
            "row {i}"
        );
        assert_eq!(i64_at(l, lt::STREAM, i)?, Some(want.stream), "row {i}");
        assert_eq!(
            str_at(l, lt::KERNEL_NAME, i)?.as_deref(),
            Some(kernel.demangled),
            "row {i}"
        );
        assert_eq!(
            str_at(l, lt::KERNEL_SHORT_NAME, i)?.as_deref(),
            Some(kernel.short),
            "row {i}"
        );
        assert_eq!(
            str_at(l, lt::DEVICE_NAME, i)?.as_deref(),
            Some(synth::GPU.name),
            "row {i}"
        );
        assert_eq!(
            i64_at(l, lt::DEVICE_ORDINAL, i)?,
            Some(synth::GPU.id),
            "row {i}"
        );
        if format != "nsys-gpu-trace" {
            assert_eq!(
                i64_at(l, lt::SMEM_CONFIG_BYTES, i)?,
                Some(want.smem_executed),
                "row {i}"
            );
            assert_eq!(
                i64_at(l, lt::SM_COUNT, i)?,
                Some(synth::GPU.sm_count),
                "row {i}"
            );
            assert_eq!(
                f64_at(l, lt::SM_CLOCK_HZ, i)?,
                Some(synth::GPU.clock_hz as f64),
                "row {i}"
            );
            assert_eq!(
                i64_at(l, lt::CC_MAJOR, i)?,
                Some(synth::GPU.cc.0),
                "row {i}"
            );
            assert_eq!(
                i64_at(l, lt::PROCESS_ID, i)?,
                Some(synth::PROCESS.0),
                "row {i}"
            );
            assert_eq!(
                str_at(l, lt::PROCESS_NAME, i)?.as_deref(),
                Some(synth::PROCESS.1),
                "row {i}"
            );
            assert_eq!(
                i64_at(l, "device_max_shmem_per_sm", i)?,
                Some(synth::GPU.max_shmem_per_sm),
                "row {i}"
            );
        }
    }
    let want = synth::transfers(config);
    let t = &trace.side.transfers;
    assert_eq!(t.height(), want.len());
    for (j, w) in want.iter().enumerate() {
        assert_eq!(
            i64_at(t, tc::START_NS, j)?,
            Some(w.start_ns),
            "transfer {j}"
        );
        assert_eq!(i64_at(t, tc::BYTES, j)?, Some(w.bytes), "transfer {j}");
        assert_eq!(
            f64_at(t, tc::DURATION_NS, j)?,
            Some(w.duration_ns as f64),
            "transfer {j}"
        );
        let kind = if w.is_memset { "memset" } else { "memcpy" };
        assert_eq!(
            str_at(t, tc::KIND, j)?.as_deref(),
            Some(kind),
            "transfer {j}"
        );
        let direction = match (w.is_memset, w.copy_kind) {
            (true, _) => None,
            (false, 2) => Some("Device-to-Host"),
            (false, _) => Some("Host-to-Device"),
        };
        assert_eq!(
            str_at(t, tc::DIRECTION, j)?.as_deref(),
            direction,
            "transfer {j}"
        );
        let src = match (w.is_memset, w.copy_kind) {
            (true, _) | (false, 2) => "Device",
            _ => "Pinned",
        };
        assert_eq!(
            str_at(t, tc::SRC_KIND, j)?.as_deref(),
            Some(src),
            "transfer {j}"
        );
    }
    Ok(())
}

fn sample_rows(n: usize) -> Vec<usize> {
    vec![0, 1, 2, 3, 4, 5, 6, 7, n / 2, n - 1]
}

#[test]
fn synthetic_sqlite_exports_old_and_new_schema() -> TestResult {
    let dir = tempfile::tempdir()?;
    for schema in [Schema::Old, Schema::New] {
        let config = SyntheticConfig {
            launches: 500,
            memcpy_every: 7,
            schema,
        };
        let path = dir.path().join(format!("{schema:?}.sqlite"));
        synth::write_sqlite(&path, &config)?;
        assert_eq!(detect(&path)?, Format::NsysSqlite);
        let trace = read_path(&path, &strict())?;
        check_synthetic(
            &trace,
            &config,
            "nsys-sqlite",
            &sample_rows(config.launches),
        )?;
        let has_cluster = trace.launches.column("nsys_cluster_x").is_ok();
        assert_eq!(has_cluster, schema == Schema::New, "{schema:?}");
        assert!(
            trace
                .launches
                .column("nsys_shared_memory_limit_config")
                .is_ok()
        );
    }
    Ok(())
}

#[test]
fn synthetic_parquet_and_arrow_directories_old_and_new_schema() -> TestResult {
    let dir = tempfile::tempdir()?;
    for schema in [Schema::Old, Schema::New] {
        for (container, format) in [
            (Container::Parquet, Format::NsysParquet),
            (Container::Arrow, Format::NsysArrow),
        ] {
            let config = SyntheticConfig {
                launches: 300,
                memcpy_every: 5,
                schema,
            };
            let path = dir.path().join(format!("{schema:?}_{container:?}dir"));
            synth::write_table_dir(&path, &config, container)?;
            assert_eq!(detect(&path)?, format);
            let trace = read_path(&path, &strict())?;
            check_synthetic(
                &trace,
                &config,
                format.name(),
                &sample_rows(config.launches),
            )?;
        }
    }
    Ok(())
}

#[test]
fn a_single_kernel_table_file_is_classified_as_nsys() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = SyntheticConfig {
        launches: 50,
        memcpy_every: 0,
        schema: Schema::New,
    };
    synth::write_table_dir(dir.path(), &config, Container::Parquet)?;
    let kernel = dir.path().join("CUPTI_ACTIVITY_KIND_KERNEL.parquet");
    assert_eq!(detect(&kernel)?, Format::NsysParquet);
    let trace = read_path(&kernel, &strict())?;
    // The sibling StringIds / TARGET_INFO_GPU tables supply names and the device.
    check_synthetic(&trace, &config, "nsys-parquet", &[0, 1, 49])?;
    Ok(())
}

#[test]
fn synthetic_gpu_trace_csv_round_trips() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = SyntheticConfig {
        launches: 2000,
        memcpy_every: 9,
        schema: Schema::New,
    };
    let path = dir.path().join("trace.csv");
    synth::write_gpu_trace_csv(&path, &config)?;
    assert_eq!(detect(&path)?, Format::NsysGpuTrace);
    let trace = read_path(&path, &strict())?;
    check_synthetic(
        &trace,
        &config,
        "nsys-gpu-trace",
        &sample_rows(config.launches),
    )?;
    Ok(())
}

#[test]
fn an_export_without_kernel_table_has_no_launches() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("empty.sqlite");
    let conn = rusqlite::Connection::open(&path)?;
    conn.execute_batch("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);")?;
    drop(conn);
    let trace = read_path(&path, &strict())?;
    assert_eq!(trace.launch_count(), 0);
    assert_eq!(trace.side.transfers.height(), 0);
    assert!(trace.rejected.is_empty());
    Ok(())
}

#[test]
fn kernel_rows_without_timestamps_are_rejected_with_their_row() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = SyntheticConfig {
        launches: 20,
        memcpy_every: 0,
        schema: Schema::Old,
    };
    let path = dir.path().join("bad.sqlite");
    synth::write_sqlite(&path, &config)?;
    let conn = rusqlite::Connection::open(&path)?;
    conn.execute(
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = NULL WHERE rowid = 4",
        [],
    )?;
    conn.execute(
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"end\" = start - 1 WHERE rowid = 9",
        [],
    )?;
    drop(conn);
    let trace = read_path(&path, &ReadConfig::default())?;
    assert_eq!(trace.launch_count(), 18);
    let lines: Vec<u64> = trace.rejected.iter().map(|r| r.line).collect();
    assert_eq!(lines, [4, 9]);
    assert!(
        trace.rejected[0].reason.contains("`gridX` is null"),
        "{}",
        trace.rejected[0].reason
    );
    assert!(
        trace.rejected[1].reason.contains("before `start`"),
        "{}",
        trace.rejected[1].reason
    );
    match read_path(&path, &strict()) {
        Err(warpsight_ingest::IngestError::StrictRejected { line, .. }) => assert_eq!(line, 4),
        other => panic!("expected StrictRejected, got {other:?}"),
    }
    Ok(())
}
