//! Reading the command-line inputs of `analyze`, `report`, `predict` and `diff` into one set of
//! tables: every file's launch table stacked (columns unioned), and likewise its ncu rule rows,
//! nsys transfers and nsys kernel summaries, with the rejected rows counted per file.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use super::error::AnalysisError;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_ingest::trace::{SideTables, Trace, kernel_summary_col as ks, rules_col};
use warpsight_ingest::{ReadConfig, read_path};

/// The inputs of one command, read and stacked.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The files read, in command-line order.
    pub files: Vec<PathBuf>,
    /// Every launch of every file (launch-table columns first; extra columns unioned).
    pub launches: DataFrame,
    /// Every file's side tables stacked: every ncu rule row, nsys memcpy / memset row and nsys
    /// kernel-summary row.
    pub side: SideTables,
    /// Per file, the number of rows that could not be used (files with none are left out).
    pub rejected: Vec<(PathBuf, usize)>,
    /// Per file, how many of its rejected rows are launches that ncu failed to profile
    /// (`RejectedRow::profiling_failed`; files with none are left out).
    pub profiling_failed: Vec<(PathBuf, usize)>,
}

impl Loaded {
    /// True when there is nothing to analyse (no launch and no kernel-summary row).
    pub fn is_empty(&self) -> bool {
        self.launches.height() == 0 && self.side.kernel_summary.height() == 0
    }

    /// A short description of the inputs for messages, e.g. `a.csv` or `3 files`.
    pub fn describe(&self) -> String {
        match self.files.as_slice() {
            [one] => format!("`{}`", one.display()),
            many => format!("{} files", many.len()),
        }
    }
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
pub(crate) fn stack(files: &[PathBuf], traces: Vec<Trace>) -> PolarsResult<Loaded> {
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
    let mut launches = concat(traces.iter().map(|t| &t.launches))?;
    if launches.width() == 0 {
        launches = warpsight_ingest::launch_table::empty();
    }
    Ok(Loaded {
        files: files.to_vec(),
        launches,
        side: concat_side(traces.iter().map(|t| &t.side))?,
        rejected,
        profiling_failed,
    })
}

/// `frames` stacked in order, the empty ones left out (columns unioned, see [`harmonize`]); an
/// empty frame when every one is empty.
fn concat<'a>(frames: impl Iterator<Item = &'a DataFrame>) -> PolarsResult<DataFrame> {
    let frames: Vec<DataFrame> = frames.filter(|frame| frame.height() > 0).cloned().collect();
    match frames.len() {
        0 => Ok(DataFrame::empty()),
        1 => Ok(frames.into_iter().next().unwrap_or_default()),
        _ => polars::functions::concat_df_diagonal(&harmonize(frames)?),
    }
}

/// Each side table of `sides` stacked in order, as [`concat`] stacks them.
fn concat_side<'a>(
    sides: impl Iterator<Item = &'a SideTables> + Clone,
) -> PolarsResult<SideTables> {
    Ok(SideTables {
        rules: concat(sides.clone().map(|side| &side.rules))?,
        transfers: concat(sides.clone().map(|side| &side.transfers))?,
        kernel_summary: concat(sides.map(|side| &side.kernel_summary))?,
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
    let side = SideTables {
        rules: keep(loaded.side.rules, rules_col::KERNEL_NAME)?,
        kernel_summary: keep(loaded.side.kernel_summary, ks::KERNEL_NAME)?,
        transfers: loaded.side.transfers,
    };
    Ok(Loaded {
        launches: keep(loaded.launches, lt::KERNEL_NAME)?,
        side,
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
    let mut launches = concat(parts.iter().map(|l| &l.launches))?;
    if launches.width() == 0 {
        launches = warpsight_ingest::launch_table::empty();
    }
    Ok(Loaded {
        launches,
        side: concat_side(parts.iter().map(|l| &l.side))?,
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
