//! `warpsight occupancy`: the CUDA occupancy calculator for one launch configuration, on a compute
//! capability or a named device from the loaded plugins. It runs the same expressions as the
//! frame-wide model ([`warpsight_model::occupancy::calculate`]).

use std::process::ExitCode;

use anyhow::Context;

use super::GlobalArgs;
use super::errors::CliError;
use warpsight_model::arch::{ArchSpec, ComputeCapability, Registry};
use warpsight_model::occupancy::{LaunchConfig, OccupancyResult, calculate};
use warpsight_plugin_host::{PluginConfig, load_registry};
use warpsight_report::render::spec_json::occupancy_json;

/// Output format of `warpsight occupancy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// A human-readable table.
    Table,
    /// One JSON object.
    Json,
}

/// Arguments of `warpsight occupancy`.
///
/// Sizes accept plain bytes or a binary suffix: `12K` = `12KiB` = `12KB` = 12288 bytes, `1.5M` =
/// 1572864 bytes (K and M are always 1024-based here). Exits with status 1 when the configuration
/// cannot launch.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["cc", "device"])))]
pub struct OccupancyArgs {
    /// Compute capability, e.g. `8.0`, `9.0`, `sm_120`.
    #[arg(long, value_parser = parse_cc)]
    pub cc: Option<ComputeCapability>,
    /// A device known to the loaded plugins, e.g. `"NVIDIA H100 80GB HBM3"` (see `warpsight devices`).
    #[arg(long)]
    pub device: Option<String>,
    /// Threads per block.
    #[arg(long, value_name = "N")]
    pub block_size: u32,
    /// Registers per thread.
    #[arg(long, value_name = "N")]
    pub registers: u32,
    /// Static shared memory per block.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "0")]
    pub static_smem: u64,
    /// Dynamic shared memory per block.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "0")]
    pub dynamic_smem: u64,
    /// The SM shared-memory capacity (carveout) the driver chose, e.g. Nsight Compute's "Shared
    /// Memory Configuration Size". Default: the largest carveout (an upper bound).
    #[arg(long, value_name = "BYTES", value_parser = parse_size, conflicts_with = "carveout")]
    pub smem_config: Option<u64>,
    /// Carveout preference in percent (cudaFuncAttributePreferredSharedMemoryCarveout), rounded up
    /// to the next supported carveout.
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub carveout: Option<u8>,
    /// Named barriers per block (CC >= 9.0 only).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub barriers: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Also print occupancy against block size, registers and shared memory (table format).
    #[arg(long)]
    pub sweep: bool,
    /// Write the three sweep charts (occupancy vs block size, registers, shared memory) as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
}

fn parse_cc(text: &str) -> Result<ComputeCapability, String> {
    ComputeCapability::parse(text).ok_or_else(|| {
        format!("expected a compute capability like `8.0` or `sm_90`, found `{text}`")
    })
}

/// Parses a size: plain bytes, or a number with `K`/`KB`/`KiB`/`M`/`MB`/`MiB`/`B` (1024-based,
/// case-insensitive). The result must be a whole number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, suffix) = trimmed.split_at(split);
    let multiplier: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        other => {
            return Err(format!(
                "unknown size suffix `{other}` in `{text}` (use B, K, KiB, M or MiB)"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a size like `48K` or `49152`, found `{text}`"))?;
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes.fract() != 0.0 || bytes > u32::MAX as f64 {
        return Err(format!(
            "`{text}` is not a whole number of bytes up to 4 GiB"
        ));
    }
    Ok(bytes as u64)
}

/// The architecture (and device name) the arguments ask for.
fn target<'r>(
    args: &OccupancyArgs,
    registry: &'r Registry,
) -> anyhow::Result<(&'r ArchSpec, Option<String>)> {
    let plugins_hint = "run `warpsight archs` / `warpsight devices` to see what the loaded plugins provide, \
                        or add a plugin directory with --plugin-dir";
    if let Some(name) = &args.device {
        let device = registry.device(name).ok_or_else(|| {
            CliError::new(
                format!("no loaded plugin provides the device `{name}`"),
                plugins_hint,
            )
        })?;
        let arch = registry.arch(device.cc).ok_or_else(|| {
            CliError::new(
                format!(
                    "no loaded plugin provides compute capability {} (of `{}`)",
                    device.cc, device.name
                ),
                plugins_hint,
            )
        })?;
        return Ok((arch, Some(device.name.clone())));
    }
    let cc = args.cc.context("give --cc or --device")?;
    let arch = registry.arch(cc).ok_or_else(|| {
        CliError::new(
            format!("no loaded plugin provides compute capability {cc}"),
            plugins_hint,
        )
    })?;
    Ok((arch, None))
}

/// Runs `warpsight occupancy`.
pub fn run(args: OccupancyArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (registry, _report) = load_registry(&PluginConfig::from_environment(&global.plugin_dirs));
    let (arch, device) = target(&args, &registry)?;
    check_arguments(&args, arch)?;
    let config = LaunchConfig {
        block_size: args.block_size,
        registers_per_thread: args.registers,
        static_smem: args.static_smem,
        dynamic_smem: args.dynamic_smem,
        smem_config: args.smem_config,
        carveout_percent: args.carveout,
        barriers: args.barriers,
    };
    let result = calculate(arch, &config).context("cannot compute the occupancy")?;
    let text = match args.format {
        OutputFormat::Json => {
            serde_json::to_string_pretty(&occupancy_json(arch, device.as_deref(), &result))? + "\n"
        }
        OutputFormat::Table => to_table(arch, device.as_deref(), &config, &result),
    };
    crate::output_file::print_stdout(&text)?;
    if args.sweep || args.svg.is_some() {
        let sweeps = warpsight_report::analysis::sweep::for_config(
            &registry,
            arch.cc,
            args.block_size,
            args.registers,
            args.static_smem,
            args.dynamic_smem,
            args.smem_config,
        )?;
        if args.sweep && args.format == OutputFormat::Table {
            crate::output_file::print_stdout(&format!(
                "\n{}",
                warpsight_report::analysis::sweep::to_text(&sweeps)
            ))?;
        }
        if let Some(path) = &args.svg {
            let svg = warpsight_report::render::occupancy_chart::svg_document(
                &sweeps,
                &format!("CC {}", arch.cc),
            );
            crate::output_file::write_file(path, svg.as_bytes())?;
        }
    }
    Ok(if result.not_launchable.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Refuses a configuration no launch can have on `arch`, like the readers refuse such rows: a block
/// of 0 threads or more than the architecture allows, more registers per thread than it allows,
/// a barrier count outside 1 to 16, an `--smem-config` that is not one of its carveouts, more
/// shared memory per block than its opt-in maximum.
fn check_arguments(args: &OccupancyArgs, arch: &ArchSpec) -> anyhow::Result<()> {
    let refuse =
        |message: String, hint: String| Err(anyhow::Error::new(CliError::new(message, hint)));
    if args.block_size == 0 || args.block_size > arch.max_threads_per_block {
        return refuse(
            format!(
                "block size {} is not a launchable block on compute capability {}",
                args.block_size, arch.cc
            ),
            format!("use 1 to {} threads per block", arch.max_threads_per_block),
        );
    }
    if args.registers > arch.max_regs_per_thread {
        return refuse(
            format!(
                "{} registers per thread exceed the {} compute capability {} allows",
                args.registers, arch.max_regs_per_thread, arch.cc
            ),
            format!("use 0 to {} registers per thread", arch.max_regs_per_thread),
        );
    }
    if !(1..=MAX_BARRIERS).contains(&args.barriers) {
        return refuse(
            format!(
                "--barriers {}: a block uses 1 to {MAX_BARRIERS} named barriers",
                args.barriers
            ),
            format!("use 1 to {MAX_BARRIERS} barriers per block (CUDA's named barriers 0 to 15)"),
        );
    }
    if let Some(config) = args.smem_config {
        let carveouts: Vec<u64> = if arch.carveouts.is_empty() {
            vec![u64::from(arch.smem_per_sm)]
        } else {
            arch.carveouts.iter().map(|c| u64::from(*c)).collect()
        };
        if !carveouts.contains(&config) {
            let listed: Vec<String> = carveouts.iter().map(|c| size_text(*c)).collect();
            return refuse(
                format!(
                    "--smem-config {config} B is not a shared-memory carveout of compute \
                     capability {}",
                    arch.cc
                ),
                format!(
                    "use one of {} (Nsight Compute's \"Shared Memory Configuration Size\"), or \
                     leave --smem-config out for the largest",
                    listed.join(", ")
                ),
            );
        }
    }
    let smem = args.static_smem.saturating_add(args.dynamic_smem);
    if smem > u64::from(arch.smem_per_block_optin) {
        return refuse(
            format!(
                "{smem} B of shared memory per block exceed the {} B compute capability {} allows",
                arch.smem_per_block_optin, arch.cc
            ),
            format!(
                "use at most {} B (static + dynamic) per block",
                arch.smem_per_block_optin
            ),
        );
    }
    Ok(())
}

/// The most named barriers a block can use: CUDA's `bar.sync` ids 0 to 15.
const MAX_BARRIERS: u32 = 16;

/// A size in bytes as `--smem-config` accepts it: `100K` when a whole number of KiB, else bytes.
fn size_text(bytes: u64) -> String {
    if bytes > 0 && bytes.is_multiple_of(1024) {
        format!("{}K", bytes / 1024)
    } else {
        bytes.to_string()
    }
}

fn limit_text(limit: Option<u32>, unlimited: &str) -> String {
    limit.map_or_else(|| unlimited.to_string(), |v| v.to_string())
}

/// The human-readable table printed by `--format table`.
pub fn to_table(
    arch: &ArchSpec,
    device: Option<&str>,
    config: &LaunchConfig,
    result: &OccupancyResult,
) -> String {
    let on = device.map_or_else(String::new, |d| format!(" ({d})"));
    let capacity = result.smem_capacity.map_or_else(
        || "-".to_string(),
        |c| format!("{c} B ({})", result.smem_capacity_source),
    );
    let barriers = if arch.cc.major >= 9 {
        limit_text(result.limits.barriers, "unlimited")
    } else {
        "n/a (CC < 9.0)".into()
    };
    let limiters: Vec<&str> = result.limiters.iter().map(|l| l.name()).collect();
    let mut out = String::new();
    out += &format!("Occupancy on compute capability {}{on}\n", arch.cc);
    out += &format!(
        "  block size              {} threads = {} warps\n",
        config.block_size, result.warps_per_block
    );
    out += &format!(
        "  registers               {} per thread = {} per warp\n",
        config.registers_per_thread, result.regs_per_warp
    );
    out += &format!(
        "  shared memory per block {} B allocated\n",
        result.smem_per_block
    );
    out += &format!("  SM shared capacity      {capacity}\n");
    out += "Block limits per SM\n";
    out += &format!(
        "  registers               {}\n",
        limit_text(result.limits.registers, "unlimited")
    );
    out += &format!(
        "  shared memory           {}\n",
        limit_text(result.limits.shared_memory, "unlimited")
    );
    out += &format!(
        "  warps                   {}\n",
        limit_text(result.limits.warps, "unlimited")
    );
    out += &format!(
        "  blocks                  {}\n",
        limit_text(result.limits.blocks, "unlimited")
    );
    out += &format!("  barriers                {barriers}\n");
    out += &format!("Active blocks per SM      {}\n", result.active_blocks);
    out += &format!(
        "Active warps per SM       {} of {}\n",
        result.active_warps, arch.max_warps_per_sm
    );
    out += &format!(
        "Theoretical occupancy     {:.2} %\n",
        result.occupancy * 100.0
    );
    out += &format!(
        "Limited by                {}\n",
        if limiters.is_empty() {
            "-".into()
        } else {
            limiters.join(" + ")
        }
    );
    if let Some(reason) = &result.not_launchable {
        out += &format!("Cannot launch             {reason}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_accept_binary_suffixes() {
        assert_eq!(parse_size("49152"), Ok(49152));
        assert_eq!(parse_size("12K"), Ok(12 * 1024));
        assert_eq!(parse_size("48KiB"), Ok(48 * 1024));
        assert_eq!(parse_size("48kb"), Ok(48 * 1024));
        assert_eq!(parse_size("1.5M"), Ok(1_572_864));
        assert_eq!(parse_size("100 B"), Ok(100));
        assert!(parse_size("1.5").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("-1").is_err());
    }

    #[test]
    fn json_has_the_documented_shape() -> Result<(), Box<dyn std::error::Error>> {
        // BPG "Calculating Occupancy": CC 7.0, 37 registers, 128 threads → 12 blocks, 75 %.
        let arch = warpsight_test_support::arch(7, 0).ok_or("no 7.0")?;
        let result = calculate(&arch, &LaunchConfig::new(128, 37))?;
        let json = occupancy_json(&arch, None, &result);
        assert_eq!(json["limits"]["registers"], 12);
        assert_eq!(json["limits"]["shared_memory"], serde_json::Value::Null);
        assert_eq!(json["limits"]["barriers"], serde_json::Value::Null);
        assert_eq!(json["active_blocks"], 12);
        assert_eq!(json["active_warps"], 48);
        assert_eq!(json["occupancy"], 0.75);
        assert_eq!(json["limiters"], serde_json::json!(["registers"]));
        Ok(())
    }
}
