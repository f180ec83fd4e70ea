//! Why an analysis could not be produced.

use warpsight_ingest::Hint;
use warpsight_model::ModelError;

/// Errors of the analysis layer (loading inputs, running the model, aggregating, comparing).
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The command-line inputs could not be expanded into files.
    #[error(transparent)]
    Expand(#[from] warpsight_ingest::batch::ExpandError),
    /// An input could not be read.
    #[error(transparent)]
    Ingest(#[from] warpsight_ingest::IngestError),
    /// The model could not run.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A table computation failed.
    #[error("the analysis table computation failed")]
    Polars(#[from] polars::error::PolarsError),
    /// The reader of an input read in parts stopped because its batches were no longer taken.
    #[error("the analysis stopped reading `{}`", .0.display())]
    StoppedReading(std::path::PathBuf),
    /// No input had anything to analyse.
    #[error("no kernel launches or kernel summaries in {0}")]
    Empty(String),
    /// A table was to be sorted by a column it does not have.
    #[error("cannot sort by `{name}`: no such column")]
    NoSuchSortColumn {
        /// The column asked for.
        name: String,
        /// The table's columns.
        columns: Vec<String>,
    },
}

impl Hint for AnalysisError {
    /// The wrapped error's hint: the variants that wrap one are transparent, so the wrapped error
    /// never appears on its own in the cause chain.
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            AnalysisError::Expand(error) => error.hint(),
            AnalysisError::Ingest(error) => error.hint(),
            AnalysisError::Model(error) => error.hint(),
            AnalysisError::NoSuchSortColumn { columns, .. } => {
                Some(format!("columns: {}", columns.join(", ")).into())
            }
            _ => None,
        }
    }
}
