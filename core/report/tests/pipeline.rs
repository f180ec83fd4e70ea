//! Tests of `warpsight_report::analysis::pipeline` that need the shipped plugins' architecture data.

use polars::prelude::*;
use warpsight_report::analysis::AnalysisError;
use warpsight_ingest::launch_table::col as lt;
use warpsight_report::analysis::findings;
use warpsight_report::analysis::pipeline::*;

#[test]
fn unmodelled_launches_are_counted_and_findings_attached() -> Result<(), AnalysisError> {
    // Launch 1: CC 6.1, 512 threads, 65 registers (Programming Guide example, 25 %).
    // Launch 2: CC 2.0, which no architecture in the registry provides.
    let frame = df!(
        lt::SOURCE_FILE => ["t.csv", "t.csv"],
        lt::LAUNCH_ID => [1i64, 2],
        lt::KERNEL_NAME => ["k", "old"],
        lt::CC_MAJOR => [6i64, 2],
        lt::CC_MINOR => [1i64, 0],
        lt::BLOCK_X => [512i64, 128],
        lt::GRID_X => [100i64, 100],
        lt::REGISTERS_PER_THREAD => [65i64, 20],
    )?;
    let launches = warpsight_ingest::launch_table::conform(frame.lazy())?.collect()?;
    let loaded = warpsight_report::analysis::load::Loaded {
        files: vec!["t.csv".into()],
        launches,
        rules: DataFrame::empty(),
        transfers: DataFrame::empty(),
        kernel_summary: DataFrame::empty(),
        rejected: Vec::new(),
    };
    let analysis = analyze(
        &loaded,
        &warpsight_test_support::registry(),
        &AnalysisConfig::default(),
    )?;
    let launches = analysis.launches()?;
    assert_eq!(launches.height(), 2, "no launch is dropped");
    assert_eq!(analysis.launch_count(), 2);
    assert_eq!(analysis.unmodelled_count(), 1);
    let ids = launches
        .column(findings::FINDINGS)?
        .str()?
        .get(0)
        .map(str::to_string);
    assert!(ids.is_some_and(|ids| ids.contains("register-limit")));
    assert!(
        analysis.findings.iter().all(|f| f.launch_id == Some(1)),
        "the unmodelled launch has no findings"
    );
    Ok(())
}

/// An Nsight Systems trace of 30 000 launches (a few kernels, six grid shapes each): the analysis runs once per launch group, and its per-kernel
/// table equals the one computed from the whole per-launch frame.
#[test]
fn a_large_trace_is_analysed_per_launch_group_with_per_launch_totals() -> Result<(), Box<dyn std::error::Error>> {
    use warpsight_report::analysis::aggregate;
    use warpsight_report::analysis::groups::{group_col, single_launch_groups};
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};

    let temp = tempfile::tempdir()?;
    let csv = temp.path().join("cuda_gpu_trace.csv");
    write_gpu_trace_csv(
        &csv,
        &SyntheticConfig {
            launches: 30_000,
            memcpy_every: 50,
            schema: Schema::New,
        },
    )?;
    let trace = warpsight_ingest::read_path(&csv, &warpsight_ingest::ReadConfig::default())?;
    let loaded = warpsight_report::analysis::load::Loaded {
        files: vec![csv.clone()],
        launches: trace.launches,
        rules: DataFrame::empty(),
        transfers: DataFrame::empty(),
        kernel_summary: DataFrame::empty(),
        rejected: Vec::new(),
    };
    let registry = warpsight_test_support::registry();
    let analysis = analyze(&loaded, &registry, &AnalysisConfig::default())?;
    assert_eq!(analysis.launch_count(), 30_000);
    assert!(
        analysis.groups.height() <= 36,
        "groups: {}",
        analysis.groups.height()
    );
    let launches_in_groups: i64 = analysis
        .groups
        .column(group_col::LAUNCHES)?
        .as_materialized_series()
        .sum()?;
    assert_eq!(launches_in_groups, 30_000, "every launch is in one group");
    // A finding given once per group stands for all of the group's launches.
    let per_finding: usize = analysis
        .findings
        .iter()
        .filter(|f| f.source == "warpsight")
        .map(|f| f.launches)
        .max()
        .unwrap_or(0);
    assert!(per_finding > 1, "group findings carry their launch counts");

    let launches = analysis.launches()?;
    assert_eq!(launches.height(), 30_000);
    let from_groups = aggregate::per_kernel(&analysis.groups)?;
    let from_launches = aggregate::per_kernel(&single_launch_groups(&launches)?)?;
    assert_eq!(from_groups.get_column_names(), from_launches.get_column_names());
    let kernels = launches.column(lt::KERNEL_NAME)?.as_materialized_series().n_unique()?;
    assert!(kernels >= 5, "kernels: {kernels}");
    assert_eq!(from_groups.height(), kernels, "one row per kernel name");
    for column in from_groups.columns() {
        let other = from_launches.column(column.name())?;
        let same = match column.dtype() {
            // Sums over groups and over launches differ only in the order of addition.
            DataType::Float64 => column
                .f64()?
                .iter()
                .zip(other.f64()?.iter())
                .all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                    (a, b) => a.is_none() && b.is_none(),
                }),
            _ => column
                .as_materialized_series()
                .equals_missing(other.as_materialized_series()),
        };
        assert!(same, "per-kernel column {} differs", column.name());
    }
    Ok(())
}
