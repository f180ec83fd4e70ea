//! `warpsight devices`: placeholder, being written.

use std::process::ExitCode;

use super::GlobalArgs;

/// Arguments of `warpsight devices`.
#[derive(Debug, clap::Args)]
pub struct DevicesArgs {
    /// Inputs.
    pub inputs: Vec<String>,
}

/// Runs `warpsight devices`.
pub fn run(_args: DevicesArgs, _global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warpsight devices` is not built yet")
}
