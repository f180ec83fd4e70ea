//! `warpsight report`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight report`.
pub fn run(_args: ReportArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight report` is not built yet")
}
