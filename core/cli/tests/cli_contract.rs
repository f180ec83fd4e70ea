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
    Case {
        args: &["--plugin-dir", "/nonexistent/warpsight", "archs"],
        exit: 2,
        hint: true,
    },
    Case {
        args: &["analyze", "/nonexistent/warpsight.csv"],
        exit: 2,
        hint: false,
    },
    Case {
        args: &[
            "ingest",
            "/nonexistent/warpsight.csv",
            "-o",
            "/tmp/unused.csv",
        ],
        exit: 2,
        hint: false,
    },
    Case {
        args: &["inspect", "/nonexistent/warpsight.csv"],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "ingest",
            "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
            "-o",
            "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "ingest",
            "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
            "-o",
            "/tmp/warpsight-contract.xyz",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "analyze",
            "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
            "-o",
            "/tmp/warpsight-contract.xyz",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "occupancy",
            "--cc",
            "9.0",
            "--block-size",
            "0",
            "--registers",
            "32",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "occupancy",
            "--cc",
            "9.0",
            "--block-size",
            "2000",
            "--registers",
            "32",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "occupancy",
            "--cc",
            "9.0",
            "--block-size",
            "128",
            "--registers",
            "300",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "occupancy",
            "--cc",
            "9.0",
            "--block-size",
            "128",
            "--registers",
            "32",
            "--dynamic-smem",
            "1M",
        ],
        exit: 2,
        hint: true,
    },
];

#[test]
fn bad_invocations_exit_non_zero_with_an_error_and_a_hint() -> Result<(), Box<dyn std::error::Error>>
{
    for case in CASES {
        let output = Command::new(env!("CARGO_BIN_EXE_warpsight"))
            .current_dir(warpsight_test_support::paths::workspace_root())
            .args(case.args)
            .env("NO_COLOR", "1")
            .env_remove("WARPSIGHT_PLUGIN_PATH")
            .env_remove("RUST_BACKTRACE")
            .output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(case.exit),
            "{:?}: {stderr}",
            case.args
        );
        assert_eq!(
            stderr.matches("error:").count(),
            1,
            "{:?}: {stderr}",
            case.args
        );
        assert_eq!(
            stderr.contains("hint:"),
            case.hint,
            "{:?}: {stderr}",
            case.args
        );
        assert!(!stderr.contains("panicked"), "{:?}: {stderr}", case.args);
    }
    Ok(())
}

/// Writes the 12-launch warpsight launch table of the ingest mutation loop
/// (`core/ingest/tests/mutants.rs`) to `dir/name` with one byte changed, and returns its path.
fn damaged_table(
    dir: &std::path::Path,
    name: &str,
    offset: usize,
    value: u8,
) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};
    let csv = dir.join("trace.csv");
    write_gpu_trace_csv(
        &csv,
        &SyntheticConfig {
            launches: 12,
            memcpy_every: 4,
            schema: Schema::New,
        },
    )?;
    let mut launches =
        warpsight_ingest::read_path(&csv, &warpsight_ingest::ReadConfig::default())?.launches;
    let path = dir.join(name);
    warpsight_ingest::native::write(&mut launches, &path)?;
    let mut bytes = std::fs::read(&path)?;
    *bytes
        .get_mut(offset)
        .ok_or("the table is shorter than the offset")? = value;
    std::fs::write(&path, bytes)?;
    Ok(path)
}

/// Issue #14: damaged binary inputs print one `error:` naming the file, causes without a library's
/// `Debug` dump, and a hint; a panic inside polars' Parquet reader is an error, not a crash; a
/// length that made polars abort the process is refused, naming the piece of the file.
#[test]
fn damaged_parquet_and_arrow_files_are_reported_in_sentences()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    // Byte 6 065 = 0x19 makes polars' Parquet decoder panic on a page's values; byte 18 939 = 0x42
    // of the Arrow file gave a flatbuffers error printed as `Error { source_location: … }` (now the
    // container check's sentence); bytes 3 574 = 0xeb (Arrow) and 6 108 = 0x1d (Parquet) made
    // polars ask for an absurd allocation, which aborted the process: each is now refused by the
    // container check, saying what is wrong where.
    let cases = [
        (
            damaged_table(dir.path(), "panics.parquet", 6_065, 0x19)?,
            true,
            "unreadable",
        ),
        (
            damaged_table(dir.path(), "dump.arrow", 18_939, 0x42)?,
            false,
            "damaged Arrow IPC file: footer",
        ),
        (
            damaged_table(dir.path(), "aborted.arrow", 3_574, 0xeb)?,
            false,
            "damaged Arrow IPC file: record batch 0 (block at byte 3160), buffer 16: claims 66146619527004181 bytes",
        ),
        (
            damaged_table(dir.path(), "aborted.parquet", 6_108, 0x1d)?,
            false,
            "damaged Parquet file: row group 0, column `inst_fmul`, page 0 (byte 6100): it claims -15 values",
        ),
    ];
    for (path, internal, what) in &cases {
        let output = Command::new(env!("CARGO_BIN_EXE_warpsight"))
            .arg("inspect")
            .arg(path)
            .env("NO_COLOR", "1")
            .env_remove("WARPSIGHT_PLUGIN_PATH")
            .env_remove("RUST_BACKTRACE")
            .output()?;
        // `inspect` reports an unreadable file in its table (stdout) and fails the command with
        // one `error:` line (stderr).
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or("no file name")?;
        assert!(!output.status.success(), "{name}: {stdout}{stderr}");
        assert_eq!(stderr.matches("error:").count(), 1, "{name}: {stderr}");
        assert!(
            stdout.contains(name) && stdout.contains("hint:"),
            "{name}: {stdout}"
        );
        let printed = format!("{stdout}{stderr}");
        assert!(
            !printed.contains(" { ") && !printed.contains("panicked"),
            "{name}: {printed}"
        );
        assert_eq!(
            printed.contains("internal error"),
            *internal,
            "{name}: {printed}"
        );
        assert!(printed.contains(what), "{name}: {printed}");
    }
    Ok(())
}
