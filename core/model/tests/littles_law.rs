//! Tests of `warpsight_model::littles_law` that need the shipped plugins' architecture data.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, evaluate};
use warpsight_test_support::registry;

#[test]
fn warps_needed_follow_the_programming_guide() -> Result<(), Box<dyn std::error::Error>> {
    // PG "Multiprocessor Level": on 7.x a 4-cycle latency needs 16 warps (4 cycles × 4
    // schedulers); CC 6.0 issues 2 per clock (2L), here with Pascal's 6-cycle latency = 12.
    let frame = df!(
        lt::CC_MAJOR => [7i64, 6],
        lt::CC_MINOR => [0i64, 0],
        lt::BLOCK_X => [128i64, 128],
        lt::REGISTERS_PER_THREAD => [32i64, 32],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let needed = out.column(out::WARPS_NEEDED_ALU)?.f64()?;
    assert_eq!(needed.get(0), Some(16.0));
    assert_eq!(needed.get(1), Some(12.0));
    // Without counters ILP is taken as 1.
    assert_eq!(out.column(out::ILP_ESTIMATE)?.f64()?.get(0), Some(1.0));
    Ok(())
}

#[test]
fn ilp_and_bytes_in_flight_from_the_counters() -> Result<(), Box<dyn std::error::Error>> {
    // A100: 108 SMs at 1.41 GHz with the Ampere plugin's DRAM latency and bandwidth →
    // latency / 1.41e9 s × bandwidth / 108 SMs bytes in flight per SM.
    // IPC per SM = 4 with 8 achieved warps (12.5 %) and a 4-cycle latency → ILP = 4/8 × 4 = 2.
    // A 2-block × 128-thread config (8 warps active) then provides 8 × 128 B × 2 = 2048 B.
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA A100-SXM4-40GB"],
        lt::CC_MAJOR => [8i64],
        lt::CC_MINOR => [0i64],
        lt::BLOCK_X => [128i64],
        lt::GRID_X => [216i64],
        lt::REGISTERS_PER_THREAD => [32i64],
        lt::DYNAMIC_SMEM_BYTES => [70_000i64],
        lt::SM_CLOCK_HZ => [1.41e9],
        lt::SM_CYCLES_ELAPSED => [1.0e6],
        lt::INST_EXECUTED => [4.0 * 108.0 * 1.0e6],
        lt::ACHIEVED_OCCUPANCY => [0.125],
        lt::DRAM_BYTES_READ => [1.0e9],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    assert_eq!(out.column(out::ACTIVE_WARPS)?.i64()?.get(0), Some(8));
    assert_eq!(out.column(out::ILP_ESTIMATE)?.f64()?.get(0), Some(2.0));
    assert_eq!(
        out.column(out::WARPS_NEEDED_ALU_ILP)?.f64()?.get(0),
        Some(8.0)
    );
    let needed = out
        .column(out::BYTES_IN_FLIGHT_NEEDED)?
        .f64()?
        .get(0)
        .ok_or("null")?;
    let registry = registry();
    let latency = registry
        .arch(warpsight_model::arch::ComputeCapability::new(8, 0))
        .ok_or("no 8.0")?
        .latencies
        .dram;
    let bandwidth = registry
        .device("NVIDIA A100-SXM4-40GB")
        .ok_or("no A100")?
        .dram_bandwidth;
    assert!((needed - latency / 1.41e9 * bandwidth / 108.0).abs() < 1e-6);
    assert_eq!(
        out.column(out::BYTES_IN_FLIGHT_PROVIDED)?.f64()?.get(0),
        Some(2048.0)
    );
    // Memory binds (no FLOP), so the hiding ratio is the memory one: 2048 / 2961.5 < 1.
    let hiding = out
        .column(out::LATENCY_HIDING)?
        .f64()?
        .get(0)
        .ok_or("null")?;
    assert!((hiding - 2048.0 / needed).abs() < 1e-12);
    assert_eq!(out.column(out::LATENCY_BOUND)?.bool()?.get(0), Some(true));
    Ok(())
}
