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
    assert_eq!(analysis.launches.height(), 2, "no launch is dropped");
    assert_eq!(analysis.unmodelled_count(), 1);
    let ids = analysis
        .launches
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
