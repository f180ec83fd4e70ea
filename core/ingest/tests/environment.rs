//! Issue #28, the readers' side: inputs from a hostile environment (streams, sparse and huge
//! files, thousands of inputs) and the corruptions that used to be read silently (an unknown ncu
//! unit, impossible `kern_sum` statistics, a warpsight table without a required column, a text
//! value in an SQLite integer column).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use warpsight_ingest::{Format, IngestError, ReadConfig, read_path};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A `cuda_gpu_trace` CSV with one launch.
const GPU_TRACE: &str = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n100,50,1,2,1,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,ok_kernel\n";

/// An ncu details page with one launch (two metric rows).
const DETAILS: &str = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Duration\",\"ns\",\"1000\"\n\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Registers Per Thread\",\"register/thread\",\"16\"\n";

/// Runs `f` on another thread and fails after `limit` instead of hanging the test run.
fn within<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(limit)
        .map_err(|_| format!("did not finish within {limit:?}"))
}

fn mkfifo(path: &Path) -> TestResult {
    let status = std::process::Command::new("mkfifo").arg(path).status()?;
    if !status.success() {
        return Err(format!("mkfifo {} failed", path.display()).into());
    }
    Ok(())
}

/// Finding D: a FIFO was opened by the detector and again by the reader, which waited forever for
/// a second writer. It is read once, from its start.
#[test]
fn a_fifo_is_read_once_not_waited_on() -> TestResult {
    let dir = tempfile::tempdir()?;
    for (name, text, format) in [
        ("p.csv", GPU_TRACE, Format::NsysGpuTrace),
        ("q.csv", DETAILS, Format::NcuDetails),
    ] {
        let fifo = dir.path().join(name);
        mkfifo(&fifo)?;
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, text))
        };
        let path = fifo.clone();
        let read = within(Duration::from_secs(60), move || {
            read_path(&path, &ReadConfig::default()).map(|t| (t.launch_count(), t.format))
        })??;
        assert_eq!(read, (1, format), "{name}");
        writer.join().map_err(|_| "the writer panicked")??;
        // Read again (a second command-line mention, or the batch reader after `inspect`): the
        // copy is read; the FIFO, which has no writer now, is not opened.
        let path = fifo.clone();
        let again = within(Duration::from_secs(60), move || {
            let mut launches = 0usize;
            warpsight_ingest::read_batches(&path, &ReadConfig::default(), |batch| {
                launches += batch.height();
                Ok::<(), String>(())
            })
            .map(|s| (s.format, launches))
            .map_err(|e| e.to_string())
        })??;
        assert_eq!(again, (format, 1), "{name}");
    }
    Ok(())
}

/// Finding C: detection read the first "line" with no length cap, so a 5 GiB file of zero bytes
/// took gigabytes. It is decided from its first 64 KiB: binary, only zero bytes.
#[test]
fn a_sparse_huge_file_is_refused_from_its_prefix() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("z.csv");
    std::fs::File::create(&path)?.set_len(5 << 30)?;
    let started = Instant::now();
    let err = within(Duration::from_secs(60), move || {
        read_path(&path, &ReadConfig::default()).map(|t| t.launch_count())
    })?
    .err()
    .ok_or("a file of zero bytes was read as an export")?;
    assert!(
        matches!(err, IngestError::Unrecognized { .. }),
        "unexpected error: {err}"
    );
    assert!(err.to_string().contains("zero bytes"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20));
    Ok(())
}

/// A long line of text (no NUL byte, no newline) is searched with a bounded line buffer and ends
/// in the usual "no header" error, echoing none of it beyond 80 characters.
#[test]
fn a_long_line_without_a_header_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("long.csv");
    std::fs::write(&path, "x".repeat(3 << 20))?;
    let err = read_path(&path, &ReadConfig::default())
        .err()
        .ok_or("accepted")?;
    let text = err.to_string();
    assert!(text.contains("without an ncu or nsys CSV header"), "{text}");
    assert!(text.len() < 400, "{text}");
    Ok(())
}

/// An ELF file is named as one, and its bytes are not echoed.
#[test]
fn binary_input_is_named_not_echoed() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("tool.log");
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    bytes.extend_from_slice(&[0x1b, b'[', b'2', b'J', 0, 0xff, 0xfe]);
    std::fs::write(&path, bytes)?;
    let err = read_path(&path, &ReadConfig::default())
        .err()
        .ok_or("accepted")?;
    let text = err.to_string();
    assert!(text.contains("ELF"), "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains("\x7f"), "{text}");
    Ok(())
}

/// The `.ncu-rep` reports of the project, if the checkout has them.
fn an_ncu_rep() -> Option<PathBuf> {
    let dir = warpsight_test_support::paths::traces_dir().join("ncu-rep");
    let mut reports: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ncu-rep"))
        .collect();
    reports.sort();
    reports.into_iter().next()
}

/// Finding C for reports: a `.ncu-rep` was read whole into memory, so a valid report with a
/// sparse tail took the file's size. Its blocks are walked first; the tail of zero bytes (empty
/// blocks) is never read, and the report reads as without it.
#[test]
fn a_report_with_a_sparse_tail_reads_as_the_report() -> TestResult {
    let Some(report) = an_ncu_rep() else {
        return Ok(());
    };
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("tail.ncu-rep");
    std::fs::copy(&report, &path)?;
    let original = read_path(&report, &ReadConfig::default())?;
    let file = std::fs::OpenOptions::new().write(true).open(&path)?;
    let len = file.metadata()?.len();
    file.set_len(len + (256 << 20))?;
    drop(file);
    let tailed = read_path(&path, &ReadConfig::default())?;
    assert_eq!(tailed.launch_count(), original.launch_count());
    assert!(tailed.launch_count() > 0);
    Ok(())
}

/// A report whose block declares a payload larger than the rest of the file is the decoder's
/// error, found before the file is read into memory.
#[test]
fn a_report_declaring_more_than_the_file_is_refused() -> TestResult {
    let Some(report) = an_ncu_rep() else {
        return Ok(());
    };
    let bytes = std::fs::read(report)?;
    // The first block starts after the magic and the FileHeader; its header size field is
    // replaced by one larger than the file.
    let header = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let mut damaged = bytes.clone();
    damaged[8 + header..12 + header].copy_from_slice(&u32::MAX.to_le_bytes());
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("big.ncu-rep");
    std::fs::write(&path, damaged)?;
    let err = read_path(&path, &ReadConfig::default())
        .err()
        .ok_or("accepted")?;
    let chain = format!(
        "{err}: {}",
        std::error::Error::source(&err).map_or(String::new(), |s| s.to_string())
    );
    assert!(chain.contains("exceeds"), "{chain}");
    Ok(())
}

/// Finding A: reading 300 small files of two formats overflowed the stack (a rayon worker waiting
/// on polars' pool ran the next file's read on top of its own). Ten thousand tiny files of two
/// formats are read, every one.
#[test]
fn ten_thousand_tiny_mixed_files_are_read() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut paths = Vec::new();
    for i in 0..5_000 {
        let trace = dir.path().join(format!("g{i:05}.csv"));
        std::fs::write(&trace, GPU_TRACE)?;
        let details = dir.path().join(format!("n{i:05}.csv"));
        std::fs::write(&details, DETAILS)?;
        paths.push(trace);
        paths.push(details);
    }
    let expanded = warpsight_ingest::batch::expand_inputs(&[dir.path().display().to_string()])?;
    assert_eq!(expanded.len(), paths.len());
    let results = within(Duration::from_secs(900), move || {
        warpsight_ingest::read_many(&expanded, &ReadConfig::default())
            .into_iter()
            .map(|r| {
                r.result
                    .map(|t| t.launch_count())
                    .map_err(|e| e.to_string())
            })
            .collect::<Vec<_>>()
    })?;
    assert_eq!(results.len(), 10_000);
    for result in results {
        assert_eq!(result?, 1);
    }
    Ok(())
}

/// A misread: a Duration in an unknown unit (`parsec`) was read with factor 1, as nanoseconds.
/// The row is rejected, naming the unit; with `--strict` it is an error.
#[test]
fn an_unknown_ncu_unit_is_a_rejected_row_naming_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("parsec.csv");
    std::fs::write(
        &path,
        DETAILS.replacen("\"ns\",\"1000\"", "\"parsec\",\"3.90\"", 1),
    )?;
    let trace = read_path(&path, &ReadConfig::default())?;
    assert_eq!(trace.rejected.len(), 1, "{:?}", trace.rejected);
    assert!(trace.rejected[0].reason.contains("`parsec`"));
    let duration = trace
        .launches
        .column(warpsight_ingest::launch_table::column_names::DURATION_NS)?;
    assert_eq!(
        duration.null_count(),
        1,
        "the duration was read: {duration:?}"
    );
    let strict = ReadConfig {
        strict: true,
        ..ReadConfig::default()
    };
    let err = read_path(&path, &strict).err().ok_or("strict accepted")?;
    assert!(err.to_string().contains("parsec"), "{err}");
    Ok(())
}

/// A misread: `kern_sum` statistics nsys never writes (negative times, no instances) were used.
#[test]
fn impossible_kern_sum_statistics_are_rejected_rows() -> TestResult {
    let dir = tempfile::tempdir()?;
    let header =
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";
    let good = "50.0,100,2,50,50,40,60,10,good\n";
    for (bad, what) in [
        ("50.0,-5,2,50,50,40,60,10,neg_total\n", "Total Time"),
        ("50.0,100,2,-5,50,40,60,10,neg_avg\n", "Avg"),
        ("50.0,100,0,50,50,40,60,10,no_instances\n", "Instances"),
        ("50.0,100,-3,50,50,40,60,10,neg_instances\n", "Instances"),
        ("-1.0,100,2,50,50,40,60,10,neg_share\n", "Time"),
    ] {
        let path = dir.path().join("kern_sum.csv");
        std::fs::write(&path, format!("{header}{good}{bad}"))?;
        let trace = read_path(&path, &ReadConfig::default())?;
        assert_eq!(trace.side.kernel_summary.height(), 1, "{bad}");
        assert_eq!(trace.rejected.len(), 1, "{bad}");
        assert!(
            trace.rejected[0].reason.contains(what),
            "{bad}: {:?}",
            trace.rejected
        );
        let strict = ReadConfig {
            strict: true,
            ..ReadConfig::default()
        };
        assert!(read_path(&path, &strict).is_err(), "{bad}");
    }
    Ok(())
}

/// A misread: a warpsight CSV whose `duration_ns` header was renamed read with null durations.
/// Every container must carry the required columns; the error names the missing one.
#[test]
fn a_warpsight_table_without_a_required_column_is_an_error_naming_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("in.csv");
    std::fs::write(&input, DETAILS)?;
    let launches = read_path(&input, &ReadConfig::default())?.launches;
    for name in ["out.csv", "out.parquet", "out.arrow"] {
        let path = dir.path().join(name);
        let mut renamed = launches.clone();
        renamed.rename(
            warpsight_ingest::launch_table::column_names::DURATION_NS,
            "duration_nz".into(),
        )?;
        warpsight_ingest::native::write(&mut renamed, &path)?;
        let forced = ReadConfig {
            format: Some(match name {
                "out.csv" => Format::WarpsightCsv,
                "out.parquet" => Format::WarpsightParquet,
                _ => Format::WarpsightIpc,
            }),
            ..ReadConfig::default()
        };
        for config in [ReadConfig::default(), forced] {
            let err = read_path(&path, &config)
                .err()
                .ok_or(format!("{name} was read without `duration_ns`"))?;
            assert!(err.to_string().contains("`duration_ns`"), "{name}: {err}");
        }
    }
    Ok(())
}

/// A misread: `registersPerThread = 'abc'` in an SQLite export got a misleading note. The row is
/// rejected with a note naming the column and the value.
#[test]
fn a_text_value_in_an_sqlite_integer_column_is_named() -> TestResult {
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_sqlite};
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("abc.sqlite");
    write_sqlite(
        &path,
        &SyntheticConfig {
            launches: 5,
            memcpy_every: 0,
            schema: Schema::New,
        },
    )?;
    let conn = rusqlite::Connection::open(&path)?;
    conn.execute(
        "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET registersPerThread = 'abc' WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)",
        [],
    )?;
    drop(conn);
    let trace = read_path(&path, &ReadConfig::default())?;
    assert_eq!(trace.launch_count(), 4, "{:?}", trace.rejected);
    assert_eq!(trace.rejected.len(), 1, "{:?}", trace.rejected);
    let reason = &trace.rejected[0].reason;
    assert!(
        reason.contains("registersPerThread") && reason.contains("abc"),
        "{reason}"
    );
    Ok(())
}
