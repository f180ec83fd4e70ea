//! `warpsight predict`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight predict`.
#[derive(Debug, clap::Args)]
pub struct PredictArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight predict`.
pub fn run(_args: PredictArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight predict` is not built yet")
}
