//! `warpsight archs`: lists the architectures (compute capabilities) the loaded plugins provide,
//! with their main limits and the plugin file that provides each.

use std::process::ExitCode;

use super::GlobalArgs;
use super::plugins::{ListFormat, load_plugins, new_table, print_data};
use anyhow::Context;
use warpsight_report::render::spec_json::arch_json;

/// Arguments of `warpsight archs`.
#[derive(Debug, clap::Args)]
pub struct ArchsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

/// Runs `warpsight archs`.
pub fn run(args: ArchsArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (registry, _) = load_plugins(global)?;
    match args.format {
        ListFormat::Json => {
            let list: Vec<_> = registry
                .archs
                .iter()
                .map(|(a, p)| arch_json(a, p))
                .collect();
            print_data(&serde_json::to_string_pretty(&list).context("cannot format the list")?)?;
        }
        ListFormat::Table => {
            let mut table = new_table();
            table.set_header([
                "cc",
                "name",
                "warps/SM",
                "threads/SM",
                "blocks/SM",
                "regs/SM",
                "smem/SM KiB",
                "opt-in KiB",
                "carveouts KiB",
                "sub-part.",
                "plugin",
                "file",
            ]);
            for (a, p) in &registry.archs {
                let carveouts: Vec<String> =
                    a.carveouts.iter().map(|c| (c / 1024).to_string()).collect();
                table.add_row([
                    a.cc.to_string(),
                    a.name.clone(),
                    a.max_warps_per_sm.to_string(),
                    a.max_threads_per_sm.to_string(),
                    a.max_blocks_per_sm.to_string(),
                    a.regs_per_sm.to_string(),
                    (a.smem_per_sm / 1024).to_string(),
                    (a.smem_per_block_optin / 1024).to_string(),
                    carveouts.join("/"),
                    a.sub_partitions.to_string(),
                    p.plugin.clone(),
                    p.file.display().to_string(),
                ]);
            }
            print_data(&table.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
