//! Tests of `warpsight_report::analysis::pipeline` that need the shipped plugins' architecture data.

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_report::analysis::AnalysisError;
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
        side: warpsight_ingest::trace::SideTables::default(),
        rejected: Vec::new(),
        profiling_failed: Vec::new(),
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
fn a_large_trace_is_analysed_per_launch_group_with_per_launch_totals()
-> Result<(), Box<dyn std::error::Error>> {
    use warpsight_report::analysis::aggregate;
    use warpsight_report::analysis::groups::single_launch_groups;
    use warpsight_report::analysis::report_columns;
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
        side: warpsight_ingest::trace::SideTables::default(),
        rejected: Vec::new(),
        profiling_failed: Vec::new(),
    };
    let registry = warpsight_test_support::registry();
    let analysis = analyze(&loaded, &registry, &AnalysisConfig::default())?;
    assert_eq!(analysis.launch_count(), 30_000);
    assert!(
        analysis.groups.height() <= 36,
        "groups: {}",
        analysis.groups.height()
    );
    let launches_in_groups: i64 = aggregate::per_kernel(&analysis.groups)?
        .column(report_columns::LAUNCHES)?
        .as_materialized_series()
        .sum()?;
    assert_eq!(launches_in_groups, 30_000, "every launch is in one group");
    // A finding given once per group stands for all of the group's launches.
    let per_finding: usize = analysis
        .findings
        .iter()
        .filter(|f| &*f.source == "warpsight")
        .map(|f| f.launches)
        .max()
        .unwrap_or(0);
    assert!(per_finding > 1, "group findings carry their launch counts");

    let launches = analysis.launches()?;
    assert_eq!(launches.height(), 30_000);
    let from_groups = aggregate::per_kernel(&analysis.groups)?;
    let from_launches = aggregate::per_kernel(&single_launch_groups(&launches)?)?;
    assert_eq!(
        from_groups.get_column_names(),
        from_launches.get_column_names()
    );
    let kernels = launches
        .column(lt::KERNEL_NAME)?
        .as_materialized_series()
        .n_unique()?;
    assert!(kernels >= 5, "kernels: {kernels}");
    assert_eq!(from_groups.height(), kernels, "one row per kernel name");
    for column in from_groups.columns() {
        let other = from_launches.column(column.name())?;
        let same = match column.dtype() {
            // Sums over groups and over launches differ only in the order of addition.
            DataType::Float64 => {
                column
                    .f64()?
                    .iter()
                    .zip(other.f64()?.iter())
                    .all(|(a, b)| match (a, b) {
                        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                        (a, b) => a.is_none() && b.is_none(),
                    })
            }
            _ => column
                .as_materialized_series()
                .equals_missing(other.as_materialized_series()),
        };
        assert!(same, "per-kernel column {} differs", column.name());
    }
    Ok(())
}

/// The per-launch frame written in batches is the whole frame, row for row, and a sink gives the
/// bytes the whole-frame writers give.
#[test]
fn launch_batches_concatenate_to_the_whole_frame() -> Result<(), Box<dyn std::error::Error>> {
    use warpsight_report::analysis::report_columns as rc;
    use warpsight_report::render::output::{FrameSink, SinkFormat, write_csv, write_json};

    let path =
        warpsight_test_support::paths::traces_dir().join("h100-80gb-hbm3/block_sweep.ncu-raw.csv");
    let trace = warpsight_ingest::read_path(&path, &warpsight_ingest::ReadConfig::default())?;
    let loaded = warpsight_report::analysis::load::Loaded {
        files: vec![path.clone()],
        launches: trace.launches,
        side: warpsight_ingest::trace::SideTables {
            rules: trace.side.rules,
            ..Default::default()
        },
        rejected: Vec::new(),
        profiling_failed: Vec::new(),
    };
    let analysis = analyze(
        &loaded,
        &warpsight_test_support::registry(),
        &AnalysisConfig::default(),
    )?;
    let whole = rc::per_launch(analysis.launches()?)?;
    assert!(whole.height() >= 5, "launches: {}", whole.height());
    let batches: Vec<DataFrame> = analysis
        .launch_batches(2)
        .map(|b| b.and_then(rc::per_launch))
        .collect::<PolarsResult<_>>()?;
    assert_eq!(batches.len(), whole.height().div_ceil(2));
    let mut joined = batches[0].clone();
    for batch in &batches[1..] {
        joined.vstack_mut(batch)?;
    }
    assert!(
        joined.equals_missing(&whole),
        "batches differ from the whole frame"
    );

    for (format, expected) in [
        (SinkFormat::Csv, {
            let mut out = Vec::new();
            write_csv(&mut whole.clone(), &mut out)?;
            out
        }),
        (SinkFormat::Json, {
            let mut out = Vec::new();
            write_json(&whole, &mut out)?;
            out
        }),
    ] {
        let mut out: Vec<u8> = Vec::new();
        let mut sink = FrameSink::new(format, whole.schema(), &mut out)?;
        for batch in &batches {
            sink.write(batch)?;
        }
        sink.finish()?;
        assert_eq!(
            String::from_utf8(out)?,
            String::from_utf8(expected)?,
            "{format:?}"
        );
    }
    // Parquet: read back, the same frame.
    let mut parquet: Vec<u8> = Vec::new();
    let mut sink = FrameSink::new(SinkFormat::Parquet, whole.schema(), &mut parquet)?;
    for batch in &batches {
        sink.write(batch)?;
    }
    sink.finish()?;
    let back = ParquetReader::new(std::io::Cursor::new(parquet)).finish()?;
    assert!(back.equals_missing(&whole), "Parquet read back differs");
    Ok(())
}

/// Inputs analysed one file at a time and merged give the per-kernel table, the counts and the
/// findings' time shares of the same inputs analysed together.
#[test]
fn files_analysed_one_at_a_time_merge_into_the_joint_analysis()
-> Result<(), Box<dyn std::error::Error>> {
    use warpsight_report::analysis::aggregate;
    use warpsight_report::analysis::load::load_paths;

    let traces = warpsight_test_support::paths::traces_dir();
    let files = vec![
        traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv"),
        traces.join("h200/reduction.ncu-raw.csv"),
        traces.join("h100-80gb-hbm3/block_sweep.ncu-details.csv"),
    ];
    let registry = warpsight_test_support::registry();
    let config = AnalysisConfig::default();
    let read = warpsight_ingest::ReadConfig::default();
    let joint = analyze(&load_paths(&files, &read, &|_| {})?, &registry, &config)?;
    let parts = files
        .iter()
        .map(|file| {
            analyze(
                &load_paths(std::slice::from_ref(file), &read, &|_| {})?,
                &registry,
                &config,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let merged = Analysis::merge(parts)?;
    assert_eq!(merged.launch_count(), joint.launch_count());
    assert_eq!(merged.unpredicted, joint.unpredicted);
    assert_eq!(merged.unmodelled, joint.unmodelled);
    assert!(
        merged.launches().is_err(),
        "a merged analysis keeps no per-launch rows"
    );
    let a = aggregate::per_kernel(&merged.groups)?;
    let b = aggregate::per_kernel(&joint.groups)?;
    assert_eq!(a.height(), b.height());
    assert!(a.height() >= 3);
    for column in b.columns() {
        let other = a.column(column.name())?;
        let same = match column.dtype() {
            DataType::Float64 => {
                column
                    .f64()?
                    .iter()
                    .zip(other.f64()?.iter())
                    .all(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                        (x, y) => x.is_none() && y.is_none(),
                    })
            }
            _ => column
                .as_materialized_series()
                .equals_missing(other.as_materialized_series()),
        };
        assert!(same, "per-kernel column {} differs", column.name());
    }
    assert_eq!(merged.findings.len(), joint.findings.len());
    let share = |analysis: &Analysis| -> f64 {
        analysis.findings.iter().filter_map(|f| f.time_share).sum()
    };
    assert!(
        (share(&merged) - share(&joint)).abs() < 1e-9,
        "time shares rescaled to all inputs"
    );
    Ok(())
}

/// One export cut into parts (its launch table in row slices), analysed part by part and merged,
/// gives the findings of the whole: a launch group split over parts gives one finding, on its
/// first launch, with the launches and time shares of all its parts.
#[test]
fn parts_of_one_export_merge_into_the_findings_of_the_whole()
-> Result<(), Box<dyn std::error::Error>> {
    use warpsight_report::analysis::load::load_paths;
    use warpsight_test_support::synthetic_nsys::{SyntheticConfig, write_gpu_trace_csv};

    let dir = tempfile::tempdir()?;
    let path = dir.path().join("run_cuda_gpu_trace.csv");
    let synthetic = SyntheticConfig {
        launches: 3000,
        ..Default::default()
    };
    write_gpu_trace_csv(&path, &synthetic)?;
    let registry = warpsight_test_support::registry();
    let config = AnalysisConfig::default();
    let read = warpsight_ingest::ReadConfig::default();
    let loaded = load_paths(std::slice::from_ref(&path), &read, &|_| {})?;
    let whole = analyze(&loaded, &registry, &config)?;
    let cuts = [0usize, 700, 1900, 3000];
    let parts = cuts
        .windows(2)
        .map(|range| {
            let part = warpsight_report::analysis::load::Loaded {
                launches: loaded.launches.slice(range[0] as i64, range[1] - range[0]),
                ..loaded.clone()
            };
            analyze(&part, &registry, &config)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let in_parts: usize = parts.iter().map(|p| p.findings.len()).sum();
    let merged = Analysis::merge(parts)?;
    assert!(
        in_parts > whole.findings.len(),
        "the groups span the parts: {in_parts} findings in the parts"
    );
    assert_eq!(merged.findings.len(), whole.findings.len());
    for (a, b) in merged.findings.iter().zip(&whole.findings) {
        assert_eq!(
            (&a.kernel, &a.rule_id, &a.message, a.launch_id, a.launches),
            (&b.kernel, &b.rule_id, &b.message, b.launch_id, b.launches)
        );
        let (x, y) = (a.time_share.unwrap_or(-1.0), b.time_share.unwrap_or(-1.0));
        assert!((x - y).abs() <= 1e-12, "{}: {x} vs {y}", a.rule_id);
    }
    Ok(())
}

/// A prediction made one file at a time and combined equals the prediction of the inputs
/// together: the same kernels, sums and mean occupancies.
#[test]
fn predictions_of_separate_files_combine_into_the_joint_prediction()
-> Result<(), Box<dyn std::error::Error>> {
    use warpsight_model::ModelConfig;
    use warpsight_report::analysis::load::load_paths;
    use warpsight_report::analysis::predict;

    let traces = warpsight_test_support::paths::traces_dir();
    let files = vec![
        traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv"),
        traces.join("h100-80gb-hbm3/reduction.ncu-raw.csv"),
        traces.join("h100-80gb-hbm3/sgemm.ncu-details.csv"),
    ];
    let registry = warpsight_test_support::registry();
    let read = warpsight_ingest::ReadConfig::default();
    let target = "NVIDIA H200";
    let joint = predict::predict(
        &load_paths(&files, &read, &|_| {})?,
        &registry,
        target,
        None,
        &ModelConfig::default(),
    )?;
    let parts = files
        .iter()
        .map(|file| {
            predict::predict_part(
                &load_paths(std::slice::from_ref(file), &read, &|_| {})?,
                &registry,
                target,
                None,
                &ModelConfig::default(),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let combined = predict::combine(parts, &registry, target)?;
    assert_eq!(combined.unpredicted, joint.unpredicted);
    let (a, b) = (&combined.per_kernel, &joint.per_kernel);
    assert_eq!(a.get_column_names(), b.get_column_names());
    assert_eq!(a.height(), b.height());
    assert!(a.height() >= 3, "kernels: {}", a.height());
    for column in b.columns() {
        let other = a.column(column.name())?;
        let same = match column.dtype() {
            DataType::Float64 => {
                column
                    .f64()?
                    .iter()
                    .zip(other.f64()?.iter())
                    .all(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                        (x, y) => x.is_none() && y.is_none(),
                    })
            }
            _ => column
                .as_materialized_series()
                .equals_missing(other.as_materialized_series()),
        };
        assert!(same, "predicted column {} differs", column.name());
    }
    assert!((combined.totals.speedup - joint.totals.speedup).abs() < 1e-9);
    Ok(())
}

#[test]
fn rules_run_in_row_chunks_give_the_findings_of_one_run() -> Result<(), Box<dyn std::error::Error>>
{
    let registry = warpsight_test_support::registry();
    let traces = warpsight_test_support::paths::traces_dir();
    let mut compared = 0usize;
    for gpu in ["h100-80gb-hbm3", "h200"] {
        let mut paths: Vec<_> = std::fs::read_dir(traces.join(gpu))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.to_string_lossy().ends_with(".csv"))
            .collect();
        paths.sort();
        for path in paths {
            let loaded = warpsight_report::analysis::load::load_paths(
                std::slice::from_ref(&path),
                &warpsight_ingest::ReadConfig::default(),
                &|_| {},
            )?;
            let analysis = analyze(&loaded, &registry, &AnalysisConfig::default())?;
            let rules = warpsight_report::analysis::rules::all();
            let whole = findings::run_rules(&analysis.groups, &rules)?;
            let sorted = |frame: DataFrame| {
                frame.sort(
                    [
                        warpsight_ingest::launch_table::column_names::SOURCE_FILE,
                        warpsight_ingest::launch_table::column_names::LAUNCH_ID,
                    ],
                    SortMultipleOptions::default(),
                )
            };
            let whole_texts = sorted(findings::ids_per_launch(&whole)?)?;
            for min_rows in [2, 3] {
                let what = format!("{}, chunks of at least {min_rows} rows", path.display());
                let (chunked, texts) =
                    findings::run_rules_in_chunks(&analysis.groups, &rules, min_rows)?;
                assert_eq!(chunked, whole, "{what}: findings");
                assert!(
                    sorted(texts)?.equals_missing(&whole_texts),
                    "{what}: texts per launch"
                );
            }
            // Groups without launch ids share one key per file: one row of texts for all of them.
            let mut anonymous = analysis.groups.clone();
            anonymous.with_column(Column::full_null(
                warpsight_ingest::launch_table::column_names::LAUNCH_ID.into(),
                anonymous.height(),
                &DataType::Int64,
            ))?;
            let anonymous_whole = findings::run_rules(&anonymous, &rules)?;
            let (chunked, texts) = findings::run_rules_in_chunks(&anonymous, &rules, 2)?;
            assert_eq!(
                chunked,
                anonymous_whole,
                "{}: findings without launch ids",
                path.display()
            );
            assert!(
                sorted(texts)?
                    .equals_missing(&sorted(findings::ids_per_launch(&anonymous_whole)?)?),
                "{}: texts without launch ids",
                path.display()
            );
            if warpsight_model::row_chunks::chunk_count(analysis.groups.height(), 2) >= 2
                && !whole.is_empty()
            {
                compared += 1;
            }
        }
    }
    // Most captures have enough launch groups with findings to be cut into chunks.
    assert!(compared >= 10, "captures cut into chunks: {compared}");
    Ok(())
}

/// Without the what-if engine (`skip_what_if`, as `diff` runs) the launch groups have no
/// `whatif_*` column: every rule that does not declare [`findings::Rule::needs_what_if`] runs on
/// them, and every rule that declares it reads those columns (it fails there). A rule that reads
/// the what-if columns without declaring it would fail the analysis of `diff`.
#[test]
fn rules_declare_exactly_whether_they_read_the_what_if_columns()
-> Result<(), Box<dyn std::error::Error>> {
    let traces = warpsight_test_support::paths::traces_dir();
    let loaded = warpsight_report::analysis::load::load_paths(
        &[traces.join("h100-80gb-hbm3/sgemm.ncu-raw.csv")],
        &warpsight_ingest::ReadConfig::default(),
        &|_| {},
    )?;
    let config = AnalysisConfig {
        skip_what_if: true,
        ..AnalysisConfig::default()
    };
    let analysis = analyze(&loaded, &warpsight_test_support::registry(), &config)?;
    let groups = &analysis.groups;
    assert!(groups.height() > 0);
    assert!(
        groups
            .get_column_names()
            .iter()
            .all(|name| !name.starts_with("whatif_")),
        "the what-if engine was skipped"
    );
    let mut declaring = Vec::new();
    for rule in warpsight_report::analysis::rules::all() {
        let ran = findings::run_rules(groups, &[rule]);
        assert_eq!(
            ran.is_err(),
            rule.needs_what_if(),
            "rule {}: needs_what_if is {}, but on groups without what-if columns it gave {:?}",
            rule.id(),
            rule.needs_what_if(),
            ran.err()
        );
        if rule.needs_what_if() {
            declaring.push(rule.id());
        }
    }
    // The rules of the string list that `needs_what_if` replaced.
    assert_eq!(
        declaring,
        ["register-limit", "shared-memory-limit", "block-size"]
    );
    Ok(())
}
