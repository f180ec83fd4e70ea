//! `warpsight ingest` of several files: files with the same columns are written one at a time
//! (Parquet row groups, CSV batches) and give the table that stacking them gives; files whose
//! columns differ are stacked with their columns unioned; Arrow IPC is written whole.

use std::path::Path;
use std::process::Command;

use polars::prelude::*;
use warpsight_ingest::{ReadConfig, read_path};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn ingest(inputs: &[&Path], output: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpsight"));
    command.current_dir(warpsight_test_support::paths::workspace_root());
    command.arg("-v").arg("ingest").arg("-o").arg(output);
    command.args(inputs);
    let result = command.output()?;
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert!(result.status.success(), "ingest failed: {stderr}");
    Ok(stderr)
}

/// The tables of `inputs` read by warpsight and stacked, as the reference.
fn stacked(inputs: &[&Path]) -> Result<DataFrame, Box<dyn std::error::Error>> {
    let frames = inputs
        .iter()
        .map(|p| Ok(read_path(p, &ReadConfig::default())?.launches))
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    Ok(polars::functions::concat_df_diagonal(&frames)?)
}

#[test]
fn files_with_the_same_columns_are_written_one_at_a_time() -> TestResult {
    let dir = tempfile::tempdir()?;
    let traces = warpsight_test_support::paths::traces_dir();
    let a = traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
    // The same capture under a second name: the same columns, another source file.
    let b = dir.path().join("copy.ncu-raw.csv");
    std::fs::copy(&a, &b)?;
    let inputs = [a.as_path(), b.as_path()];
    let expected = stacked(&inputs)?;
    assert_eq!(expected.height(), 8);

    let parquet = dir.path().join("out.parquet");
    ingest(&inputs, &parquet)?;
    let back = read_path(&parquet, &ReadConfig::default())?.launches;
    assert_eq!(back.height(), expected.height());
    assert_eq!(back.get_column_names(), expected.get_column_names());
    for name in [
        warpsight_ingest::launch_table::col::SOURCE_FILE,
        warpsight_ingest::launch_table::col::LAUNCH_ID,
        warpsight_ingest::launch_table::col::DURATION_NS,
    ] {
        assert!(
            back.column(name)?
                .as_materialized_series()
                .equals_missing(expected.column(name)?.as_materialized_series()),
            "column {name}"
        );
    }
    // Two row groups: one per input file.
    let metadata = ParquetReader::new(std::fs::File::open(&parquet)?)
        .get_metadata()?
        .clone();
    assert_eq!(metadata.row_groups.len(), 2);

    let csv = dir.path().join("out.csv");
    ingest(&inputs, &csv)?;
    let text = std::fs::read_to_string(&csv)?;
    assert_eq!(
        text.lines().count(),
        1 + expected.height(),
        "one header, one line per launch"
    );
    Ok(())
}

#[test]
fn files_with_other_columns_are_stacked_with_their_columns_unioned() -> TestResult {
    let dir = tempfile::tempdir()?;
    let traces = warpsight_test_support::paths::traces_dir();
    let raw = traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv");
    let details = traces.join("h100-80gb-hbm3/sgemm.ncu-details.csv");
    let inputs = [raw.as_path(), details.as_path()];
    let expected = stacked(&inputs)?;
    for output in ["out.parquet", "out.arrow"] {
        let path = dir.path().join(output);
        ingest(&inputs, &path)?;
        let back = read_path(&path, &ReadConfig::default())?.launches;
        assert_eq!(back.height(), expected.height(), "{output}");
        assert_eq!(
            back.width(),
            expected.width(),
            "{output}: every column of both pages"
        );
    }
    Ok(())
}
