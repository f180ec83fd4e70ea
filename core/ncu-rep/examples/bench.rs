//! Decoding benchmark: builds an input of at least 1 GiB in memory by appending the result
//! blocks of `gpt_layer_basic.ncu-rep` to the whole report again and again (the file header, the
//! block that carries the string table and the session blocks stay as they are, so the input is
//! a valid report), then times `decode` and the single-threaded `LaunchStream`, and reports
//! MB/s, launches/s and peak RSS.
//!
//! Usage: `cargo run --release --example bench -- [REPORT] [TARGET_MIB] [RUNS]`
//! (defaults: `traces/ncu-rep/gpt_layer_basic.ncu-rep` of the workspace, 1024, 3).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use warpsight_ncu_rep::{Instances, Launch, LaunchStream, Metric, Report, Values, blocks, decode};

/// Reads a `kB` line of /proc/self/status (Linux), in bytes.
fn proc_status_bytes(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The fixture report in the workspace's `traces/ncu-rep/`, if it is there.
fn default_report() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../traces/ncu-rep/gpt_layer_basic.ncu-rep");
    p.is_file().then_some(p)
}

/// Builds the big input: the original report followed by copies of its result-only blocks.
fn build_input(original: &[u8], target: usize) -> Result<(Vec<u8>, usize), String> {
    let mut ranges = Vec::new();
    for b in blocks(original).map_err(|e| e.to_string())? {
        let b = b.map_err(|e| e.to_string())?;
        let h = &b.header;
        let has_table = h.string_table.is_some_and(|t| !t.bytes.is_empty());
        if h.num_results > 0 && h.num_sources == 0 && !has_table {
            ranges.push(b.offset..b.payload_offset + b.payload.len());
        }
    }
    if ranges.is_empty() {
        return Err("no result-only blocks to repeat".into());
    }
    let per_round: usize = ranges.iter().map(|r| r.len()).sum();
    let rounds = target.saturating_sub(original.len()).div_ceil(per_round);
    let mut out = Vec::with_capacity(original.len() + rounds * per_round);
    out.extend_from_slice(original);
    for _ in 0..rounds {
        for r in &ranges {
            out.extend_from_slice(&original[r.clone()]);
        }
    }
    Ok((out, ranges.len()))
}

/// Approximate heap bytes of the decoded launch table (launches, metrics, instances, strings).
fn table_bytes(report: &Report) -> usize {
    let s = |o: &Option<String>| o.as_ref().map_or(0, String::capacity);
    let value = |v: &Option<warpsight_ncu_rep::Value>| match v {
        Some(warpsight_ncu_rep::Value::String(x)) => std::mem::size_of::<String>() + x.capacity(),
        _ => 0,
    };
    let column = |c: &Values| match c {
        Values::Uint64(v) => v.len() * 8,
        Values::Double(v) => v.len() * 8,
        Values::Mixed(v) => {
            v.len() * std::mem::size_of::<Option<warpsight_ncu_rep::Value>>()
                + v.iter().map(value).sum::<usize>()
        }
    };
    report
        .launches
        .iter()
        .map(|l: &Launch| {
            std::mem::size_of::<Launch>()
                + s(&l.process_name)
                + s(&l.host_name)
                + s(&l.mangled_name)
                + s(&l.function_name)
                + s(&l.demangled_name)
                + l.metrics.capacity() * std::mem::size_of::<Metric>()
                + l.metrics
                    .iter()
                    .map(|m| {
                        value(&m.value)
                            + m.instances.as_ref().map_or(0, |i| {
                                std::mem::size_of::<Instances>()
                                    + column(&i.correlation_ids)
                                    + column(&i.values)
                            })
                    })
                    .sum::<usize>()
        })
        .sum()
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = args.next().map(PathBuf::from).or_else(default_report);
    let Some(path) = path else {
        eprintln!("gpt_layer_basic.ncu-rep not found; pass its path");
        return ExitCode::from(2);
    };
    let target_mib: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);

    let original = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let (input, repeated_blocks) = match build_input(&original, target_mib << 20) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let mb = input.len() as f64 / 1e6;
    let rss_input = proc_status_bytes("VmRSS:").unwrap_or(0);
    println!(
        "input: {:.1} MB ({} result blocks of {} repeated), threads: {}",
        mb,
        repeated_blocks,
        path.display(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    let mut best = f64::MAX;
    let mut launches = 0;
    let mut metrics = 0;
    let mut table = 0;
    for run in 0..runs {
        let t = Instant::now();
        let report = match decode(&input) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("decode failed: {e}");
                return ExitCode::FAILURE;
            }
        };
        let secs = t.elapsed().as_secs_f64();
        best = best.min(secs);
        launches = report.launches.len();
        metrics = report
            .launches
            .iter()
            .map(|l| l.metrics.len())
            .sum::<usize>();
        table = table_bytes(&report);
        println!(
            "decode run {run}: {secs:.3} s, {:.0} MB/s, {:.0} launches/s",
            mb / secs,
            launches as f64 / secs
        );
        drop(report);
    }
    let hwm = proc_status_bytes("VmHWM:").unwrap_or(0);
    println!(
        "decode best: {best:.3} s, {:.0} MB/s, {:.0} launches/s, {:.1} M metrics/s ({launches} launches, {metrics} metrics)",
        mb / best,
        launches as f64 / best,
        metrics as f64 / best / 1e6
    );
    println!(
        "peak RSS (VmHWM): {:.0} MB = input {:.0} MB + {:.0} MB; launch table ≈ {:.0} MB (ratio of peak above input to table: {:.2})",
        hwm as f64 / 1e6,
        rss_input as f64 / 1e6,
        hwm.saturating_sub(rss_input) as f64 / 1e6,
        table as f64 / 1e6,
        hwm.saturating_sub(rss_input) as f64 / table.max(1) as f64
    );

    // The streaming path, one thread, nothing retained.
    let t = Instant::now();
    let mut n = 0usize;
    let stream = match LaunchStream::new(&input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("stream failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    for item in stream {
        match item {
            Ok((launch, _rules)) => n += usize::from(!launch.metrics.is_empty()),
            Err(e) => {
                eprintln!("stream failed: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "stream (1 thread, launches dropped as they come): {secs:.3} s, {:.0} MB/s, {:.0} launches/s ({n} launches)",
        mb / secs,
        n as f64 / secs
    );
    ExitCode::SUCCESS
}
