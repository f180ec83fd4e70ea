//! The single-process functions of the extension, one per command of the binary: `read`
//! (`ingest`), `analyze`, `predict`, `findings`, `accuracy`, `occupancy`, `devices` and `archs`.
//! Each runs without the interpreter's lock and returns a frame ([`ArrowStream`]) or JSON text
//! (the small dictionaries and lists, decoded by the Python side).

use std::path::PathBuf;

use polars::prelude::*;
use pyo3::prelude::*;
use serde_json::json;
use warpsight_model::arch::{ComputeCapability, Registry};
use warpsight_model::occupancy::{LaunchConfig, calculate};
use warpsight_model::{ModelConfig, SmClock};
use warpsight_report::analysis::aggregate;
use warpsight_report::analysis::load;
use warpsight_report::analysis::pipeline::{self, Analysis, AnalysisConfig};
use warpsight_report::analysis::predict;
use warpsight_report::analysis::ranked;
use warpsight_report::analysis::read_parts::read_in_parts;
use warpsight_report::analysis::{accuracy, findings, report_columns as rc};
use warpsight_report::render::spec_json::{arch_json, device_json, occupancy_json};

use crate::arrow_stream::ArrowStream;
use crate::errors::{BindingError, Failure, Kind, Outcome, run_detached};
use crate::inputs::{self, Reading};
use crate::plugins::PluginSearch;
use warpsight_ingest::launch_table::column_names as lt;

/// The columns of the findings frames that the per-kernel table does not have (`kernel`,
/// `file`, `launch_id`, `launches` and `time_share` are its columns of the same meaning).
mod finding_col {
    /// `info`, `warning` or `error` ([`warpsight_report::analysis::findings::Severity::name`]).
    pub(super) const SEVERITY: &str = "severity";
    /// Who produced the finding: `warpsight`, `ncu` or `plugin:<name>`.
    pub(super) const SOURCE: &str = "source";
    /// The rule's stable id.
    pub(super) const RULE_ID: &str = "rule_id";
    /// What was found and what to change.
    pub(super) const MESSAGE: &str = "message";
    /// Ranked findings: the estimated fraction of the total time saved.
    pub(super) const SAVING: &str = "saving";
}

/// Launches per batch of per-launch rows (the binary's streamed `--per launch` batch).
const LAUNCHES_PER_BATCH: usize = 100_000;

/// The options every analysis function shares, as the Python wrapper passes them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Common {
    /// How the inputs are read.
    pub(crate) reading: Reading,
    /// Where the plugins are.
    pub(crate) plugins: PluginSearch,
    /// The SM clock the launches are modelled at.
    pub(crate) sm_clock: SmClock,
}

impl Common {
    /// Parses the shared arguments.
    pub(crate) fn parse(
        input_format: Option<&str>,
        strict: bool,
        filter: Option<String>,
        progress: bool,
        sm_clock: &str,
        plugin_dirs: Vec<PathBuf>,
        package_dir: Option<PathBuf>,
    ) -> Outcome<Common> {
        let format = input_format.map(inputs::parse_format).transpose()?;
        let sm_clock = SmClock::parse(sm_clock).map_err(|message| {
            Box::new(BindingError::new(
                Kind::Input,
                format!("invalid sm_clock `{sm_clock}`: {message}"),
                "use \"export\", \"base\", \"boost\" or a clock in MHz",
            )) as Failure
        })?;
        Ok(Common {
            reading: Reading {
                strict,
                format,
                filter,
                progress,
            },
            plugins: PluginSearch {
                dirs: plugin_dirs,
                package_dir,
            },
            sm_clock,
        })
    }

    /// The analysis configuration with the plugins' rules hooks (the binary's `analyze`).
    pub(crate) fn analysis(&self, device: Option<String>) -> (Registry, AnalysisConfig) {
        let (registry, rules_hooks, _) = self.plugins.load();
        let config = AnalysisConfig {
            model: ModelConfig {
                device_override: device,
                sm_clock: self.sm_clock,
                ..ModelConfig::default()
            },
            rules_hooks,
            ..AnalysisConfig::default()
        };
        (registry, config)
    }
}

/// `read`: the launch table of the inputs, stacked (what `warpsight ingest` writes).
#[pyfunction]
#[pyo3(signature = (paths, *, input_format = None, strict = false, filter = None, progress = false))]
fn read(
    py: Python<'_>,
    paths: Vec<String>,
    input_format: Option<String>,
    strict: bool,
    filter: Option<String>,
    progress: bool,
) -> PyResult<ArrowStream> {
    run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            progress,
            "export",
            Vec::new(),
            None,
        )?;
        let loaded = inputs::load_inputs(&paths, &common.reading)?;
        Ok(ArrowStream::new(loaded.launches))
    })
}

/// Analyses the inputs as `warpsight analyze` does without `--sort` or `--top`: per file, part by
/// part; `on_part` sees each part's analysis. Inputs without launches or summaries are an error.
fn analyze_all(
    paths: &[String],
    common: &Common,
    registry: &Registry,
    config: &AnalysisConfig,
    on_part: &mut dyn FnMut(&Analysis) -> Outcome<()>,
) -> Outcome<(load::Loaded, Analysis)> {
    let files = inputs::expand(paths)?;
    let (loaded, analysis) =
        inputs::analyze_files(&files, &common.reading, registry, config, on_part)?;
    if analysis.launch_count() == 0 && loaded.side.kernel_summary.height() == 0 {
        return Err(inputs::no_launches(
            common.reading.filter.as_deref(),
            &loaded.describe(),
        ));
    }
    Ok((loaded, analysis))
}

/// The per-launch rows of an analysis, batch by batch, appended to `rows`.
pub(crate) fn collect_launch_rows(analysis: &Analysis, rows: &mut Vec<DataFrame>) -> Outcome<()> {
    for batch in analysis.launch_batches(LAUNCHES_PER_BATCH) {
        rows.push(rc::per_launch(batch?)?);
    }
    Ok(())
}

/// The per-launch table of no launch: the columns `warpsight analyze --per launch` writes for
/// inputs with kernel summaries only.
pub(crate) fn empty_launch_rows(
    registry: &Registry,
    config: &AnalysisConfig,
) -> Outcome<DataFrame> {
    let mut empty = warpsight_model::evaluate(
        warpsight_ingest::launch_table::empty().lazy(),
        registry,
        &config.model,
    )?
    .collect()?;
    for name in [findings::FINDINGS, findings::FINDING_MESSAGES] {
        empty.with_column(Column::new_empty(name.into(), &DataType::String))?;
    }
    Ok(rc::per_launch(empty)?)
}

/// Stacks frames of one schema (the batches of a per-launch table).
pub(crate) fn stack(frames: Vec<DataFrame>) -> Outcome<Option<DataFrame>> {
    let mut frames = frames.into_iter();
    let Some(mut first) = frames.next() else {
        return Ok(None);
    };
    for frame in frames {
        first.vstack_mut(&frame)?;
    }
    Ok(Some(first))
}

/// `analyze`: the per-kernel (default) or per-launch table of `warpsight analyze`.
#[pyfunction]
#[pyo3(signature = (paths, *, per = "kernel", device = None, sm_clock = "export", top = None,
    sort = None, filter = None, strict = false, input_format = None, plugin_dirs = Vec::new(),
    package_dir = None, progress = false))]
#[allow(clippy::too_many_arguments)]
fn analyze(
    py: Python<'_>,
    paths: Vec<String>,
    per: &str,
    device: Option<String>,
    sm_clock: &str,
    top: Option<usize>,
    sort: Option<String>,
    filter: Option<String>,
    strict: bool,
    input_format: Option<String>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
    progress: bool,
) -> PyResult<ArrowStream> {
    let per = per.to_string();
    let sm_clock = sm_clock.to_string();
    run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            progress,
            &sm_clock,
            plugin_dirs,
            package_dir,
        )?;
        let (registry, config) = common.analysis(device);
        let table = match per.as_str() {
            "kernel" => {
                let (loaded, analysis) =
                    analyze_all(&paths, &common, &registry, &config, &mut |_| Ok(()))?;
                aggregate::per_kernel_all(&analysis.groups, &loaded.side.kernel_summary)?
            }
            "launch" if sort.is_none() && top.is_none() => {
                let mut rows = Vec::new();
                analyze_all(&paths, &common, &registry, &config, &mut |analysis| {
                    collect_launch_rows(analysis, &mut rows)
                })?;
                match stack(rows)? {
                    Some(rows) => rows,
                    None => empty_launch_rows(&registry, &config)?,
                }
            }
            "launch" => {
                // A per-launch table to sort or cut: every launch at once, as the binary does.
                let loaded = inputs::load_inputs(&paths, &common.reading)?;
                let analysis = pipeline::analyze(&loaded, &registry, &config)?;
                rc::per_launch(analysis.launches()?)?
            }
            other => return Err(bad_per(other, &["kernel", "launch"])),
        };
        let table = inputs::sort_and_top(table, sort.as_deref(), top)?;
        Ok(ArrowStream::new(table))
    })
}

/// The error for a `per=` value not among `allowed`.
pub(crate) fn bad_per(per: &str, allowed: &[&str]) -> Failure {
    Box::new(BindingError::new(
        Kind::Input,
        format!("unknown per=\"{per}\""),
        format!("use one of: {}", allowed.join(", ")),
    ))
}

/// `findings`: one row per finding. `ranked`: as listed under `warpsight analyze`'s table (the
/// same advice on many launches of a kernel once, ranked by estimated time saved); otherwise
/// every finding of every launch group, in the analysis' order.
#[pyfunction]
#[pyo3(name = "findings", signature = (paths, *, ranked = true, device = None, sm_clock = "export", filter = None,
    strict = false, input_format = None, plugin_dirs = Vec::new(), package_dir = None,
    progress = false))]
#[allow(clippy::too_many_arguments)]
fn findings_command(
    py: Python<'_>,
    paths: Vec<String>,
    ranked: bool,
    device: Option<String>,
    sm_clock: &str,
    filter: Option<String>,
    strict: bool,
    input_format: Option<String>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
    progress: bool,
) -> PyResult<ArrowStream> {
    let sm_clock = sm_clock.to_string();
    run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            progress,
            &sm_clock,
            plugin_dirs,
            package_dir,
        )?;
        let (registry, config) = common.analysis(device);
        let (_, analysis) = analyze_all(&paths, &common, &registry, &config, &mut |_| Ok(()))?;
        let frame = if ranked {
            ranked_frame(&analysis)?
        } else {
            findings_frame(&analysis)?
        };
        Ok(ArrowStream::new(frame))
    })
}

/// The ranked findings as a frame: kernel, severity, source, rule, message, launches, saving.
fn ranked_frame(analysis: &Analysis) -> Outcome<DataFrame> {
    let list = ranked::rank(&analysis.findings);
    // The kernel of each ranked finding (its field is the crate's own): found through the
    // per-kernel grouping, which lends the findings themselves.
    let grouped = ranked::per_kernel(&list, None);
    let kernel_of = |finding: &ranked::RankedFinding| -> String {
        grouped
            .iter()
            .find(|(_, members)| members.iter().any(|m| std::ptr::eq(*m, finding)))
            .map(|(kernel, _)| kernel.to_string())
            .unwrap_or_default()
    };
    let kernels: Vec<String> = list.iter().map(kernel_of).collect();
    let frame = DataFrame::new(
        list.len(),
        vec![
            Column::new(rc::KERNEL.into(), kernels),
            Column::new(
                finding_col::SEVERITY.into(),
                list.iter().map(|f| f.severity.name()).collect::<Vec<_>>(),
            ),
            Column::new(
                finding_col::SOURCE.into(),
                list.iter()
                    .map(|f| f.source.to_string())
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                finding_col::RULE_ID.into(),
                list.iter()
                    .map(|f| f.rule_id.to_string())
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                finding_col::MESSAGE.into(),
                list.iter().map(|f| f.message.clone()).collect::<Vec<_>>(),
            ),
            Column::new(
                rc::LAUNCHES.into(),
                list.iter().map(|f| f.launches as u64).collect::<Vec<_>>(),
            ),
            Column::new(
                finding_col::SAVING.into(),
                list.iter().map(|f| f.saving).collect::<Vec<_>>(),
            ),
        ],
    )?;
    Ok(frame)
}

/// Every finding as a frame: file, launch id, kernel, severity, source, rule, message, time
/// share, launches.
fn findings_frame(analysis: &Analysis) -> Outcome<DataFrame> {
    let list = &analysis.findings;
    let text = |get: &dyn Fn(&findings::Finding) -> String| -> Vec<String> {
        list.iter().map(get).collect()
    };
    let frame = DataFrame::new(
        list.len(),
        vec![
            Column::new(rc::FILE.into(), text(&|f| f.file.to_string())),
            Column::new(
                lt::LAUNCH_ID.into(),
                list.iter().map(|f| f.launch_id).collect::<Vec<_>>(),
            ),
            Column::new(rc::KERNEL.into(), text(&|f| f.kernel.to_string())),
            Column::new(
                finding_col::SEVERITY.into(),
                list.iter().map(|f| f.severity().name()).collect::<Vec<_>>(),
            ),
            Column::new(finding_col::SOURCE.into(), text(&|f| f.source.to_string())),
            Column::new(
                finding_col::RULE_ID.into(),
                text(&|f| f.rule_id.to_string()),
            ),
            Column::new(finding_col::MESSAGE.into(), text(&|f| f.message.clone())),
            Column::new(
                rc::TIME_SHARE.into(),
                list.iter().map(|f| f.time_share).collect::<Vec<_>>(),
            ),
            Column::new(
                rc::LAUNCHES.into(),
                list.iter().map(|f| f.launches as u64).collect::<Vec<_>>(),
            ),
        ],
    )?;
    Ok(frame)
}

/// `predict`: the per-kernel table of `warpsight predict --on TARGET`.
#[pyfunction]
#[pyo3(name = "predict", signature = (paths, *, on, from_device = None, sm_clock = "export", top = None,
    sort = None, filter = None, strict = false, input_format = None, plugin_dirs = Vec::new(),
    package_dir = None, progress = false))]
#[allow(clippy::too_many_arguments)]
fn predict_command(
    py: Python<'_>,
    paths: Vec<String>,
    on: String,
    from_device: Option<String>,
    sm_clock: &str,
    top: Option<usize>,
    sort: Option<String>,
    filter: Option<String>,
    strict: bool,
    input_format: Option<String>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
    progress: bool,
) -> PyResult<ArrowStream> {
    let sm_clock = sm_clock.to_string();
    run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            progress,
            &sm_clock,
            plugin_dirs,
            package_dir,
        )?;
        let (registry, _, _) = common.plugins.load();
        let files = inputs::expand(&paths)?;
        inputs::check_filter(common.reading.filter.as_deref())?;
        let read = common.reading.part_config();
        let bar = inputs::progress_bar(files.len(), common.reading.progress);
        let mut parts = Vec::new();
        for file in &files {
            bar.set_message(inputs::file_label(file));
            let model = ModelConfig {
                sm_clock: common.sm_clock,
                cache: Some(std::sync::Arc::default()),
                ..ModelConfig::default()
            };
            read_in_parts(file, &read, &mut |part| -> Outcome<()> {
                parts.push(predict::predict_part(
                    part,
                    &registry,
                    &on,
                    from_device.as_deref(),
                    &model,
                )?);
                Ok(())
            })?;
            bar.inc(1);
            if files.len() > 1 {
                inputs::release_freed_memory();
            }
        }
        bar.finish_and_clear();
        if parts.is_empty() {
            let described = match files.as_slice() {
                [one] => format!("`{}`", one.display()),
                many => format!("{} files", many.len()),
            };
            return Err(inputs::no_launches(
                common.reading.filter.as_deref(),
                &described,
            ));
        }
        let prediction = predict::combine(parts, &registry, &on)?;
        let table = inputs::sort_and_top(prediction.per_kernel, sort.as_deref(), top)?;
        Ok(ArrowStream::new(table))
    })
}

/// `accuracy`: one table of `warpsight accuracy` (`per`: summary, kernel or launch), on the
/// device the launches ran on, or across devices with `on` and `against`.
#[pyfunction]
#[pyo3(name = "accuracy", signature = (paths, *, per = "summary", on = None, against = Vec::new(), from_device = None,
    sm_clock = "export", filter = None, strict = false, input_format = None,
    plugin_dirs = Vec::new(), package_dir = None, progress = false))]
#[allow(clippy::too_many_arguments)]
fn accuracy_command(
    py: Python<'_>,
    paths: Vec<String>,
    per: &str,
    on: Option<String>,
    against: Vec<String>,
    from_device: Option<String>,
    sm_clock: &str,
    filter: Option<String>,
    strict: bool,
    input_format: Option<String>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
    progress: bool,
) -> PyResult<ArrowStream> {
    let per = per.to_string();
    let sm_clock = sm_clock.to_string();
    run_detached(py, move || {
        let common = Common::parse(
            input_format.as_deref(),
            strict,
            filter,
            progress,
            &sm_clock,
            plugin_dirs,
            package_dir,
        )?;
        if !["summary", "kernel", "launch", "unmatched"].contains(&per.as_str()) {
            return Err(bad_per(&per, &["summary", "kernel", "launch", "unmatched"]));
        }
        if on.is_some() == against.is_empty() {
            return Err(Box::new(BindingError::new(
                Kind::Input,
                "`on` and `against` go together",
                "give both (the target device and the exports measured on it) or neither",
            )));
        }
        let (registry, _, _) = common.plugins.load();
        let loaded = inputs::load_inputs(&paths, &common.reading)?;
        let model = ModelConfig {
            sm_clock: common.sm_clock,
            ..ModelConfig::default()
        };
        let result = match &on {
            None => accuracy::same_device(&loaded, &registry, &model)?,
            Some(target) => {
                let other = inputs::load_inputs(&against, &common.reading)?;
                accuracy::cross_device(
                    &loaded,
                    &other,
                    &registry,
                    target,
                    from_device.as_deref(),
                    &model,
                )?
            }
        };
        let table = match per.as_str() {
            "summary" => result.summary,
            "kernel" => result.per_kernel,
            "launch" => result.per_launch,
            _ => result.unmatched.unwrap_or_default(),
        };
        Ok(ArrowStream::new(table))
    })
}

/// `occupancy`: the occupancy calculator as `warpsight occupancy --format json` prints it, as
/// JSON text (a dictionary on the Python side).
#[pyfunction]
#[pyo3(signature = (*, block_size, registers, cc = None, device = None, static_smem = 0,
    dynamic_smem = 0, smem_config = None, carveout = None, barriers = 1,
    plugin_dirs = Vec::new(), package_dir = None))]
#[allow(clippy::too_many_arguments)]
fn occupancy(
    py: Python<'_>,
    block_size: u32,
    registers: u32,
    cc: Option<String>,
    device: Option<String>,
    static_smem: u64,
    dynamic_smem: u64,
    smem_config: Option<u64>,
    carveout: Option<u8>,
    barriers: u32,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<String> {
    run_detached(py, move || {
        let plugins = PluginSearch {
            dirs: plugin_dirs,
            package_dir,
        };
        let (registry, _, _) = plugins.load();
        let hint = "see warpsight.archs() / warpsight.devices() for what the loaded plugins \
                    provide, or add a plugin directory with plugin_dirs=";
        let (arch, device_name) = match (&cc, &device) {
            (_, Some(name)) => {
                let spec = registry.device(name).ok_or_else(|| {
                    BindingError::new(
                        Kind::Device,
                        format!("no loaded plugin provides the device `{name}`"),
                        hint,
                    )
                })?;
                let arch = registry.arch(spec.cc).ok_or_else(|| {
                    BindingError::new(
                        Kind::Device,
                        format!("no loaded plugin provides compute capability {}", spec.cc),
                        hint,
                    )
                })?;
                (arch, Some(spec.name.clone()))
            }
            (Some(text), None) => {
                let cc = ComputeCapability::parse(text).ok_or_else(|| {
                    BindingError::new(
                        Kind::Input,
                        format!(
                            "expected a compute capability like `8.0` or `sm_90`, found `{text}`"
                        ),
                        "pass cc=\"9.0\" or device=\"NVIDIA H100 80GB HBM3\"",
                    )
                })?;
                let arch = registry.arch(cc).ok_or_else(|| {
                    BindingError::new(
                        Kind::Device,
                        format!("no loaded plugin provides compute capability {cc}"),
                        hint,
                    )
                })?;
                (arch, None)
            }
            (None, None) => {
                return Err(Box::new(BindingError::new(
                    Kind::Input,
                    "give cc= or device=",
                    "pass cc=\"9.0\" or device=\"NVIDIA H100 80GB HBM3\"",
                )) as Failure);
            }
        };
        if block_size == 0 || block_size > arch.max_threads_per_block {
            return Err(Box::new(BindingError::new(
                Kind::Input,
                format!(
                    "block size {block_size} is not a launchable block on compute capability {}",
                    arch.cc
                ),
                format!("use 1 to {} threads per block", arch.max_threads_per_block),
            )));
        }
        let config = LaunchConfig {
            block_size,
            registers_per_thread: registers,
            static_smem,
            dynamic_smem,
            smem_config,
            carveout_percent: carveout,
            barriers,
        };
        let result = calculate(arch, &config)?;
        let value = occupancy_json(arch, device_name.as_deref(), &result);
        Ok(value.to_string())
    })
}

/// `devices`: the devices the loaded plugins provide, as JSON text (a list of records).
#[pyfunction]
#[pyo3(signature = (*, plugin_dirs = Vec::new(), package_dir = None))]
fn devices(
    py: Python<'_>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<String> {
    run_detached(py, move || {
        let (registry, _, _) = PluginSearch {
            dirs: plugin_dirs,
            package_dir,
        }
        .load();
        let list: Vec<serde_json::Value> = registry
            .devices
            .iter()
            .map(|(device, from)| device_json(device, from))
            .collect();
        Ok(serde_json::Value::Array(list).to_string())
    })
}

/// `archs`: the architectures (compute capabilities) the loaded plugins provide, as JSON text.
#[pyfunction]
#[pyo3(signature = (*, plugin_dirs = Vec::new(), package_dir = None))]
fn archs(
    py: Python<'_>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<String> {
    run_detached(py, move || {
        let (registry, _, _) = PluginSearch {
            dirs: plugin_dirs,
            package_dir,
        }
        .load();
        let list: Vec<serde_json::Value> = registry
            .archs
            .iter()
            .map(|(arch, from)| arch_json(arch, from))
            .collect();
        Ok(serde_json::Value::Array(list).to_string())
    })
}

/// `plugin_report`: what plugin loading found (searched directories, loaded and rejected files),
/// as JSON text.
#[pyfunction]
#[pyo3(signature = (*, plugin_dirs = Vec::new(), package_dir = None))]
fn plugin_report(
    py: Python<'_>,
    plugin_dirs: Vec<PathBuf>,
    package_dir: Option<PathBuf>,
) -> PyResult<String> {
    run_detached(py, move || {
        let (_, _, report) = PluginSearch {
            dirs: plugin_dirs,
            package_dir,
        }
        .load();
        Ok(json!({
            "searched": report.searched.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
            "loaded": report.loaded.iter().map(|p| json!({
                "name": p.name,
                "version": p.version,
                "file": p.file.display().to_string(),
            })).collect::<Vec<_>>(),
            "rejected": report.rejected.iter().map(|r| json!({
                "file": r.file.display().to_string(),
                "reason": r.error.to_string(),
            })).collect::<Vec<_>>(),
        })
        .to_string())
    })
}

/// `expand`: the files that paths, directories and globs stand for, as the command line expands
/// them (the Dask layer makes one task per file).
#[pyfunction]
fn expand(py: Python<'_>, paths: Vec<String>) -> PyResult<Vec<String>> {
    run_detached(py, move || {
        Ok(inputs::expand(&paths)?
            .iter()
            .map(|path| path.display().to_string())
            .collect())
    })
}

/// Adds the functions to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(read, module)?)?;
    module.add_function(wrap_pyfunction!(analyze, module)?)?;
    module.add_function(wrap_pyfunction!(findings_command, module)?)?;
    module.add_function(wrap_pyfunction!(predict_command, module)?)?;
    module.add_function(wrap_pyfunction!(accuracy_command, module)?)?;
    module.add_function(wrap_pyfunction!(occupancy, module)?)?;
    module.add_function(wrap_pyfunction!(devices, module)?)?;
    module.add_function(wrap_pyfunction!(archs, module)?)?;
    module.add_function(wrap_pyfunction!(plugin_report, module)?)?;
    module.add_function(wrap_pyfunction!(expand, module)?)?;
    Ok(())
}
