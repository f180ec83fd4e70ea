//! Reading and analysing inputs the way the `warpsight` binary does, through the same batch loop
//! ([`batch::analyze_files`]): files, directories and globs are expanded, each file is read part
//! by part, small parts of consecutive files with the same columns are analysed together, and the
//! parts' analyses are merged: the same launch groups, findings and per-kernel rows as
//! `warpsight analyze`, with one part's launches in memory at a time.

use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polars::prelude::*;
use warpsight_ingest::{Format, ReadConfig};
use warpsight_model::arch::Registry;
use warpsight_report::analysis::batch::{self, FileStage};
use warpsight_report::analysis::load::{self, Loaded};
use warpsight_report::analysis::pipeline::{Analysis, AnalysisConfig};
use warpsight_report::analysis::read_parts::PartConfig;

use crate::errors::{BindingError, Failure, Kind, Outcome};

/// How the inputs are read: strictness, a forced format and the kernel filter.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reading {
    /// Rows that cannot be used are errors.
    pub(crate) strict: bool,
    /// The format every input is read as (`None`: detected from the content).
    pub(crate) format: Option<Format>,
    /// Keep only kernels whose name matches this regular expression.
    pub(crate) filter: Option<String>,
    /// Show a progress bar on stderr.
    pub(crate) progress: bool,
}

impl Reading {
    /// The reader configuration.
    pub(crate) fn read_config(&self) -> ReadConfig {
        ReadConfig {
            strict: self.strict,
            format: self.format,
        }
    }

    /// The part reader's configuration (the binary's `part_config`).
    pub(crate) fn part_config(&self) -> PartConfig {
        let mut config = PartConfig::new(self.read_config());
        config.filter = self.filter.clone();
        config
    }
}

/// The format named `name` (as `--input-format` takes it), or an [`Kind::Input`] error listing
/// the names.
pub(crate) fn parse_format(name: &str) -> Outcome<Format> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        Box::new(BindingError::new(
            Kind::Input,
            format!("unknown input format `{name}`"),
            format!("use one of {}", names.join(", ")),
        )) as Failure
    })
}

/// Expands files, directories and globs as the command line does.
pub(crate) fn expand(inputs: &[String]) -> Outcome<Vec<PathBuf>> {
    Ok(warpsight_ingest::batch::expand_inputs(inputs)?)
}

/// Checks that the kernel filter is a valid regular expression.
pub(crate) fn check_filter(filter: Option<&str>) -> Outcome<()> {
    if let Some(pattern) = filter
        && let Err(error) = regex::Regex::new(pattern)
    {
        return Err(Box::new(
            BindingError::new(
                Kind::Input,
                format!("invalid filter regular expression `{pattern}`"),
                "the filter is a Rust regular expression matched against kernel names",
            )
            .with_source(error),
        ));
    }
    Ok(())
}

/// The error for inputs (`described`) without a kernel launch.
pub(crate) fn no_launches(filter: Option<&str>, described: &str) -> Failure {
    let (message, hint) = batch::no_launches(filter.is_some(), described);
    Box::new(BindingError::new(Kind::Input, message, hint))
}

/// A progress bar over `files` inputs on stderr when asked for, else a hidden one.
pub(crate) fn progress_bar(files: usize, shown: bool) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} reading {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

/// The file name shown beside the bar.
pub(crate) fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads every input whole and stacks them, keeping the kernels the filter matches (the binary's
/// `load_inputs`).
pub(crate) fn load_inputs(inputs: &[String], reading: &Reading) -> Outcome<Loaded> {
    let files = expand(inputs)?;
    let bar = progress_bar(files.len(), reading.progress);
    let tick = |path: &Path| {
        bar.set_message(file_label(path));
        bar.inc(1);
    };
    let loaded = load::load_paths(&files, &reading.read_config(), &tick);
    bar.finish_and_clear();
    let mut loaded = loaded?;
    check_filter(reading.filter.as_deref())?;
    if let Some(pattern) = &reading.filter {
        loaded = load::filter_kernels(loaded, pattern)?;
    }
    if loaded.is_empty() {
        return Err(no_launches(reading.filter.as_deref(), &loaded.describe()));
    }
    Ok(loaded)
}

/// Reads and analyses `files` one at a time, each part by part, as the binary does
/// ([`batch::analyze_files`]): small parts of consecutive files with the same columns are analysed
/// together, `on_part` sees each analysis while it still has its per-launch rows, and the
/// analyses are merged. Returns the files' other tables (no launches) and the merged analysis.
pub(crate) fn analyze_files(
    files: &[PathBuf],
    reading: &Reading,
    registry: &Registry,
    config: &AnalysisConfig,
    on_part: &mut dyn FnMut(&Analysis) -> Outcome<()>,
) -> Outcome<(Loaded, Analysis)> {
    check_filter(reading.filter.as_deref())?;
    let bar = progress_bar(files.len(), reading.progress);
    let result = batch::analyze_files(
        files,
        &reading.part_config(),
        registry,
        config,
        &mut |file, stage| match stage {
            FileStage::Reading => bar.set_message(file_label(file)),
            FileStage::Done => {
                bar.inc(1);
                if files.len() > 1 {
                    release_freed_memory();
                }
            }
        },
        on_part,
    );
    bar.finish_and_clear();
    result
}

/// Hands the memory freed by one file back to the system before the next (glibc keeps it
/// otherwise; a long-lived worker process would grow with the largest file it has read).
pub(crate) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free memory of the allocator's own arenas; it takes no
    // pointer and is safe to call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// `sort=` and `top=` ([`warpsight_report::analysis::ordering::sort_and_top`]).
pub(crate) fn sort_and_top(
    frame: DataFrame,
    sort: Option<&str>,
    top: Option<usize>,
) -> Outcome<DataFrame> {
    Ok(warpsight_report::analysis::ordering::sort_and_top(
        frame, sort, top,
    )?)
}
