//! Error printing in the `error:` / `Caused by:` / `hint:` style, the binary's own error
//! ([`CliError`]), and the colour decision.
//!
//! Hints come from one trait, [`Hint`]: every library error with advice for the user implements
//! it, and so does [`CliError`]. [`format_error`] walks the cause chain once
//! ([`warpsight_report::error_text`]) and asks each cause for its hint; the first hint found is
//! printed.

use std::borrow::Cow;
use std::error::Error;
use std::io::IsTerminal;

use super::ColorChoice;
use warpsight_ingest::Hint;
use warpsight_report::error_text::ErrorText;

/// A failure of the binary itself (an argument refused, an output that cannot be written, no
/// plugin loaded): its message, the hint printed after the cause chain, and the underlying error
/// if any.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct CliError {
    /// What went wrong.
    message: String,
    /// What to do about it.
    hint: String,
    /// The underlying error, if any.
    #[source]
    source: Option<Box<dyn Error + Send + Sync + 'static>>,
}

impl CliError {
    /// An error with its message and hint, and no underlying error.
    pub(crate) fn new(message: impl Into<String>, hint: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            hint: hint.into(),
            source: None,
        }
    }

    /// The same error caused by `source` (printed as a `Caused by:` line).
    pub(crate) fn with_source(self, source: impl Error + Send + Sync + 'static) -> Self {
        CliError {
            source: Some(Box::new(source)),
            ..self
        }
    }
}

impl Hint for CliError {
    fn hint(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(&self.hint))
    }
}

/// Whether to colour stderr output: `always`, `never`, or on a TTY when `NO_COLOR` is unset.
pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stderr().is_terminal()
        }
    }
}

/// Formats an error chain as `error: ...`, `  Caused by: ...` lines and an optional `hint: ...`
/// ([`warpsight_report::error_text::format_error`], with [`CliError`]'s hints).
pub fn format_error(err: &anyhow::Error, color: bool) -> String {
    let text = ErrorText {
        color,
        details: "run with -v",
        own_hint: &|cause| cause.downcast_ref::<CliError>().map(|own| own as &dyn Hint),
    };
    warpsight_report::error_text::format_error(err.as_ref(), &text)
}

/// True when an I/O error of `err`'s chain is a broken pipe (stdout's reader went away).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The panic message recorded by the hook of [`install_panic_hook`], with its location.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Replaces Rust's panic printing by a record of the message: a panic is reported as an `error:`
/// by whoever catches it (the per-file boundary of the readers, or `main`). With `RUST_BACKTRACE`
/// set, the default printing is kept for debugging.
pub fn install_panic_hook() {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let message = warpsight_ingest::panic_text(info.payload());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        let text = format!("{message}{}", location.unwrap_or_default());
        tracing::debug!(panic = %text, "panic caught");
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(text);
        }
    }));
}

/// The error for a panic that reached `main`.
pub(crate) fn internal_error() -> CliError {
    let message = LAST_PANIC.lock().ok().and_then(|last| last.clone());
    CliError::new(
        format!(
            "internal error: {}",
            message.as_deref().unwrap_or("a panic without a message")
        ),
        "this is a bug in warpsight; please report it with the command line and the input",
    )
}

/// Prints an error chain on stderr.
pub fn print_error(err: &anyhow::Error, color: bool) {
    crate::output_file::eprint(&format_error(err, color));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_and_hints_are_printed_in_order() {
        let inner = CliError::new("inner", "do this");
        let err = anyhow::Error::new(inner).context("outer");
        let text = format_error(&err, false);
        assert_eq!(text, "error: outer\n  Caused by: inner\nhint: do this\n");
    }

    #[test]
    fn library_hints_are_found_through_transparent_wrappers() {
        use warpsight_model::ModelError;
        use warpsight_report::analysis::AnalysisError;
        let unknown = |known: &[&str]| {
            let error = AnalysisError::Model(ModelError::UnknownDevice {
                name: "GeForce 256".into(),
                known: known.iter().map(|name| name.to_string()).collect(),
            });
            format_error(&anyhow::Error::new(error), false)
        };
        assert_eq!(
            unknown(&["NVIDIA H100 PCIe", "NVIDIA L4"]),
            "error: no loaded plugin provides the device `GeForce 256`\n\
             hint: known devices: NVIDIA H100 PCIe, NVIDIA L4 (see `warpsight devices`)\n"
        );
        assert!(unknown(&[]).ends_with(
            "hint: no device is known: load the architecture plugins with --plugin-dir\n"
        ));
    }

    #[test]
    fn repeated_causes_are_printed_once() {
        let err = anyhow::Error::msg("database is locked")
            .context("database is locked")
            .context("database is locked")
            .context("`a.sqlite`: cannot read");
        let text = format_error(&err, false);
        assert_eq!(
            text,
            "error: `a.sqlite`: cannot read\n  Caused by: database is locked\n"
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        let err = anyhow::Error::msg("first line: `\u{1b}[2J\u{7f}ELF`");
        let text = format_error(&err, false);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7f}'),
            "{text}"
        );
    }

    #[test]
    fn query_plans_and_debug_dumps_are_not_printed() {
        let plan = "unable to find column \"start\"; valid columns: [\"end\"]\n\nResolved plan until failure:\n\n\t---> FAILED HERE RESOLVING 'sink' <---\nDF [\"end\"]";
        let err = anyhow::Error::msg(plan.to_string()).context("`a.sqlite`: cannot read");
        assert_eq!(
            format_error(&err, false),
            "error: `a.sqlite`: cannot read\n  Caused by: unable to find column \"start\"; valid columns: [\"end\"]\n"
        );
        let dump = "Error { source_location: SourceLocation { file: \"x.rs\" }, kind: Oos }";
        let dump = anyhow::Error::msg(dump.to_string()).context("`a.parquet`: cannot read");
        assert_eq!(
            format_error(&dump, false),
            "error: `a.parquet`: cannot read\n  Caused by: the data is malformed (run with -v for the library's details)\n"
        );
    }
}
