//! The `.ncu-rep` reader against the CSV pages ncu printed from the same reports
//! (`traces/ncu-rep/`): every launch column of the raw page, the known
//! launch-table columns of the details page, the rules of the details page, and detection and
//! errors (zstd, `.nsys-rep`, truncated and corrupted reports).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use warpsight_ingest::launch_table::{self, column_names as lt};
use warpsight_ingest::trace::{Trace, rules_col};
use warpsight_ingest::{Format, Hint as _, IngestError, ReadConfig, detect, read_path};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The reports, with whether a raw page was printed from them.
const REPORTS: [(&str, bool); 3] = [
    ("copy_basic", true),
    ("regs_64_65", true),
    ("gpt_layer_basic", false),
];

/// The project's reports (`traces/ncu-rep/`, in the repository).
fn fixtures() -> PathBuf {
    warpsight_test_support::paths::traces_dir().join("ncu-rep")
}

fn read(path: &Path) -> Result<Trace, IngestError> {
    read_path(path, &ReadConfig::default())
}

/// A cell, whatever the column's type.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Null,
    Num(f64),
    Str(String),
}

fn cells(frame: &DataFrame, name: &str) -> Result<Vec<Cell>, PolarsError> {
    let column = frame.column(name)?.as_materialized_series().clone();
    let mut out = Vec::with_capacity(column.len());
    for i in 0..column.len() {
        out.push(match column.get(i)? {
            AnyValue::Null => Cell::Null,
            AnyValue::String(s) => Cell::Str(s.to_string()),
            AnyValue::StringOwned(s) => Cell::Str(s.to_string()),
            v => match v.extract::<f64>() {
                Some(x) => Cell::Num(x),
                None => Cell::Str(v.to_string()),
            },
        });
    }
    Ok(out)
}

/// The rewrites between the names the report stores and the names ncu's CSV pages print:
/// C-style casts of integer template arguments dropped (`(bool)0` → `0`) and `native::` dropped
/// (`at::native::` → `at::`). Not a general model of ncu's simplification.
fn simplify_like_csv(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        let cast = tail.find(')').filter(|&close| {
            let inner = &tail[1..close];
            !inner.is_empty()
                && inner.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
                && tail[close + 1..].starts_with(|c: char| c.is_ascii_digit() || c == '-')
        });
        match cast {
            Some(close) => rest = &tail[close + 1..],
            None => {
                out.push('(');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.replace("native::", "")
}

/// Whether a report cell equals the page cell: numbers within the page's rounding (two decimals
/// in the printed unit, which is percent for `pct` metrics and their launch-table columns), text
/// equal (kernel names modulo [`simplify_like_csv`]).
fn same(column: &str, rep: &Cell, page: &Cell) -> bool {
    let as_num = |c: &Cell| match c {
        Cell::Num(x) => Some(*x),
        Cell::Str(s) => s.parse::<f64>().ok(),
        Cell::Null => None,
    };
    match (rep, page) {
        (Cell::Null, Cell::Null) => true,
        (Cell::Str(a), Cell::Str(b)) if a == b => true,
        (Cell::Str(a), Cell::Str(b))
            if column == lt::KERNEL_NAME || column == lt::KERNEL_SHORT_NAME =>
        {
            simplify_like_csv(a) == *b
        }
        _ => match (as_num(rep), as_num(page)) {
            // ncu's `nan` on the page, NaN in the report: both read as NaN.
            (Some(a), Some(b)) if a.is_nan() || b.is_nan() => a.is_nan() && b.is_nan(),
            (Some(a), Some(b)) => {
                let percent = column.contains("pct")
                    || column.contains("occupancy")
                    || column.contains("pct_of_peak");
                let unit = if percent { 0.01 } else { 1.0 };
                (a - b).abs() <= 0.0051 * unit + 1e-9 * b.abs()
            }
            _ => false,
        },
    }
}

/// Compares every column of `page` (except the file and format columns) with the same column of
/// `rep`, row by row, and returns how many cells were compared.
///
/// `details`: the page is a details page, which prints fewer metrics (a cell it leaves null may
/// hold a value in the report) and fills `sm_cycles_elapsed` from its `Elapsed Cycles` label,
/// which is `gpc__cycles_elapsed.max` rather than the raw page's `sm__cycles_elapsed.avg`.
fn compare_frames(name: &str, rep: &DataFrame, page: &DataFrame, details: bool) -> usize {
    assert_eq!(rep.height(), page.height(), "{name}: launches");
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for column in page.get_column_names() {
        let column = column.as_str();
        if column == lt::SOURCE_FILE || column == lt::FORMAT {
            continue;
        }
        if details && !launch_table::is_known_column(column) {
            continue;
        }
        // The details page's `Elapsed Cycles` label (its source when the page has no
        // `sm__cycles_elapsed.avg` row).
        let alternative = if details && column == lt::SM_CYCLES_ELAPSED {
            cells(rep, "gpc__cycles_elapsed.max").ok()
        } else {
            None
        };
        let (Ok(a), Ok(b)) = (cells(rep, column), cells(page, column)) else {
            mismatches.push(format!("{column}: missing from the report's table"));
            continue;
        };
        for (row, (x, y)) in a.iter().zip(&b).enumerate() {
            if details && *y == Cell::Null {
                continue;
            }
            compared += 1;
            let alt = alternative.as_ref().map(|alt| &alt[row]);
            if !same(column, x, y) && !alt.is_some_and(|alt| same(column, alt, y)) {
                mismatches.push(format!("launch {row} {column}: report {x:?}, page {y:?}"));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{name}: {} mismatches:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(40)].join("\n")
    );
    compared
}

#[test]
fn reports_equal_their_raw_pages() -> TestResult {
    let dir = fixtures();
    for (name, has_raw) in REPORTS {
        if !has_raw {
            continue;
        }
        let rep = read(&dir.join(format!("{name}.ncu-rep")))?;
        let raw = read(&dir.join(format!("{name}.ncu-raw.csv")))?;
        assert_eq!(rep.format.name(), "ncu-rep");
        assert_eq!(raw.format.name(), "ncu-raw");
        assert!(rep.rejected.is_empty(), "{name}: {:?}", rep.rejected);
        // The report's table has exactly the raw page's columns, plus the per-opcode columns of
        // `sass__inst_executed_per_opcode`, which the page cannot give (its instance lists have
        // no opcode names; `sass_opcodes.rs` checks them against NVIDIA's reader), and
        // `ncu_clocks_locked`, the launch's ClockStatus, which no page prints.
        let names = |f: &DataFrame| -> Vec<String> {
            f.get_column_names()
                .iter()
                .filter(|c| {
                    launch_table::sass_opcode_of_column(c).is_none()
                        && c.as_str() != launch_table::column_names::CLOCKS_LOCKED
                })
                .map(|c| c.to_string())
                .collect()
        };
        assert_eq!(
            names(&rep.launches),
            names(&raw.launches),
            "{name}: columns"
        );
        let compared = compare_frames(name, &rep.launches, &raw.launches, false);
        eprintln!("{name}: {compared} cells equal to the raw page");
    }
    Ok(())
}

#[test]
fn reports_equal_their_details_pages_on_the_launch_columns() -> TestResult {
    let dir = fixtures();
    for (name, _) in REPORTS {
        let rep = read(&dir.join(format!("{name}.ncu-rep")))?;
        let details = read(&dir.join(format!("{name}.ncu-details.csv")))?;
        assert_eq!(details.format.name(), "ncu-details");
        let compared = compare_frames(name, &rep.launches, &details.launches, true);
        eprintln!("{name}: {compared} launch-column cells equal to the details page");
    }
    Ok(())
}

/// The rules of a trace as sortable rows (kernel names simplified like the CSV pages', speedups
/// rounded to the 4 significant digits the page prints).
fn rule_rows(trace: &Trace) -> Result<Vec<Vec<String>>, PolarsError> {
    let r = &trace.side.rules;
    let mut columns = Vec::new();
    for name in [
        rules_col::LAUNCH_ID,
        rules_col::KERNEL_NAME,
        rules_col::SECTION,
        rules_col::RULE_NAME,
        rules_col::RULE_TYPE,
        rules_col::DESCRIPTION,
        rules_col::SPEEDUP_TYPE,
        rules_col::ESTIMATED_SPEEDUP,
    ] {
        columns.push((name, cells(r, name)?));
    }
    let mut rows = Vec::with_capacity(r.height());
    for i in 0..r.height() {
        rows.push(
            columns
                .iter()
                .map(|(name, cells)| match &cells[i] {
                    Cell::Null => String::new(),
                    Cell::Num(x) if *name == rules_col::ESTIMATED_SPEEDUP => format!("{x:.3e}"),
                    Cell::Num(x) => x.to_string(),
                    Cell::Str(s) if *name == rules_col::KERNEL_NAME => simplify_like_csv(s),
                    Cell::Str(s) => s.clone(),
                })
                .collect(),
        );
    }
    rows.sort();
    Ok(rows)
}

#[test]
fn rules_equal_the_details_page_rule_rows() -> TestResult {
    let dir = fixtures();
    let mut total = 0;
    for (name, _) in REPORTS {
        let rep = read(&dir.join(format!("{name}.ncu-rep")))?;
        let details = read(&dir.join(format!("{name}.ncu-details.csv")))?;
        let (a, b) = (rule_rows(&rep)?, rule_rows(&details)?);
        assert!(!a.is_empty(), "{name}: no rules");
        assert_eq!(a, b, "{name}: rules");
        assert_eq!(
            rep.side.rules.get_column_names(),
            details.side.rules.get_column_names(),
            "{name}: rule columns"
        );
        total += a.len();
    }
    assert_eq!(total, 8 + 19 + 60);
    Ok(())
}

#[test]
fn regs_64_65_gives_64_and_65_registers_and_block_limits_2_and_1() -> TestResult {
    let dir = fixtures();
    let trace = read(&dir.join("regs_64_65.ncu-rep"))?;
    let l = &trace.launches;
    let i64s = |name: &str| -> Result<Vec<Option<i64>>, PolarsError> {
        Ok(l.column(name)?.i64()?.iter().collect())
    };
    let f64s = |name: &str| -> Result<Vec<Option<f64>>, PolarsError> {
        Ok(l.column(name)?.f64()?.iter().collect())
    };
    assert_eq!(i64s(lt::REGISTERS_PER_THREAD)?, [Some(64), Some(65)]);
    assert_eq!(i64s(lt::NCU_BLOCK_LIMIT_REGISTERS)?, [Some(2), Some(1)]);
    assert_eq!(f64s(lt::DURATION_NS)?, [Some(155_264.0), Some(187_264.0)]);
    assert_eq!(
        f64s(lt::NCU_THEORETICAL_OCCUPANCY)?,
        [Some(0.5), Some(0.25)]
    );
    assert_eq!(i64s(lt::CC_MAJOR)?, [Some(9), Some(9)]);
    Ok(())
}

#[test]
fn reports_are_detected_by_content() -> TestResult {
    let dir = fixtures();
    let tmp = tempfile::tempdir()?;
    for (name, _) in REPORTS {
        let path = dir.join(format!("{name}.ncu-rep"));
        assert_eq!(detect(&path)?, Format::NcuRep, "{name}");
        // Content, not the extension, decides.
        let renamed = tmp.path().join(format!("{name}.bin"));
        std::fs::copy(&path, &renamed)?;
        assert_eq!(detect(&renamed)?, Format::NcuRep, "{name}");
    }
    assert_eq!(Format::from_name("ncu-rep"), Some(Format::NcuRep));
    Ok(())
}

/// The error text as the CLI prints it: the message and its causes.
fn chain(err: &IngestError) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[test]
fn zstd_and_nsys_reports_are_refused_with_what_to_run() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let zst = tmp.path().join("report.ncu-repz");
    std::fs::write(&zst, [0x28, 0xB5, 0x2F, 0xFD, 0x04, 0x00])?;
    let err = read(&zst).err().ok_or("zstd accepted")?;
    let text = chain(&err);
    assert!(matches!(err, IngestError::NcuRep { .. }), "{text}");
    assert!(
        text.contains("report.ncu-repz") && text.contains("zstd") && text.contains("zstd -d"),
        "{text}"
    );

    let nsys = tmp.path().join("report1.nsys-rep");
    std::fs::write(&nsys, b"NVIDIA Tegra Profiler Report 2025@5@2\0\x01\x02")?;
    let renamed = tmp.path().join("report1.bin");
    std::fs::copy(&nsys, &renamed)?;
    let unknown = tmp.path().join("other.nsys-rep");
    std::fs::write(&unknown, b"\x00\x01\x02\x03 not a known container")?;
    for path in [&nsys, &renamed, &unknown] {
        match read(path) {
            Err(err @ IngestError::Unrecognized { .. }) => {
                let hint = err.hint().ok_or("hint")?;
                assert!(hint.contains("nsys export --type sqlite"), "{hint}");
                assert!(err.to_string().contains("Nsight Systems report"), "{err}");
            }
            other => panic!("{}: expected Unrecognized, got {other:?}", path.display()),
        }
    }
    Ok(())
}

#[test]
fn truncated_and_corrupted_reports_are_errors_with_file_and_offset() -> TestResult {
    let dir = fixtures();
    let bytes = std::fs::read(dir.join("copy_basic.ncu-rep"))?;
    let tmp = tempfile::tempdir()?;
    let path = tmp.path().join("bad.ncu-rep");
    let mut errors: HashMap<&str, usize> = HashMap::new();
    // Cuts at many lengths (the magic kept, so detection says ncu-rep), then a few bit flips.
    let mut cases: Vec<Vec<u8>> = (1..40)
        .map(|k| bytes[..4 + (bytes.len() - 4) * k / 40].to_vec())
        .collect();
    for k in 0..40usize {
        let mut b = bytes.clone();
        let at = 4 + (k * 7919 * 31) % (bytes.len() - 4);
        b[at] ^= 1 << (k % 8);
        cases.push(b);
    }
    for case in &cases {
        std::fs::write(&path, case)?;
        match read(&path) {
            Ok(_) => *errors.entry("ok").or_default() += 1,
            Err(err) => {
                let text = chain(&err);
                assert!(matches!(err, IngestError::NcuRep { .. }), "{text}");
                assert!(
                    text.contains("bad.ncu-rep") && text.contains("offset "),
                    "{text}"
                );
                *errors.entry("err").or_default() += 1;
            }
        }
    }
    // Nearly every case is an error (a cut that lands on a block boundary leaves a valid report).
    assert!(errors.get("err").copied().unwrap_or(0) >= 30, "{errors:?}");
    Ok(())
}

/// Issue #23: each launch's ClockStatus becomes `ncu_clocks_locked`. `copy_basic` was made with
/// ncu's default clock control (ExecutedLocked; its SM frequency reads the H100's 1.59 GHz base
/// clock), `regs_64_65` with `--clock-control none`; the CSV pages print neither.
#[test]
fn each_launch_says_whether_ncu_locked_the_clocks() -> TestResult {
    for (name, locked, launches) in [("copy_basic", 1.0, 3), ("regs_64_65", 0.0, 2)] {
        let trace = read(&fixtures().join(format!("{name}.ncu-rep")))?;
        let values: Vec<Option<f64>> = trace
            .launches
            .column(lt::CLOCKS_LOCKED)?
            .f64()?
            .iter()
            .collect();
        assert_eq!(values, vec![Some(locked); launches], "{name}");
        let clocks = trace.launches.column(lt::SM_CLOCK_HZ)?.f64()?.clone();
        for clock in clocks.iter().flatten() {
            let at_base = (1.589e9..1.6e9).contains(&clock);
            assert_eq!(at_base, locked == 1.0, "{name}: {clock} Hz");
        }
        let page = read(&fixtures().join(format!("{name}.ncu-raw.csv")))?;
        assert!(page.launches.column(lt::CLOCKS_LOCKED).is_err(), "{name}");
    }
    Ok(())
}
