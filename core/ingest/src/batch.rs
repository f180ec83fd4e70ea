//! Batch reading: expands files, directories and glob patterns, reads them in parallel, and keeps
//! one result per input file so that one bad file never hides the others.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::trace::Trace;
use crate::{IngestError, ReadConfig, read_path};

/// The outcome of reading one input file.
#[derive(Debug)]
pub struct FileResult {
    /// The file (or export directory) read.
    pub path: PathBuf,
    /// The trace, or why it could not be read.
    pub result: Result<Trace, IngestError>,
}

/// Why the command-line inputs could not be expanded into files.
#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    /// A glob pattern is malformed.
    #[error("invalid glob pattern `{pattern}`")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// The underlying error.
        #[source]
        source: glob::PatternError,
    },
    /// An input matched nothing.
    #[error("`{0}` does not exist and matches no file")]
    NoMatch(String),
    /// A directory could not be listed.
    #[error("cannot list directory `{}`", path.display())]
    ReadDir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Expands command-line inputs: a file stays itself; a directory that is an nsys table export
/// (`parquetdir` / `arrowdir`) stays itself; any other directory gives its files (sorted, not
/// recursive, hidden files skipped); anything else is treated as a glob pattern.
pub fn expand_inputs(inputs: &[String]) -> Result<Vec<PathBuf>, ExpandError> {
    let mut out = Vec::new();
    for input in inputs {
        let path = Path::new(input);
        if path.is_file() {
            out.push(path.to_path_buf());
        } else if path.is_dir() {
            if crate::detect::detect(path).is_ok() {
                out.push(path.to_path_buf());
                continue;
            }
            let entries = std::fs::read_dir(path).map_err(|source| ExpandError::ReadDir {
                path: path.to_path_buf(),
                source,
            })?;
            let mut files: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| !n.starts_with('.'))
                        && (p.is_file() || crate::detect::detect(p).is_ok())
                })
                .collect();
            files.sort();
            out.extend(files);
        } else {
            let paths = glob::glob(input).map_err(|source| ExpandError::Pattern {
                pattern: input.clone(),
                source,
            })?;
            let mut matched: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
            if matched.is_empty() {
                return Err(ExpandError::NoMatch(input.clone()));
            }
            matched.sort();
            out.extend(matched);
        }
    }
    Ok(out)
}

/// Reads every path in parallel (rayon) and returns one result per path, in input order.
pub fn read_many(paths: &[PathBuf], config: &ReadConfig) -> Vec<FileResult> {
    paths
        .par_iter()
        .map(|path| FileResult {
            path: path.clone(),
            result: read_path(path, config),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_input_is_an_error_naming_it() {
        let err = expand_inputs(&["/definitely/not/here/*.csv".to_string()]).unwrap_err();
        assert!(err.to_string().contains("/definitely/not/here/*.csv"));
    }

    #[test]
    fn directories_expand_to_their_sorted_files() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("b.csv"), "x")?;
        std::fs::write(dir.path().join("a.csv"), "x")?;
        std::fs::write(dir.path().join(".hidden"), "x")?;
        let files = expand_inputs(&[dir.path().display().to_string()])?;
        let names: Vec<_> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.csv", "b.csv"]);
        Ok(())
    }
}
