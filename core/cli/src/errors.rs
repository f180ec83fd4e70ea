//! Error printing in the `error:` / `Caused by:` / `hint:` style, and the colour decision.

use std::io::IsTerminal;

use super::ColorChoice;

/// A hint attached to an error, printed as `hint: ...` after the cause chain.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Hinted {
    /// The error message.
    pub message: String,
    /// The hint.
    pub hint: String,
    /// The underlying error, if any.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
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

/// Formats an error chain as `error: ...`, `  Caused by: ...` lines and an optional `hint: ...`.
pub fn format_error(err: &anyhow::Error, color: bool) -> String {
    let (red, yellow, cyan, bold, reset) = if color {
        ("\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[1m", "\x1b[0m")
    } else {
        ("", "", "", "", "")
    };
    let top = printable(&err.to_string());
    let mut out = format!("{red}{bold}error{reset}: {top}\n");
    let mut hint: Option<String> = None;
    for cause in err.chain() {
        if hint.is_none() {
            if let Some(h) = cause.downcast_ref::<Hinted>() {
                hint = Some(h.hint.clone());
            } else if let Some(e) = cause.downcast_ref::<warpsight_ingest::IngestError>() {
                hint = e.hint().map(str::to_string);
            } else if let Some(e) = cause.downcast_ref::<warpsight_ingest::batch::ExpandError>() {
                hint = Some(expand_hint(e).to_string());
            } else if let Some(warpsight_report::analysis::AnalysisError::Ingest(e)) =
                cause.downcast_ref::<warpsight_report::analysis::AnalysisError>()
            {
                // The analysis wraps a read error transparently: its hint is the reader's.
                hint = e.hint().map(str::to_string);
            }
        }
    }
    // A cause said once: libraries often wrap an error in one that repeats its message (a SQLite
    // error came out four times).
    let mut said = vec![one_line(&top)];
    for cause in err.chain().skip(1) {
        let line = one_line(&cause.to_string());
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

/// The hint for inputs that could not be expanded into files.
fn expand_hint(error: &warpsight_ingest::batch::ExpandError) -> &'static str {
    use warpsight_ingest::batch::ExpandError;
    match error {
        ExpandError::Pattern { .. } => {
            "a glob pattern takes `*`, `?` and `[...]`; quote it so that the shell leaves it to \
             warpsight"
        }
        ExpandError::NoMatch(_) => {
            "give the exports' files, directories or glob patterns (relative paths start at the \
             current directory)"
        }
        ExpandError::ReadDir { .. } => "check that the directory exists and can be read",
    }
}

/// The first line of a cause's message, without what follows it (polars appends its query plan
/// after the message), and with a library's `Debug` dump (`Error { source_location: … }`)
/// replaced by a sentence: the user sees one line per cause, the details go to the log.
fn one_line(message: &str) -> String {
    let message = printable(message);
    let message = message.as_str();
    let first = message.lines().next().unwrap_or_default().trim_end();
    let first = first.strip_suffix(';').unwrap_or(first);
    if message.lines().nth(1).is_some() {
        tracing::debug!(message, "full error message");
    }
    if looks_like_debug(first) {
        tracing::debug!(message, "error in Debug form");
        return "the data is malformed (run with -v for the library's details)".to_string();
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

/// True when an I/O error of `err`'s chain is a broken pipe (stdout's reader went away).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
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
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
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
pub fn internal_error() -> Hinted {
    let message = LAST_PANIC.lock().ok().and_then(|last| last.clone());
    Hinted {
        message: format!(
            "internal error: {}",
            message.as_deref().unwrap_or("a panic without a message")
        ),
        hint: "this is a bug in warpsight; please report it with the command line and the input"
            .to_string(),
        source: None,
    }
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
        let inner = Hinted {
            message: "inner".into(),
            hint: "do this".into(),
            source: None,
        };
        let err = anyhow::Error::new(inner).context("outer");
        let text = format_error(&err, false);
        assert_eq!(text, "error: outer\n  Caused by: inner\nhint: do this\n");
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
        assert_eq!(
            one_line(plan),
            "unable to find column \"start\"; valid columns: [\"end\"]"
        );
        let dump = "Error { source_location: SourceLocation { file: \"x.rs\" }, kind: Oos }";
        assert_eq!(
            one_line(dump),
            "the data is malformed (run with -v for the library's details)"
        );
        assert_eq!(
            one_line("parquet: File out of specification: { bad }"),
            "parquet: File out of specification: { bad }"
        );
        let err = anyhow::Error::msg(plan.to_string()).context("`a.sqlite`: cannot read");
        assert_eq!(format_error(&err, false).lines().count(), 2);
        let dump = anyhow::Error::msg(dump.to_string()).context("`a.parquet`: cannot read");
        assert!(!format_error(&dump, false).contains("source_location"));
    }
}
