//! An error as the user reads it: `error: …`, one `Caused by: …` line per cause and the first
//! `hint: …` found ([`format_error`]), shared by the `warpsight` binary and the Python package.
//!
//! Hints come from one trait, [`Hint`]: every library error with advice for the user implements
//! it. A trait object cannot be asked for another trait, so the library error types are listed in
//! [`hint_of`], and the caller names its own error type through [`ErrorText::own_hint`].

use std::borrow::Cow;
use std::error::Error;

use warpsight_ingest::Hint;

/// How [`format_error`] writes an error.
pub struct ErrorText<'a> {
    /// Colour the `error`, `Caused by` and `hint` labels with ANSI escapes.
    pub color: bool,
    /// How to see a library's full details, said when its message is a `Debug` dump (`run with
    /// -v` for the binary).
    pub details: &'a str,
    /// The caller's own error type as a [`Hint`], when a cause is one.
    pub own_hint: &'a dyn for<'e> Fn(&'e (dyn Error + 'static)) -> Option<&'e dyn Hint>,
}

/// Formats an error chain as `error: …`, `  Caused by: …` lines (each cause once, its first line
/// only) and the first hint found from the outermost cause inwards, `hint: …`.
pub fn format_error(error: &(dyn Error + 'static), text: &ErrorText<'_>) -> String {
    let (red, yellow, cyan, bold, reset) = if text.color {
        ("\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[1m", "\x1b[0m")
    } else {
        ("", "", "", "", "")
    };
    let top = printable(&error.to_string());
    let mut out = format!("{red}{bold}error{reset}: {top}\n");
    let mut hint: Option<Cow<'_, str>> = None;
    // A cause said once: libraries often wrap an error in one that repeats its message (a SQLite
    // error came out four times).
    let mut said = vec![one_line(&top, text.details)];
    let mut next = Some(error);
    let mut depth = 0;
    while let Some(cause) = next {
        // The first hint found, from the outermost cause inwards, is the one printed.
        hint = hint.or_else(|| {
            (text.own_hint)(cause)
                .and_then(|own| own.hint())
                .or_else(|| hint_of(cause))
        });
        next = cause.source();
        depth += 1;
        if depth == 1 {
            continue;
        }
        let line = one_line(&cause.to_string(), text.details);
        if said.contains(&line) {
            continue;
        }
        out.push_str(&format!("  {yellow}Caused by{reset}: {line}\n"));
        said.push(line);
    }
    if let Some(hint) = hint {
        out.push_str(&format!("{cyan}{bold}hint{reset}: {}\n", printable(&hint)));
    }
    out
}

/// The hint of one cause of an error chain when it is one of the libraries' errors that implement
/// [`Hint`]. Errors that wrap another one transparently return the wrapped error's hint themselves.
pub fn hint_of<'a>(cause: &'a (dyn Error + 'static)) -> Option<Cow<'a, str>> {
    /// `cause` as a [`Hint`] when it is a `T`.
    fn as_hint<'a, T: Hint + Error + 'static>(
        cause: &'a (dyn Error + 'static),
    ) -> Option<&'a dyn Hint> {
        cause.downcast_ref::<T>().map(|error| error as &dyn Hint)
    }
    let hinted = [
        as_hint::<warpsight_ingest::IngestError>,
        as_hint::<warpsight_ingest::batch::ExpandError>,
        as_hint::<warpsight_model::ModelError>,
        as_hint::<crate::analysis::AnalysisError>,
    ];
    hinted.iter().find_map(|as_hint| as_hint(cause))?.hint()
}

/// The first line of a cause's message, without what follows it (polars appends its query plan
/// after the message), and with a library's `Debug` dump (`Error { source_location: … }`)
/// replaced by a sentence that says how to see it (`details`): the user sees one line per cause,
/// the details go to the log.
fn one_line(message: &str, details: &str) -> String {
    let message = printable(message);
    let message = message.as_str();
    let first = message.lines().next().unwrap_or_default().trim_end();
    let first = first.strip_suffix(';').unwrap_or(first);
    if message.lines().nth(1).is_some() {
        tracing::debug!(message, "full error message");
    }
    if looks_like_debug(first) {
        tracing::debug!(message, "error in Debug form");
        return format!("the data is malformed ({details} for the library's details)");
    }
    first.to_string()
}

/// `text` without terminal control characters: a byte of a binary input quoted in a message
/// (its "first line") is shown as `\u{1b}`, never sent to the terminal. Line breaks and tabs stay.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// True when `text` is a `Debug` dump of a struct, `Name { field: … }`, rather than a sentence.
fn looks_like_debug(text: &str) -> bool {
    let Some((name, rest)) = text.split_once(" { ") else {
        return false;
    };
    let name = name.rsplit([' ', ':']).next().unwrap_or(name);
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && rest.contains(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No error type of the caller's own.
    fn plain() -> ErrorText<'static> {
        ErrorText {
            color: false,
            details: "run with -v",
            own_hint: &|_| None,
        }
    }

    /// An error with a message and an optional cause.
    #[derive(Debug, thiserror::Error)]
    #[error("{0}")]
    struct Wrapped(String, #[source] Option<Box<Wrapped>>);

    /// One error caused by the next.
    fn chain_of(messages: &[&str]) -> Wrapped {
        let mut error: Option<Wrapped> = None;
        for message in messages.iter().rev() {
            error = Some(Wrapped(message.to_string(), error.map(Box::new)));
        }
        error.unwrap_or_else(|| Wrapped(String::new(), None))
    }

    #[test]
    fn query_plans_and_debug_dumps_are_not_printed() {
        let plan = "unable to find column \"start\"; valid columns: [\"end\"]\n\nResolved plan until failure:\n\n\t---> FAILED HERE RESOLVING 'sink' <---\nDF [\"end\"]";
        assert_eq!(
            one_line(plan, "run with -v"),
            "unable to find column \"start\"; valid columns: [\"end\"]"
        );
        let dump = "Error { source_location: SourceLocation { file: \"x.rs\" }, kind: Oos }";
        assert_eq!(
            one_line(dump, "run the CLI with -v"),
            "the data is malformed (run the CLI with -v for the library's details)"
        );
        assert_eq!(
            one_line("parquet: File out of specification: { bad }", "run with -v"),
            "parquet: File out of specification: { bad }"
        );
        let error = chain_of(&["`a.sqlite`: cannot read", plan]);
        assert_eq!(format_error(&error, &plain()).lines().count(), 2);
    }

    #[test]
    fn repeated_causes_are_printed_once_and_colours_only_when_asked() {
        let error = chain_of(&["`a.sqlite`: cannot read", "locked", "locked"]);
        assert_eq!(
            format_error(&error, &plain()),
            "error: `a.sqlite`: cannot read\n  Caused by: locked\n"
        );
        let coloured = ErrorText {
            color: true,
            ..plain()
        };
        assert!(format_error(&error, &coloured).starts_with("\x1b[31m\x1b[1merror\x1b[0m: "));
    }

    #[test]
    fn the_callers_own_hint_comes_first() {
        /// A caller's error with a hint.
        #[derive(Debug, thiserror::Error)]
        #[error("own")]
        struct Own;
        impl Hint for Own {
            fn hint(&self) -> Option<Cow<'_, str>> {
                Some(Cow::Borrowed("do this"))
            }
        }
        let text = ErrorText {
            own_hint: &|cause| cause.downcast_ref::<Own>().map(|own| own as &dyn Hint),
            ..plain()
        };
        assert_eq!(format_error(&Own, &text), "error: own\nhint: do this\n");
        assert_eq!(format_error(&Own, &plain()), "error: own\n");
    }
}
