//! Tests of `warpsight_model::predicted_time` that need the shipped plugins' architecture data.

use polars::prelude::*;

use warpsight_model::columns as out;
use warpsight_test_support::registry;
use warpsight_model::{ModelConfig, ModelError, evaluate};
use warpsight_model::predicted_time::LAUNCH_OVERHEAD_NS;
use warpsight_ingest::launch_table::col;

/// A memory-bound launch on A100 with whole waves: 1.555 GB moved at 1555 GB/s = 1 ms.
fn a100_stream() -> PolarsResult<DataFrame> {
    df!(
        col::DEVICE_NAME => ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"],
        col::CC_MAJOR => [8i64, 8],
        col::CC_MINOR => [0i64, 0],
        col::BLOCK_X => [256i64, 256],
        col::GRID_X => [8640i64, 8640],
        col::REGISTERS_PER_THREAD => [32i64, 32],
        col::DRAM_BYTES_READ => [Some(1.0e9), None],
        col::DRAM_BYTES_WRITE => [Some(0.555e9), None],
        col::DURATION_NS => [1.1e6, 5.0e4],
    )
}

#[test]
fn memory_bound_prediction_and_error() -> Result<(), Box<dyn std::error::Error>> {
    let out =
        evaluate(a100_stream()?.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let predicted = out.column(out::PREDICTED_NS)?.f64()?.get(0).ok_or("null")?;
    // 8 blocks/SM × 108 SMs = 864 per wave; 8640 blocks = 10 full waves (no tail). 64 warps ×
    // 128 B = 8192 B in flight per SM > 2961.5 needed, so DRAM bandwidth, not latency, binds.
    assert!(
        (predicted - (1.0e6 + LAUNCH_OVERHEAD_NS)).abs() < 1e-3,
        "{predicted}"
    );
    assert_eq!(out.column(out::BOUND)?.str()?.get(0), Some("memory-dram"));
    let error = out
        .column(out::PREDICTION_ERROR)?
        .f64()?
        .get(0)
        .ok_or("null")?;
    assert!((error - ((1.0e6 + LAUNCH_OVERHEAD_NS) - 1.1e6) / 1.1e6).abs() < 1e-12);
    // Without counters: occupancy and waves but no prediction.
    assert_eq!(out.column(out::PREDICTED_NS)?.f64()?.get(1), None);
    assert_eq!(out.column(out::BOUND)?.str()?.get(1), Some("unknown"));
    assert_eq!(out.column(out::WAVES)?.f64()?.get(1), Some(10.0));
    Ok(())
}

#[test]
fn cross_device_scales_the_measured_time() -> Result<(), Box<dyn std::error::Error>> {
    let config = ModelConfig {
        device_override: Some("H100 SXM5 80GB".into()),
        ..ModelConfig::default()
    };
    let out = evaluate(a100_stream()?.lazy(), &registry(), &config)?.collect()?;
    assert_eq!(
        out.column(out::MODEL_DEVICE)?.str()?.get(0),
        Some("NVIDIA H100 80GB HBM3")
    );
    // On H100: 8 blocks/SM × 132 SMs = 1056 per wave → 8640 / 1056 = 8.18 waves, tail 8.18/9;
    // DRAM time 1.555e9 / 3.35e12 s. Source prediction 1 ms + overhead (see above).
    let waves = 8640.0 / 1056.0;
    let target = 1.555e9 / 3.35e12 * 1e9 / (waves / 9.0) + LAUNCH_OVERHEAD_NS;
    let expected = 1.1e6 * target / (1.0e6 + LAUNCH_OVERHEAD_NS);
    let predicted = out.column(out::PREDICTED_NS)?.f64()?.get(0).ok_or("null")?;
    assert!(
        (predicted - expected).abs() < 1e-3,
        "{predicted} vs {expected}"
    );
    assert_eq!(
        out.column(out::PREDICTION_METHOD)?.str()?.get(0),
        Some("measured-scaled")
    );
    assert_eq!(out.column(out::PREDICTION_ERROR)?.f64()?.get(0), None);
    assert_eq!(out.column(out::BLOCKS_PER_WAVE)?.i64()?.get(1), Some(1056));
    Ok(())
}

#[test]
fn an_unknown_override_device_is_an_error() -> Result<(), PolarsError> {
    let config = ModelConfig {
        device_override: Some("GeForce 256".into()),
        ..ModelConfig::default()
    };
    let result = evaluate(a100_stream()?.lazy(), &registry(), &config);
    assert!(
        matches!(result, Err(ModelError::UnknownDevice { ref name, .. }) if name == "GeForce 256")
    );
    Ok(())
}
