//! Tests of `warpsight_model::resolve` that need the shipped plugins' architecture data.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, evaluate};
use warpsight_test_support::registry;

#[test]
fn devices_are_found_by_name_or_by_a_unique_configuration() -> Result<(), Box<dyn std::error::Error>>
{
    // Row 0: named (case and punctuation differ from the registry's spelling). Row 1: no name,
    // CC 8.9 with 128 SMs: of the shipped plugins' devices only the RTX 4090 matches. Row 2: no name, CC 9.0 with 132 SMs: both
    // H100 SXM and H200 match, so no device is guessed. Row 3: an unknown name.
    let frame = df!(
        lt::DEVICE_NAME => [Some("nvidia a100 sxm4 40gb"), None, None, Some("NVIDIA TITAN Q")],
        lt::CC_MAJOR => [8i64, 8, 9, 8],
        lt::CC_MINOR => [0i64, 9, 0, 6],
        lt::SM_COUNT => [None, Some(128i64), Some(132), None],
        lt::BLOCK_X => [128i64, 128, 128, 128],
        lt::REGISTERS_PER_THREAD => [32i64, 32, 32, 32],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let device = out.column(out::MODEL_DEVICE)?.str()?;
    assert_eq!(device.get(0), Some("NVIDIA A100-SXM4-40GB"));
    assert_eq!(device.get(1), Some("NVIDIA GeForce RTX 4090"));
    assert_eq!(device.get(2), None);
    assert_eq!(device.get(3), None);
    let reason = out.column(out::MODEL_REASON)?.str()?;
    assert_eq!(reason.get(0), None);
    assert_eq!(
        reason.get(2),
        Some(
            "the export names no device and no single loaded device has compute capability 9.0 \
             with 132 SMs: device ceilings (bandwidth, peak FLOP/s) unknown"
        )
    );
    assert_eq!(
        reason.get(3),
        Some(
            "device NVIDIA TITAN Q is not in the loaded plugins: device ceilings (bandwidth, \
             peak FLOP/s) unknown"
        )
    );
    // Occupancy still comes from the architecture.
    assert!(
        out.column(out::THEORETICAL_OCCUPANCY)?
            .f64()?
            .get(2)
            .is_some()
    );
    Ok(())
}

#[test]
fn peaks_follow_the_clock_the_launch_ran_at() -> Result<(), Box<dyn std::error::Error>> {
    // A100 FP32 peak 19.5 TFLOP/s at 1410 MHz; a run at 705 MHz (half) has a 9.75 TFLOP/s roof.
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA A100-SXM4-40GB"],
        lt::CC_MAJOR => [8i64],
        lt::CC_MINOR => [0i64],
        lt::SM_CLOCK_HZ => [705.0e6],
        lt::INST_FFMA => [1.0e9],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let ceiling = out
        .column(out::COMPUTE_CEILING)?
        .f64()?
        .get(0)
        .ok_or("null")?;
    assert!((ceiling - 9.75e12).abs() < 1.0, "{ceiling}");
    Ok(())
}
