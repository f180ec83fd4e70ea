//! The measurement the benchmarks share: one child process run to its end, with its wall time,
//! CPU time and peak RSS (`wait4`'s `rusage`).

use std::process::{Command, Stdio};
use std::time::Instant;

/// Wall time, CPU time and peak RSS of one run.
pub struct Run {
    pub wall_s: f64,
    /// User plus system CPU time of the child (less sensitive than the wall time to other work
    /// on the machine).
    pub cpu_s: f64,
    pub peak_rss_bytes: u64,
}

/// Runs `command` with stdout discarded and returns its wall time, CPU time and peak RSS.
pub fn run_once(mut command: Command) -> Result<Run, Box<dyn std::error::Error>> {
    let start = Instant::now();
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = libc::pid_t::try_from(child.id())?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; both pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_s = start.elapsed().as_secs_f64();
    if waited != pid {
        return Err(format!("wait4 failed: {}", std::io::Error::last_os_error()).into());
    }
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr {
        use std::io::Read;
        pipe.read_to_string(&mut stderr)?;
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("{command:?} failed: {stderr}").into());
    }
    // Linux reports `ru_maxrss` in KiB.
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(Run {
        wall_s,
        cpu_s: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        peak_rss_bytes: u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
    })
}
