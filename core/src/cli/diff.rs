//! `warpsight diff`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight diff`.
pub fn run(_args: DiffArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight diff` is not built yet")
}
