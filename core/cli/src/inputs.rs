//! Reading the inputs of `analyze`, `report`, `predict` and `diff`: files, directories and globs
//! read with a progress bar (stderr, terminals only) whole or part by part (through
//! `warpsight_report::analysis::read_parts`), the `--filter` on kernel names, the analysis
//! pipeline with its user-facing errors, and the stderr notes about rows that could not be used.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::GlobalArgs;
use super::errors::CliError;
use warpsight_ingest::ReadConfig;
use warpsight_model::ModelConfig;
use warpsight_model::arch::Registry;
use warpsight_report::analysis::aggregate::TransferSummary;
use warpsight_report::analysis::batch::{self, FileStage};
use warpsight_report::analysis::load::{self, Loaded};
use warpsight_report::analysis::pipeline::{self, Analysis, AnalysisConfig};
use warpsight_report::analysis::read_parts::PartConfig;
use warpsight_report::units;

/// Expands and reads the inputs with a progress bar (stderr, TTY only, not with `--quiet`), then
/// keeps only the kernels matching `filter`.
pub fn load_inputs(
    inputs: &[String],
    filter: Option<&str>,
    global: &GlobalArgs,
) -> anyhow::Result<Loaded> {
    let files = warpsight_ingest::batch::expand_inputs(inputs)?;
    let bar = progress_bar(files.len(), global);
    let read = read_config(global);
    let tick = |path: &Path| {
        bar.set_message(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        bar.inc(1);
    };
    let loaded = load::load_paths(&files, &read, &tick);
    bar.finish_and_clear();
    let mut loaded = loaded?;
    check_filter(filter)?;
    if let Some(pattern) = filter {
        loaded = load::filter_kernels(loaded, pattern)?;
    }
    if loaded.is_empty() {
        return Err(no_launches(filter, &loaded.describe()));
    }
    Ok(loaded)
}

/// Checks that `--filter` is a valid regular expression.
pub fn check_filter(filter: Option<&str>) -> anyhow::Result<()> {
    if let Some(pattern) = filter {
        regex::Regex::new(pattern)
            .with_context(|| format!("invalid --filter regular expression `{pattern}`"))?;
    }
    Ok(())
}

/// The error for inputs (`described`, e.g. `` `a.csv` `` or `3 files`) without a kernel launch.
pub fn no_launches(filter: Option<&str>, described: &str) -> anyhow::Error {
    let (message, hint) = batch::no_launches(filter.is_some(), described);
    anyhow::Error::new(CliError::new(message, hint))
}

/// How the inputs are read: `--strict`, the format detected from the content.
pub fn read_config(global: &GlobalArgs) -> ReadConfig {
    ReadConfig {
        strict: global.strict,
        format: None,
    }
}

/// How the inputs are read in parts
/// ([`warpsight_report::analysis::read_parts::read_in_parts`]): `--strict`, the kernels kept by
/// `filter` (already checked), and the batch and part sizes (`--batch-launches`, hidden: tests cut
/// small exports into many parts with it).
pub fn part_config(global: &GlobalArgs, filter: Option<&str>) -> PartConfig {
    let read = read_config(global);
    let mut config = match global.batch_launches {
        Some(launches) => PartConfig::with_batch_launches(read, launches as usize),
        None => PartConfig::new(read),
    };
    config.filter = filter.map(str::to_string);
    config
}

/// Reads and analyses the inputs one file at a time, and each file in parts of about
/// [`warpsight_report::analysis::read_parts::LAUNCHES_PER_PART`] launches
/// ([`batch::analyze_files`]); only the parts' launch groups, findings and counts are kept
/// ([`Analysis::merge`]): a training run's export, or a batch of them, is analysed with one part's
/// launches in memory at a time. The returned [`Loaded`] has the rule rows,
/// transfers, kernel summaries and rejected rows of every file, and no launch. `on_part` sees each
/// part's analysis while it still has its per-launch rows (a streamed `--per launch` output writes
/// them there). Errors like [`load_inputs`] and [`run_pipeline`].
pub fn analyze_inputs(
    inputs: &[String],
    filter: Option<&str>,
    global: &GlobalArgs,
    registry: &Registry,
    config: &AnalysisConfig,
    on_part: &mut dyn FnMut(&Analysis) -> anyhow::Result<()>,
) -> anyhow::Result<(Loaded, Analysis)> {
    let files = warpsight_ingest::batch::expand_inputs(inputs)?;
    check_filter(filter)?;
    let bar = progress_bar(files.len(), global);
    let read = part_config(global, filter);
    let (loaded, analysis) = batch::analyze_files(
        &files,
        &read,
        registry,
        config,
        &mut |file, stage| match stage {
            FileStage::Reading => bar.set_message(
                file.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ),
            FileStage::Done => {
                bar.inc(1);
                if files.len() > 1 {
                    crate::allocator::release_freed_memory();
                }
            }
        },
        on_part,
    )?;
    bar.finish_and_clear();
    if analysis.launch_count() == 0 && loaded.side.kernel_summary.height() == 0 {
        return Err(no_launches(filter, &loaded.describe()));
    }
    Ok((loaded, analysis))
}

/// `model` with an empty evaluation cache of its own ([`warpsight_model::EvaluationCache`]), for
/// the parts of one file.
pub fn with_evaluation_cache(model: &ModelConfig) -> ModelConfig {
    ModelConfig {
        cache: Some(std::sync::Arc::default()),
        ..model.clone()
    }
}

/// A progress bar over `files` inputs, hidden unless stderr is a terminal and more than one file is
/// read.
fn progress_bar(files: usize, global: &GlobalArgs) -> ProgressBar {
    if global.quiet || files < 2 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} reading {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

/// Runs the analysis pipeline. An unknown `--device` or `--on` keeps its type
/// ([`warpsight_model::ModelError::UnknownDevice`]): its hint, the known devices, comes from
/// [`warpsight_ingest::Hint`] when the error is printed.
pub fn run_pipeline(
    loaded: &Loaded,
    registry: &Registry,
    config: &AnalysisConfig,
) -> anyhow::Result<Analysis> {
    Ok(pipeline::analyze(loaded, registry, config)?)
}

/// Prints on stderr the rows that could not be used and the launches the model could not evaluate.
pub fn report_input_notes(loaded: &Loaded, analysis: &Analysis, global: &GlobalArgs) {
    report_rejected_rows(loaded, global);
    if global.quiet {
        return;
    }
    for (reason, count) in &analysis.unmodelled {
        let hint = if reason.contains("no compute capability") {
            "\nhint: name the GPU with --device NAME (see `warpsight devices`)"
        } else {
            ""
        };
        crate::output_file::eprint(&format!(
            "warning: {count} launch{} could not be modelled: {reason}{hint}\n",
            if *count == 1 { "" } else { "es" }
        ));
    }
    for (device, count) in &analysis.inferred_devices {
        crate::output_file::eprint(&format!(
            "note: {count} launch{} name no device; modelled as {device}, the only loaded device with \
             their compute capability, SM count and memory clock (--device overrides)\n",
            if *count == 1 { "" } else { "es" }
        ));
    }
    if analysis.unpredicted > 0 {
        crate::output_file::eprint(&format!(
            "note: {} launch{} no predicted time: {}\n",
            analysis.unpredicted,
            if analysis.unpredicted == 1 {
                " has"
            } else {
                "es have"
            },
            warpsight_report::analysis::pipeline::MISSING_COUNTERS_NOTE
        ));
    }
}

/// Prints on stderr, per file, the launches ncu failed to profile (even with `-q`) and the
/// number of other rows that could not be used.
pub fn report_rejected_rows(loaded: &Loaded, global: &GlobalArgs) {
    for (file, count) in &loaded.profiling_failed {
        report_profiling_failures(file, *count);
    }
    if global.quiet {
        return;
    }
    for (file, count) in &loaded.rejected {
        let count = count - profiling_failures_of(loaded, file);
        if count == 0 {
            continue;
        }
        crate::output_file::eprint(&format!(
            "warning: {}: {count} row{} could not be used (see `warpsight inspect {}`)\n",
            file.display(),
            if count == 1 { "" } else { "s" },
            file.display()
        ));
    }
}

/// The launches of `file` that ncu failed to profile, as counted in `loaded`.
fn profiling_failures_of(loaded: &Loaded, file: &std::path::Path) -> usize {
    loaded
        .profiling_failed
        .iter()
        .filter(|(f, _)| f == file)
        .map(|(_, count)| count)
        .sum()
}

/// Says on one stderr line, whatever the verbosity (`-q` included: these launches are missing
/// from every result), that `count` launches of `file` were not profiled by ncu.
pub fn report_profiling_failures(file: &std::path::Path, count: usize) {
    if count == 0 {
        return;
    }
    crate::output_file::eprint(&format!(
        "warning: {}: {count} launch{} not used: {}\n",
        file.display(),
        if count == 1 { "" } else { "es" },
        warpsight_ingest::PROFILING_FAILED
    ));
}

/// The notes of [`report_input_notes`] as text lines (for the HTML report).
pub fn input_notes(loaded: &Loaded, analysis: &Analysis) -> Vec<String> {
    let mut notes: Vec<String> = loaded
        .profiling_failed
        .iter()
        .map(|(file, count)| {
            format!(
                "{}: {count} launches not used: {}",
                file.display(),
                warpsight_ingest::PROFILING_FAILED
            )
        })
        .collect();
    notes.extend(loaded.rejected.iter().filter_map(|(file, count)| {
        let count = count - profiling_failures_of(loaded, file);
        (count > 0).then(|| format!("{}: {count} rows could not be used", file.display()))
    }));
    notes.extend(
        analysis
            .unmodelled
            .iter()
            .map(|(reason, count)| format!("{count} launches could not be modelled: {reason}")),
    );
    if analysis.unpredicted > 0 {
        notes.push(format!(
            "{} launches have no predicted time: {}",
            analysis.unpredicted,
            warpsight_report::analysis::pipeline::MISSING_COUNTERS_NOTE
        ));
    }
    notes
}

/// The transfers footer line.
pub fn transfer_line(transfers: &TransferSummary) -> String {
    format!(
        "transfers: {} memcpy/memset, {}, {}",
        transfers.count,
        units::bytes(transfers.bytes),
        units::duration_ns(transfers.duration_ns)
    )
}
