//! Issue #28, the inputs' side, end to end through the `warpsight` binary: a FIFO and standard
//! input read once, a sparse 5 GiB file refused from its first bytes, and `ingest` of a directory
//! of hundreds of tiny files of two formats (which overflowed the stack, exit 134).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A `cuda_gpu_trace` CSV with one launch.
const GPU_TRACE: &str = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n100,50,1,2,1,1,32,1,1,16,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,ok_kernel\n";

/// An ncu details page with one launch.
const DETAILS: &str = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Duration\",\"ns\",\"1000\"\n\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Registers Per Thread\",\"register/thread\",\"16\"\n";

fn warpsight(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpsight"));
    command.args(args).env("NO_COLOR", "1");
    command
}

/// Runs `command` (standard input `stdin`, if any) and fails after `limit` instead of hanging.
fn run_within(
    mut command: Command,
    stdin: Option<&'static str>,
    limit: Duration,
) -> Result<Output, String> {
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(text.as_bytes());
        });
    }
    let id = child.id();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(child.wait_with_output());
    });
    match receive.recv_timeout(limit) {
        Ok(output) => output.map_err(|e| e.to_string()),
        Err(_) => {
            // The child this test started, by its id.
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            Err(format!("warpsight did not finish within {limit:?}"))
        }
    }
}

fn mkfifo(path: &Path) -> TestResult {
    let status = Command::new("mkfifo").arg(path).status()?;
    if !status.success() {
        return Err(format!("mkfifo {} failed", path.display()).into());
    }
    Ok(())
}

/// Finding D: `mkfifo p.csv; cat trace.csv > p.csv & warpsight analyze p.csv` hung forever.
#[test]
fn analyze_reads_a_fifo() -> TestResult {
    let dir = tempfile::tempdir()?;
    let fifo = dir.path().join("p.csv");
    mkfifo(&fifo)?;
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, GPU_TRACE))
    };
    let fifo_arg = fifo.display().to_string();
    let output = run_within(
        warpsight(&["analyze", &fifo_arg]),
        None,
        Duration::from_secs(120),
    )?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("ok_kernel"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    writer.join().map_err(|_| "the writer panicked")??;
    Ok(())
}

/// `-` reads standard input once (detection and reading share the copy).
#[test]
fn inspect_reads_standard_input() -> TestResult {
    let output = run_within(
        warpsight(&["inspect", "-"]),
        Some(DETAILS),
        Duration::from_secs(120),
    )?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("ncu-details"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    Ok(())
}

/// Finding C: `truncate -s 5G z.csv; warpsight inspect z.csv` reached more than 3 GiB. It is
/// refused from its first 64 KiB, quickly.
#[test]
fn inspect_refuses_a_sparse_huge_file_quickly() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("z.csv");
    std::fs::File::create(&path)?.set_len(5 << 30)?;
    let arg = path.display().to_string();
    let output = run_within(warpsight(&["inspect", &arg]), None, Duration::from_secs(60))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("zero bytes"), "{text}");
    Ok(())
}

/// Finding A: `ingest` of a directory of 300 tiny files, 150 `cuda_gpu_trace` CSVs and 150 ncu
/// details pages, overflowed the stack (exit 134). Here 600 of them are written into one table.
#[test]
fn ingest_of_hundreds_of_tiny_mixed_files_does_not_overflow() -> TestResult {
    let dir = tempfile::tempdir()?;
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs)?;
    for i in 0..300 {
        std::fs::write(inputs.join(format!("g{i:04}.csv")), GPU_TRACE)?;
        std::fs::write(inputs.join(format!("n{i:04}.csv")), DETAILS)?;
    }
    let out = dir.path().join("all.parquet");
    let (inputs_arg, out_arg) = (inputs.display().to_string(), out.display().to_string());
    let output = run_within(
        warpsight(&["-q", "ingest", &inputs_arg, "-o", &out_arg]),
        None,
        Duration::from_secs(300),
    )?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{:?}: {stderr}", output.status);
    let back = warpsight_ingest::read_path(&out, &warpsight_ingest::ReadConfig::default())?;
    assert_eq!(back.launch_count(), 600);
    Ok(())
}
