//! Damaged exports from issue #14: out-of-range values are rejected rows (an error under
//! `--strict`), never used.

use warpsight_ingest::{Hint as _, IngestError, ReadConfig, read_path};

/// A two-line `cuda_gpu_trace` CSV whose kernel row has `registers` registers per thread.
fn gpu_trace(dir: &std::path::Path, registers: &str) -> std::path::PathBuf {
    let path = dir.join("trace.csv");
    let text = format!(
        "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n\
         900537763,1408,40,128,1,1,256,1,1,{registers},0.000,0.000,,,,,NVIDIA GeForce RTX 4090 (0),1,,7,void k(float*)\n"
    );
    std::fs::write(&path, text).expect("write the trace");
    path
}

#[test]
fn registers_of_four_billion_are_a_rejected_row() -> Result<(), IngestError> {
    let dir = tempfile::tempdir().expect("temp dir");
    let valid = read_path(&gpu_trace(dir.path(), "32"), &ReadConfig::default())?;
    assert_eq!(
        valid.launch_count(),
        1,
        "the valid row is read: {:?}",
        valid.rejected
    );
    let path = gpu_trace(dir.path(), "4294967296");
    let trace = read_path(&path, &ReadConfig::default())?;
    assert_eq!(trace.launch_count(), 0);
    assert_eq!(trace.rejected.len(), 1);
    assert!(
        trace.rejected[0]
            .reason
            .contains("`registers_per_thread` = 4294967296 is outside 0–255"),
        "{:?}",
        trace.rejected
    );
    let strict = read_path(
        &path,
        &ReadConfig {
            strict: true,
            ..ReadConfig::default()
        },
    );
    let err = strict.expect_err("--strict refuses the row");
    assert!(matches!(err, IngestError::OutOfRange { .. }), "{err}");
    assert!(err.to_string().contains("launch id 40"), "{err}");
    Ok(())
}

#[test]
fn negative_registers_are_a_rejected_row() -> Result<(), IngestError> {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = read_path(&gpu_trace(dir.path(), "-1"), &ReadConfig::default())?;
    assert_eq!(trace.launch_count(), 0);
    assert_eq!(trace.rejected.len(), 1);
    Ok(())
}

/// Issue #14: `--input-format` that does not fit the content is an error naming both formats (a
/// details page forced as a raw page used to give 450 launches, all with id 0).
#[test]
fn a_forced_format_that_does_not_fit_is_an_error() -> Result<(), Box<dyn std::error::Error>> {
    let details =
        warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3/sgemm.ncu-details.csv");
    let forced = warpsight_ingest::ReadConfig {
        strict: false,
        format: Some(warpsight_ingest::Format::NcuRaw),
    };
    match warpsight_ingest::read_path(&details, &forced) {
        Err(err @ warpsight_ingest::IngestError::FormatMismatch { .. }) => {
            assert!(err.to_string().contains("ncu-details"), "{err}");
            assert!(err.hint().is_some());
        }
        other => {
            return Err(format!(
                "expected a format mismatch, got {:?}",
                other.map(|t| t.launches.height())
            )
            .into());
        }
    }
    // The format the content has is accepted when forced.
    let raw = warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
    let forced_raw = warpsight_ingest::read_path(&raw, &forced)?;
    assert_eq!(forced_raw.launches.height(), 4);
    Ok(())
}

/// Issue #14: a raw page whose header has one column fewer than its rows used to shift every value
/// one metric to the side (11,796,480 landed in the registers column). Such a row is rejected,
/// counted, and an error under `--strict`.
#[test]
fn a_raw_row_with_more_fields_than_its_header_is_rejected() -> Result<(), Box<dyn std::error::Error>>
{
    let raw = std::fs::read_to_string(
        warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3/regs_64_65.ncu-raw.csv"),
    )?;
    let mut lines: Vec<String> = raw.lines().map(String::from).collect();
    // Drop the header's last column.
    let header = lines[0].clone();
    let cut = header.rfind(",\"").ok_or("no comma in the header")?;
    lines[0] = header[..cut].to_string();
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("shifted.ncu-raw.csv");
    std::fs::write(&path, lines.join("\n") + "\n")?;
    let trace = warpsight_ingest::read_path(&path, &warpsight_ingest::ReadConfig::default())?;
    assert_eq!(trace.launches.height(), 0, "no launch is read shifted");
    assert_eq!(trace.rejected.len(), 2, "{:?}", trace.rejected);
    assert!(
        trace.rejected[0].reason.contains("fields as in the header"),
        "{:?}",
        trace.rejected[0]
    );
    let strict = warpsight_ingest::ReadConfig {
        strict: true,
        format: None,
    };
    assert!(warpsight_ingest::read_path(&path, &strict).is_err());
    Ok(())
}

/// Issue #14: rowids at the ends of the i64 range (an `ENUM_*` table with a rowid of i64::MIN)
/// overflowed `max(rowid) − min(rowid)`; sparse rowids reserved memory for rows that do not exist.
/// Both are read (or refused) without a panic.
#[test]
fn extreme_sqlite_rowids_do_not_overflow() -> Result<(), Box<dyn std::error::Error>> {
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_sqlite};
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("extreme.sqlite");
    write_sqlite(
        &path,
        &SyntheticConfig {
            launches: 50,
            memcpy_every: 10,
            schema: Schema::New,
        },
    )?;
    let conn = rusqlite::Connection::open(&path)?;
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut touched = 0;
    for table in tables
        .iter()
        .filter(|t| t.starts_with("ENUM_") || t.starts_with("CUPTI_ACTIVITY_KIND_KERNEL"))
    {
        // Move the first and the last row to the two ends of the rowid range.
        let rows: i64 =
            conn.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |row| {
                row.get(0)
            })?;
        if rows < 2 {
            continue;
        }
        conn.execute(
            &format!("UPDATE \"{table}\" SET rowid = ?1 WHERE rowid = (SELECT min(rowid) FROM \"{table}\")"),
            [i64::MIN],
        )?;
        conn.execute(
            &format!("UPDATE \"{table}\" SET rowid = ?1 WHERE rowid = (SELECT max(rowid) FROM \"{table}\")"),
            [i64::MAX],
        )?;
        touched += 1;
    }
    drop(conn);
    assert!(touched >= 2, "{tables:?}");
    // Read or refused, but no panic (caught at the file boundary it would still be an
    // `internal error`) and no runaway allocation.
    match warpsight_ingest::read_path(&path, &warpsight_ingest::ReadConfig::default()) {
        Err(err @ warpsight_ingest::IngestError::Panicked { .. }) => {
            Err(format!("the reader panicked: {err}").into())
        }
        _ => Ok(()),
    }
}

/// Issue #14: a details page whose launch ids come back in a second block of records (the file
/// concatenated with itself) used to merge both blocks into one launch. Through `read_path` it is
/// the duplicated-id error with its hint, naming both lines, lenient or `--strict`.
#[test]
fn a_details_page_concatenated_with_itself_is_a_duplicated_launch_id()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("twice.ncu-details.csv");
    let page = warpsight_test_support::fixtures::SMALL_DETAILS;
    std::fs::write(&path, format!("{page}{page}"))?;
    for strict in [false, true] {
        match read_path(
            &path,
            &ReadConfig {
                strict,
                format: None,
            },
        ) {
            Err(err @ IngestError::DuplicateLaunchId { .. }) => {
                let text = err.to_string();
                assert!(text.contains("twice.ncu-details.csv`, line 22: launch id 0 appears twice (first at line 4)"), "{text}");
                assert!(
                    err.hint().is_some_and(|hint| hint.contains("concatenated")),
                    "{err}"
                );
            }
            other => {
                return Err(format!(
                    "expected a duplicated launch id, got {:?}",
                    other.map(|t| t.launch_count())
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Issue #14: a launch rejected at ingest (a value out of range) takes its ncu rule rows with it,
/// and its rejected row says how many went.
#[test]
fn the_rule_rows_of_a_rejected_launch_are_removed() -> Result<(), Box<dyn std::error::Error>> {
    use warpsight_ingest::trace::rules_col;
    let dir = tempfile::tempdir()?;
    let page = warpsight_test_support::fixtures::SMALL_DETAILS;
    let path = dir.path().join("details.csv");
    std::fs::write(&path, page)?;
    let intact = read_path(&path, &ReadConfig::default())?;
    assert_eq!(
        (intact.launch_count(), intact.side.rules.height()),
        (2, 1),
        "launch 0 has one rule row"
    );
    // Launch 0 (the one with the rule row) gets 300 registers per thread.
    let damaged = page.replace("\"register/thread\",\"168\"", "\"register/thread\",\"300\"");
    assert_ne!(damaged, page);
    std::fs::write(&path, &damaged)?;
    let trace = read_path(&path, &ReadConfig::default())?;
    assert_eq!(trace.launch_count(), 1);
    assert_eq!(
        trace.side.rules.height(),
        0,
        "the rejected launch's rule row is gone"
    );
    assert_eq!(
        trace.side.rules.column(rules_col::LAUNCH_ID)?.len(),
        0,
        "the rules keep their columns"
    );
    assert_eq!(trace.rejected.len(), 1, "{:?}", trace.rejected);
    assert_eq!(
        trace.rejected[0].reason,
        "launch id 0, launch-table row 1: `registers_per_thread` = 300 is outside 0–255 (its rule row is removed too)"
    );
    // Launch 1 rejected instead: launch 0's rule row stays.
    let other = page.replace("\"register/thread\",\"16\"", "\"register/thread\",\"256\"");
    std::fs::write(&path, &other)?;
    let trace = read_path(&path, &ReadConfig::default())?;
    assert_eq!((trace.launch_count(), trace.side.rules.height()), (1, 1));
    assert_eq!(
        trace.side.rules.column(rules_col::LAUNCH_ID)?.i64()?.get(0),
        Some(0)
    );
    assert!(
        !trace.rejected[0].reason.contains("rule row"),
        "{:?}",
        trace.rejected
    );
    Ok(())
}
