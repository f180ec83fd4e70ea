//! `warpsight ingest` batch by batch: one nsys `cuda_gpu_trace` CSV or SQLite export is written as
//! it is read and gives the table reading it whole gives (Parquet, Arrow IPC and CSV); several small
//! files with the same columns are held back and written together (one Parquet row group) and give
//! the table that stacking them gives; files whose columns differ are stacked with their columns unioned;
//! an error leaves no partial output, and a file that fails half-way is left out of the output.

use std::path::{Path, PathBuf};
use std::process::Command;

use polars::prelude::*;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_test_support::synthetic_nsys::{SyntheticConfig, write_gpu_trace_csv};

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
fn small_files_with_the_same_columns_are_written_together() -> TestResult {
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
        warpsight_ingest::launch_table::column_names::SOURCE_FILE,
        warpsight_ingest::launch_table::column_names::LAUNCH_ID,
        warpsight_ingest::launch_table::column_names::DURATION_NS,
    ] {
        assert!(
            back.column(name)?
                .as_materialized_series()
                .equals_missing(expected.column(name)?.as_materialized_series()),
            "column {name}"
        );
    }
    // One row group for both: their tables were held back and written as one (a row group per
    // input would repeat the metadata of each of the page's 2,360 columns).
    let metadata = ParquetReader::new(std::fs::File::open(&parquet)?)
        .get_metadata()?
        .clone();
    assert_eq!(metadata.row_groups.len(), 1);

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

#[test]
fn reports_are_stacked_as_the_library_stacks_them_whatever_comes_between() -> TestResult {
    // Reports kept as they are read (their stacking planned one by one, one of them given
    // twice), and the same reports with an nsys CSV between them, which is streamed and read
    // again for the stacking (the plan is then made at once): both outputs are the tables of the
    // inputs stacked by `combine::stack`.
    let dir = tempfile::tempdir()?;
    let reports = warpsight_test_support::paths::traces_dir().join("ncu-rep");
    let copy = reports.join("copy_basic.ncu-rep");
    let again = dir.path().join("again.ncu-rep");
    std::fs::copy(&copy, &again)?;
    let regs = reports.join("regs_64_65.ncu-rep");
    let layer = reports.join("gpt_layer_basic.ncu-rep");
    let nsys = generated(dir.path(), "between.csv", 40)?;
    let kept = [
        copy.as_path(),
        regs.as_path(),
        again.as_path(),
        layer.as_path(),
    ];
    let streamed_between = [
        copy.as_path(),
        nsys.as_path(),
        regs.as_path(),
        again.as_path(),
    ];
    for (case, inputs) in [
        ("kept", &kept[..]),
        ("streamed between", &streamed_between[..]),
    ] {
        let frames = inputs
            .iter()
            .map(|p| Ok(read_path(p, &ReadConfig::default())?.launches))
            .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
        let expected = warpsight_ingest::combine::stack(frames)?;
        for output in ["out.parquet", "out.arrow"] {
            let path = dir.path().join(output);
            ingest(inputs, &path)?;
            let back = if output.ends_with("parquet") {
                ParquetReader::new(std::fs::File::open(&path)?).finish()?
            } else {
                IpcReader::new(std::fs::File::open(&path)?).finish()?
            };
            assert_eq!(back.schema(), expected.schema(), "{case}, {output}");
            assert!(back.equals_missing(&expected), "{case}, {output}");
        }
    }
    Ok(())
}

/// Runs `warpsight [global] ingest -o output inputs` and returns its exit code and stderr.
fn ingest_with(
    global: &[&str],
    inputs: &[&Path],
    output: &Path,
) -> Result<(Option<i32>, String), Box<dyn std::error::Error>> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpsight"));
    command.current_dir(warpsight_test_support::paths::workspace_root());
    command.args(global).arg("ingest").arg("-o").arg(output);
    command.args(inputs);
    let result = command.output()?;
    Ok((
        result.status.code(),
        String::from_utf8_lossy(&result.stderr).into_owned(),
    ))
}

/// A generated `cuda_gpu_trace` CSV of `launches` launches (a memcpy or memset every ten).
fn generated(
    dir: &Path,
    name: &str,
    launches: usize,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let path = dir.join(name);
    let config = SyntheticConfig {
        launches,
        ..Default::default()
    };
    write_gpu_trace_csv(&path, &config)?;
    Ok(path)
}

/// The files left in `dir` whose name says they are a partial output.
fn partial_files(dir: &Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".partial-"))
        .collect())
}

#[test]
fn one_nsys_csv_is_written_batch_by_batch_as_the_whole_table() -> TestResult {
    let dir = tempfile::tempdir()?;
    let fixtures =
        warpsight_test_support::paths::workspace_root().join("core/ingest/tests/fixtures/nsys");
    let mut inputs = vec![
        fixtures.join("gpu_trace_old_header_us.csv"),
        fixtures.join("gpu_trace_bad_rows.csv"),
        // 200 000 launches (37 MB): two blocks of the reader, two batches or more.
        generated(dir.path(), "generated_cuda_gpu_trace.csv", 200_000)?,
    ];
    // The same kind of trace as an nsys SQLite export: its kernel table in rowid ranges.
    let sqlite = dir.path().join("generated.sqlite");
    warpsight_test_support::synthetic_nsys::write_sqlite(
        &sqlite,
        &SyntheticConfig {
            launches: 150_000,
            ..Default::default()
        },
    )?;
    inputs.push(sqlite);
    if let Some(shared) = warpsight_test_support::paths::shared_traces() {
        for name in [
            "tornadovm__chains_after_cuda_gpu_trace.csv",
            "cuda-perf-sandbox__report1.sqlite",
        ] {
            inputs.push(shared.join(name));
        }
    }
    for input in &inputs {
        let whole = read_path(input, &ReadConfig::default())?;
        for name in ["out.parquet", "out.arrow", "out.csv"] {
            let output = dir.path().join(name);
            let stderr = ingest(&[input.as_path()], &output)?;
            // The rejected rows are reported as when the file was read whole.
            if let Some(first) = whole.rejected.first() {
                let expected = format!(
                    "rejected={} first_line={}",
                    whole.rejected.len(),
                    first.line
                );
                assert!(stderr.contains(&expected), "{}: {stderr}", input.display());
            }
            if name == "out.csv" {
                // The same bytes as the whole table written at once.
                let reference = dir.path().join("whole.csv");
                warpsight_ingest::native::write(&mut whole.launches.clone(), &reference)?;
                assert!(
                    std::fs::read(&output)? == std::fs::read(&reference)?,
                    "{}: the CSV differs from the whole table's",
                    input.display()
                );
                continue;
            }
            let back = read_path(&output, &ReadConfig::default())?.launches;
            assert_eq!(
                back.schema(),
                whole.launches.schema(),
                "{} {name}",
                input.display()
            );
            assert!(
                back.equals_missing(&whole.launches),
                "{} {name}",
                input.display()
            );
        }
        if whole.launches.height() >= 150_000 {
            // Batch by batch: a row group per batch.
            let parquet = dir.path().join("out.parquet");
            let metadata = ParquetReader::new(std::fs::File::open(&parquet)?)
                .get_metadata()?
                .clone();
            assert!(
                metadata.row_groups.len() >= 2,
                "{} row groups",
                metadata.row_groups.len()
            );
        }
    }
    assert!(partial_files(dir.path())?.is_empty());
    Ok(())
}

#[test]
fn strict_leaves_no_partial_output_and_an_existing_one_as_it_was() -> TestResult {
    let dir = tempfile::tempdir()?;
    let input = generated(dir.path(), "bad_cuda_gpu_trace.csv", 200_000)?;
    // A row that cannot be used after the last launch: batches are written before it is read.
    let mut text = std::fs::read_to_string(&input)?;
    text.push_str("9,9,9,1,x,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,bad\n");
    std::fs::write(&input, text)?;
    let output = dir.path().join("out.parquet");
    let (code, stderr) = ingest_with(&["--strict"], &[input.as_path()], &output)?;
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("rejected because of --strict"), "{stderr}");
    assert!(!output.exists(), "a partial output is left");
    assert!(partial_files(dir.path())?.is_empty());
    // An existing output stays as it was.
    std::fs::write(&output, "previous")?;
    let (code, _) = ingest_with(&["--strict"], &[input.as_path()], &output)?;
    assert_ne!(code, Some(0));
    assert_eq!(std::fs::read_to_string(&output)?, "previous");
    assert!(partial_files(dir.path())?.is_empty());
    // Without --strict the row is counted and the rest written over it.
    let (code, stderr) = ingest_with(&[], &[input.as_path()], &output)?;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("rejected=1"), "{stderr}");
    assert_eq!(
        read_path(&output, &ReadConfig::default())?.launch_count(),
        200_000
    );
    Ok(())
}

#[test]
fn a_file_that_fails_half_way_is_left_out_of_the_output() -> TestResult {
    let dir = tempfile::tempdir()?;
    let good = generated(dir.path(), "good_cuda_gpu_trace.csv", 1000)?;
    let bad = generated(dir.path(), "bad_cuda_gpu_trace.csv", 200_000)?;
    let mut text = std::fs::read_to_string(&bad)?;
    text.push_str("9,9,9,1,x,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,bad\n");
    std::fs::write(&bad, text)?;
    for name in ["out.parquet", "out.csv"] {
        let output = dir.path().join(name);
        let (code, stderr) = ingest_with(
            &["-v", "--strict"],
            &[good.as_path(), bad.as_path()],
            &output,
        )?;
        // Exit code 1: an input could not be read; the others' table is written.
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("bad_cuda_gpu_trace.csv"), "{stderr}");
        assert!(
            stderr.contains("writing the output again without it"),
            "{stderr}"
        );
        // The good file, read twice, is logged as read once.
        assert_eq!(stderr.matches(" read file=").count(), 1, "{stderr}");
        let expected = read_path(&good, &ReadConfig::default())?.launches;
        let back = read_path(&output, &ReadConfig::default())?.launches;
        assert_eq!(back.height(), expected.height(), "{name}");
        if name == "out.parquet" {
            assert!(back.equals_missing(&expected));
        }
    }
    assert!(partial_files(dir.path())?.is_empty());
    Ok(())
}
