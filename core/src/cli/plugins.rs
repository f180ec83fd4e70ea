//! `warpsight plugins`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight plugins`.
#[derive(Debug, clap::Args)]
pub struct PluginsArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight plugins`.
pub fn run(_args: PluginsArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight plugins` is not built yet")
}
