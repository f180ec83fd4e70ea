//! The batch loop shared by the `warpsight` binary and the Python package: files analysed one
//! after the other, each read part by part ([`read_in_parts`]), small parts of consecutive files
//! with the same columns analysed together, and the parts' analyses merged ([`analyze_files`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::PolarsError;
use warpsight_model::arch::Registry;
use warpsight_model::{EvaluationCache, ModelConfig};

use super::error::AnalysisError;
use super::load::{self, Loaded};
use super::pipeline::{self, Analysis, AnalysisConfig};
use super::read_parts::{PartConfig, read_in_parts};

/// Where [`analyze_files`] is in a batch, for a progress bar and the caller's housekeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStage {
    /// The file is about to be read.
    Reading,
    /// The file has been read and its large parts analysed (its small parts may wait for the
    /// next file's).
    Done,
}

/// Reads and analyses `files` one at a time, and each file in parts of about
/// [`super::read_parts::LAUNCHES_PER_PART`] launches ([`read_in_parts`] with `read`); only the
/// parts' launch groups, findings and counts are kept ([`Analysis::merge`]): a training run's
/// export, or a batch of them, is analysed with one part's launches in memory at a time.
///
/// Small parts (a quarter of a part's launches at most) of consecutive files with the same
/// columns are analysed together: the analysis has a fixed cost per run (query planning), which
/// made `analyze` of 1,000 small files 12× their `ingest` (issue #28, finding I). The same columns
/// keep the model's choice of formulas (which depends on the columns present) the one each file
/// would get alone, so the result does not depend on how the files are grouped.
///
/// `on_file` is told when each file is about to be read and when it is done; `on_part` sees each
/// analysis while it still has its per-launch rows (a streamed per-launch output writes them
/// there). Returns the files' other tables (rule rows, transfers, kernel summaries, rejected rows;
/// no launch) and the merged analysis. The caller checks the filter and decides whether a batch
/// without launches is an error.
pub fn analyze_files<E>(
    files: &[PathBuf],
    read: &PartConfig,
    registry: &Registry,
    config: &AnalysisConfig,
    on_file: &mut dyn FnMut(&Path, FileStage),
    on_part: &mut dyn FnMut(&Analysis) -> Result<(), E>,
) -> Result<(Loaded, Analysis), E>
where
    E: From<AnalysisError> + From<PolarsError>,
{
    let mut parts = Vec::new();
    let mut kept: Vec<Loaded> = Vec::with_capacity(files.len());
    let mut small = SmallParts::default();
    // The model's column names depend on the plugins and the options only: they are found on a
    // core of their own while the first file is read (reading leaves part of the second core idle).
    let first_cache = Arc::new(EvaluationCache::default());
    std::thread::scope(|scope| -> Result<(), E> {
        scope.spawn(|| {
            // An error here is the evaluation's own error, which it reports when it meets it.
            let _ = first_cache.prepare(registry, &config.model);
        });
        for (index, file) in files.iter().enumerate() {
            on_file(file, FileStage::Reading);
            // The parts of one file share their launch configurations: the model's outputs are
            // kept for the next part (never across files, so that many ncu pages, whose launches
            // all differ, do not keep a copy of every output).
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
            // Everything but the launches is kept for the notes and the per-kernel rows of
            // summaries.
            let rest = read_in_parts(file, read, &mut |part| -> Result<(), E> {
                if small.takes(part, read.launches_per_part) {
                    if small.launches >= read.launches_per_part {
                        small.analyse(registry, &config, &first_cache, on_part, &mut parts)?;
                    }
                    return Ok(());
                }
                small.analyse(registry, &config, &first_cache, on_part, &mut parts)?;
                let mut analysis = pipeline::analyze(part, registry, &config)?;
                on_part(&analysis)?;
                analysis.drop_launches();
                parts.push(analysis);
                Ok(())
            })?;
            kept.push(rest);
            on_file(file, FileStage::Done);
            warpsight_ingest::memory::log_stage(&format!("analysing {}", file.display()));
        }
        small.analyse(registry, config, &first_cache, on_part, &mut parts)
    })?;
    let analysis = Analysis::merge(parts)?;
    let loaded = load::merge(kept)?;
    warpsight_ingest::memory::log_stage("merging the inputs' analyses");
    Ok((loaded, analysis))
}

/// What to say of inputs (`described`, e.g. `` `a.csv` `` or `3 files`) without a kernel launch
/// (`filtered`: the kernel filter was set): the message and the hint.
pub fn no_launches(filtered: bool, described: &str) -> (String, &'static str) {
    (
        format!(
            "no kernel launches{} in {described}",
            if filtered { " match the filter" } else { "" },
        ),
        "run `warpsight inspect` on the inputs to see what they contain",
    )
}

/// Small parts waiting to be analysed together (see [`analyze_files`]).
#[derive(Default)]
struct SmallParts {
    /// The parts kept so far, in their order.
    parts: Vec<Loaded>,
    /// Their launches.
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

    /// Analyses the parts kept so far as one, in their order, and hands the analysis on. The
    /// model's column names come from `names` (found once per command, see [`analyze_files`]).
    fn analyse<E>(
        &mut self,
        registry: &Registry,
        config: &AnalysisConfig,
        names: &EvaluationCache,
        on_part: &mut dyn FnMut(&Analysis) -> Result<(), E>,
        parts: &mut Vec<Analysis>,
    ) -> Result<(), E>
    where
        E: From<AnalysisError> + From<PolarsError>,
    {
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
        // The model's outputs are not kept across files (see the per-file cache above); its
        // column names are (finding them again costs a plan of tens of milliseconds).
        let config = AnalysisConfig {
            model: ModelConfig {
                cache: Some(Arc::new(names.with_columns_of())),
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

#[cfg(test)]
mod tests {
    use super::*;
    use warpsight_ingest::ReadConfig;

    /// The H100 captures shipped in `traces/`.
    fn h100_files() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/h100-80gb-hbm3");
        let mut files: Vec<PathBuf> = ["sgemm.ncu-raw.csv", "copy_saxpy.ncu-raw.csv"]
            .iter()
            .map(|name| dir.join(name))
            .collect();
        files.sort();
        files
    }

    #[test]
    fn files_analysed_together_or_apart_give_the_same_groups() {
        let registry = warpsight_test_support::registry();
        let config = AnalysisConfig::default();
        let read = PartConfig::new(ReadConfig::default());
        let files = h100_files();
        let mut stages = Vec::new();
        let mut parts = 0;
        let (loaded, together) = analyze_files::<AnalysisError>(
            &files,
            &read,
            &registry,
            &config,
            &mut |file, stage| stages.push((file.to_path_buf(), stage)),
            &mut |analysis| {
                parts += 1;
                assert!(analysis.launch_count() > 0);
                Ok(())
            },
        )
        .expect("the H100 captures are analysed");
        // Two small files: one joint analysis, and every file read once, in order.
        assert_eq!(parts, 1);
        assert_eq!(
            stages,
            files
                .iter()
                .flat_map(|f| [
                    (f.clone(), FileStage::Reading),
                    (f.clone(), FileStage::Done)
                ])
                .collect::<Vec<_>>()
        );
        assert_eq!(loaded.launches.height(), 0);
        let mut alone = 0;
        for file in &files {
            let (_, analysis) = analyze_files::<AnalysisError>(
                std::slice::from_ref(file),
                &read,
                &registry,
                &config,
                &mut |_, _| {},
                &mut |_| Ok(()),
            )
            .expect("each capture is analysed alone");
            alone += analysis.groups.height();
        }
        assert!(together.groups.height() > 0);
        assert_eq!(together.groups.height(), alone);
    }
}
