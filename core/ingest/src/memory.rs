//! The process's resident memory, for debug logs at the stages of a large run (`-v`): Linux's
//! `/proc/self/status` gives the current (`VmRSS`) and peak (`VmHWM`) resident set. Elsewhere
//! nothing is logged.

/// When the first stage was logged (the time origin of the log lines).
static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Logs the current and peak resident memory at `stage`, with the seconds since the first logged
/// stage, at debug level.
pub fn log_stage(stage: &str) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let seconds = START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64();
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return;
    };
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    };
    if let (Some(rss), Some(peak)) = (field("VmRSS:"), field("VmHWM:")) {
        tracing::debug!(
            "memory after {stage} ({seconds:.3} s): {} MB resident, {} MB peak",
            rss / 1024,
            peak / 1024
        );
    }
}
