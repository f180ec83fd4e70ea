//! The occupancy model against Nsight Compute's own numbers on every real ncu export of the corpus
//! (`../shared/traces/`, see its MANIFEST.md): for every launch that has ncu's Occupancy section and
//! the launch configuration, warpsight's theoretical occupancy must equal ncu's (to its display
//! rounding) and each block limit must equal ncu's Block Limit value.
//!
//! Two documented differences in how ncu prints limits are normalised (docs/model.md, "Checking
//! against Nsight Compute"): ncu prints an unlimited shared-memory or barrier limit as the block-slot
//! limit, and caps the barrier limit at the block-slot limit. ncu versions before ≈2023 computed
//! "Block Limit Shared Mem" with the maximum carveout rather than the configured one, so each file
//! must agree completely under one of the two carveout policies (OCCUPANCY.md §5).
//!
//! The occupancy fast path (`model::evaluate_occupancy`) must give exactly the columns of
//! `model::evaluate` on the same files and on a generated nsys fixture, but for the instruction
//! families and launch features another device lacks, which `model::evaluate` adds to
//! `not_launchable` from the counters (`warpsight_model::target_support`) and the fast path, which
//! reads the launch configuration only, does not.
//!
//! Skips, with a printed reason, when the corpus folder is absent.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::{ReadConfig, read_path};
use warpsight_model::arch::{ComputeCapability, Registry};
use warpsight_model::columns as out;
use warpsight_model::{CarveoutPolicy, ModelConfig, evaluate, evaluate_occupancy};
use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};

/// `../shared/traces`, or `None` (the skip is reported when the test binary exits).
fn corpus_dir() -> Option<PathBuf> {
    warpsight_test_support::paths::shared_traces()
}

/// A real ncu export with an Occupancy section.
struct NcuFile {
    name: &'static str,
    /// Distinct launches, from MANIFEST.md.
    launches: usize,
    /// Launches that carry the whole launch configuration (block size, registers); the others
    /// (metrics-only sections) cannot be checked and are counted.
    comparable: usize,
    /// The compute capability MANIFEST.md gives, for old exports whose rows carry none.
    cc: (i64, i64),
}

const NCU_FILES: &[NcuFile] = &[
    NcuFile {
        name: "xplacer__cfd_kernel-level-measurement_nsight_cfd_097K.log",
        launches: 100,
        comparable: 100,
        cc: (7, 0),
    },
    NcuFile {
        name: "xplacer__bfs_lassen-kernel-level-measurement_nsight_bfs_graph4096.log",
        launches: 13,
        comparable: 13,
        cc: (7, 0),
    },
    NcuFile {
        name: "gpucachesim__nsight_vectoradd_100_32_metrics_all.csv",
        launches: 3,
        comparable: 3,
        cc: (6, 1),
    },
    NcuFile {
        name: "gpucachesim__nsight_vectoradd_100_32_metrics_all.txt",
        launches: 3,
        comparable: 3,
        cc: (6, 1),
    },
    NcuFile {
        name: "opparam__bert_torch_nsight.csv",
        launches: 26,
        comparable: 26,
        cc: (8, 0),
    },
    NcuFile {
        name: "opparam__pooling_nsight16.csv",
        launches: 240,
        comparable: 240,
        cc: (8, 0),
    },
    NcuFile {
        name: "llm-perf-opt__kernel_0001_ncu.details.csv",
        launches: 1,
        comparable: 0,
        cc: (12, 0),
    },
    NcuFile {
        name: "llm-perf-opt__kernel_0004_ncu.details.csv",
        launches: 1,
        comparable: 0,
        cc: (12, 0),
    },
    NcuFile {
        name: "moeresearch__R_short_decode_ncu_raw_full.csv",
        launches: 30,
        comparable: 30,
        cc: (9, 0),
    },
    NcuFile {
        name: "moeresearch__R_short_decode_ncu_details_setfull.csv",
        launches: 30,
        comparable: 30,
        cc: (9, 0),
    },
    NcuFile {
        name: "moeresearch__v9b_stalls_agent_decode_b32_ncu_details.csv",
        launches: 24,
        comparable: 0,
        cc: (9, 0),
    },
];

/// One launch's disagreement with ncu.
#[derive(Debug)]
struct Mismatch {
    launch_id: Option<i64>,
    what: String,
}

/// How one file compares under one carveout policy.
#[derive(Debug, Default)]
struct Comparison {
    compared: usize,
    missing_inputs: usize,
    barriers_unknown_count: usize,
    /// Launches whose shared-memory limit matches only within the export's display rounding.
    display_rounding: Vec<Option<i64>>,
    mismatches: Vec<Mismatch>,
}

/// Shifts the static and dynamic shared-memory sizes by `delta` bytes where they look rounded
/// for display (at least 1000 B and a multiple of 10: `4.10 Kbyte` may be 4096 B), never below 0.
fn shift_rounded_smem(frame: &DataFrame, delta: i64) -> PolarsResult<DataFrame> {
    let shift = |name: &str| {
        let c = col(name);
        when(
            c.clone()
                .gt_eq(lit(1000i64))
                .and((c.clone() % lit(10i64)).eq(lit(0i64))),
        )
        .then(c.clone() + lit(delta))
        .otherwise(c)
        .alias(name)
    };
    frame
        .clone()
        .lazy()
        .with_columns([shift(lt::STATIC_SMEM_BYTES), shift(lt::DYNAMIC_SMEM_BYTES)])
        .collect()
}

fn ints(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<i64>>> {
    let column = frame.column(name)?.cast(&DataType::Int64)?;
    let values = column.i64()?;
    Ok((0..values.len()).map(|i| values.get(i)).collect())
}

fn floats(frame: &DataFrame, name: &str) -> PolarsResult<Vec<Option<f64>>> {
    let column = frame.column(name)?.cast(&DataType::Float64)?;
    let values = column.f64()?;
    Ok((0..values.len()).map(|i| values.get(i)).collect())
}

fn compare(
    launches: &DataFrame,
    policy: CarveoutPolicy,
    registry: &Registry,
) -> Result<Comparison, Box<dyn std::error::Error>> {
    let config = ModelConfig {
        carveout: policy,
        ..ModelConfig::default()
    };
    let run = |frame: DataFrame| -> Result<DataFrame, Box<dyn std::error::Error>> {
        Ok(evaluate(frame.lazy(), registry, &config)?.collect()?)
    };
    let frame = run(launches.clone())?;
    // The same launches with rounded sizes at the low and high end of their display interval.
    let smem_low = ints(
        &run(shift_rounded_smem(launches, -5)?)?,
        out::LIMIT_SHARED_MEM,
    )?;
    let smem_high = ints(
        &run(shift_rounded_smem(launches, 4)?)?,
        out::LIMIT_SHARED_MEM,
    )?;
    let has_barrier_count = frame
        .get_column_names()
        .iter()
        .any(|n| n.as_str() == "launch__barrier_count");
    let id = ints(&frame, lt::LAUNCH_ID)?;
    let ncu_regs = ints(&frame, lt::NCU_BLOCK_LIMIT_REGISTERS)?;
    let ncu_smem = ints(&frame, lt::NCU_BLOCK_LIMIT_SHARED_MEM)?;
    let ncu_warps = ints(&frame, lt::NCU_BLOCK_LIMIT_WARPS)?;
    let ncu_sm = ints(&frame, lt::NCU_BLOCK_LIMIT_SM)?;
    let ncu_barriers = ints(&frame, lt::NCU_BLOCK_LIMIT_BARRIERS)?;
    let ncu_occupancy = floats(&frame, lt::NCU_THEORETICAL_OCCUPANCY)?;
    let ncu_warps_active = floats(&frame, lt::NCU_THEORETICAL_WARPS)?;
    let regs = ints(&frame, out::LIMIT_REGISTERS)?;
    let smem = ints(&frame, out::LIMIT_SHARED_MEM)?;
    let warps = ints(&frame, out::LIMIT_WARPS)?;
    let blocks = ints(&frame, out::LIMIT_BLOCKS)?;
    let barriers = ints(&frame, out::LIMIT_BARRIERS)?;
    let occupancy = floats(&frame, out::THEORETICAL_OCCUPANCY)?;
    let active_warps = ints(&frame, out::ACTIVE_WARPS)?;
    let mut result = Comparison::default();
    for i in 0..frame.height() {
        let Some(ncu_occ) = ncu_occupancy[i] else {
            continue;
        };
        let Some(ours_occ) = occupancy[i] else {
            result.missing_inputs += 1;
            continue;
        };
        result.compared += 1;
        let mut mismatches = Vec::new();
        let mut bad = |what: String| {
            mismatches.push(Mismatch {
                launch_id: id[i],
                what,
            })
        };
        // ncu prints percentages with 2 decimals: 0.005 percentage points = 0.00005 as a ratio.
        if (ours_occ - ncu_occ).abs() > 0.000_051 {
            bad(format!("occupancy {ours_occ:.6} vs ncu {ncu_occ:.6}"));
        }
        if let (Some(ncu), Some(ours)) = (ncu_warps_active[i], active_warps[i])
            && (ncu - ours as f64).abs() > 0.0051
        {
            bad(format!("active warps {ours} vs ncu {ncu}"));
        }
        let slots = blocks[i];
        let mut smem_ours = smem[i];
        if let Some(ncu) = ncu_smem[i]
            && smem_ours.or(slots) != Some(ncu)
        {
            for alternative in [smem_low[i], smem_high[i]] {
                if alternative.or(slots) == Some(ncu) {
                    smem_ours = alternative;
                    result.display_rounding.push(id[i]);
                    break;
                }
            }
        }
        let mut limit = |name: &str, ours: Option<i64>, ncu: Option<i64>| {
            // ncu prints "unlimited" as the block-slot limit.
            if let Some(ncu) = ncu
                && ours.or(slots) != Some(ncu)
            {
                bad(format!("{name} limit {ours:?} vs ncu {ncu}"));
            }
        };
        limit("registers", regs[i], ncu_regs[i]);
        limit("shared memory", smem_ours, ncu_smem[i]);
        limit("warps", warps[i], ncu_warps[i]);
        limit("block slots", blocks[i], ncu_sm[i]);
        if let Some(ncu) = ncu_barriers[i] {
            // ncu caps the barrier limit at the block-slot limit.
            let capped = match (barriers[i], slots) {
                (Some(b), Some(s)) => Some(b.min(s)),
                (None, s) => s,
                (b, None) => b,
            };
            if has_barrier_count {
                if capped != Some(ncu) {
                    bad(format!("barriers limit {capped:?} vs ncu {ncu}"));
                }
            } else if capped != Some(ncu) {
                // Without the barrier count in the export we assume 1 barrier per block (the
                // header's default), an upper bound: ncu's value may only be lower.
                if capped.is_some_and(|c| c < ncu) {
                    bad(format!("barriers limit {capped:?} below ncu {ncu}"));
                }
                result.barriers_unknown_count += 1;
            }
        }
        result.mismatches.extend(mismatches);
    }
    Ok(result)
}

/// The architecture numbers come from two places: the reference tables transcribed in
/// `warpsight_model::reference_fixtures`, and the workspace's plugins when they build and provide
/// every compute capability of the corpus (a cross-check of the plugins' numbers).
#[test]
fn occupancy_agrees_with_nsight_compute_on_every_launch() -> Result<(), Box<dyn std::error::Error>>
{
    let Some(dir) = corpus_dir() else {
        return Ok(());
    };
    let registry = warpsight_test_support::registry();
    let missing: Vec<String> = NCU_FILES
        .iter()
        .map(|f| ComputeCapability::new(f.cc.0 as u32, f.cc.1 as u32))
        .filter(|cc| registry.arch(*cc).is_none())
        .map(|cc| cc.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "the plugins provide no compute capability {}",
        missing.join(", ")
    );
    println!("== architecture numbers from the shipped plugins");
    agree_on_every_launch(&dir, &registry)?;
    Ok(())
}

fn agree_on_every_launch(
    dir: &Path,
    registry: &Registry,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut total = 0;
    let mut failures = Vec::new();
    for file in NCU_FILES {
        let name = file.name;
        let path = dir.join(name);
        if !path.exists() {
            println!("skipped {name}: not in the corpus folder");
            continue;
        }
        let trace = read_path(&path, &ReadConfig::default())?;
        assert_eq!(
            trace.launch_count(),
            file.launches,
            "{name}: launches read vs MANIFEST.md"
        );
        // Old exports (ncu ≤ 2022) have no CC column: take the one MANIFEST.md gives.
        let launches = trace
            .launches
            .lazy()
            .with_columns([
                col(lt::CC_MAJOR).fill_null(lit(file.cc.0)),
                col(lt::CC_MINOR).fill_null(lit(file.cc.1)),
            ])
            .collect()?;
        let export = compare(&launches, CarveoutPolicy::ExportOrMaximum, registry)?;
        let maximum = compare(&launches, CarveoutPolicy::Maximum, registry)?;
        let (policy, chosen) = if export.mismatches.len() <= maximum.mismatches.len() {
            ("export carveout", export)
        } else {
            ("maximum carveout (ncu before ~2023)", maximum)
        };
        println!(
            "{name}: {} launches compared under the {policy}: {} mismatches; {} without registers or block size; \
             {} with an unknown barrier count; {} smem limits matching within the display rounding {:?}",
            chosen.compared,
            chosen.mismatches.len(),
            chosen.missing_inputs,
            chosen.barriers_unknown_count,
            chosen.display_rounding.len(),
            chosen.display_rounding,
        );
        assert_eq!(
            chosen.compared, file.comparable,
            "{name}: launches compared"
        );
        for m in &chosen.mismatches {
            println!("  MISMATCH {name} launch {:?}: {}", m.launch_id, m.what);
            failures.push(format!("{name} launch {:?}: {}", m.launch_id, m.what));
        }
        total += chosen.compared;
    }
    println!("{total} launches compared with Nsight Compute in all");
    assert_eq!(
        total,
        NCU_FILES.iter().map(|f| f.comparable).sum::<usize>(),
        "launches compared"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches with ncu:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Ok(())
}

/// Every readable corpus file (ncu and nsys) goes through the whole model: no launch is lost, and
/// every launch has an occupancy or a stated reason. Prints the prediction error where the export
/// has both counters and a measured duration (informational: the time model is an estimate).
#[test]
fn every_corpus_launch_is_modelled_or_explained() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = corpus_dir() else {
        return Ok(());
    };
    let registry = warpsight_test_support::registry();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    let mut modelled_files = 0;
    for path in names {
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let trace = match read_path(&path, &ReadConfig::default()) {
            Ok(trace) => trace,
            Err(err) => {
                println!(
                    "{}: not readable ({err}); not a model input",
                    path.display()
                );
                continue;
            }
        };
        let frame = evaluate(
            trace.launches.clone().lazy(),
            &registry,
            &ModelConfig::default(),
        )?
        .collect()?;
        assert_eq!(
            frame.height(),
            trace.launch_count(),
            "{}: rows kept",
            path.display()
        );
        let occupancy = floats(&frame, out::THEORETICAL_OCCUPANCY)?;
        let reasons = frame.column(out::MODEL_REASON)?.str()?.clone();
        for (i, occ) in occupancy.iter().enumerate() {
            assert!(
                occ.is_some() || reasons.get(i).is_some(),
                "{} row {i}: neither occupancy nor a reason",
                path.display()
            );
        }
        let mut errors: Vec<f64> = floats(&frame, out::PREDICTION_ERROR)?
            .into_iter()
            .flatten()
            .map(f64::abs)
            .collect();
        errors.sort_by(f64::total_cmp);
        let median = errors.get(errors.len() / 2).copied();
        println!(
            "{}: {} launches, {} with occupancy, {} with a prediction error (median |error| {:?}), {} unmodelled",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
            frame.height(),
            occupancy.iter().filter(|o| o.is_some()).count(),
            errors.len(),
            median,
            warpsight_model::count_unmodelled(&frame)?
        );
        modelled_files += 1;
    }
    assert!(modelled_files > 0, "no corpus file could be read");
    Ok(())
}

/// Compares every column of `model::evaluate_occupancy` with the same column of `model::evaluate`
/// on one launch table under one configuration; returns how many launches have an occupancy.
fn fast_path_agrees(
    what: &str,
    launches: &DataFrame,
    registry: &Registry,
    config: &ModelConfig,
) -> Result<usize, Box<dyn std::error::Error>> {
    let full = evaluate(launches.clone().lazy(), registry, config)?.collect()?;
    let fast = evaluate_occupancy(launches.clone().lazy(), registry, config)?.collect()?;
    assert_eq!(fast.height(), launches.height(), "{what}: rows kept");
    let expected = [
        out::THREADS_PER_BLOCK,
        out::WARPS_PER_BLOCK,
        out::GRID_BLOCKS,
        out::REGS_PER_WARP,
        out::SMEM_PER_BLOCK,
        out::SMEM_CAPACITY,
        out::SMEM_CAPACITY_SOURCE,
        out::LIMIT_REGISTERS,
        out::LIMIT_SHARED_MEM,
        out::LIMIT_WARPS,
        out::LIMIT_BLOCKS,
        out::LIMIT_BARRIERS,
        out::ACTIVE_BLOCKS,
        out::ACTIVE_WARPS,
        out::THEORETICAL_OCCUPANCY,
        out::LIMITER,
        out::NOT_LAUNCHABLE,
        out::BLOCKS_PER_WAVE,
        out::WAVES,
        out::TAIL_EFFICIENCY,
        out::MODEL_DEVICE,
        out::MODEL_REASON,
    ];
    for name in expected {
        assert!(fast.column(name).is_ok(), "{what}: no column {name}");
    }
    let conformed = warpsight_ingest::launch_table::conform(launches.clone().lazy())?
        .collect_schema()?
        .len();
    assert_eq!(
        fast.width(),
        conformed + expected.len(),
        "{what}: the fast path adds exactly the occupancy, waves and model-device columns"
    );
    for column in fast.columns() {
        let name = column.name();
        let without_features;
        let reference = if name == out::NOT_LAUNCHABLE {
            without_features = occupancy_reasons(full.column(name)?)?;
            &without_features
        } else {
            full.column(name)?
        };
        assert_eq!(column.dtype(), reference.dtype(), "{what}: dtype of {name}");
        let same = column
            .as_materialized_series()
            .equals_missing(reference.as_materialized_series());
        // The first differing row, looked for only when the columns differ.
        let first = (!same)
            .then(|| (0..fast.height()).find(|&i| column.get(i).ok() != reference.get(i).ok()))
            .flatten();
        assert!(
            same,
            "{what}: column {name} differs, first at row {first:?}: fast {:?} vs evaluate {:?}",
            first.and_then(|i| column.get(i).ok()),
            first.and_then(|i| reference.get(i).ok())
        );
    }
    Ok(fast
        .column(out::THEORETICAL_OCCUPANCY)?
        .is_not_null()
        .sum()
        .unwrap_or(0) as usize)
}

/// `not_launchable` without the instruction families and launch features the target lacks (the
/// `uses …` part `warpsight_model::target_support` appends): the occupancy stage's reasons alone,
/// null where those were the only reasons.
fn occupancy_reasons(reasons: &Column) -> PolarsResult<Column> {
    let kept: StringChunked = reasons
        .str()?
        .iter()
        .map(|reason| {
            let reason = reason?;
            let (head, body) = match reason.split_once(": ") {
                Some((head, body)) if head.starts_with("not launchable on ") => (Some(head), body),
                _ => (None, reason),
            };
            let parts: Vec<&str> = body
                .split("; ")
                .filter(|part| !part.starts_with("uses "))
                .collect();
            if parts.is_empty() {
                return None;
            }
            let body = parts.join("; ");
            Some(match head {
                Some(head) => format!("{head}: {body}"),
                None => body,
            })
        })
        .collect();
    Ok(kept.with_name(reasons.name().clone()).into_column())
}

/// The configurations the fast path is checked under: the default, the maximum-carveout policy and
/// a cross-device override.
fn fast_path_configs() -> Vec<(&'static str, ModelConfig)> {
    vec![
        ("default", ModelConfig::default()),
        (
            "maximum carveout",
            ModelConfig {
                carveout: CarveoutPolicy::Maximum,
                ..ModelConfig::default()
            },
        ),
        (
            "on A100",
            ModelConfig {
                device_override: Some("NVIDIA A100-SXM4-40GB".to_string()),
                ..ModelConfig::default()
            },
        ),
    ]
}

/// `model::evaluate_occupancy` (one evaluation per distinct launch configuration, joined back)
/// gives exactly the occupancy, waves and model-device columns of `model::evaluate`, on a
/// generated 20 000-launch `nsys stats` CSV and on every readable corpus file.
#[test]
fn occupancy_fast_path_equals_the_full_model() -> Result<(), Box<dyn std::error::Error>> {
    let registry = warpsight_test_support::registry();
    let temp = tempfile::tempdir()?;
    let csv = temp.path().join("cuda_gpu_trace.csv");
    let synthetic = SyntheticConfig {
        launches: 20_000,
        memcpy_every: 50,
        schema: Schema::New,
    };
    write_gpu_trace_csv(&csv, &synthetic)?;
    let trace = read_path(&csv, &ReadConfig::default())?;
    assert_eq!(trace.launch_count(), 20_000);
    for (label, config) in fast_path_configs() {
        let modelled = fast_path_agrees(
            &format!("synthetic nsys CSV, {label}"),
            &trace.launches,
            &registry,
            &config,
        )?;
        // Every synthetic kernel fits on an H100 and an A100: all launches must have a value, so
        // the comparison is not one of nulls.
        assert_eq!(modelled, 20_000, "synthetic nsys CSV, {label}: modelled");
    }

    let Some(dir) = corpus_dir() else {
        return Ok(());
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .collect();
    paths.sort();
    let mut files = 0;
    for path in paths {
        let Ok(trace) = read_path(&path, &ReadConfig::default()) else {
            println!("{}: not readable; not a model input", path.display());
            continue;
        };
        for (label, config) in fast_path_configs() {
            let what = format!("{}, {label}", path.display());
            let modelled = fast_path_agrees(&what, &trace.launches, &registry, &config)?;
            println!(
                "{what}: {} launches, {modelled} with occupancy, identical",
                trace.launch_count()
            );
        }
        files += 1;
    }
    assert!(files > 0, "no corpus file could be read");
    Ok(())
}
