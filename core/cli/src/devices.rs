//! `warpsight devices`: lists the GPU products the loaded plugins provide, with their main numbers
//! and the plugin file that provides each.

use std::process::ExitCode;

use super::GlobalArgs;
use super::plugins::{ListFormat, load_plugins, new_table, print_data};
use anyhow::Context;
use warpsight_report::render::spec_json::device_json;

/// Arguments of `warpsight devices`.
#[derive(Debug, clap::Args)]
pub struct DevicesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

/// A rate in the given unit with one decimal, or "?" when unknown.
fn scaled(value: f64, unit: f64) -> String {
    if value.is_nan() {
        "?".to_string()
    } else {
        format!("{:.1}", value / unit)
    }
}

/// Runs `warpsight devices`.
pub fn run(args: DevicesArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (registry, _) = load_plugins(global)?;
    match args.format {
        ListFormat::Json => {
            let list: Vec<_> = registry
                .devices
                .iter()
                .map(|(d, p)| device_json(d, p))
                .collect();
            print_data(&serde_json::to_string_pretty(&list).context("cannot format the list")?)?;
        }
        ListFormat::Table => {
            let mut table = new_table();
            table.set_header([
                "name",
                "cc",
                "SMs",
                "SM clock MHz",
                "DRAM GB/s",
                "L2 MiB",
                "FP32 TFLOP/s",
                "FP16 tensor TFLOP/s",
                "plugin",
                "file",
            ]);
            for (d, p) in &registry.devices {
                table.add_row([
                    d.name.clone(),
                    d.cc.to_string(),
                    d.sm_count.to_string(),
                    scaled(d.sm_clock_hz, 1e6),
                    scaled(d.dram_bandwidth, 1e9),
                    format!("{:.1}", d.l2_bytes as f64 / (1024.0 * 1024.0)),
                    scaled(d.peak.fp32, 1e12),
                    scaled(d.peak.fp16_tensor, 1e12),
                    p.plugin.clone(),
                    p.file.display().to_string(),
                ]);
            }
            print_data(&table.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
