//! Writes a synthetic Nsight Systems `cuda_gpu_trace` CSV (the test-support generator, see
//! `core/test-support/src/synthetic_nsys`) for the Python package's scale benchmark
//! (`benches/scale.py`, which splits it into per-rank files):
//! `cargo run -p warpsight-python --example synthetic_gpu_trace -- OUT.csv LAUNCHES`.

use std::path::PathBuf;
use std::process::ExitCode;

use warpsight_test_support::synthetic_nsys::{Schema, SyntheticConfig, write_gpu_trace_csv};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(out), Some(launches)) = (args.next(), args.next()) else {
        eprintln!("usage: synthetic_gpu_trace OUT.csv LAUNCHES");
        return ExitCode::from(2);
    };
    let Ok(launches) = launches.parse::<usize>() else {
        eprintln!("error: LAUNCHES must be a whole number, not `{launches}`");
        return ExitCode::from(2);
    };
    // A memcpy every 50 launches, as the CLI's scale benchmark (`core/cli/benches/scale.rs`).
    let config = SyntheticConfig {
        launches,
        memcpy_every: 50,
        schema: Schema::New,
    };
    match write_gpu_trace_csv(&PathBuf::from(&out), &config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write `{out}`: {error}");
            ExitCode::FAILURE
        }
    }
}
