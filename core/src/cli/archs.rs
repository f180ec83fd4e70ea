//! `warpsight archs`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight archs`.
#[derive(Debug, clap::Args)]
pub struct ArchsArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight archs`.
pub fn run(_args: ArchsArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight archs` is not built yet")
}
