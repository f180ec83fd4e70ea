//! The analysis pipeline shared by `analyze`, `report`, `predict` and `diff`: run the model over
//! the stacked launches, add the what-if columns, run the rules, attach ncu's and the plugins'
//! findings, and count what the model could not evaluate.

use std::ops::BitAnd;

use polars::prelude::*;

use super::error::AnalysisError;
use super::findings::{self, Finding, Severity};
use super::load::Loaded;
use super::{rules, what_if};
use warpsight_model::arch::Registry;
use warpsight_ingest::launch_table::col as lt;
use warpsight_model::{self, ModelConfig, columns as mc};
use warpsight_model::plugin_host::{FindingSeverity, RulesHook};

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
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Every launch with the model's columns, the `whatif_*` columns and `findings`.
    pub launches: DataFrame,
    /// Every finding (warpsight's, ncu's, the plugins'), most severe first.
    pub findings: Vec<Finding>,
    /// Launches the model could not evaluate, per reason.
    pub unmodelled: Vec<(String, usize)>,
    /// Launches with occupancy but no predicted time: the export has no counters the time model
    /// reads (ncu's default set, nsys traces) and no cross-device scaling applied.
    pub unpredicted: usize,
    /// Launches whose export names no device, per device the model inferred from their compute
    /// capability, SM count and memory clock.
    pub inferred_devices: Vec<(String, usize)>,
}

/// The note for launches without a predicted time: which counters are missing and the `ncu`
/// options that add them.
pub const MISSING_COUNTERS_NOTE: &str = "the export has no instruction or memory counters \
(ncu's default set, nsys traces), so there is no same-device prediction; profile with \
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
}

/// Runs the pipeline.
pub fn analyze(
    loaded: &Loaded,
    registry: &Registry,
    config: &AnalysisConfig,
) -> Result<Analysis, AnalysisError> {
    let evaluated =
        warpsight_model::evaluate(loaded.launches.clone().lazy(), registry, &config.model)?.collect()?;
    let unmodelled = unmodelled_reasons(&evaluated)?;
    let unpredicted = evaluated
        .column(mc::PREDICTED_NS)?
        .is_null()
        .bitand(evaluated.column(mc::THEORETICAL_OCCUPANCY)?.is_not_null())
        .sum()
        .unwrap_or(0) as usize;
    let inferred_devices = inferred_devices(&evaluated)?;
    let evaluated = if config.skip_what_if || evaluated.height() == 0 {
        evaluated
    } else {
        what_if::add_columns(evaluated, registry, &config.model)?
    };
    let active_rules: Vec<&dyn findings::Rule> = rules::all()
        .into_iter()
        .filter(|rule| !config.skip_what_if || !needs_what_if(rule.id()))
        .collect();
    let mut all = if evaluated.height() == 0 {
        Vec::new()
    } else {
        findings::run_rules(&evaluated, &active_rules)?
    };
    all.extend(findings::ncu_findings(&loaded.rules));
    all.extend(plugin_findings(loaded, &config.rules_hooks)?);
    add_time_shares(&mut all, &evaluated)?;
    all.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.launch_id.cmp(&b.launch_id))
    });
    let ids = findings::ids_per_launch(&all)?;
    let key = [col(lt::SOURCE_FILE), col(lt::LAUNCH_ID)];
    let launches = evaluated
        .lazy()
        .join(
            ids.lazy(),
            key.clone(),
            key,
            JoinArgs {
                nulls_equal: true,
                maintain_order: MaintainOrderJoin::Left,
                ..JoinArgs::new(JoinType::Left)
            },
        )
        .collect()?;
    Ok(Analysis {
        launches,
        findings: all,
        unmodelled,
        unpredicted,
        inferred_devices,
    })
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
        let mut kernels = super::frame_access::Cells::new(&launches);
        for hook in hooks {
            match hook.run(&launches) {
                Ok(found) => out.extend(found.into_iter().map(|f| {
                    let kernel = (0..launches.height())
                        .find(|&row| kernels.i64(lt::LAUNCH_ID, row) == Some(f.launch_id))
                        .and_then(|row| kernels.str(lt::KERNEL_NAME, row))
                        .unwrap_or_default();
                    Finding {
                        file: name.clone(),
                        launch_id: Some(f.launch_id),
                        kernel,
                        source: format!("plugin:{}", f.plugin),
                        rule_id: f.rule_id,
                        severity: match f.severity {
                            FindingSeverity::Info => Severity::Info,
                            FindingSeverity::Warning | FindingSeverity::Severe => Severity::Warning,
                        },
                        message: f.message,
                        estimated_speedup: None,
                        time_share: None,
                    }
                })),
                Err(err) => tracing::warn!(
                    "plugin {} rules hook failed on {name}: {err}",
                    hook.plugin()
                ),
            }
        }
    }
    Ok(out)
}

/// Sets each finding's launch share of the measured time of all launches.
fn add_time_shares(findings: &mut [Finding], launches: &DataFrame) -> PolarsResult<()> {
    if findings.is_empty() || !launches.schema().contains(lt::DURATION_NS) {
        return Ok(());
    }
    let mut cells = super::frame_access::Cells::new(launches);
    let mut durations: std::collections::HashMap<(String, i64), f64> =
        std::collections::HashMap::new();
    let mut total = 0.0;
    for row in 0..launches.height() {
        let duration = cells.f64(lt::DURATION_NS, row).unwrap_or(0.0);
        total += duration;
        if let (Some(file), Some(id)) = (
            cells.str(lt::SOURCE_FILE, row),
            cells.i64(lt::LAUNCH_ID, row),
        ) {
            durations.insert((file, id), duration);
        }
    }
    if total <= 0.0 {
        return Ok(());
    }
    for finding in findings {
        if let Some(id) = finding.launch_id {
            finding.time_share = durations
                .get(&(finding.file.clone(), id))
                .map(|duration| duration / total);
        }
    }
    Ok(())
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
        .agg([len().alias("count")])
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
        .agg([len().alias("count")])
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
