//! Tests of `warpsight_model::waves` that need the shipped plugins' architecture data.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::columns as out;
use warpsight_model::{ModelConfig, evaluate};
use warpsight_test_support::registry;

#[test]
fn waves_and_tail_on_a100() -> Result<(), Box<dyn std::error::Error>> {
    // 256 threads × 32 registers on CC 8.0: 8 blocks per SM (warps and registers), × 108 SMs
    // = 864 blocks per wave. 1000 blocks → 1.157 waves, tail efficiency 1.157 / 2; 1728 blocks
    // → exactly 2 waves. The row's own SM count (54, e.g. a MIG slice) overrides the device's.
    let frame = df!(
        lt::DEVICE_NAME => ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"],
        lt::CC_MAJOR => [8i64, 8, 8],
        lt::CC_MINOR => [0i64, 0, 0],
        lt::SM_COUNT => [None, None, Some(54i64)],
        lt::BLOCK_X => [256i64, 256, 256],
        lt::GRID_X => [1000i64, 1728, 1728],
        lt::REGISTERS_PER_THREAD => [32i64, 32, 32],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    let per_wave = out.column(out::BLOCKS_PER_WAVE)?.i64()?;
    assert_eq!(per_wave.get(0), Some(864));
    assert_eq!(per_wave.get(2), Some(432));
    let waves = out.column(out::WAVES)?.f64()?;
    let tail = out.column(out::TAIL_EFFICIENCY)?.f64()?;
    assert!((waves.get(0).ok_or("null")? - 1000.0 / 864.0).abs() < 1e-12);
    assert!((tail.get(0).ok_or("null")? - 1000.0 / 864.0 / 2.0).abs() < 1e-12);
    assert_eq!(waves.get(1), Some(2.0));
    assert_eq!(tail.get(1), Some(1.0));
    assert_eq!(waves.get(2), Some(4.0));
    Ok(())
}
