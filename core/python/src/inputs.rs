//! Reading and analysing inputs the way the `warpsight` binary does (a thin adapter: the binary's
//! `inputs.rs` is not a library, so its batch loop is mirrored here; see the crate docs). Files,
//! directories and globs are expanded, each file is read part by part
//! ([`read_in_parts`]), small parts of consecutive files with the same columns are analysed
//! together, and the parts' analyses are merged: the same launch groups, findings and per-kernel
//! rows as `warpsight analyze`, with one part's launches in memory at a time.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polars::prelude::*;
use warpsight_ingest::{Format, ReadConfig};
use warpsight_model::arch::Registry;
use warpsight_model::{EvaluationCache, ModelConfig};
use warpsight_report::analysis::load::{self, Loaded};
use warpsight_report::analysis::pipeline::{self, Analysis, AnalysisConfig};
use warpsight_report::analysis::read_parts::{PartConfig, read_in_parts};

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
    Box::new(BindingError::new(
        Kind::Input,
        format!(
            "no kernel launches{} in {described}",
            if filter.is_some() {
                " match the filter"
            } else {
                ""
            },
        ),
        "run `warpsight inspect` on the inputs to see what they contain",
    ))
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

/// Reads and analyses `files` one at a time, each part by part, as the binary's
/// `analyze_inputs` does: small parts of consecutive files with the same columns are analysed
/// together, `on_part` sees each analysis while it still has its per-launch rows, and the
/// analyses are merged. Returns the files' other tables (no launches) and the merged analysis;
/// `require_launches` makes inputs without launches or kernel summaries an error.
pub(crate) fn analyze_files(
    files: &[PathBuf],
    reading: &Reading,
    registry: &Registry,
    config: &AnalysisConfig,
    on_part: &mut dyn FnMut(&Analysis) -> Outcome<()>,
) -> Outcome<(Loaded, Analysis)> {
    check_filter(reading.filter.as_deref())?;
    let bar = progress_bar(files.len(), reading.progress);
    let read = reading.part_config();
    let mut parts = Vec::new();
    let mut kept: Vec<Loaded> = Vec::with_capacity(files.len());
    let mut small = SmallParts::default();
    let first_cache = Arc::new(EvaluationCache::default());
    std::thread::scope(|scope| -> Outcome<()> {
        scope.spawn(|| {
            // An error here is the evaluation's own, which it reports when it meets it.
            let _ = first_cache.prepare(registry, &config.model);
        });
        for (index, file) in files.iter().enumerate() {
            bar.set_message(file_label(file));
            // The parts of one file share the model's outputs, never across files.
            let cache = if index == 0 {
                Arc::clone(&first_cache)
            } else {
                Arc::new(first_cache.with_columns_of())
            };
            let config = AnalysisConfig {
                model: ModelConfig {
                    cache: Some(cache),
                    ..config.model.clone()
                },
                ..config.clone()
            };
            let rest = read_in_parts(file, &read, &mut |part| -> Outcome<()> {
                if small.takes(part, read.launches_per_part) {
                    if small.launches >= read.launches_per_part {
                        small.analyse(registry, &config, on_part, &mut parts)?;
                    }
                    return Ok(());
                }
                small.analyse(registry, &config, on_part, &mut parts)?;
                let mut analysis = pipeline::analyze(part, registry, &config)?;
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
        }
        small.analyse(registry, config, on_part, &mut parts)
    })?;
    bar.finish_and_clear();
    let analysis = Analysis::merge(parts)?;
    let loaded = load::merge(kept)?;
    Ok((loaded, analysis))
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

/// Small parts waiting to be analysed together (the binary's `SmallParts`).
#[derive(Default)]
struct SmallParts {
    /// The parts kept so far.
    parts: Vec<Loaded>,
    /// Their launches.
    launches: usize,
}

impl SmallParts {
    /// Keeps `part` when it is small (a quarter of a part's launches at most), holds launches,
    /// and has the columns of the parts kept so far.
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

    /// Analyses the parts kept so far as one and hands the analysis on.
    fn analyse(
        &mut self,
        registry: &Registry,
        config: &AnalysisConfig,
        on_part: &mut dyn FnMut(&Analysis) -> Outcome<()>,
        parts: &mut Vec<Analysis>,
    ) -> Outcome<()> {
        if self.parts.is_empty() {
            return Ok(());
        }
        self.launches = 0;
        let together = load::merge(std::mem::take(&mut self.parts))?;
        let config = AnalysisConfig {
            model: ModelConfig {
                cache: None,
                ..config.model.clone()
            },
            ..config.clone()
        };
        let mut analysis = pipeline::analyze(&together, registry, &config)?;
        on_part(&analysis)?;
        analysis.drop_launches();
        parts.push(analysis);
        Ok(())
    }
}

/// `frame` sorted by `sort` (`COLUMN`, `COLUMN:desc` or `COLUMN:asc`; descending by default) and
/// cut to `top` rows, as the binary's `--sort` and `--top` do.
pub(crate) fn sort_and_top(
    frame: DataFrame,
    sort: Option<&str>,
    top: Option<usize>,
) -> Outcome<DataFrame> {
    let mut lazy = frame.clone().lazy();
    if let Some(spec) = sort {
        let (name, descending) = match spec.rsplit_once(':') {
            Some((name, "asc")) => (name, false),
            Some((name, "desc")) => (name, true),
            _ => (spec, true),
        };
        if !frame.schema().contains(name) {
            let names: Vec<String> = frame
                .get_column_names()
                .iter()
                .map(|n| n.to_string())
                .collect();
            return Err(Box::new(BindingError::new(
                Kind::Input,
                format!("cannot sort by `{name}`: no such column"),
                format!("columns: {}", names.join(", ")),
            )));
        }
        lazy = lazy.sort(
            [name],
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_nulls_last(true)
                .with_maintain_order(true),
        );
    }
    if let Some(top) = top {
        lazy = lazy.limit(top as IdxSize);
    }
    Ok(lazy.collect()?)
}
