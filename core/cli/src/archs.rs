//! `warpsight archs`: lists the architectures (compute capabilities) the loaded plugins provide,
//! with their main limits and the plugin file that provides each.

use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;

use super::GlobalArgs;
use super::plugins::{ListFormat, load_plugins, new_table, print_data};
use warpsight_model::arch::{ArchSpec, Provenance, RegisterAllocation};

/// Arguments of `warpsight archs`.
#[derive(Debug, clap::Args)]
pub struct ArchsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

/// One architecture as JSON (units: bytes, registers, cycles, per-SM-per-clock rates; null =
/// unknown).
fn arch_json(arch: &ArchSpec, from: &Provenance) -> serde_json::Value {
    let l = &arch.latencies;
    let t = &arch.throughput;
    json!({
        "cc": arch.cc.to_string(),
        "name": arch.name,
        "plugin": from.plugin,
        "file": from.file.display().to_string(),
        "threads_per_warp": arch.threads_per_warp,
        "max_warps_per_sm": arch.max_warps_per_sm,
        "max_threads_per_sm": arch.max_threads_per_sm,
        "max_blocks_per_sm": arch.max_blocks_per_sm,
        "max_threads_per_block": arch.max_threads_per_block,
        "regs_per_sm": arch.regs_per_sm,
        "max_regs_per_block": arch.max_regs_per_block,
        "max_regs_per_thread": arch.max_regs_per_thread,
        "reg_alloc_unit": arch.reg_alloc_unit,
        "reg_alloc_granularity": match arch.reg_alloc_granularity {
            RegisterAllocation::Warp => "warp",
            RegisterAllocation::Block => "block",
        },
        "sub_partitions": arch.sub_partitions,
        "smem_per_sm_bytes": arch.smem_per_sm,
        "smem_per_block_default_bytes": arch.smem_per_block_default,
        "smem_per_block_optin_bytes": arch.smem_per_block_optin,
        "smem_alloc_unit_bytes": arch.smem_alloc_unit,
        "smem_reserved_per_block_bytes": arch.smem_reserved_per_block,
        "carveouts_bytes": arch.carveouts,
        "barrier_multiplier": arch.barrier_multiplier,
        "virtual_resources_per_sm": arch.virtual_resources_per_sm,
        "partitioned_gc_supported": arch.partitioned_gc_supported,
        "warp_schedulers_per_sm": arch.warp_schedulers_per_sm,
        "issue_per_scheduler_per_clk": arch.issue_per_scheduler_per_clk,
        "latency_cycles": {
            "fp32": l.fp32, "int32": l.int32, "fp64": l.fp64, "sfu": l.sfu, "tensor": l.tensor,
            "shared": l.shared, "l1_hit": l.l1_hit, "l2_hit": l.l2_hit, "dram": l.dram,
        },
        "throughput_per_sm_per_clk": {
            "fp32": t.fp32, "fp64": t.fp64, "fp16": t.fp16, "int32": t.int32, "sfu": t.sfu,
            "tensor_fp16_flop": t.tensor_fp16_flop, "tensor_bf16_flop": t.tensor_bf16_flop,
            "tensor_tf32_flop": t.tensor_tf32_flop, "tensor_fp8_flop": t.tensor_fp8_flop,
            "tensor_int8_op": t.tensor_int8_op, "tensor_fp64_flop": t.tensor_fp64_flop,
            "flop_per_tensor_inst": t.flop_per_tensor_inst, "l1_bytes_per_clk": t.l1_bytes_per_clk,
        },
        // Which ncu pipe executes each SASS opcode (ABI minor 3), as {opcode: pipe}.
        "sass_pipes": arch
            .sass_pipes
            .iter()
            .map(|(opcode, pipe)| (opcode.clone(), serde_json::Value::from(pipe.ncu_name())))
            .collect::<serde_json::Map<String, serde_json::Value>>(),
    })
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
