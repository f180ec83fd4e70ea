//! The analysis pipeline shared by `analyze`, `report`, `predict` and `diff`: run the model over
//! the stacked launches, add the what-if columns, run the rules, attach ncu's and the plugins'
//! findings, and count what the model could not evaluate. Its result, [`Analysis`], is defined in
//! `super::analysed`, and [`Analysis::merge`] (in `merge.rs`) merges the analyses of parts.

use std::sync::{Arc, OnceLock};

use polars::prelude::*;

pub use super::analysed::Analysis;
use super::analysed::PerLaunch;
use super::error::AnalysisError;
use super::file_numbers::FileNumbers;
use super::finding_texts::{
    GROUP_FINDINGS, GROUP_MESSAGES, add_matching, add_row_columns, finding_texts,
    launch_findings_of, launch_texts,
};
use super::findings::{
    self, FINDING_MESSAGES, FINDINGS, Finding, merge_sorted_findings, sort_findings,
};
use super::groups::{self, group_col as g};
use super::load::Loaded;
use super::{plugin_findings, rules, what_if};
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::Registry;
use warpsight_model::{Evaluation, ModelConfig, columns as mc};
use warpsight_plugin_host::RulesHook;

/// How to analyse.
#[derive(Debug, Clone, Default)]
pub struct AnalysisConfig {
    /// The model's options (device override, carveout policy).
    pub model: ModelConfig,
    /// Skip the what-if engine (and so the suggestions that need it).
    pub skip_what_if: bool,
    /// The loaded plugins' rules hooks; their findings are labelled `plugin:<name>`.
    pub rules_hooks: Vec<RulesHook>,
}

/// The note for launches without a predicted time: which counters are missing and the `ncu`
/// options that add them.
pub const MISSING_COUNTERS_NOTE: &str = "the export lacks the instruction counts \
(`smsp__inst_executed.sum`, `sass__inst_executed_per_opcode`, …) or the byte counts of the memory \
levels (`dram__bytes_read.sum`, `lts__t_sectors.sum`, …) that the time model needs (ncu's default \
set, a details page, the memory sections alone, nsys traces), so there is no same-device \
prediction; profile with \
`ncu --set full`, or add `--metrics smsp__inst_executed.sum,sm__warps_launched.sum,\
sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fp64.sum,sm__inst_executed_pipe_lsu.sum,\
dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum` (the full list is \
in traces/capture/capture.sh); `warpsight predict --on DEVICE` still predicts other GPUs from the \
measured time";

/// Runs the pipeline.
pub fn analyze(
    loaded: &Loaded,
    registry: &Registry,
    config: &AnalysisConfig,
) -> Result<Analysis, AnalysisError> {
    warpsight_ingest::memory::log_stage("loading the inputs");
    // The findings that come with the launches (ncu's rule rows, the plugins' hooks) need only the
    // launch table: they are built beside the model, the what-if searches and warpsight's rules.
    let (model_side, launch_side) = rayon::join(
        || model_and_rules(loaded, registry, config),
        || -> Result<LaunchSide, AnalysisError> {
            let mut others = findings::ncu_findings_in_chunks(
                &loaded.side.rules,
                findings::PARALLEL_MIN_FINDINGS,
            );
            others.extend(plugin_findings::plugin_findings(
                loaded,
                &config.rules_hooks,
            )?);
            let durations = launch_durations(&others, &loaded.launches)?;
            warpsight_ingest::memory::log_stage("ncu's and the plugins' findings");
            // Each finding holds its launch's duration (made a share of the total time below) and
            // its place in the order its launch lists its texts in; the list is sorted here,
            // beside the model. The texts per launch are built when a per-launch output asks for
            // them (`Analysis::launches`), and for the launch groups' first launches below.
            for (order, (finding, duration)) in others.iter_mut().zip(durations).enumerate() {
                finding.time_share = duration;
                finding.launch_order = Some(order);
            }
            sort_findings(&mut others);
            Ok(others)
        },
    );
    let ModelSide {
        evaluation,
        groups,
        group_ids,
        unmodelled,
        unpredicted,
        inferred_devices,
        own,
        group_ids_frame,
        total_ns,
    } = model_side?;
    let mut others = launch_side?;
    // Each launch-level finding's share of the measured time of all launches (its `time_share`
    // held its launch's duration until the total was known).
    for finding in &mut others {
        finding.time_share = finding
            .time_share
            .filter(|_| total_ns > 0.0)
            .map(|d| d / total_ns);
    }
    // The groups' and the launches' finding texts, matched on the narrow key columns only.
    let mut keys = groups.select([lt::SOURCE_FILE, lt::LAUNCH_ID])?;
    add_matching(
        &mut keys,
        &group_ids_frame,
        [GROUP_FINDINGS, GROUP_MESSAGES],
    )?;
    let mut groups = groups;
    let first_launches = launch_texts(&launch_findings_of(&keys, &others)?)?;
    add_row_columns(&mut groups, finding_texts(&keys, &first_launches)?)?;
    warpsight_ingest::memory::log_stage("the rules and findings");
    // Each list was sorted beside the other; merged, they are in the order sorting them together
    // gives.
    let all = merge_sorted_findings(own, others);
    Ok(Analysis {
        groups,
        findings: all,
        unmodelled,
        unpredicted,
        inferred_devices,
        launch_count: evaluation.launches().height(),
        total_ns,
        per_launch: Some(PerLaunch {
            evaluation,
            group_ids,
            launch_texts: OnceLock::new(),
        }),
    })
}

/// What [`analyze`] builds beside the model: ncu's and the plugins' findings, sorted, each with
/// its launch's duration in `time_share` and its [`Finding::launch_order`].
type LaunchSide = Vec<Finding>;

/// A launch: its file and launch id.
type LaunchKey = (Arc<str>, Option<i64>);

/// What [`analyze`] computes from the model: the evaluation, the launch groups with their what-if
/// columns, warpsight's findings on them and the counts.
struct ModelSide {
    evaluation: Evaluation,
    groups: DataFrame,
    group_ids: IdxCa,
    unmodelled: Vec<(String, usize)>,
    unpredicted: usize,
    inferred_devices: Vec<(String, usize)>,
    own: Vec<Finding>,
    group_ids_frame: DataFrame,
    total_ns: f64,
}

/// The model, the launch groups, the what-if searches and warpsight's rules.
fn model_and_rules(
    loaded: &Loaded,
    registry: &Registry,
    config: &AnalysisConfig,
) -> Result<ModelSide, AnalysisError> {
    let evaluation = Evaluation::new(loaded.launches.clone().lazy(), registry, &config.model)?;
    warpsight_ingest::memory::log_stage("the model");
    let (groups, group_ids) = groups::build(&evaluation)?;
    let unmodelled = unmodelled_reasons(&groups)?;
    let unpredicted = groups
        .column(g::UNPREDICTED)?
        .as_materialized_series()
        .sum::<i64>()
        .unwrap_or(0)
        .max(0) as usize;
    let inferred_devices = inferred_devices(&groups)?;
    let groups = if config.skip_what_if || groups.height() == 0 {
        groups
    } else {
        what_if::add_columns(groups, registry, &config.model)?
    };
    warpsight_ingest::memory::log_stage("the what-if searches");
    let active_rules: Vec<&dyn findings::Rule> = rules::all()
        .into_iter()
        .filter(|rule| !config.skip_what_if || !rule.needs_what_if())
        .collect();
    let total_ns = groups
        .column(g::TOTAL_NS)?
        .as_materialized_series()
        .sum::<f64>()
        .unwrap_or(0.0);
    // The findings and, beside them, each group's finding texts, built per chunk of groups.
    let (mut own, group_texts) = if groups.height() == 0 {
        (Vec::new(), findings::ids_per_launch(&[])?)
    } else {
        findings::run_rules_in_chunks(&groups, &active_rules, warpsight_model::PARALLEL_MIN_ROWS)?
    };
    set_group_weights(&mut own, &groups, total_ns)?;
    sort_findings(&mut own);
    warpsight_ingest::memory::log_stage("warpsight's rules");
    let group_ids_frame = group_texts
        .lazy()
        .rename(
            [FINDINGS, FINDING_MESSAGES],
            [GROUP_FINDINGS, GROUP_MESSAGES],
            true,
        )
        .collect()?;
    Ok(ModelSide {
        evaluation,
        groups,
        group_ids,
        unmodelled,
        unpredicted,
        inferred_devices,
        own,
        group_ids_frame,
        total_ns,
    })
}

/// Gives warpsight's findings (one per launch group, on its first launch) the group's launch
/// count and its share of the measured time of all launches.
fn set_group_weights(
    findings: &mut [Finding],
    groups: &DataFrame,
    total_ns: f64,
) -> PolarsResult<()> {
    if findings.is_empty() {
        return Ok(());
    }
    let mut cells = super::frame_access::Cells::new(groups);
    let mut files = findings::TextPool::default();
    let mut weights: PlHashMap<LaunchKey, (usize, Option<f64>)> =
        PlHashMap::with_capacity(groups.height());
    for row in 0..groups.height() {
        let key = (
            files.get(cells.text(lt::SOURCE_FILE, row).unwrap_or_default()),
            cells.i64(lt::LAUNCH_ID, row),
        );
        let launches = cells.i64(g::LAUNCHES, row).unwrap_or(1).max(1) as usize;
        let share = cells
            .f64(g::TOTAL_NS, row)
            .filter(|_| total_ns > 0.0)
            .map(|t| t / total_ns);
        weights.insert(key, (launches, share));
    }
    for finding in findings {
        if let Some((launches, share)) =
            weights.get(&(Arc::clone(&finding.file), finding.launch_id))
        {
            finding.launches = *launches;
            finding.time_share = *share;
        }
    }
    Ok(())
}

/// Each finding's launch's measured duration (ns), when the launch table has it. Only the
/// launches with findings are looked up: the launch ids of the findings select them.
fn launch_durations(findings: &[Finding], launches: &DataFrame) -> PolarsResult<Vec<Option<f64>>> {
    if findings.is_empty() || !launches.schema().contains(lt::DURATION_NS) {
        return Ok(vec![None; findings.len()]);
    }
    let mut ids: Vec<i64> = findings.iter().filter_map(|f| f.launch_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let wanted = launches
        .clone()
        .lazy()
        .select([
            col(lt::SOURCE_FILE),
            col(lt::LAUNCH_ID),
            col(lt::DURATION_NS),
        ])
        .filter(col(lt::LAUNCH_ID).is_in(lit(Series::new("ids".into(), ids)).implode(false), false))
        .collect()?;
    // The launches are keyed by file number ([`FileNumbers`]) and launch id.
    use super::frame_access::{float_column, text_column};
    let files = text_column(&wanted, lt::SOURCE_FILE);
    let ids = float_column(&wanted, lt::LAUNCH_ID);
    let times = float_column(&wanted, lt::DURATION_NS);
    let finite = |column: &Option<Float64Chunked>, row: usize| {
        column
            .as_ref()
            .and_then(|c| c.get(row))
            .filter(|v| v.is_finite())
    };
    let mut numbers = FileNumbers::default();
    let mut durations: PlHashMap<(usize, i64), f64> = PlHashMap::with_capacity(wanted.height());
    for row in 0..wanted.height() {
        let file = files.as_ref().and_then(|c| c.get(row));
        if let (Some(file), Some(id)) = (file, finite(&ids, row).map(|v| v.round() as i64)) {
            durations.insert(
                (numbers.number(file), id),
                finite(&times, row).unwrap_or(0.0),
            );
        }
    }
    // A finding's file that no launch has gets a number no launch has.
    Ok(findings
        .iter()
        .map(|finding| {
            let id = finding.launch_id?;
            durations.get(&(numbers.number(&finding.file), id)).copied()
        })
        .collect())
}

/// Devices inferred for launches whose export names none, with their counts.
fn inferred_devices(frame: &DataFrame) -> PolarsResult<Vec<(String, usize)>> {
    if frame.height() == 0 || !frame.schema().contains(lt::DEVICE_NAME) {
        return Ok(Vec::new());
    }
    let counts = frame
        .clone()
        .lazy()
        .filter(
            col(lt::DEVICE_NAME)
                .fill_null(lit(""))
                .eq(lit(""))
                .and(col(mc::MODEL_DEVICE).is_not_null()),
        )
        .group_by_stable([col(mc::MODEL_DEVICE)])
        .agg([col(g::LAUNCHES).sum().alias("count")])
        .collect()?;
    let mut cells = super::frame_access::Cells::new(&counts);
    Ok((0..counts.height())
        .map(|row| {
            (
                cells.str(mc::MODEL_DEVICE, row).unwrap_or_default(),
                cells.i64("count", row).unwrap_or(0).max(0) as usize,
            )
        })
        .collect())
}

/// Counts the launches without a theoretical occupancy, per reason.
fn unmodelled_reasons(frame: &DataFrame) -> PolarsResult<Vec<(String, usize)>> {
    if frame.height() == 0 {
        return Ok(Vec::new());
    }
    let counts = frame
        .clone()
        .lazy()
        .filter(col(mc::THEORETICAL_OCCUPANCY).is_null())
        .group_by_stable([col(mc::MODEL_REASON).fill_null(lit("unknown reason"))])
        .agg([col(g::LAUNCHES).sum().alias("count")])
        .collect()?;
    let mut cells = super::frame_access::Cells::new(&counts);
    Ok((0..counts.height())
        .map(|row| {
            (
                cells.str(mc::MODEL_REASON, row).unwrap_or_default(),
                cells.i64("count", row).unwrap_or(0).max(0) as usize,
            )
        })
        .collect())
}
