//! Writes the synthetic Nsight Compute sample (`traces/synthetic/h100_classic_kernels.ncu-details.csv`)
//! from the project's generator with a fixed seed:
//! `cargo run -p warpsight --example synthetic_ncu -- traces/synthetic/h100_classic_kernels.ncu-details.csv`.

use std::process::ExitCode;

/// The seed the committed sample was made with.
const SEED: u64 = 20_260_422;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: synthetic_ncu OUTPUT.csv");
        return ExitCode::from(2);
    };
    match std::fs::write(
        &path,
        warpsight_test_support::synthetic_ncu::sample_details_csv(SEED),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: cannot write `{path}`: {err}");
            ExitCode::from(1)
        }
    }
}
