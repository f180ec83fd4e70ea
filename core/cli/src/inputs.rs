//! Reading the inputs of `analyze`, `report`, `predict` and `diff`: files, directories and globs
//! read with a progress bar (stderr, terminals only), the `--filter` on kernel names, the analysis
//! pipeline with its user-facing errors, and the stderr notes about rows that could not be used.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polars::prelude::*;

use super::GlobalArgs;
use super::errors::Hinted;
use warpsight_ingest::launch_table::col as lt;
use warpsight_ingest::trace::kernel_summary_col as ks;
use warpsight_ingest::{BatchError, BatchSize, ReadConfig};
use warpsight_model::arch::Registry;
use warpsight_model::{EvaluationCache, ModelConfig, ModelError};
use warpsight_report::analysis::aggregate::TransferSummary;
use warpsight_report::analysis::error::AnalysisError;
use warpsight_report::analysis::load::{self, Loaded};
use warpsight_report::analysis::pipeline::{self, Analysis, AnalysisConfig};
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
        loaded = filter_kernels(loaded, pattern)?;
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
    anyhow::Error::new(Hinted {
        message: format!(
            "no kernel launches{} in {described}",
            if filter.is_some() {
                " match the filter"
            } else {
                ""
            },
        ),
        hint: "run `warpsight inspect` on the inputs to see what they contain".into(),
        source: None,
    })
}

/// How the inputs are read: `--strict`, the format detected from the content.
pub fn read_config(global: &GlobalArgs) -> ReadConfig {
    ReadConfig {
        strict: global.strict,
        format: None,
    }
}

/// How the inputs are read in parts ([`read_in_parts`]): `--strict`, and the batch and part sizes.
pub struct PartConfig {
    /// How each file is read.
    pub read: ReadConfig,
    /// The readers' batches.
    pub batch: BatchSize,
    /// Launches analysed together, at least ([`LAUNCHES_PER_PART`] unless a test sets a batch
    /// size: then four batches).
    pub launches_per_part: usize,
}

impl PartConfig {
    /// The configuration of the command line.
    pub fn new(global: &GlobalArgs) -> Self {
        let (batch, launches_per_part) = match global.batch_launches {
            Some(launches) => {
                let launches = launches as usize;
                (BatchSize { launches }, launches.saturating_mul(4))
            }
            None => (BatchSize::default(), LAUNCHES_PER_PART),
        };
        PartConfig {
            read: read_config(global),
            batch,
            launches_per_part,
        }
    }
}

/// Reads and analyses the inputs one file at a time, and each file in parts of about
/// [`LAUNCHES_PER_PART`] launches ([`read_in_parts`]); only the parts' launch groups, findings and
/// counts are kept ([`Analysis::merge`]): a training run's export, or a batch of them, is analysed
/// with one part's launches in memory at a time. The returned [`Loaded`] has the rule rows,
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
    let read = PartConfig::new(global);
    let mut parts = Vec::new();
    let mut kept: Vec<Loaded> = Vec::with_capacity(files.len());
    // Small parts of consecutive files with the same columns, analysed together: the analysis has
    // a fixed cost per run (query planning), which made `analyze` of 1,000 small files 12× their
    // `ingest` (issue #28, finding I). The launch table of several files read together is what
    // the pipeline takes anyway (`load::stack`); the same columns keep the model's choice of
    // formulas (which depends on the columns present) the one each file would get alone.
    let mut small = SmallParts::default();
    // The model's column names depend on the plugins and the options only: they are found on a
    // core of their own while the first file is read (reading leaves part of the second core idle).
    let first_cache = std::sync::Arc::new(EvaluationCache::default());
    std::thread::scope(|scope| -> anyhow::Result<()> {
        scope.spawn(|| {
            // An error here is the evaluation's own error, which it reports when it meets it.
            let _ = first_cache.prepare(registry, &config.model);
        });
        for (index, file) in files.iter().enumerate() {
            bar.set_message(
                file.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
            // The parts of one file share their launch configurations: the model's outputs are
            // kept for the next part (never across files, so that many ncu pages, whose launches
            // all differ, do not keep a copy of every output).
            let cache = if index == 0 {
                std::sync::Arc::clone(&first_cache)
            } else {
                std::sync::Arc::new(first_cache.with_columns_of())
            };
            let config = AnalysisConfig {
                model: ModelConfig {
                    cache: Some(cache),
                    ..config.model.clone()
                },
                ..config.clone()
            };
            // Everything but the launches is kept for the notes and the per-kernel rows of
            // summaries.
            let rest = read_in_parts(file, filter, &read, &mut |part| {
                if small.takes(part, read.launches_per_part) {
                    if small.launches >= read.launches_per_part {
                        small.analyse(registry, &config, on_part, &mut parts)?;
                    }
                    return Ok(());
                }
                small.analyse(registry, &config, on_part, &mut parts)?;
                let mut analysis = run_pipeline(part, registry, &config)?;
                on_part(&analysis)?;
                analysis.drop_launches();
                parts.push(analysis);
                Ok(())
            })?;
            bar.inc(1);
            kept.push(rest);
            if files.len() > 1 {
                release_freed_memory();
            }
            warpsight_ingest::memory::log_stage(&format!("analysing {}", file.display()));
        }
        small.analyse(registry, config, on_part, &mut parts)
    })?;
    bar.finish_and_clear();
    let analysis = Analysis::merge(parts)?;
    let loaded = load::merge(kept)?;
    warpsight_ingest::memory::log_stage("merging the inputs' analyses");
    if analysis.launch_count() == 0 && loaded.kernel_summary.height() == 0 {
        return Err(no_launches(filter, &loaded.describe()));
    }
    Ok((loaded, analysis))
}

/// Batches read ahead of the analysis ([`read_in_parts`]): about half a part.
const READ_AHEAD_BATCHES: usize = 2;

/// `model` with an empty evaluation cache of its own ([`warpsight_model::EvaluationCache`]), for
/// the parts of one file.
pub fn with_evaluation_cache(model: &ModelConfig) -> ModelConfig {
    ModelConfig {
        cache: Some(std::sync::Arc::default()),
        ..model.clone()
    }
}

/// Launches analysed together when one input is read in batches: a `cuda_gpu_trace` CSV or an nsys
/// SQLite, Parquet or Arrow export of millions of launches is analysed part by part, each part the
/// batches read until they hold at least this many launches (four of the readers' batches of
/// 65 536, about 60 MB of launch table). Larger parts hold more memory; smaller ones run the
/// analysis' fixed costs more often (docs/performance.md, "Analysis in parts").
pub const LAUNCHES_PER_PART: usize = 262_144;

/// Reads `file` in batches ([`warpsight_ingest::read_trace_batches`]) and hands its launches, kept
/// to the kernels matching `filter` (already checked), to `on_part` in parts of at least
/// `config.launches_per_part` launches (the last part holds the rest; a format read whole is one part),
/// in file order. The last part also carries the file's other tables (ncu rule rows, nsys
/// transfers and kernel summaries) and its rejected rows, which is what a file read whole gives,
/// since those formats are one batch. A part without launches is not handed on. Returns the
/// file's tables without the launches.
pub fn read_in_parts(
    file: &Path,
    filter: Option<&str>,
    config: &PartConfig,
    on_part: &mut dyn FnMut(&Loaded) -> anyhow::Result<()>,
) -> anyhow::Result<Loaded> {
    let part_of = |batches: Vec<DataFrame>,
                   others: warpsight_ingest::OtherTables,
                   rejected_rows: &[warpsight_ingest::trace::RejectedRow]|
     -> anyhow::Result<Loaded> {
        let rejected = rejected_rows.len();
        let failed = warpsight_report::analysis::load::profiling_failures(rejected_rows);
        let stacked = batches.len() > 1;
        let mut batches = batches.into_iter();
        let mut launches = batches
            .next()
            .unwrap_or_else(warpsight_ingest::launch_table::empty);
        for batch in batches {
            launches.vstack_mut_owned(batch)?;
        }
        if stacked {
            launches.rechunk_mut_par();
        }
        let loaded = Loaded {
            files: vec![file.to_path_buf()],
            launches,
            rules: others.rules,
            transfers: others.transfers,
            kernel_summary: others.kernel_summary,
            rejected: if rejected > 0 {
                vec![(file.to_path_buf(), rejected)]
            } else {
                Vec::new()
            },
            profiling_failed: if failed > 0 {
                vec![(file.to_path_buf(), failed)]
            } else {
                Vec::new()
            },
        };
        Ok(match filter {
            Some(pattern) => filter_kernels(loaded, pattern)?,
            None => loaded,
        })
    };
    let mut parts = 0usize;
    let mut hand_on = |part: &Loaded| -> anyhow::Result<()> {
        if part.launches.height() == 0 {
            return Ok(());
        }
        parts += 1;
        tracing::debug!(
            file = %file.display(),
            part = parts,
            launches = part.launches.height(),
            "analysing a part of the input"
        );
        on_part(part)
    };
    let mut pending: Vec<DataFrame> = Vec::new();
    let mut pending_launches = 0usize;
    // The file is read on a thread of its own, a few batches ahead of the analysis on this one:
    // on two cores the next part is parsed while this one is analysed. When the analysis fails,
    // the channel closes and the reading stops at its next batch.
    let (summary, analysed) = std::thread::scope(|scope| {
        let (sender, batches) = std::sync::mpsc::sync_channel::<DataFrame>(READ_AHEAD_BATCHES);
        let reader = scope.spawn(move || {
            warpsight_ingest::read_trace_batches(file, &config.read, config.batch, |batch| {
                sender.send(batch)
            })
        });
        let mut analysed: anyhow::Result<()> = Ok(());
        for batch in batches {
            // A part is analysed when the next batch comes, so that an input read as one batch
            // (the formats with rule rows or summaries) is analysed with its other tables.
            if pending_launches >= config.launches_per_part {
                pending_launches = 0;
                analysed = part_of(
                    std::mem::take(&mut pending),
                    warpsight_ingest::OtherTables::default(),
                    &[],
                )
                .and_then(|part| hand_on(&part));
                if analysed.is_err() {
                    break;
                }
            }
            pending_launches += batch.height();
            pending.push(batch);
        }
        let summary = match reader.join() {
            Ok(summary) => summary,
            Err(payload) => std::panic::resume_unwind(payload),
        };
        (summary, analysed)
    });
    analysed?;
    let summary = summary.map_err(|error| match error {
        BatchError::Read(error) => anyhow::Error::new(AnalysisError::from(error)),
        BatchError::Sink(_) => anyhow::anyhow!("the analysis stopped reading `{}`", file.display()),
    })?;
    let mut last = part_of(pending, summary.others, &summary.rejected)?;
    hand_on(&last)?;
    last.launches = warpsight_ingest::launch_table::empty();
    Ok(last)
}

/// Ends a command's ownership of `value` (its analysis, its tables) without freeing it: the command
/// returns and the process exits right after, and the system takes the memory back at once, where
/// freeing the analysis of a 500 MB ncu page (60 000 findings, the launch and group frames) took
/// 30 ms of the 0.25 s the analysis adds to reading it (docs/performance.md, "Scale").
pub fn keep_until_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Hands the memory freed by the previous file back to the system before the next one is read.
/// glibc keeps freed blocks in its per-thread arenas, and without this a batch read one file at a
/// time grew to 2.3× one file's peak (docs/performance.md, "Scale"); elsewhere it does nothing.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of the allocator's own arenas; it takes no
    // pointer and is safe to call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
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

/// Keeps the launches, rule rows and kernel summaries whose kernel name matches `pattern`.
fn filter_kernels(loaded: Loaded, pattern: &str) -> PolarsResult<Loaded> {
    let keep = |frame: DataFrame, name: &str| -> PolarsResult<DataFrame> {
        if frame.height() == 0 || !frame.schema().contains(name) {
            return Ok(frame);
        }
        frame
            .lazy()
            .filter(
                col(name)
                    .str()
                    .contains(lit(pattern), true)
                    .fill_null(lit(false)),
            )
            .collect()
    };
    Ok(Loaded {
        launches: keep(loaded.launches, lt::KERNEL_NAME)?,
        rules: keep(
            loaded.rules,
            warpsight_ingest::trace::rules_col::KERNEL_NAME,
        )?,
        kernel_summary: keep(loaded.kernel_summary, ks::KERNEL_NAME)?,
        ..loaded
    })
}

/// Runs the analysis pipeline, turning an unknown `--device`/`--on` into an error with a hint.
/// Small parts waiting to be analysed together (see `analyze_inputs`).
#[derive(Default)]
struct SmallParts {
    parts: Vec<Loaded>,
    launches: usize,
}

impl SmallParts {
    /// Keeps `part` for a later joint analysis when it is small (a quarter of a part's launches
    /// at most), holds launches, and has the columns of the parts kept so far; otherwise leaves it.
    fn takes(&mut self, part: &Loaded, launches_per_part: usize) -> bool {
        let height = part.launches.height();
        let same_columns = self
            .parts
            .first()
            .is_none_or(|first| first.launches.schema() == part.launches.schema());
        if height == 0 || height > launches_per_part / 4 || !same_columns {
            return false;
        }
        self.launches += height;
        self.parts.push(part.clone());
        true
    }

    /// Analyses the parts kept so far as one, in their order, and hands the analysis on.
    fn analyse(
        &mut self,
        registry: &Registry,
        config: &AnalysisConfig,
        on_part: &mut dyn FnMut(&Analysis) -> anyhow::Result<()>,
        parts: &mut Vec<Analysis>,
    ) -> anyhow::Result<()> {
        if self.parts.is_empty() {
            return Ok(());
        }
        tracing::info!(
            parts = self.parts.len(),
            launches = self.launches,
            "analysing small parts together"
        );
        self.launches = 0;
        let together = load::merge(std::mem::take(&mut self.parts))?;
        // The model's outputs are not kept across files (see the per-file cache above).
        let config = AnalysisConfig {
            model: ModelConfig {
                cache: None,
                ..config.model.clone()
            },
            ..config.clone()
        };
        let mut analysis = run_pipeline(&together, registry, &config)?;
        on_part(&analysis)?;
        analysis.drop_launches();
        parts.push(analysis);
        Ok(())
    }
}

pub fn run_pipeline(
    loaded: &Loaded,
    registry: &Registry,
    config: &AnalysisConfig,
) -> anyhow::Result<Analysis> {
    pipeline::analyze(loaded, registry, config).map_err(analysis_error)
}

/// An analysis error for the user: an unknown `--device`/`--on` with the known devices as a hint,
/// anything else as it is.
pub fn analysis_error(error: AnalysisError) -> anyhow::Error {
    match error {
        AnalysisError::Model(ModelError::UnknownDevice { name, known }) => {
            unknown_device(&name, &known)
        }
        other => anyhow::Error::new(other),
    }
}

/// The error for a device no plugin provides, listing the known ones.
pub fn unknown_device(name: &str, known: &[String]) -> anyhow::Error {
    anyhow::Error::new(Hinted {
        message: format!("no loaded plugin provides the device `{name}`"),
        hint: if known.is_empty() {
            "no device is known: load the architecture plugins with --plugin-dir".into()
        } else {
            format!(
                "known devices: {} (see `warpsight devices`)",
                known.join(", ")
            )
        },
        source: None,
    })
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
