//! Model benchmark (`cargo bench -p warpsight --bench model`): times `model::evaluate` on a
//! synthetic launch table (default 1,000,000 launches over two devices, with counters), on the
//! launches' own devices and cross-device, and prints launches per second.
//!
//! Size: `WARPSIGHT_BENCH_MODEL_LAUNCHES`. The architecture and device numbers are the reference
//! tables of `warpsight_model::reference_fixtures`, so the benchmark needs no plugin.

use std::process::ExitCode;
use std::time::Instant;

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::{ModelConfig, evaluate};

/// A launch table of `n` rows with varied configurations and counters.
fn synthetic(n: usize) -> PolarsResult<DataFrame> {
    let devices = ["NVIDIA H200", "NVIDIA A100-SXM4-40GB"];
    df!(
        lt::DEVICE_NAME => (0..n).map(|i| devices[i % 2]).collect::<Vec<_>>(),
        lt::CC_MAJOR => (0..n).map(|i| if i % 2 == 0 { 9i64 } else { 8 }).collect::<Vec<_>>(),
        lt::CC_MINOR => vec![0i64; n],
        lt::BLOCK_X => (0..n).map(|i| 32 * (1 + (i % 32) as i64)).collect::<Vec<_>>(),
        lt::GRID_X => (0..n).map(|i| 1 + (i % 5000) as i64).collect::<Vec<_>>(),
        lt::REGISTERS_PER_THREAD => (0..n).map(|i| (i % 255) as i64).collect::<Vec<_>>(),
        lt::DYNAMIC_SMEM_BYTES => (0..n).map(|i| (i % 100_000) as i64).collect::<Vec<_>>(),
        lt::DRAM_BYTES_READ => (0..n).map(|i| i as f64 * 1000.0).collect::<Vec<_>>(),
        lt::INST_FFMA => (0..n).map(|i| i as f64 * 10.0).collect::<Vec<_>>(),
        lt::DURATION_NS => vec![10_000.0f64; n],
    )
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::var("WARPSIGHT_BENCH_MODEL_LAUNCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let frame = synthetic(n)?;
    let registry = warpsight_test_support::registry();
    let configs = [
        ("own device", ModelConfig::default()),
        (
            "cross-device (H100)",
            ModelConfig {
                device_override: Some("H100 SXM5 80GB".into()),
                ..ModelConfig::default()
            },
        ),
    ];
    for (label, config) in configs {
        let start = Instant::now();
        let out = evaluate(frame.clone().lazy(), &registry, &config)?.collect()?;
        let wall = start.elapsed().as_secs_f64();
        println!(
            "model {label}: {} launches in {wall:.3} s = {:.0} launches/s",
            out.height(),
            out.height() as f64 / wall
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(1)
        }
    }
}
