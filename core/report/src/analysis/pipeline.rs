//! The analysis pipeline shared by `analyze`, `report`, `predict` and `diff`: run the model over
//! the stacked launches, add the what-if columns, run the rules, attach ncu's and the plugins'
//! findings, and count what the model could not evaluate.

use std::sync::Arc;

use polars::prelude::*;

use super::error::AnalysisError;
use super::findings::{self, FINDING_MESSAGES, FINDINGS, Finding, Severity};
use super::groups::{self, group_col as g};
use super::load::Loaded;
use super::{rules, what_if};
use warpsight_ingest::launch_table::col as lt;
use warpsight_model::arch::Registry;
use warpsight_model::plugin_host::{FindingSeverity, RulesHook};
use warpsight_model::{Evaluation, ModelConfig, columns as mc};

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

/// The analysed launches with their findings.
///
/// The model ran once per distinct model input and the analysis once per launch group
/// ([`super::groups`]); [`Analysis::launches`] gathers every column onto every launch only when
/// an output asks for it (`--per launch`).
#[derive(Debug, Clone)]
pub struct Analysis {
    /// One row per launch group: its first launch with the model's columns, the `whatif_*`
    /// columns and `findings`, then the group statistics of [`super::groups::group_col`].
    pub groups: DataFrame,
    /// Every finding (warpsight's, ncu's, the plugins'), most severe first. warpsight's own are
    /// given once per launch group, with the group's launch count.
    pub findings: Vec<Finding>,
    /// Launches the model could not evaluate, per reason.
    pub unmodelled: Vec<(String, usize)>,
    /// Launches with occupancy but no predicted time: the export has no counters the time model
    /// reads (ncu's default set, nsys traces) and no cross-device scaling applied.
    pub unpredicted: usize,
    /// Launches whose export names no device, per device the model inferred from their compute
    /// capability, SM count and memory clock.
    pub inferred_devices: Vec<(String, usize)>,
    /// Number of launches analysed.
    launch_count: usize,
    /// Total measured time of the launches, ns (the denominator of the findings' time shares).
    total_ns: f64,
    /// The per-launch rows, when kept (not after [`Analysis::merge`]).
    per_launch: Option<PerLaunch>,
}

/// What [`Analysis::launches`] gathers the per-launch rows from.
#[derive(Debug, Clone)]
struct PerLaunch {
    /// The model's evaluation (launch table, per-input model columns).
    evaluation: Evaluation,
    /// Each launch's row in `groups`.
    group_ids: IdxCa,
    /// The ids and messages of the findings given per launch (ncu's, the plugins'), keyed by
    /// file and launch id.
    launch_findings: DataFrame,
}

/// Internal group column: the ids of warpsight's findings on the group.
const GROUP_FINDINGS: &str = "__g_findings";
/// Internal group column: their messages.
const GROUP_MESSAGES: &str = "__g_finding_messages";
/// Internal: the ids of a launch's own findings.
const LAUNCH_FINDINGS: &str = "__l_findings";
/// Internal: their messages.
const LAUNCH_MESSAGES: &str = "__l_finding_messages";

/// [`FINDINGS`] and [`FINDING_MESSAGES`] of launches `keys` (file, launch id and the group's
/// finding columns): the group's findings, then the launch's own (matched on file and launch id).
///
/// Only these narrow key columns are read, and the result is one row per key row in order
/// (each launch has one row of `launch_findings` at most), so callers add the two columns to
/// their wide frames without a join gathering every column.
fn finding_texts(keys: &DataFrame, launch_findings: &DataFrame) -> PolarsResult<DataFrame> {
    let mut joined = keys.clone();
    add_matching(
        &mut joined,
        launch_findings,
        [LAUNCH_FINDINGS, LAUNCH_MESSAGES],
    )?;
    let text = |name: &str| -> PolarsResult<StringChunked> {
        Ok(joined.column(name)?.as_materialized_series().str()?.clone())
    };
    let ids = join_present(
        FINDINGS,
        &text(GROUP_FINDINGS)?,
        &text(LAUNCH_FINDINGS)?,
        "; ",
    );
    let messages = join_present(
        FINDING_MESSAGES,
        &text(GROUP_MESSAGES)?,
        &text(LAUNCH_MESSAGES)?,
        " | ",
    );
    DataFrame::new(
        joined.height(),
        vec![
            joined.column(GROUP_FINDINGS)?.clone(),
            joined.column(GROUP_MESSAGES)?.clone(),
            ids.into_column(),
            messages.into_column(),
        ],
    )
}

/// Adds to `keys` the `columns` of `table`'s row with the same file and launch id as each row
/// ([`matching_rows`]; null where `table` has none): a left join of two narrow frames.
fn add_matching(keys: &mut DataFrame, table: &DataFrame, columns: [&str; 2]) -> PolarsResult<()> {
    let rows = matching_rows(keys, table)?;
    for column in table.select(columns)?.take(&rows)?.into_columns() {
        keys.with_column(column)?;
    }
    Ok(())
}

/// For each row of `keys`, the row of `table` with the same file and launch id (a null id matches
/// a null id, as in [`super::left_join_in_order`]), or null: a left join's row mapping, built in
/// one pass over the two narrow key columns instead of polars' row-encoded join of every key. An
/// error if `table` has a key twice.
fn matching_rows(keys: &DataFrame, table: &DataFrame) -> PolarsResult<IdxCa> {
    // Each frame's files and launch ids.
    let key = |frame: &DataFrame| -> PolarsResult<(StringChunked, Int64Chunked)> {
        let file = frame.column(lt::SOURCE_FILE)?.cast(&DataType::String)?;
        let id = frame.column(lt::LAUNCH_ID)?.cast(&DataType::Int64)?;
        Ok((file.str()?.clone(), id.i64()?.clone()))
    };
    let (table_files, table_ids) = key(table)?;
    let mut index: PlHashMap<(Option<&str>, Option<i64>), IdxSize> =
        PlHashMap::with_capacity(table.height());
    for (row, key) in table_files.iter().zip(table_ids.iter()).enumerate() {
        let row = IdxSize::try_from(row)
            .map_err(|_| polars_err!(ComputeError: "too many launches with findings"))?;
        if index.insert(key, row).is_some() {
            polars_bail!(ComputeError: "finding texts: launch {:?} of `{}` has two rows",
                key.1, key.0.unwrap_or_default());
        }
    }
    let (key_files, key_ids) = key(keys)?;
    Ok(IdxCa::from_iter_options(
        "rows".into(),
        key_files
            .iter()
            .zip(key_ids.iter())
            .map(|key| index.get(&key).copied()),
    ))
}

/// Row by row, `a` and `b` joined by `separator`, either alone when the other is null, null when
/// both are: one pass that copies each text once (polars' string `+` inside `when` copies every
/// row's text twice and computes every branch).
fn join_present(
    name: &str,
    a: &StringChunked,
    b: &StringChunked,
    separator: &str,
) -> StringChunked {
    let mut out = StringChunkedBuilder::new(name.into(), a.len());
    let mut text = String::new();
    for (a, b) in a.iter().zip(b.iter()) {
        match (a, b) {
            (None, None) => out.append_null(),
            (Some(only), None) | (None, Some(only)) => out.append_value(only),
            (Some(a), Some(b)) => {
                text.clear();
                text.push_str(a);
                text.push_str(separator);
                text.push_str(b);
                out.append_value(&text);
            }
        }
    }
    out.finish()
}

/// Adds `columns` (computed row by row from `frame`'s own rows) to `frame`, replacing columns of
/// the same name; an error if a join gave them another height.
fn add_row_columns(frame: &mut DataFrame, columns: DataFrame) -> PolarsResult<()> {
    if columns.height() != frame.height() {
        return Err(polars_err!(ComputeError:
            "finding texts for {} rows, expected {}: a launch has findings twice", columns.height(), frame.height()));
    }
    for column in columns.into_columns() {
        frame.with_column(column)?;
    }
    Ok(())
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

impl Analysis {
    /// Number of launches the model could not evaluate.
    pub fn unmodelled_count(&self) -> usize {
        self.unmodelled.iter().map(|(_, n)| n).sum()
    }

    /// Number of launches analysed.
    pub fn launch_count(&self) -> usize {
        self.launch_count
    }

    /// Merges the analyses of separate inputs, or of the parts of one input (a batch analysed one
    /// file at a time and each file part by part, so that only one part's launches are held at
    /// once): the groups stacked, the findings and counts combined, the findings' time shares
    /// rescaled to the total time of all inputs. A launch group split over parts of one file
    /// gives the same finding in each part (same file, kernel, rule, severity, message, estimate
    /// and launch configuration); those become one finding, on the first part's launch, with the
    /// launches and time shares summed, as analysing the file whole gives. The merged analysis keeps no per-launch
    /// rows: [`Self::launches`] is then an error.
    pub fn merge(mut parts: Vec<Analysis>) -> PolarsResult<Analysis> {
        if parts.len() == 1
            && let Some(mut only) = parts.pop()
        {
            // One input in one part: already what merging gives (shares of its own total).
            only.per_launch = None;
            sort_findings(&mut only.findings);
            return Ok(only);
        }
        // Only a file analysed in several parts can have findings to merge.
        let mut parts_per_file: std::collections::HashMap<Arc<str>, usize> =
            std::collections::HashMap::new();
        for part in &parts {
            let mut files: Vec<&Arc<str>> = part.findings.iter().map(|f| &f.file).collect();
            files.sort_unstable();
            files.dedup();
            for file in files {
                *parts_per_file.entry(Arc::clone(file)).or_default() += 1;
            }
        }
        let total_ns: f64 = parts.iter().map(|p| p.total_ns).sum();
        let launch_count = parts.iter().map(|p| p.launch_count).sum();
        let mut unmodelled: Vec<(String, usize)> = Vec::new();
        let mut inferred_devices: Vec<(String, usize)> = Vec::new();
        let add = |list: &mut Vec<(String, usize)>, (name, count): &(String, usize)| match list
            .iter_mut()
            .find(|(n, _)| n == name)
        {
            Some((_, total)) => *total += count,
            None => list.push((name.clone(), *count)),
        };
        let mut findings = Vec::new();
        let mut same_findings = SameFindings::default();
        let mut frames = Vec::new();
        let mut unpredicted = 0;
        let mut offset = 0usize;
        for (part_number, part) in parts.into_iter().enumerate() {
            for entry in &part.unmodelled {
                add(&mut unmodelled, entry);
            }
            for entry in &part.inferred_devices {
                add(&mut inferred_devices, entry);
            }
            unpredicted += part.unpredicted;
            let scale = if total_ns > 0.0 {
                part.total_ns / total_ns
            } else {
                0.0
            };
            let split = |finding: &Finding| parts_per_file.get(&finding.file).copied() > Some(1);
            let configs = if part.findings.iter().any(split) {
                group_configs(&part.groups)?
            } else {
                std::collections::HashMap::new()
            };
            for mut finding in part.findings {
                finding.time_share = finding.time_share.map(|share| share * scale);
                if split(&finding) {
                    let config = finding.launch_id.and_then(|id| configs.get(&id).cloned());
                    same_findings.add(&mut findings, finding, config, part_number);
                } else {
                    findings.push(finding);
                }
            }
            if part.groups.height() > 0 {
                // The first-launch rows become rows of the inputs taken together.
                let offset = i64::try_from(offset).unwrap_or(i64::MAX);
                let groups = part
                    .groups
                    .lazy()
                    .with_column(col(g::FIRST_ROW) + lit(offset))
                    .collect()?;
                frames.push(groups);
            }
            offset += part.launch_count;
        }
        sort_findings(&mut findings);
        let groups = match frames.len() {
            0 => DataFrame::empty(),
            1 => frames.into_iter().next().unwrap_or_default(),
            _ => polars::functions::concat_df_diagonal(&super::load::harmonize(frames)?)?,
        };
        Ok(Analysis {
            groups,
            findings,
            unmodelled,
            unpredicted,
            inferred_devices,
            launch_count,
            total_ns,
            per_launch: None,
        })
    }

    /// Drops the per-launch rows (the launch table and the per-input model columns), keeping the
    /// groups, findings and counts: what a batch keeps of each file's analysis until
    /// [`Self::merge`].
    pub fn drop_launches(&mut self) {
        self.per_launch = None;
    }

    /// The per-launch rows, or why there are none.
    fn per_launch(&self) -> PolarsResult<&PerLaunch> {
        self.per_launch.as_ref().ok_or_else(|| {
            polars_err!(ComputeError: "the per-launch rows of inputs analysed one file at a time are not kept")
        })
    }

    /// Every launch with every column: the launch table, the model's columns, the `whatif_*`
    /// columns and the findings (those of its group and its own). This materialises every column
    /// for every launch; per-kernel outputs use [`Self::groups`], and large per-launch outputs
    /// [`Self::launch_batches`].
    pub fn launches(&self) -> PolarsResult<DataFrame> {
        self.launch_rows(0, self.launch_count())
    }

    /// The frame of [`Self::launches`] in batches of at most `rows` launches, in launch order: a
    /// per-launch output is written batch by batch and never held whole.
    pub fn launch_batches(
        &self,
        rows: usize,
    ) -> impl Iterator<Item = PolarsResult<DataFrame>> + '_ {
        let rows = rows.max(1);
        let total = self.launch_count();
        (0..total.div_ceil(rows)).map(move |batch| {
            let offset = batch * rows;
            self.launch_rows(offset, rows.min(total - offset))
        })
    }

    /// [`Self::launches`] for the `len` launches from `offset`.
    fn launch_rows(&self, offset: usize, len: usize) -> PolarsResult<DataFrame> {
        let per_launch = self.per_launch()?;
        let mut frame = per_launch.evaluation.per_launch_slice(offset, len)?;
        let per_group: Vec<PlSmallStr> = self
            .groups
            .get_column_names()
            .into_iter()
            .filter(|name| {
                name.starts_with("whatif_")
                    || name.as_str() == GROUP_FINDINGS
                    || name.as_str() == GROUP_MESSAGES
            })
            .cloned()
            .collect();
        let offset =
            i64::try_from(offset).map_err(|_| polars_err!(ComputeError: "offset too large"))?;
        let ids = per_launch.group_ids.slice(offset, len);
        let gathered = self.groups.select(per_group)?.take(&ids)?;
        for column in gathered.columns() {
            frame.with_column(column.clone())?;
        }
        let keys = frame.select([
            lt::SOURCE_FILE,
            lt::LAUNCH_ID,
            GROUP_FINDINGS,
            GROUP_MESSAGES,
        ])?;
        let texts = finding_texts(&keys, &per_launch.launch_findings)?
            .select([FINDINGS, FINDING_MESSAGES])?;
        let mut frame = frame.drop_many([GROUP_FINDINGS, GROUP_MESSAGES]);
        add_row_columns(&mut frame, texts)?;
        Ok(frame)
    }
}
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
            let mut others = findings::ncu_findings(&loaded.rules);
            others.extend(plugin_findings(loaded, &config.rules_hooks)?);
            let durations = launch_durations(&others, &loaded.launches)?;
            warpsight_ingest::memory::log_stage("ncu's and the plugins' findings");
            let ids = findings::ids_per_launch(&others)?
                .lazy()
                .rename(
                    [FINDINGS, FINDING_MESSAGES],
                    [LAUNCH_FINDINGS, LAUNCH_MESSAGES],
                    true,
                )
                .collect()?;
            Ok((others, durations, ids))
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
    let (mut others, durations, launch_findings) = launch_side?;
    // Each launch-level finding's share of the measured time of all launches.
    for (finding, duration) in others.iter_mut().zip(durations) {
        finding.time_share = duration.filter(|_| total_ns > 0.0).map(|d| d / total_ns);
    }
    // The groups' and the launches' finding texts, matched on the narrow key columns only.
    let mut keys = groups.select([lt::SOURCE_FILE, lt::LAUNCH_ID])?;
    add_matching(
        &mut keys,
        &group_ids_frame,
        [GROUP_FINDINGS, GROUP_MESSAGES],
    )?;
    let mut groups = groups;
    add_row_columns(&mut groups, finding_texts(&keys, &launch_findings)?)?;
    warpsight_ingest::memory::log_stage("the rules and findings");
    let mut all = own;
    all.extend(others);
    sort_findings(&mut all);
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
            launch_findings,
        }),
    })
}

/// What [`analyze`] builds beside the model: ncu's and the plugins' findings, each one's launch
/// duration, and the findings' texts per launch.
type LaunchSide = (Vec<Finding>, Vec<Option<f64>>, DataFrame);

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
        .filter(|rule| !config.skip_what_if || !needs_what_if(rule.id()))
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

/// Orders findings most severe first, then by file and launch.
/// The findings of earlier parts, by what makes two findings of parts of one file the same one.
#[derive(Default)]
struct SameFindings {
    /// Per key, the findings with it: their place in the merged list and the last part whose
    /// finding was merged into it.
    places: std::collections::HashMap<FindingKey, Vec<(usize, usize)>>,
}

/// What identifies a finding of a launch group across the parts of one file: the file, kernel,
/// source, rule, severity, message, estimated speedup (its bits) and the group's launch
/// configuration ([`group_configs`]).
type FindingKey = (
    Arc<str>,
    Arc<str>,
    Arc<str>,
    Arc<str>,
    Severity,
    String,
    Option<u64>,
    Option<String>,
);

/// Each launch group's configuration as text, by the launch id of its first launch: the grid,
/// block, registers, shared memory and device (the what-if's configuration columns and the
/// grid). A launch group of an export without counters is one configuration, so that two
/// findings of parts of one file with the same configuration are one group's; exports with
/// counters are read as one part.
fn group_configs(groups: &DataFrame) -> PolarsResult<std::collections::HashMap<i64, String>> {
    let mut configs = std::collections::HashMap::new();
    let Ok(ids) = groups.column(lt::LAUNCH_ID) else {
        return Ok(configs);
    };
    let ids = ids.cast(&DataType::Int64)?;
    let columns: Vec<&Column> = [lt::GRID_X, lt::GRID_Y, lt::GRID_Z]
        .iter()
        .chain(super::variants::CONFIG_COLUMNS)
        .filter_map(|name| groups.column(name).ok())
        .collect();
    for (row, id) in ids.i64()?.iter().enumerate() {
        let Some(id) = id else { continue };
        let mut text = String::new();
        for column in &columns {
            text.push_str(&format!("{}|", column.get(row)?));
        }
        configs.insert(id, text);
    }
    Ok(configs)
}

impl SameFindings {
    /// Adds `finding` of part `part`, about a group of configuration `config`, to `merged`: into an
    /// equal finding of an earlier part that no
    /// finding of this part was merged into yet (its launches and time share summed), or as a
    /// finding of its own.
    fn add(
        &mut self,
        merged: &mut Vec<Finding>,
        finding: Finding,
        config: Option<String>,
        part: usize,
    ) {
        let key: FindingKey = (
            Arc::clone(&finding.file),
            Arc::clone(&finding.kernel),
            Arc::clone(&finding.source),
            Arc::clone(&finding.rule_id),
            finding.severity,
            finding.message.clone(),
            finding.estimated_speedup.map(f64::to_bits),
            config,
        );
        let places = self.places.entry(key).or_default();
        let earlier = places
            .iter_mut()
            .find(|(place, last_part)| *last_part < part && merged[*place].launch_id.is_some());
        match earlier {
            Some((place, last_part)) if finding.launch_id.is_some() => {
                let into = &mut merged[*place];
                into.launches += finding.launches;
                into.time_share = match (into.time_share, finding.time_share) {
                    (None, None) => None,
                    (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
                };
                *last_part = part;
            }
            _ => {
                places.push((merged.len(), part));
                merged.push(finding);
            }
        }
    }
}

fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.launch_id.cmp(&b.launch_id))
    });
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

/// Runs every plugin rules hook on the launches of each input file (launch ids are per file). A
/// hook that fails is reported in the log and skipped: one plugin never stops the analysis.
fn plugin_findings(loaded: &Loaded, hooks: &[RulesHook]) -> PolarsResult<Vec<Finding>> {
    let mut out = Vec::new();
    if hooks.is_empty() || loaded.launches.height() == 0 {
        return Ok(out);
    }
    for file in &loaded.files {
        let name = file.display().to_string();
        let launches = loaded
            .launches
            .clone()
            .lazy()
            .filter(col(lt::SOURCE_FILE).eq(lit(name.clone())))
            .collect()?;
        if launches.height() == 0 {
            continue;
        }
        let mut found = Vec::new();
        for hook in hooks {
            match hook.run(&launches) {
                Ok(list) => found.extend(list),
                Err(err) => tracing::warn!(
                    "plugin {} rules hook failed on {name}: {err}",
                    hook.plugin()
                ),
            }
        }
        if found.is_empty() {
            continue;
        }
        // The kernel of each launch a hook named (its first row), looked up for those launches
        // only.
        let mut ids: Vec<i64> = found.iter().map(|f| f.launch_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let named = launches
            .lazy()
            .select([col(lt::LAUNCH_ID), col(lt::KERNEL_NAME)])
            .filter(
                col(lt::LAUNCH_ID).is_in(lit(Series::new("ids".into(), ids)).implode(false), false),
            )
            .unique_stable(Some(cols([lt::LAUNCH_ID])), UniqueKeepStrategy::First)
            .collect()?;
        let mut cells = super::frame_access::Cells::new(&named);
        let mut pool = findings::TextPool::default();
        let mut kernels: PlHashMap<i64, Arc<str>> = PlHashMap::with_capacity(named.height());
        for row in 0..named.height() {
            if let Some(id) = cells.i64(lt::LAUNCH_ID, row) {
                kernels.insert(
                    id,
                    pool.get(cells.text(lt::KERNEL_NAME, row).unwrap_or_default()),
                );
            }
        }
        let file = pool.get(&name);
        out.extend(found.into_iter().map(|f| {
            Finding {
                file: Arc::clone(&file),
                launch_id: Some(f.launch_id),
                kernel: kernels
                    .get(&f.launch_id)
                    .cloned()
                    .unwrap_or_else(|| pool.get("")),
                source: pool.get(&format!("plugin:{}", f.plugin)),
                rule_id: pool.get(&f.rule_id),
                severity: match f.severity {
                    FindingSeverity::Info => Severity::Info,
                    FindingSeverity::Warning | FindingSeverity::Severe => Severity::Warning,
                },
                message: f.message,
                estimated_speedup: None,
                time_share: None,
                launches: 1,
            }
        }));
    }
    Ok(out)
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
    let mut cells = super::frame_access::Cells::new(&wanted);
    let mut files = findings::TextPool::default();
    let mut durations: PlHashMap<(Arc<str>, i64), f64> = PlHashMap::with_capacity(wanted.height());
    for row in 0..wanted.height() {
        if let (Some(file), Some(id)) = (
            cells.text(lt::SOURCE_FILE, row).map(|file| files.get(file)),
            cells.i64(lt::LAUNCH_ID, row),
        ) {
            durations.insert((file, id), cells.f64(lt::DURATION_NS, row).unwrap_or(0.0));
        }
    }
    Ok(findings
        .iter()
        .map(|finding| {
            let id = finding.launch_id?;
            durations.get(&(Arc::clone(&finding.file), id)).copied()
        })
        .collect())
}

/// True for rules that read the `whatif_*` columns.
fn needs_what_if(rule: &str) -> bool {
    matches!(
        rule,
        "register-limit" | "shared-memory-limit" | "block-size"
    )
}

/// Counts the launches without a theoretical occupancy, per reason.
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

/// The most severe finding level present, if any.
pub fn worst_severity(findings: &[Finding]) -> Option<Severity> {
    findings.iter().map(|f| f.severity).max()
}
