//! Reading the command-line inputs of `analyze`, `report`, `predict` and `diff` into one set of
//! tables: every file's launch table stacked (columns unioned), and likewise its ncu rule rows,
//! nsys transfers and nsys kernel summaries, with the rejected rows counted per file.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use super::error::AnalysisError;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::{Trace, kernel_summary_col as ks, rules_col};
use warpsight_ingest::{ReadConfig, batch::expand_inputs, read_path};

/// The inputs of one command, read and stacked.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The files read, in command-line order.
    pub files: Vec<PathBuf>,
    /// Every launch of every file (launch-table columns first; extra columns unioned).
    pub launches: DataFrame,
    /// Every ncu rule row.
    pub rules: DataFrame,
    /// Every nsys memcpy / memset row.
    pub transfers: DataFrame,
    /// Every nsys kernel-summary row.
    pub kernel_summary: DataFrame,
    /// Per file, the number of rows that could not be used (files with none are left out).
    pub rejected: Vec<(PathBuf, usize)>,
    /// Per file, how many of its rejected rows are launches that ncu failed to profile
    /// (`RejectedRow::profiling_failed`; files with none are left out).
    pub profiling_failed: Vec<(PathBuf, usize)>,
}

impl Loaded {
    /// True when there is nothing to analyse (no launch and no kernel-summary row).
    pub fn is_empty(&self) -> bool {
        self.launches.height() == 0 && self.kernel_summary.height() == 0
    }

    /// A short description of the inputs for messages, e.g. `a.csv` or `3 files`.
    pub fn describe(&self) -> String {
        match self.files.as_slice() {
            [one] => format!("`{}`", one.display()),
            many => format!("{} files", many.len()),
        }
    }
}

/// Expands `inputs` (files, directories, globs) and reads them in parallel; `progress` is called
/// once per file read. The first file that cannot be read is the error.
pub fn load(
    inputs: &[String],
    config: &ReadConfig,
    progress: &(dyn Fn(&Path) + Sync),
) -> Result<Loaded, AnalysisError> {
    let files = expand_inputs(inputs)?;
    load_paths(&files, config, progress)
}

/// Number of files `inputs` expand to (for sizing a progress bar).
pub fn count_inputs(inputs: &[String]) -> Result<usize, AnalysisError> {
    Ok(expand_inputs(inputs)?.len())
}

/// Reads the given files in parallel and stacks their tables.
pub fn load_paths(
    files: &[PathBuf],
    config: &ReadConfig,
    progress: &(dyn Fn(&Path) + Sync),
) -> Result<Loaded, AnalysisError> {
    let results: Vec<Result<Trace, AnalysisError>> = files
        .par_iter()
        .map(|path| {
            let trace = read_path(path, config).map_err(AnalysisError::from);
            progress(path);
            trace
        })
        .collect();
    let traces: Vec<Trace> = results.into_iter().collect::<Result<_, _>>()?;
    Ok(stack(files, traces)?)
}

/// Stacks traces read from `files` (same order).
pub fn stack(files: &[PathBuf], traces: Vec<Trace>) -> PolarsResult<Loaded> {
    let rejected = files
        .iter()
        .zip(&traces)
        .filter(|(_, trace)| !trace.rejected.is_empty())
        .map(|(path, trace)| (path.clone(), trace.rejected.len()))
        .collect();
    let profiling_failed = files
        .iter()
        .zip(&traces)
        .map(|(path, trace)| (path.clone(), profiling_failures(&trace.rejected)))
        .filter(|(_, count)| *count > 0)
        .collect();
    let pick = |f: fn(&Trace) -> &DataFrame| -> PolarsResult<DataFrame> {
        let frames: Vec<DataFrame> = traces
            .iter()
            .map(f)
            .filter(|frame| frame.height() > 0)
            .cloned()
            .collect();
        match frames.len() {
            0 => Ok(DataFrame::empty()),
            1 => Ok(frames.into_iter().next().unwrap_or_default()),
            _ => polars::functions::concat_df_diagonal(&harmonize(frames)?),
        }
    };
    let mut launches = pick(|t| &t.launches)?;
    if launches.width() == 0 {
        launches = warpsight_ingest::launch_table::empty();
    }
    Ok(Loaded {
        files: files.to_vec(),
        launches,
        rules: pick(|t| &t.rules)?,
        transfers: pick(|t| &t.transfers)?,
        kernel_summary: pick(|t| &t.kernel_summary)?,
        rejected,
        profiling_failed,
    })
}

/// How many of `rejected` are launches that ncu failed to profile.
pub fn profiling_failures(rejected: &[warpsight_ingest::trace::RejectedRow]) -> usize {
    rejected.iter().filter(|r| r.profiling_failed()).count()
}

/// Keeps the launches, rule rows and kernel summaries whose kernel name matches the regular
/// expression `pattern` (an invalid one is an error).
pub fn filter_kernels(loaded: Loaded, pattern: &str) -> PolarsResult<Loaded> {
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
        rules: keep(loaded.rules, rules_col::KERNEL_NAME)?,
        kernel_summary: keep(loaded.kernel_summary, ks::KERNEL_NAME)?,
        ..loaded
    })
}

/// Merges inputs read separately (same as reading them together, file order kept).
pub fn merge(parts: Vec<Loaded>) -> PolarsResult<Loaded> {
    let files: Vec<PathBuf> = parts.iter().flat_map(|p| p.files.clone()).collect();
    let rejected = parts.iter().flat_map(|p| p.rejected.clone()).collect();
    let profiling_failed = parts
        .iter()
        .flat_map(|p| p.profiling_failed.clone())
        .collect();
    let pick = |f: fn(&Loaded) -> &DataFrame| -> PolarsResult<DataFrame> {
        let frames: Vec<DataFrame> = parts
            .iter()
            .map(f)
            .filter(|frame| frame.height() > 0)
            .cloned()
            .collect();
        match frames.len() {
            0 => Ok(DataFrame::empty()),
            1 => Ok(frames.into_iter().next().unwrap_or_default()),
            _ => polars::functions::concat_df_diagonal(&harmonize(frames)?),
        }
    };
    let mut launches = pick(|l| &l.launches)?;
    if launches.width() == 0 {
        launches = warpsight_ingest::launch_table::empty();
    }
    Ok(Loaded {
        launches,
        rules: pick(|l| &l.rules)?,
        transfers: pick(|l| &l.transfers)?,
        kernel_summary: pick(|l| &l.kernel_summary)?,
        files,
        rejected,
        profiling_failed,
    })
}

/// Converts every extra column whose dtype differs between `frames` by the one rule of
/// [`warpsight_ingest::combine`] (numbers of different types to Float64, a number/text clash to
/// String), so that they can be stacked.
pub(crate) fn harmonize(frames: Vec<DataFrame>) -> PolarsResult<Vec<DataFrame>> {
    warpsight_ingest::combine::unify_column_types(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_columns_with_different_types_are_stacked_as_text() -> PolarsResult<()> {
        let mut a = warpsight_ingest::trace::Trace::empty(warpsight_ingest::Format::NcuRaw);
        a.launches = df!("launch_id" => [1i64], "extra" => [1.5f64])?;
        let mut b = warpsight_ingest::trace::Trace::empty(warpsight_ingest::Format::NcuRaw);
        b.launches = df!("launch_id" => [2i64], "extra" => ["wide"])?;
        let loaded = stack(&["a".into(), "b".into()], vec![a, b])?;
        let extra: Vec<Option<&str>> = loaded.launches.column("extra")?.str()?.iter().collect();
        assert_eq!(extra, [Some("1.5"), Some("wide")]);
        Ok(())
    }
}
