//! The command-line contract of issue #14 item 5, one row per bad invocation: it exits non-zero,
//! prints one `error:` line, and a `hint:` where a fix exists. Rows are added as the contract grows.

use std::process::Command;

/// One bad invocation and what it must print.
struct Case {
    args: &'static [&'static str],
    exit: i32,
    hint: bool,
}

const CASES: &[Case] = &[
    Case { args: &["--plugin-dir", "/nonexistent/warpsight", "archs"], exit: 2, hint: true },
    Case { args: &["analyze", "/nonexistent/warpsight.csv"], exit: 2, hint: false },
    Case { args: &["ingest", "/nonexistent/warpsight.csv", "-o", "/tmp/unused.csv"], exit: 2, hint: false },
    Case { args: &["inspect", "/nonexistent/warpsight.csv"], exit: 2, hint: true },
    Case {
        args: &["ingest", "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv", "-o", "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv"],
        exit: 2,
        hint: true,
    },
    Case { args: &["ingest", "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv", "-o", "/tmp/warpsight-contract.xyz"], exit: 2, hint: true },
    Case { args: &["analyze", "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv", "-o", "/tmp/warpsight-contract.xyz"], exit: 2, hint: true },
    Case { args: &["occupancy", "--cc", "9.0", "--block-size", "0", "--registers", "32"], exit: 2, hint: true },
    Case { args: &["occupancy", "--cc", "9.0", "--block-size", "2000", "--registers", "32"], exit: 2, hint: true },
    Case { args: &["occupancy", "--cc", "9.0", "--block-size", "128", "--registers", "300"], exit: 2, hint: true },
    Case { args: &["occupancy", "--cc", "9.0", "--block-size", "128", "--registers", "32", "--dynamic-smem", "1M"], exit: 2, hint: true },
];

#[test]
fn bad_invocations_exit_non_zero_with_an_error_and_a_hint() -> Result<(), Box<dyn std::error::Error>> {
    for case in CASES {
        let output = Command::new(env!("CARGO_BIN_EXE_warpsight"))
            .current_dir(warpsight_test_support::paths::workspace_root())
            .args(case.args)
            .env("NO_COLOR", "1")
            .env_remove("WARPSIGHT_PLUGIN_PATH")
            .env_remove("RUST_BACKTRACE")
            .output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(case.exit), "{:?}: {stderr}", case.args);
        assert_eq!(stderr.matches("error:").count(), 1, "{:?}: {stderr}", case.args);
        assert_eq!(stderr.contains("hint:"), case.hint, "{:?}: {stderr}", case.args);
        assert!(!stderr.contains("panicked"), "{:?}: {stderr}", case.args);
    }
    Ok(())
}
