//! The plugin-provided specifications and an occupancy result as JSON, one object each, as the
//! `archs`, `devices` and `occupancy` commands print them with `--format json` and as the Python
//! package returns them.

use serde_json::json;
use warpsight_model::arch::{ArchSpec, DeviceSpec, Provenance, RegisterAllocation};
use warpsight_model::occupancy::OccupancyResult;

/// One architecture as `warpsight archs --format json` lists it (units: bytes, registers, cycles, per-SM-per-clock rates; null =
/// unknown).
pub fn arch_json(arch: &ArchSpec, from: &Provenance) -> serde_json::Value {
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

/// One device as `warpsight devices --format json` lists it (base units: Hz, bytes, bytes/s, FLOP/s; null = unknown).
pub fn device_json(device: &DeviceSpec, from: &Provenance) -> serde_json::Value {
    let p = &device.peak;
    json!({
        "name": device.name,
        "aliases": device.aliases,
        "cc": device.cc.to_string(),
        "plugin": from.plugin,
        "file": from.file.display().to_string(),
        "sm_count": device.sm_count,
        "sm_clock_hz": device.sm_clock_hz,
        "base_clock_hz": device.base_clock_hz,
        "mem_clock_hz": device.mem_clock_hz,
        "dram_bandwidth_bytes_per_s": device.dram_bandwidth,
        "l2_bytes": device.l2_bytes,
        "l2_bandwidth_bytes_per_s": device.l2_bandwidth,
        "peak_flops": {
            "fp64": p.fp64, "fp32": p.fp32, "fp16": p.fp16, "fp64_tensor": p.fp64_tensor,
            "tf32_tensor": p.tf32_tensor, "fp16_tensor": p.fp16_tensor, "fp8_tensor": p.fp8_tensor,
            "int8_tensor": p.int8_tensor,
        },
    })
}

/// The JSON object `warpsight occupancy --format json` prints.
pub fn occupancy_json(
    arch: &ArchSpec,
    device: Option<&str>,
    result: &OccupancyResult,
) -> serde_json::Value {
    json!({
        "cc": arch.cc.to_string(),
        "device": device,
        "limits": {
            "registers": result.limits.registers,
            "shared_memory": result.limits.shared_memory,
            "warps": result.limits.warps,
            "blocks": result.limits.blocks,
            "barriers": result.limits.barriers,
        },
        "active_blocks": result.active_blocks,
        "active_warps": result.active_warps,
        "max_warps": arch.max_warps_per_sm,
        "occupancy": result.occupancy,
        "limiters": result.limiters.iter().map(|l| l.name()).collect::<Vec<_>>(),
        "warps_per_block": result.warps_per_block,
        "registers_per_warp": result.regs_per_warp,
        "smem_per_block": result.smem_per_block,
        "smem_capacity": result.smem_capacity,
        "smem_capacity_source": result.smem_capacity_source,
        "not_launchable": result.not_launchable,
    })
}
