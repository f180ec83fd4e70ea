//! Where warpsight's tests find their data, and how they say so when it is missing.
//!
//! Two kinds of data feed the tests:
//!
//! - the project's own exports in `traces/` (capture-kit pages, `.ncu-rep` reports, the PyTorch
//!   layers), which a clone always has: [`traces_dir`];
//! - exports that *other people* made, kept beside the checkout in `../shared/traces` and read in
//!   place, never copied into the project: [`shared_traces`] and [`shared_reference`].
//!
//! A test that needs the second kind asks for it through [`shared_traces`] (or
//! [`shared_reference`]), which returns `None` when the folder is not there. The test then returns
//! early, and the skip is recorded: when the test binary exits, one line on stderr says how many
//! tests skipped their third-party checks and why. Nothing passes silently. With
//! `WARPSIGHT_REQUIRE_SHARED=1` (set by `.ci/run`) a missing folder is a test failure instead.
//!
//! The crate has no dependencies, so the polars-free `.ncu-rep` decoder can use it too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The environment variable that turns a missing `../shared` into a failure (`.ci/run` sets it).
pub const REQUIRE_SHARED: &str = "WARPSIGHT_REQUIRE_SHARED";

/// The workspace root (two levels above this crate: `core/test-corpus`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// The project's own `traces/` folder (always present in a clone).
pub fn traces_dir() -> PathBuf {
    workspace_root().join("traces")
}

/// `../shared` beside the checkout, whether or not it exists.
pub fn shared_dir() -> PathBuf {
    workspace_root().join("../shared")
}

/// `../shared/traces` (real exports from public repositories, see its `MANIFEST.md`), or `None`
/// after recording that the calling test skipped its checks (a failure under
/// [`REQUIRE_SHARED`]).
#[track_caller]
pub fn shared_traces() -> Option<PathBuf> {
    shared_subdir("traces")
}

/// `../shared/reference` (the project's reference tables), or `None` after recording the skip, as
/// [`shared_traces`] does.
#[track_caller]
pub fn shared_reference() -> Option<PathBuf> {
    shared_subdir("reference")
}

/// `../shared/<name>` if it is a folder; else records the skip, or panics under
/// [`REQUIRE_SHARED`].
#[track_caller]
fn shared_subdir(name: &str) -> Option<PathBuf> {
    let dir = shared_dir().join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    let required = std::env::var_os(REQUIRE_SHARED).is_some_and(|v| !v.is_empty() && v != "0");
    if required {
        panic!(
            "{} is missing and {REQUIRE_SHARED} is set: the third-party exports must be beside \
             the checkout (`../shared/{name}`)",
            dir.display()
        );
    }
    record_skip(name);
    None
}

/// The tests that skipped, by name (libtest names each test's thread after the test), and the
/// folders they missed.
static SKIPPED: Mutex<(BTreeSet<String>, BTreeSet<String>)> =
    Mutex::new((BTreeSet::new(), BTreeSet::new()));

/// Records one skipped test and, the first time, arranges for the summary line at exit.
#[track_caller]
fn record_skip(folder: &str) {
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: `atexit` is the C library's, called with a function of the right signature
        // that never unwinds (it catches every panic itself); registering can only fail for lack
        // of memory, in which case the summary is not printed and nothing else changes.
        unsafe {
            atexit(print_skip_summary);
        }
    });
    let test = std::thread::current()
        .name()
        .map(str::to_string)
        .unwrap_or_else(|| std::panic::Location::caller().to_string());
    let mut skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    skipped.0.insert(test);
    skipped.1.insert(format!("../shared/{folder}"));
}

unsafe extern "C" {
    /// The C library's `atexit`: runs `f` when the process exits normally (after libtest's last
    /// line, outside its output capture).
    fn atexit(f: extern "C" fn()) -> i32;
}

/// Prints the one line that says how many tests skipped their third-party checks and why.
extern "C" fn print_skip_summary() {
    let _ = std::panic::catch_unwind(|| {
        let skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(line) = skip_summary(&skipped.0, &skipped.1) {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    });
}

/// The summary line for `tests` that missed `folders`, or `None` if none skipped.
fn skip_summary(tests: &BTreeSet<String>, folders: &BTreeSet<String>) -> Option<String> {
    if tests.is_empty() {
        return None;
    }
    let folders: Vec<&str> = folders.iter().map(String::as_str).collect();
    let plural = if tests.len() == 1 { "" } else { "s" };
    Some(format!(
        "warning: {} test{plural} skipped their third-party-export checks: {} not found beside \
         the checkout (these exports are never copied into the project; set {REQUIRE_SHARED}=1 \
         to make this a failure): {}",
        tests.len(),
        folders.join(", "),
        tests
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_tests_and_names_the_folder() {
        let tests: BTreeSet<String> = ["a::one", "b::two"].map(String::from).into();
        let folders: BTreeSet<String> = ["../shared/traces".to_string()].into();
        let line = skip_summary(&tests, &folders).expect("a line");
        assert!(line.starts_with("warning: 2 tests skipped"), "{line}");
        assert!(line.contains("../shared/traces not found"), "{line}");
        assert!(line.contains("a::one, b::two"), "{line}");
        assert_eq!(skip_summary(&BTreeSet::new(), &folders), None);
    }

    #[test]
    fn the_project_traces_are_in_the_clone() {
        assert!(
            traces_dir().join("README.md").is_file(),
            "{}",
            traces_dir().display()
        );
        assert!(traces_dir().join("ncu-rep/copy_basic.ncu-rep").is_file());
    }
}
