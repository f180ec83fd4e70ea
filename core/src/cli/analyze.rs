//! `warpsight analyze`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight analyze`.
pub fn run(_args: AnalyzeArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight analyze` is not built yet")
}
