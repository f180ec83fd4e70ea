//! Tests of `warpsight_model::roofline` that need the shipped plugins' architecture data.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, evaluate};
use warpsight_test_support::registry;

fn value(frame: &DataFrame, name: &str, row: usize) -> PolarsResult<Option<f64>> {
    Ok(frame.column(name)?.f64()?.get(row))
}

#[test]
fn a100_ridge_and_memory_bound_attainable() -> Result<(), Box<dyn std::error::Error>> {
    // The seeds' example: A100 SXM4 40GB, 19.5 TFLOP/s FP32 and 1555 GB/s → ridge 12.54 FLOP/B;
    // at 0.25 FLOP/B the roof is 0.25 × 1555 GB/s = 388.75 GFLOP/s (DRAM binds). A second launch
    // at 100 FLOP/B sits under the compute roof (19.5 TFLOP/s).
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"],
        lt::CC_MAJOR => [8i64, 8],
        lt::CC_MINOR => [0i64, 0],
        lt::BLOCK_X => [256i64, 256],
        lt::GRID_X => [864i64, 864],
        lt::REGISTERS_PER_THREAD => [32i64, 32],
        lt::INST_FFMA => [1.0e9, 1.0e9],
        lt::DRAM_BYTES_READ => [6.0e9, 0.01e9],
        lt::DRAM_BYTES_WRITE => [2.0e9, 0.01e9],
        lt::DURATION_NS => [1.0e7, 1.0e6],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let ridge = value(&out, out::RIDGE_AI_DRAM, 0)?.ok_or("no ridge")?;
    assert!((ridge - 12.54).abs() < 0.01, "ridge {ridge}");
    assert_eq!(value(&out, out::FLOP_FP32, 0)?, Some(2.0e9));
    assert_eq!(value(&out, out::DRAM_BYTES, 0)?, Some(8.0e9));
    assert_eq!(value(&out, out::AI_DRAM, 0)?, Some(0.25));
    let attainable = value(&out, out::ATTAINABLE_FLOPS, 0)?.ok_or("no roof")?;
    assert!(
        (attainable - 388.75e9).abs() < 1.0,
        "attainable {attainable}"
    );
    assert_eq!(
        out.column(out::BINDING_CEILING)?.str()?.get(0),
        Some("dram")
    );
    // Achieved 2e9 FLOP in 10 ms = 200 GFLOP/s = 51.4 % of the 388.75 GFLOP/s roof.
    let pct = value(&out, out::PCT_OF_ROOF, 0)?.ok_or("no pct")?;
    assert!((pct - 200.0e9 / 388.75e9).abs() < 1e-9);
    assert_eq!(value(&out, out::ATTAINABLE_FLOPS, 1)?, Some(19.5e12));
    assert_eq!(
        out.column(out::BINDING_CEILING)?.str()?.get(1),
        Some("fp32")
    );
    Ok(())
}

#[test]
fn flop_per_precision_counts_fma_twice() -> Result<(), Box<dyn std::error::Error>> {
    // FORMATS.md §2.1: fp32 = fadd + fmul + 2·ffma, likewise for FP64 and FP16.
    let frame = df!(
        lt::CC_MAJOR => [8i64],
        lt::CC_MINOR => [0i64],
        lt::INST_FADD => [1.0],
        lt::INST_FMUL => [2.0],
        lt::INST_FFMA => [3.0],
        lt::INST_DFMA => [5.0],
        lt::INST_HADD => [7.0],
        lt::INST_TENSOR => [2.0],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    assert_eq!(value(&out, out::FLOP_FP32, 0)?, Some(9.0));
    assert_eq!(value(&out, out::FLOP_FP64, 0)?, Some(10.0));
    assert_eq!(value(&out, out::FLOP_FP16, 0)?, Some(7.0));
    // The Ampere plugin counts 4096 FLOP per HMMA.16816 warp instruction (m16n8k16: 2·16·8·16).
    assert_eq!(value(&out, out::FLOP_TENSOR, 0)?, Some(8192.0));
    assert_eq!(value(&out, out::FLOP_TOTAL, 0)?, Some(8218.0));
    Ok(())
}
