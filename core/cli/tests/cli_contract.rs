//! The command-line contract of issue #14 item 5, one row per bad invocation: it exits non-zero,
//! prints one `error:` line, and a `hint:` where a fix exists. Rows are added as the contract grows.
//! Issue #28 adds the environment faults of the CLI: an output that is an input (or lies in an
//! input directory) is refused and the input left intact, a failed run leaves the previous output
//! as it was, and stdout or stderr on `/dev/full` or a closed pipe end without a panic.

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
        hint: true,
    },
    Case {
        args: &[
            "ingest",
            "/nonexistent/warpsight.csv",
            "-o",
            "/tmp/unused.csv",
        ],
        exit: 2,
        hint: true,
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
    // Issue #28: every numeric flag against the architecture's real limits.
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
            "200K",
            "--smem-config",
            "999999999",
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
            "--smem-config",
            "1",
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
            "--barriers",
            "1000",
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
            "--barriers",
            "0",
        ],
        exit: 2,
        hint: true,
    },
    Case {
        args: &[
            "occupancy",
            "--cc",
            "8.0",
            "--block-size",
            "1025",
            "--registers",
            "32",
        ],
        exit: 2,
        hint: true,
    },
    // The report is HTML: another extension is refused before anything is read.
    Case {
        args: &[
            "report",
            "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
            "-o",
            "/tmp/warpsight-contract.xyz",
        ],
        exit: 2,
        hint: true,
    },
    // A format mismatch is one error (ingest printed the file's error and a summary).
    Case {
        args: &[
            "ingest",
            "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv",
            "--input-format",
            "ncu-details",
            "-o",
            "/tmp/warpsight-contract-mismatch.parquet",
        ],
        exit: 2,
        hint: true,
    },
    // `analyze` gives the hint `inspect` gives for a file that is not an export.
    Case {
        args: &["analyze", "README.md"],
        exit: 2,
        hint: true,
    },
    // A usage error clap reports ends in a hint too.
    Case {
        args: &["analyze", "--no-such-flag", "README.md"],
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
        assert!(
            !stderr.contains("internal error") && !stderr.contains(" { "),
            "{:?}: {stderr}",
            case.args
        );
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
    if name.ends_with(".parquet") {
        // polars' own batched writer: the offsets are the ones core/ingest/tests/mutants.rs found
        // in a Parquet file as polars writes it (warpsight's own writer, `native::ParquetBatches`
        // since issue #27, lays the pages out differently).
        launches.rechunk_mut();
        let mut writer = polars::prelude::ParquetWriter::new(std::fs::File::create(&path)?)
            .batched(launches.schema())?;
        writer.write_batch(&launches)?;
        writer.finish()?;
    } else {
        warpsight_ingest::native::write(&mut launches, &path)?;
    }
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

/// A real export, copied into the temporary directories of the environment-fault tests.
const SGEMM: &str = "traces/h100-80gb-hbm3/sgemm.ncu-raw.csv";

/// The `warpsight` command with the contract's environment, run from the workspace root.
fn warpsight(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpsight"));
    command
        .current_dir(warpsight_test_support::paths::workspace_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("WARPSIGHT_PLUGIN_PATH")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LOG");
    command
}

/// Copies the sgemm export to `dir/name` and returns its path as text.
fn copy_of_sgemm(dir: &std::path::Path, name: &str) -> Result<String, Box<dyn std::error::Error>> {
    let path = dir.join(name);
    std::fs::copy(
        warpsight_test_support::paths::workspace_root().join(SGEMM),
        &path,
    )?;
    Ok(path.to_str().ok_or("non-UTF-8 temporary path")?.to_string())
}

/// Asserts that `output` is a refusal: exit 2, one `error:` line saying `what`, and a hint.
fn assert_refused(output: &std::process::Output, what: &str, case: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
    assert_eq!(stderr.matches("error:").count(), 1, "{case}: {stderr}");
    assert!(stderr.contains("hint:"), "{case}: {stderr}");
    assert!(stderr.contains(what), "{case}: {stderr}");
}

/// Issue #28 (G): `analyze X -o X` truncated X before reading it, and `report`, `predict` and `diff`
/// overwrote an input named as their output. Every command with `-o` refuses an output that is an
/// input (by path, or by device + inode for a hard link), and the input is left byte for byte.
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let original = std::fs::read(warpsight_test_support::paths::workspace_root().join(SGEMM))?;
    // The report must be named `*.html`: its input is an export under such a name (the format is
    // detected from the content).
    let csv = copy_of_sgemm(dir.path(), "in.csv")?;
    let html = copy_of_sgemm(dir.path(), "in.html")?;
    let other = copy_of_sgemm(dir.path(), "other.csv")?;
    let linked = dir.path().join("linked.csv");
    std::fs::hard_link(&csv, &linked)?;
    let linked = linked
        .to_str()
        .ok_or("non-UTF-8 temporary path")?
        .to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["analyze", &csv, "--per", "launch", "-o", &csv], &csv),
        (vec!["analyze", &csv, "-o", &csv], &csv),
        (
            vec!["analyze", &csv, "--per", "launch", "-o", &linked],
            &csv,
        ),
        (vec!["report", &html, "-o", &html], &html),
        (
            vec!["predict", &csv, "--on", "NVIDIA H100 80GB HBM3", "-o", &csv],
            &csv,
        ),
        (vec!["diff", &other, &csv, "-o", &csv], &csv),
        (vec!["diff", &csv, &other, "-o", &csv], &csv),
        (vec!["ingest", &csv, "-o", &linked], &csv),
        (vec!["accuracy", &csv, "-o", &csv], &csv),
    ];
    for (args, input) in &cases {
        let output = warpsight(args).output()?;
        let case = args.join(" ");
        assert_refused(&output, "is also an input", &case);
        assert!(
            std::fs::read(input)? == original,
            "{case}: the input changed"
        );
    }
    Ok(())
}

/// Issue #28 (G): an output inside a directory given as an input would be read as an input by the
/// next run (and a file of the directory could be overwritten): it is refused, and nothing is
/// created there.
#[test]
fn an_output_inside_an_input_directory_is_refused() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let inputs = dir.path().join("exports");
    std::fs::create_dir(&inputs)?;
    copy_of_sgemm(&inputs, "sgemm.csv")?;
    let input_dir = inputs.to_str().ok_or("non-UTF-8 temporary path")?;
    let inside = |name: &str| inputs.join(name).display().to_string();
    let (csv, html, parquet) = (inside("out.csv"), inside("out.html"), inside("out.parquet"));
    let cases: Vec<Vec<&str>> = vec![
        vec!["analyze", input_dir, "-o", &csv],
        vec!["report", input_dir, "-o", &html],
        vec!["ingest", input_dir, "-o", &parquet],
        vec![
            "predict",
            input_dir,
            "--on",
            "NVIDIA H100 80GB HBM3",
            "-o",
            &csv,
        ],
    ];
    for args in &cases {
        let output = warpsight(args).output()?;
        assert_refused(&output, "lies inside the input directory", &args.join(" "));
    }
    let names: Vec<String> = std::fs::read_dir(&inputs)?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    assert_eq!(names, vec!["sgemm.csv".to_string()]);
    Ok(())
}

/// Issue #28 (G): the output is written beside the target and renamed into place, so a run that
/// fails after writing part of it (here the second input is not an export) leaves the previous
/// output as it was, and no temporary file.
#[test]
fn a_failed_run_leaves_the_previous_output() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let good = copy_of_sgemm(dir.path(), "good.csv")?;
    let bad = dir.path().join("notes.txt");
    std::fs::write(&bad, "these are notes, not an export\n")?;
    let bad = bad.to_str().ok_or("non-UTF-8 temporary path")?;
    let out = tempfile::tempdir()?;
    for (name, args) in [
        ("launches.csv", &["analyze", "--per", "launch"][..]),
        ("kernels.json", &["analyze"][..]),
        ("page.html", &["report"][..]),
    ] {
        let path = out.path().join(name);
        std::fs::write(&path, "previous\n")?;
        let path_text = path.to_str().ok_or("non-UTF-8 temporary path")?;
        let mut all: Vec<&str> = args.to_vec();
        all.extend([good.as_str(), bad, "-o", path_text]);
        let output = warpsight(&all).output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(&path)?,
            "previous\n",
            "{name}: {stderr}"
        );
    }
    assert_eq!(
        std::fs::read_dir(out.path())?.count(),
        3,
        "temporary files left"
    );
    Ok(())
}

/// Opens `/dev/full` for writing (every write fails with ENOSPC).
fn dev_full() -> Result<std::fs::File, Box<dyn std::error::Error>> {
    Ok(std::fs::OpenOptions::new().write(true).open("/dev/full")?)
}

/// Issue #28 (F): stdout on a full device was a caught panic ("internal error … stdio.rs"). Now
/// it is one `error:` line saying what could not be written, and exit 2.
#[test]
fn a_full_stdout_is_one_error_line() -> Result<(), Box<dyn std::error::Error>> {
    let cases: &[&[&str]] = &[
        &["inspect", SGEMM],
        &["inspect", SGEMM, "--format", "json"],
        &["analyze", SGEMM],
        &["analyze", SGEMM, "--per", "launch", "--format", "csv"],
        &["analyze", SGEMM, "--format", "parquet"],
        &["completions", "bash"],
        &[
            "occupancy",
            "--cc",
            "9.0",
            "--block-size",
            "128",
            "--registers",
            "32",
        ],
        &["archs"],
        &["--help"],
    ];
    for args in cases {
        let output = warpsight(args).stdout(dev_full()?).output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let case = args.join(" ");
        assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("internal error"),
            "{case}: {stderr}"
        );
        assert!(!stderr.contains("Os {"), "{case}: {stderr}");
        if args[0] != "--help" {
            assert_eq!(stderr.matches("error:").count(), 1, "{case}: {stderr}");
            assert!(
                stderr.contains("cannot write to stdout: No space left on device"),
                "{case}: {stderr}"
            );
        }
    }
    Ok(())
}

/// Issue #28 (E): stderr on a full device made the first warning or error panic (exit 101). Now a
/// command that has something to say on stderr ends with exit 2, and one with nothing to say
/// succeeds.
#[test]
fn a_full_stderr_is_no_panic() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let page = dir.path().join("page.html");
    let page = page.to_str().ok_or("non-UTF-8 temporary path")?;
    let cases: &[(&[&str], i32)] = &[
        // An error.
        (&["analyze", "README.md"], 2),
        (&["analyze", "--no-such-flag", "README.md"], 2),
        // A note on success (`wrote page.html (…)`).
        (&["report", SGEMM, "-o", page], 2),
        // Nothing on stderr.
        (
            &[
                "occupancy",
                "--cc",
                "9.0",
                "--block-size",
                "128",
                "--registers",
                "32",
            ],
            0,
        ),
    ];
    for (args, exit) in cases {
        let output = warpsight(args).stderr(dev_full()?).output()?;
        assert_eq!(output.status.code(), Some(*exit), "{}", args.join(" "));
    }
    Ok(())
}

/// Issue #28 (F): a closed pipe on stdout (`| head -1`, `| true`) printed a panic with a
/// `Debug`-formatted `Os { code: 32, … }`; it now ends quietly with exit 0, as `head` expects.
#[test]
fn a_closed_stdout_pipe_ends_quietly() -> Result<(), Box<dyn std::error::Error>> {
    let cases: &[&[&str]] = &[
        &["completions", "bash"],
        &["inspect", SGEMM],
        &["analyze", SGEMM, "--per", "launch", "--format", "csv"],
        &["analyze", SGEMM, "--per", "launch"],
        &["archs", "--format", "json"],
        &["--help"],
    ];
    for args in cases {
        let mut child = warpsight(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        // Closing the read end before the command writes: its first write fails with EPIPE.
        drop(child.stdout.take());
        let output = child.wait_with_output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let case = args.join(" ");
        assert_eq!(output.status.code(), Some(0), "{case}: {stderr}");
        assert!(
            !stderr.contains("panicked")
                && !stderr.contains("internal error")
                && !stderr.contains("Os {")
                && !stderr.contains("error:"),
            "{case}: {stderr}"
        );
    }
    Ok(())
}
