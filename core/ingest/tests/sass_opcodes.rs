//! Per-opcode instruction counts (issue #23): the instances of `sass__inst_executed_per_opcode`
//! in `.ncu-rep` reports become one column per SASS opcode
//! (`launch_table::sass_opcode_column`), checked against the values NVIDIA's own reader
//! (`ncu_report`: `metric_by_name("sass__inst_executed_per_opcode")`,
//! `correlation_ids().as_string(i)`, `as_uint64(i)`) gives for the same reports, written here as
//! literals. Also: 0 for an opcode
//! another launch of the report executed, no column for a report without the metric, null for
//! its launches once stacked with one that has it, and the raw page's `values` lists left alone.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use warpsight_ingest::launch_table::{self, SASS_OPCODE_METRIC, sass_opcode_column};
use warpsight_ingest::trace::Trace;
use warpsight_ingest::{IngestError, ReadConfig, combine, read_path};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The project's reports (`traces/ncu-rep/`, in the repository).
fn fixtures() -> PathBuf {
    warpsight_test_support::paths::traces_dir().join("ncu-rep")
}

fn read(path: &Path) -> Result<Trace, IngestError> {
    read_path(path, &ReadConfig::default())
}

/// An opcode and the cells of its column.
type OpcodeColumn = (String, Vec<Option<f64>>);

/// The per-opcode columns of `frame`, in column order.
fn opcode_columns(frame: &DataFrame) -> Result<Vec<OpcodeColumn>, PolarsError> {
    let mut out = Vec::new();
    for column in frame.columns() {
        if let Some(opcode) = launch_table::sass_opcode_of_column(column.name()) {
            assert_eq!(column.dtype(), &DataType::Float64, "{}", column.name());
            out.push((opcode.to_string(), column.f64()?.iter().collect()));
        }
    }
    Ok(out)
}

/// Checks that row `row` of `frame` has exactly `expected` (opcode, count) in its per-opcode
/// columns, 0 in every other per-opcode column, and that they add up to the aggregate column.
fn check_launch(frame: &DataFrame, row: usize, expected: &[(&str, u64)]) -> TestResult {
    let columns = opcode_columns(frame)?;
    for (opcode, count) in expected {
        let cells = columns
            .iter()
            .find(|(o, _)| o == opcode)
            .map(|(_, cells)| cells)
            .ok_or_else(|| format!("no column for opcode {opcode}"))?;
        assert_eq!(cells[row], Some(*count as f64), "launch {row} {opcode}");
    }
    for (opcode, cells) in &columns {
        if !expected.iter().any(|(o, _)| o == opcode) {
            assert_eq!(
                cells[row],
                Some(0.0),
                "launch {row} {opcode} (not executed)"
            );
        }
    }
    let total: u64 = expected.iter().map(|(_, n)| n).sum();
    let aggregate = frame.column(SASS_OPCODE_METRIC)?.f64()?.get(row);
    assert_eq!(aggregate, Some(total as f64), "launch {row} aggregate");
    Ok(())
}

/// `regs_64_65.ncu-rep` launch 0 (`regs64_kernel`, spills: `LDL`, `STL`), from `ncu_report`.
const REGS64: &[(&str, u64)] = &[
    ("FFMA", 60882944),
    ("IMAD", 21430272),
    ("ISETP", 12582912),
    ("IADD3", 10485760),
    ("IABS", 3866624),
    ("SEL", 3801088),
    ("LDG", 3801088),
    ("FADD", 3801088),
    ("VIADD", 2031616),
    ("MOV", 1245184),
    ("BRA", 1048576),
    ("LDC", 327680),
    ("ULDC", 262144),
    ("S2R", 262144),
    ("EXIT", 131072),
    ("STL", 65536),
    ("STG", 65536),
    ("MUFU", 65536),
    ("LOP3", 65536),
    ("LDL", 65536),
    ("I2F", 65536),
    ("HFMA2", 65536),
    ("F2I", 65536),
];

/// `regs_64_65.ncu-rep` launch 1 (`regs65_kernel`, no spills), from `ncu_report`.
const REGS65: &[(&str, u64)] = &[
    ("FFMA", 60882944),
    ("IMAD", 20905984),
    ("ISETP", 12582912),
    ("IADD3", 9502720),
    ("IABS", 3866624),
    ("SEL", 3801088),
    ("LDG", 3801088),
    ("FADD", 3801088),
    ("VIADD", 2621440),
    ("MOV", 1310720),
    ("BRA", 1048576),
    ("ULDC", 262144),
    ("S2R", 262144),
    ("LDC", 262144),
    ("EXIT", 131072),
    ("STG", 65536),
    ("MUFU", 65536),
    ("LOP3", 65536),
    ("I2F", 65536),
    ("HFMA2", 65536),
    ("F2I", 65536),
];

#[test]
fn regs_64_65_opcode_counts_equal_nvidias_reader() -> TestResult {
    let trace = read(&fixtures().join("regs_64_65.ncu-rep"))?;
    let frame = &trace.launches;
    assert!(trace.rejected.is_empty(), "{:?}", trace.rejected);
    let columns = opcode_columns(frame)?;
    // One column per opcode either launch executed (launch 0's set contains launch 1's), in name
    // order, right after the aggregate column.
    let mut opcodes: Vec<&str> = REGS64.iter().map(|(o, _)| *o).collect();
    opcodes.sort_unstable();
    assert_eq!(
        columns.iter().map(|(o, _)| o.as_str()).collect::<Vec<_>>(),
        opcodes
    );
    let names: Vec<&str> = frame
        .get_column_names()
        .iter()
        .map(|n| n.as_str())
        .collect();
    let at = names
        .iter()
        .position(|n| *n == SASS_OPCODE_METRIC)
        .ok_or("no aggregate column")?;
    assert_eq!(names[at + 1], sass_opcode_column(opcodes[0]));
    assert_eq!(names[at + opcodes.len()], sass_opcode_column("VIADD"));
    check_launch(frame, 0, REGS64)?;
    // `LDL` and `STL` (the spills of regs64_kernel) were not executed by regs65_kernel: 0.
    check_launch(frame, 1, REGS65)?;
    assert_eq!(
        frame
            .column(&sass_opcode_column("LDL"))?
            .f64()?
            .iter()
            .collect::<Vec<_>>(),
        [Some(65536.0), Some(0.0)]
    );
    Ok(())
}

#[test]
fn a_report_without_the_metric_has_no_opcode_columns_and_is_null_when_stacked() -> TestResult {
    let dir = fixtures();
    let regs = read(&dir.join("regs_64_65.ncu-rep"))?.launches;
    let copy = read(&dir.join("copy_basic.ncu-rep"))?.launches;
    assert!(opcode_columns(&copy)?.is_empty());
    assert!(copy.column(SASS_OPCODE_METRIC).is_err());
    // Stacked as `ingest` of several files stacks them: the copy launches are null (not broken
    // down), never 0.
    let stacked = polars::functions::concat_df_diagonal(&combine::unify_column_types(vec![
        copy.clone(),
        regs,
    ])?)?;
    let n = copy.height();
    let ffma: Vec<Option<f64>> = stacked
        .column(&sass_opcode_column("FFMA"))?
        .f64()?
        .iter()
        .collect();
    assert!(ffma[..n].iter().all(Option::is_none), "{ffma:?}");
    assert_eq!(ffma[n..], [Some(60882944.0), Some(60882944.0)]);
    Ok(())
}

#[test]
fn raw_pages_print_unnamed_instance_values_which_stay_the_aggregate() -> TestResult {
    // `--print-metric-instances values` prints the counts without opcode names
    // (`126,484,480 (60,882,944; 21,430,272; …)`): nothing to attribute, so no per-opcode column.
    let kit = warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3");
    let raw = read(&kit.join("regs_64_65.ncu-raw.csv"))?.launches;
    assert!(opcode_columns(&raw)?.is_empty());
    let aggregate: Vec<Option<f64>> = raw.column(SASS_OPCODE_METRIC)?.f64()?.iter().collect();
    assert_eq!(aggregate, [Some(126484480.0), Some(125435904.0)]);
    Ok(())
}

#[test]
fn cuda_learning_opcode_counts_equal_nvidias_reader() -> TestResult {
    let Some(dir) = warpsight_test_support::paths::shared_traces() else {
        return Ok(());
    };
    let trace = read(&dir.join("ncu-other-gpus/CUDA_Learning__report.ncu-rep"))?;
    let frame = &trace.launches;
    // Launch 0 (`reduceNeighbored`), from `ncu_report`.
    check_launch(
        frame,
        0,
        &[
            ("MOV", 610271232),
            ("IADD3", 165675008),
            ("BRA", 109051904),
            ("IMAD", 90177536),
            ("ISETP", 79691776),
            ("R2UR", 74448896),
            ("SHF", 53477376),
            ("PLOP3", 50331648),
            ("SEL", 44040192),
            ("WARPSYNC", 26738688),
            ("LD", 24641536),
            ("MUFU", 14680064),
            ("LOP3", 14680064),
            ("I2F", 14680064),
            ("F2I", 14680064),
            ("BAR", 14680064),
            ("ST", 12582912),
            ("LDC", 6291456),
            ("S2R", 4718592),
            ("BSYNC", 2621440),
            ("MEMBAR", 2097152),
            ("EXIT", 2097152),
            ("ERRBAR", 2097152),
            ("BSSY", 2097152),
        ],
    )?;
    // Launch 1 (`reduceNeighboredLess`): no `SEL`, `MUFU`, `LOP3`, `I2F`, `F2I` (0).
    check_launch(
        frame,
        1,
        &[
            ("MOV", 307232768),
            ("BRA", 93323264),
            ("IMAD", 48234496),
            ("PLOP3", 35651584),
            ("ISETP", 35651584),
            ("IADD3", 32505856),
            ("SHF", 30408704),
            ("R2UR", 27262976),
            ("WARPSYNC", 17301504),
            ("BAR", 14680064),
            ("S2R", 8912896),
            ("LD", 8912896),
            ("LDC", 6291456),
            ("ST", 4718592),
            ("BSYNC", 2621440),
            ("MEMBAR", 2097152),
            ("EXIT", 2097152),
            ("ERRBAR", 2097152),
            ("BSSY", 2097152),
        ],
    )?;
    assert_eq!(opcode_columns(frame)?.len(), 24);
    Ok(())
}
