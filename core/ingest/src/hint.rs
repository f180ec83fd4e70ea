//! The [`Hint`] trait: what an error tells the user to do about it.
//!
//! Every library error that has advice for the user implements it (this crate's [`IngestError`]
//! and [`ExpandError`], the model's and the report's errors), and so does the binary's own error.
//! The binary walks an error's cause chain once and prints the first hint found as `hint: ...`
//! after the `error:` and `Caused by:` lines.
//!
//! [`IngestError`]: crate::IngestError
//! [`ExpandError`]: crate::batch::ExpandError

use std::borrow::Cow;

/// Advice for the user about an error: what to run, pass or check instead.
///
/// An implementor's `Display` says what went wrong; its hint says what to do about it, in one
/// sentence without a trailing full stop. Errors that wrap another error transparently return
/// the wrapped error's hint.
///
/// ```
/// use warpsight_ingest::Hint;
/// use warpsight_ingest::batch::ExpandError;
///
/// let error = ExpandError::NoMatch("missing.csv".to_string());
/// assert!(error.hint().is_some_and(|hint| hint.contains("glob patterns")));
/// ```
pub trait Hint {
    /// The hint for this error, or `None` when there is nothing more to say than its message.
    fn hint(&self) -> Option<Cow<'_, str>>;
}
