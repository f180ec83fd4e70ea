//! Logging setup: `tracing` to stderr, level from `-v`/`-q`, overridden by `RUST_LOG`.

use tracing_subscriber::EnvFilter;

use super::GlobalArgs;

/// Installs the global subscriber. Safe to call more than once (later calls do nothing).
pub fn init(global: &GlobalArgs) {
    let default = match (global.quiet, global.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let ansi = super::errors::use_color(global.color);
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // A log line that cannot be written is recorded, never printed about (tracing's own
        // report of it would panic on an unwritable stderr).
        .with_writer(|| crate::output_file::Stderr)
        .log_internal_errors(false)
        .with_ansi(ansi)
        .without_time()
        .with_target(false)
        .try_init();
}
