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
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
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
    let mut out = format!("{red}{bold}error{reset}: {err}\n");
    let mut hint: Option<String> = None;
    for cause in err.chain() {
        if hint.is_none() {
            if let Some(h) = cause.downcast_ref::<Hinted>() {
                hint = Some(h.hint.clone());
            } else if let Some(e) = cause.downcast_ref::<warpsight_ingest::IngestError>() {
                hint = e.hint().map(str::to_string);
            }
        }
    }
    for cause in err.chain().skip(1) {
        out.push_str(&format!("  {yellow}Caused by{reset}: {cause}\n"));
    }
    if let Some(hint) = hint {
        out.push_str(&format!("{cyan}{bold}hint{reset}: {hint}\n"));
    }
    out
}

/// Prints an error chain on stderr.
pub fn print_error(err: &anyhow::Error, color: bool) {
    eprint!("{}", format_error(err, color));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_and_hints_are_printed_in_order() {
        let inner = Hinted { message: "inner".into(), hint: "do this".into(), source: None };
        let err = anyhow::Error::new(inner).context("outer");
        let text = format_error(&err, false);
        assert_eq!(text, "error: outer\n  Caused by: inner\nhint: do this\n");
    }
}
