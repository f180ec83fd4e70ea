//! Errors crossing into Python: the exception classes (`warpsight.Error`, with `InputError` for
//! bad input and `DeviceError` for an unknown or missing device), the text they carry (the CLI's
//! `error:` / `Caused by:` / `hint:` lines, hints from the [`Hint`] trait), and the boundary that
//! turns a panic into an `Error` instead of letting it reach the interpreter.

use std::borrow::Cow;
use std::error::Error as StdError;

use pyo3::prelude::*;
use warpsight_ingest::Hint;
use warpsight_model::ModelError;
use warpsight_report::analysis::AnalysisError;
use warpsight_report::error_text::ErrorText;

pyo3::create_exception!(
    _warpsight,
    Error,
    pyo3::exceptions::PyException,
    "A warpsight command failed; the message holds the CLI's `error:` / `Caused by:` / `hint:` lines."
);
pyo3::create_exception!(
    _warpsight,
    InputError,
    Error,
    "An input could not be used: a missing or unreadable file, an unknown format, a bad argument."
);
pyo3::create_exception!(
    _warpsight,
    DeviceError,
    Error,
    "A device was asked for that no loaded plugin provides, or a launch names no device."
);

/// Which exception class a failure raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `warpsight.Error`.
    Other,
    /// `warpsight.InputError`.
    Input,
    /// `warpsight.DeviceError`.
    Device,
}

/// A failure of the bindings themselves (an argument refused, no launch in the inputs): its
/// message, hint and class, and the underlying error if any.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct BindingError {
    /// What went wrong.
    message: String,
    /// What to do about it.
    hint: String,
    /// The exception class.
    kind: Kind,
    /// The underlying error, if any.
    #[source]
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
}

impl BindingError {
    /// An error of `kind` with its message and hint.
    pub(crate) fn new(kind: Kind, message: impl Into<String>, hint: impl Into<String>) -> Self {
        BindingError {
            message: message.into(),
            hint: hint.into(),
            kind,
            source: None,
        }
    }

    /// The same error caused by `source` (a `Caused by:` line).
    pub(crate) fn with_source(self, source: impl StdError + Send + Sync + 'static) -> Self {
        BindingError {
            source: Some(Box::new(source)),
            ..self
        }
    }
}

impl Hint for BindingError {
    fn hint(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(&self.hint))
    }
}

/// Any failure inside a call, with its cause chain.
pub(crate) type Failure = Box<dyn StdError + Send + Sync + 'static>;

/// The result type of the work done without the interpreter's lock.
pub(crate) type Outcome<T> = Result<T, Failure>;

/// The exception class of one cause, when it decides one.
fn kind_of(cause: &(dyn StdError + 'static)) -> Option<Kind> {
    if let Some(error) = cause.downcast_ref::<BindingError>() {
        return Some(error.kind);
    }
    if let Some(error) = cause.downcast_ref::<AnalysisError>() {
        return match error {
            AnalysisError::Expand(_)
            | AnalysisError::Ingest(_)
            | AnalysisError::Empty(_)
            | AnalysisError::NoSuchSortColumn { .. } => Some(Kind::Input),
            AnalysisError::Model(ModelError::UnknownDevice { .. }) => Some(Kind::Device),
            _ => None,
        };
    }
    if let Some(ModelError::UnknownDevice { .. }) = cause.downcast_ref::<ModelError>() {
        return Some(Kind::Device);
    }
    if cause.is::<warpsight_ingest::IngestError>()
        || cause.is::<warpsight_ingest::batch::ExpandError>()
    {
        return Some(Kind::Input);
    }
    None
}

/// The causes of `error`, outermost first.
fn chain<'a>(error: &'a (dyn StdError + 'static)) -> Vec<&'a (dyn StdError + 'static)> {
    let mut causes = vec![error];
    let mut next = error.source();
    while let Some(cause) = next {
        causes.push(cause);
        next = cause.source();
    }
    causes
}

/// The error as the CLI prints it without colour ([`warpsight_report::error_text::format_error`],
/// with [`BindingError`]'s hints): `error: …`, `  Caused by: …` lines and the first hint found.
pub(crate) fn format_error(error: &(dyn StdError + 'static)) -> String {
    let text = ErrorText {
        color: false,
        details: "run the CLI with -v",
        own_hint: &|cause| {
            cause
                .downcast_ref::<BindingError>()
                .map(|own| own as &dyn Hint)
        },
    };
    warpsight_report::error_text::format_error(error, &text)
}

/// The Python exception for a failure: its class from the first cause that decides one, its
/// message the CLI's text without the final line break.
pub(crate) fn to_py_err(failure: &Failure) -> PyErr {
    let error: &(dyn StdError + 'static) = failure.as_ref();
    let kind = chain(error)
        .into_iter()
        .find_map(kind_of)
        .unwrap_or(Kind::Other);
    let text = format_error(error).trim_end().to_string();
    match kind {
        Kind::Other => Error::new_err(text),
        Kind::Input => InputError::new_err(text),
        Kind::Device => DeviceError::new_err(text),
    }
}

/// Runs `work` without the interpreter's lock (other Python threads, Dask's among them, go on),
/// catching a panic as an `internal error` [`Error`]: nothing unwinds into the interpreter.
pub(crate) fn run_detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Outcome<T> + Send,
) -> PyResult<T> {
    let outcome = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
            Err(Box::new(BindingError::new(
                Kind::Other,
                format!(
                    "internal error: {}",
                    warpsight_ingest::panic_text(payload.as_ref())
                ),
                "this is a bug in warpsight; please report it with the call and the input",
            )) as Failure)
        })
    });
    outcome.map_err(|failure| to_py_err(&failure))
}

/// Adds the exception classes to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("Error", py.get_type::<Error>())?;
    module.add("InputError", py.get_type::<InputError>())?;
    module.add("DeviceError", py.get_type::<DeviceError>())?;
    Ok(())
}
