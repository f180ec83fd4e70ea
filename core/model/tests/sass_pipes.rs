//! Per-pipe instruction counts from per-opcode counts (`time/sass_pipes.rs`, issue #23) against
//! ncu's own pipe counters: the H100 report `traces/ncu-rep/regs_64_65.ncu-rep` has the
//! `sass__inst_executed_per_opcode` instances but not the pipe counters; the kit's raw page of the
//! same two kernels (`traces/h100-80gb-hbm3/regs_64_65.ncu-raw.csv`, another run of the same
//! binary: instruction counts do not depend on the run) has `sm__inst_executed_pipe_<p>.sum`.

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::time::sass_pipes;
use warpsight_test_support::registry;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `column` of `frame` as f64 values, in launch order.
fn values(frame: &DataFrame, column: &str) -> Result<Vec<Option<f64>>, PolarsError> {
    Ok(frame
        .column(column)?
        .cast(&DataType::Float64)?
        .f64()?
        .iter()
        .collect())
}

#[test]
fn opcode_counts_summed_by_the_hopper_table_equal_ncus_pipe_counters() -> TestResult {
    let root = warpsight_test_support::paths::traces_dir();
    let report = read_path(
        &root.join("ncu-rep").join("regs_64_65.ncu-rep"),
        &ReadConfig::default(),
    )?
    .launches;
    let page = read_path(
        &root.join("h100-80gb-hbm3").join("regs_64_65.ncu-raw.csv"),
        &ReadConfig::default(),
    )?
    .launches;
    let names = |f: &DataFrame| -> Result<Vec<Option<String>>, PolarsError> {
        Ok(f.column(lt::KERNEL_SHORT_NAME)?
            .str()?
            .iter()
            .map(|s| s.map(str::to_string))
            .collect())
    };
    assert_eq!(names(&report)?, names(&page)?, "the same kernels in order");
    let summed = sass_pipes::add_columns(report.lazy(), &registry())?.collect()?;
    // The pipes whose opcodes the table maps exactly on 9.0 (docs/plugins.md, "SASS opcode tables").
    for pipe in ["fma", "alu", "xu", "cbu"] {
        let ours = values(&summed, &sass_pipes::pipe_column(pipe))?;
        let ncu = values(&page, &format!("sm__inst_executed_pipe_{pipe}.sum"))?;
        assert_eq!(ours.len(), 2);
        assert!(ncu.iter().all(Option::is_some), "{pipe}: {ncu:?}");
        assert_eq!(ours, ncu, "{pipe}");
    }
    Ok(())
}

#[test]
fn a_frame_without_opcode_columns_is_left_unchanged() -> TestResult {
    let frame = df!(lt::CC_MAJOR => [9i64], lt::CC_MINOR => [0i64])?;
    let out = sass_pipes::add_columns(frame.clone().lazy(), &registry())?.collect()?;
    assert_eq!(out, frame);
    Ok(())
}
