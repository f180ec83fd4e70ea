//! Both Nsight Compute pages of the capture kit give the same model inputs (issue #11 item 2).
//!
//! For every case of every kit capture in `traces/<gpu>/` (a folder whose README.md starts with the
//! kit's marker line; the H100 and H200 captures are committed), the details page and the raw page
//! were printed from the same `.ncu-rep`. Read through the ordinary readers, they must give, per
//! launch, equal values in every column named by the kit's `--metrics` list (the raw page's column
//! and the details page's `Command line profiler metrics` row, both under the native metric name,
//! both Float64 in base units) and in the launch-configuration columns (grid, block, registers,
//! shared memory). The list is read from the ncu command in the capture's README.md, so a
//! recapture with a longer list is checked without editing this file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use warpsight_ingest::launch_table::{column_names as lt, is_time_derived};
use warpsight_ingest::trace::Trace;
use warpsight_ingest::{Format, ReadConfig, read_path};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The first line of a kit capture's README.md.
const KIT_MARKER: &str = "<!-- warpsight-capture-kit v1 -->";

/// The GPU folders that are committed and must be checked.
const EXPECTED_GPUS: &[&str] = &["h100-80gb-hbm3", "h200"];

/// The launch-configuration columns compared besides the metrics.
const CONFIG_COLUMNS: &[&str] = &[
    lt::GRID_X,
    lt::GRID_Y,
    lt::GRID_Z,
    lt::BLOCK_X,
    lt::BLOCK_Y,
    lt::BLOCK_Z,
    lt::REGISTERS_PER_THREAD,
    lt::STATIC_SMEM_BYTES,
    lt::DYNAMIC_SMEM_BYTES,
    lt::DRIVER_SMEM_BYTES,
    lt::SMEM_CONFIG_BYTES,
];

/// Every kit capture folder under `traces/`, sorted by name.
fn kit_folders() -> Result<Vec<PathBuf>, std::io::Error> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(warpsight_test_support::paths::traces_dir())? {
        let dir = entry?.path();
        let readme = dir.join("README.md");
        if readme.is_file()
            && std::fs::read_to_string(&readme)?
                .lines()
                .next()
                .is_some_and(|line| line.trim() == KIT_MARKER)
        {
            found.push(dir);
        }
    }
    found.sort();
    Ok(found)
}

/// The `--metrics` list of the ncu command in a capture's README.md.
fn kit_metrics(readme: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(readme).map_err(|e| format!("{}: {e}", readme.display()))?;
    let list = text
        .lines()
        .find_map(|line| {
            line.trim_start()
                .strip_prefix("ncu ")
                .and_then(|rest| rest.split_once("--metrics "))
                .and_then(|(_, after)| after.split_whitespace().next())
        })
        .ok_or_else(|| format!("{}: no `ncu ... --metrics LIST` command", readme.display()))?;
    Ok(list.split(',').map(str::to_string).collect())
}

/// The cases of a capture folder: every `C.ncu-details.csv` that has a `C.ncu-raw.csv` beside it.
fn cases(dir: &Path) -> Result<Vec<String>, std::io::Error> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(case) = name.strip_suffix(".ncu-details.csv")
            && dir.join(format!("{case}.ncu-raw.csv")).is_file()
        {
            names.push(case.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// A cell of a compared column, as a number (both pages give numbers for every compared column).
fn number_at(column: &Column, row: usize) -> Result<Option<f64>, PolarsError> {
    Ok(match column.dtype() {
        DataType::Int64 => column.i64()?.get(row).map(|v| v as f64),
        _ => column.f64()?.get(row),
    })
}

/// Reads one page and checks that it was read as `format` with nothing rejected.
fn read_page(path: &Path, format: Format, problems: &mut Vec<String>) -> Option<Trace> {
    match read_path(path, &ReadConfig::default()) {
        Ok(trace) => {
            if trace.format != format {
                problems.push(format!(
                    "{}: read as {}, expected {}",
                    path.display(),
                    trace.format,
                    format.name()
                ));
            }
            for row in &trace.rejected {
                problems.push(format!(
                    "{} line {}: rejected: {}",
                    path.display(),
                    row.line,
                    row.reason
                ));
            }
            Some(trace)
        }
        Err(e) => {
            problems.push(format!("{}: {e}", path.display()));
            None
        }
    }
}

/// What one GPU's comparison covered.
#[derive(Debug, Default)]
struct Counts {
    cases: usize,
    launches: usize,
    columns: usize,
    values: usize,
    /// Compared cells that are null on both pages (allowed, but counted and asserted rare).
    both_null: usize,
}

/// Compares the two pages of one case, appending every mismatch to `problems`.
fn compare_case(
    dir: &Path,
    case: &str,
    metrics: &[String],
    counts: &mut Counts,
    problems: &mut Vec<String>,
) -> Result<(), PolarsError> {
    let details_path = dir.join(format!("{case}.ncu-details.csv"));
    let raw_path = dir.join(format!("{case}.ncu-raw.csv"));
    let (Some(details), Some(raw)) = (
        read_page(&details_path, Format::NcuDetails, problems),
        read_page(&raw_path, Format::NcuRaw, problems),
    ) else {
        return Ok(());
    };
    let (d, r) = (&details.launches, &raw.launches);
    let ids = |frame: &DataFrame| -> Result<HashMap<i64, usize>, PolarsError> {
        Ok(frame
            .column(lt::LAUNCH_ID)?
            .i64()?
            .iter()
            .enumerate()
            .filter_map(|(row, id)| id.map(|id| (id, row)))
            .collect())
    };
    let (d_rows, r_rows) = (ids(d)?, ids(r)?);
    let mut launch_ids: Vec<i64> = d_rows.keys().copied().collect();
    launch_ids.sort_unstable();
    let mut raw_ids: Vec<i64> = r_rows.keys().copied().collect();
    raw_ids.sort_unstable();
    if launch_ids != raw_ids || launch_ids.is_empty() {
        problems.push(format!(
            "{case} in {}: launch ids differ or are empty: details {launch_ids:?}, raw {raw_ids:?}",
            dir.display()
        ));
        return Ok(());
    }
    let names: Vec<&str> = metrics
        .iter()
        .map(String::as_str)
        .chain(CONFIG_COLUMNS.iter().copied())
        .collect();
    counts.cases += 1;
    counts.launches += launch_ids.len();
    counts.columns = counts.columns.max(names.len());
    for name in names {
        let (dc, rc) = match (d.column(name), r.column(name)) {
            (Ok(dc), Ok(rc)) => (dc, rc),
            (dc, rc) => {
                problems.push(format!(
                    "{case}: column `{name}` missing from{}{}",
                    if dc.is_err() { " the details page" } else { "" },
                    if rc.is_err() { " the raw page" } else { "" },
                ));
                continue;
            }
        };
        if dc.dtype() != rc.dtype() || !matches!(dc.dtype(), DataType::Float64 | DataType::Int64) {
            problems.push(format!(
                "{case}: column `{name}` is {} on the details page and {} on the raw page \
                 (expected the same numeric dtype)",
                dc.dtype(),
                rc.dtype()
            ));
            continue;
        }
        for id in &launch_ids {
            let (dv, rv) = (number_at(dc, d_rows[id])?, number_at(rc, r_rows[id])?);
            counts.values += 1;
            let equal = match (dv, rv) {
                (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
                (None, None) => {
                    counts.both_null += 1;
                    true
                }
                _ => false,
            };
            if !equal {
                problems.push(format!(
                    "{}: launch {id}, column `{name}`: details {dv:?} ({}), raw {rv:?} ({})",
                    case,
                    details_path.display(),
                    raw_path.display()
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn kit_details_and_raw_pages_give_the_same_model_inputs() -> TestResult {
    let folders = kit_folders()?;
    for gpu in EXPECTED_GPUS {
        assert!(
            folders.iter().any(|dir| dir.ends_with(gpu)),
            "the kit capture traces/{gpu} is missing (found {folders:?})"
        );
    }
    let mut problems = Vec::new();
    for dir in &folders {
        let metrics = kit_metrics(&dir.join("README.md"))?;
        let cases = cases(dir)?;
        assert!(
            !cases.is_empty(),
            "{}: no details/raw page pairs",
            dir.display()
        );
        let mut counts = Counts::default();
        for case in &cases {
            compare_case(dir, case, &metrics, &mut counts, &mut problems)?;
        }
        eprintln!(
            "{}: {} cases, {} launches, {} columns ({} --metrics + {} configuration), {} values \
             compared ({} null on both pages)",
            dir.display(),
            counts.cases,
            counts.launches,
            counts.columns,
            metrics.len(),
            CONFIG_COLUMNS.len(),
            counts.values,
            counts.both_null
        );
        // Every kit launch has every requested metric: a null on both pages would mean neither
        // reader found the value, which the equality above cannot see.
        if counts.both_null > 0 {
            problems.push(format!(
                "{}: {} compared cells are null on both pages",
                dir.display(),
                counts.both_null
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} mismatches between the details and raw pages:\n{}",
        problems.len(),
        problems.join("\n")
    );
    Ok(())
}

#[test]
fn the_kit_metric_list_is_read_from_the_readme() -> TestResult {
    let readme = warpsight_test_support::paths::traces_dir()
        .join("h100-80gb-hbm3")
        .join("README.md");
    let metrics = kit_metrics(&readme)?;
    for name in [
        "smsp__inst_executed.sum",
        "sm__inst_executed_pipe_fma.sum",
        "dram__bytes_read.sum",
        "gpu__time_duration.sum",
    ] {
        assert!(
            metrics.iter().any(|m| m == name),
            "{name} not in {metrics:?}"
        );
    }
    // The committed captures used 36 metrics; a recapture with the kit's longer list has more.
    assert!(metrics.len() >= 36, "{metrics:?}");
    // Of the kit's requests, exactly the time, cycle and clock counters are measured-time-derived
    // (the model must not read them); every count it needs is allowed.
    let derived: Vec<&str> = metrics
        .iter()
        .map(String::as_str)
        .filter(|name| is_time_derived(name))
        .collect();
    assert_eq!(
        derived,
        [
            "sm__cycles_elapsed.avg",
            "sm__cycles_elapsed.avg.per_second",
            "gpu__time_duration.sum"
        ]
    );
    Ok(())
}
