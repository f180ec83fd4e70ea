//! Tests of `warpsight_report::analysis::what_if` that need the shipped plugins' architecture data.

use polars::prelude::*;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::{ModelConfig, columns as mc};
use warpsight_report::analysis::AnalysisError;
use warpsight_report::analysis::frame_access::Cells;
use warpsight_report::analysis::what_if::{
    BLOCK_SIZE, BLOCK_SIZE_OCCUPANCY, REGISTERS, REGISTERS_BLOCKS, REGISTERS_OCCUPANCY,
    SMEM_BLOCKS, SMEM_BYTES, SMEM_OCCUPANCY, add_columns,
};

/// A launch configuration: CC major, CC minor, block size, registers, static shared memory and the
/// shared-memory configuration (null: the export names none).
type Config = (u32, u32, i64, i64, i64, Option<i64>);

/// One launch per configuration, CC and shape given; everything else null.
fn launches(rows: &[Config]) -> PolarsResult<DataFrame> {
    let frame = df!(
        lt::SOURCE_FILE => vec!["t.csv"; rows.len()],
        lt::LAUNCH_ID => (0..rows.len() as i64).collect::<Vec<_>>(),
        lt::KERNEL_NAME => vec!["k"; rows.len()],
        lt::CC_MAJOR => rows.iter().map(|r| i64::from(r.0)).collect::<Vec<_>>(),
        lt::CC_MINOR => rows.iter().map(|r| i64::from(r.1)).collect::<Vec<_>>(),
        lt::BLOCK_X => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
        lt::BLOCK_Y => vec![1i64; rows.len()],
        lt::BLOCK_Z => vec![1i64; rows.len()],
        lt::GRID_X => vec![1000i64; rows.len()],
        lt::GRID_Y => vec![1i64; rows.len()],
        lt::GRID_Z => vec![1i64; rows.len()],
        lt::REGISTERS_PER_THREAD => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        lt::STATIC_SMEM_BYTES => rows.iter().map(|r| r.4).collect::<Vec<_>>(),
        lt::DYNAMIC_SMEM_BYTES => vec![0i64; rows.len()],
        lt::SMEM_CONFIG_BYTES => rows.iter().map(|r| r.5).collect::<Vec<_>>(),
    )?;
    warpsight_ingest::launch_table::conform(frame.lazy())?.collect()
}

fn evaluated(rows: &[Config]) -> Result<DataFrame, AnalysisError> {
    let registry = warpsight_test_support::registry();
    let config = ModelConfig::default();
    let frame = warpsight_model::evaluate(launches(rows)?.lazy(), &registry, &config)?.collect()?;
    add_columns(frame, &registry, &config)
}

#[test]
fn one_register_less_doubles_the_blocks_of_the_programming_guide_example()
-> Result<(), AnalysisError> {
    // CUDA Programming Guide, "Multiprocessor Level": 512-thread blocks on CC 6.x with 64
    // registers give 2 blocks (32 warps), with 65 registers only 1 block (16 warps).
    let frame = evaluated(&[(6, 1, 512, 65, 0, None)])?;
    let mut cells = Cells::new(&frame);
    assert_eq!(cells.f64(mc::THEORETICAL_OCCUPANCY, 0), Some(0.25));
    assert_eq!(cells.i64(REGISTERS, 0), Some(64));
    assert_eq!(cells.i64(REGISTERS_BLOCKS, 0), Some(2));
    assert_eq!(cells.f64(REGISTERS_OCCUPANCY, 0), Some(0.5));
    Ok(())
}

#[test]
fn small_blocks_get_the_nearest_block_size_that_lifts_the_blocks_per_sm_cap()
-> Result<(), AnalysisError> {
    // OCCUPANCY.md TV5: CC 10.0, 32-thread blocks stop at 32 blocks per SM = 50 %. With 64
    // threads the same 32 blocks hold 64 warps = 100 % (and so do larger sizes: the nearest wins).
    let frame = evaluated(&[(10, 0, 32, 16, 0, None)])?;
    let mut cells = Cells::new(&frame);
    assert_eq!(cells.f64(mc::THEORETICAL_OCCUPANCY, 0), Some(0.5));
    assert_eq!(cells.i64(BLOCK_SIZE, 0), Some(64));
    assert_eq!(cells.f64(BLOCK_SIZE_OCCUPANCY, 0), Some(1.0));
    assert_eq!(
        cells.i64(REGISTERS, 0),
        None,
        "registers are not the limiter"
    );
    Ok(())
}

#[test]
fn less_shared_memory_fits_one_more_block() -> Result<(), AnalysisError> {
    // OCCUPANCY.md TV10 (CC 8.9, 100 KiB carveout): 43 780 B static + 1 KiB reserved rounds to
    // 44 928 B per block, 102 400 / 44 928 = 2 blocks (8 warps of 48 = 16.7 %). For 3 blocks a
    // block may use floor(102 400 / 3) = 34 133 B, i.e. 34 048 B at 256 B steps: 10 880 B less,
    // 32 900 B of static shared memory (+ 1 KiB → 34 048 B allocated), which gives
    // 3 blocks = 12 warps = 25 %.
    let frame = evaluated(&[(8, 9, 128, 80, 43_780, Some(102_400))])?;
    let mut cells = Cells::new(&frame);
    assert_eq!(cells.i64(mc::ACTIVE_BLOCKS, 0), Some(2));
    assert_eq!(cells.i64(SMEM_BYTES, 0), Some(32_900));
    assert_eq!(cells.i64(SMEM_BLOCKS, 0), Some(3));
    assert_eq!(cells.f64(SMEM_OCCUPANCY, 0), Some(0.25));
    Ok(())
}

#[test]
fn identical_configurations_share_one_evaluation_and_every_launch_gets_it()
-> Result<(), AnalysisError> {
    let frame = evaluated(&[
        (6, 1, 512, 65, 0, None),
        (6, 1, 512, 65, 0, None),
        (6, 1, 256, 32, 0, None),
    ])?;
    assert_eq!(frame.height(), 3);
    let mut cells = Cells::new(&frame);
    assert_eq!(cells.i64(REGISTERS, 1), Some(64));
    assert_eq!(cells.i64(lt::LAUNCH_ID, 2), Some(2));
    Ok(())
}

#[test]
fn hostile_registers_and_shared_memory_are_not_searched() -> Result<(), AnalysisError> {
    // Issue #14: `Reg/Trd` = 4294967296 made the register search loop over every smaller count
    // (> 3 GB), and dynamic shared memory of 1e308 (saturated to i64::MAX) divided by zero. Ingest
    // rejects such launches; the what-if engine must still stay bounded on a frame that was not
    // validated.
    let started = std::time::Instant::now();
    let frame = evaluated(&[
        (9, 0, 128, 4_294_967_296, 0, None),
        (9, 0, 128, 300, 0, None),
        (9, 0, 128, 32, i64::MAX, None),
        (9, 0, 128, 32, -1, None),
    ])?;
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let mut cells = Cells::new(&frame);
    for row in 0..4 {
        assert_eq!(cells.i64(REGISTERS, row), None, "row {row}");
        assert_eq!(cells.i64(SMEM_BYTES, row), None, "row {row}");
    }
    Ok(())
}

/// The register search tries only the register allocation steps (multiples of 8 with 256-register
/// units per warp). Against an exhaustive search with the occupancy calculator: for every register
/// count 2–255 of 128- and 256-thread blocks on CC 9.0 and 8.6, the suggestion is the largest count
/// below the current one that gives more blocks per SM, or none when no count does.
#[test]
fn the_stepped_register_search_equals_the_exhaustive_one() -> Result<(), Box<dyn std::error::Error>>
{
    let registry = warpsight_test_support::registry();
    let mut rows = Vec::new();
    for (major, minor) in [(9u32, 0u32), (8, 6)] {
        for block in [128i64, 256] {
            for registers in 2..=255i64 {
                rows.push((major, minor, block, registers, 0i64, None));
            }
        }
    }
    let frame = evaluated(&rows)?;
    let mut cells = Cells::new(&frame);
    // Blocks per SM for every register count, per (CC, block size), by the occupancy calculator.
    let mut tables: std::collections::HashMap<(u32, u32, i64), Vec<u32>> = Default::default();
    for &(major, minor, block, _, _, _) in &rows {
        if tables.contains_key(&(major, minor, block)) {
            continue;
        }
        let cc = warpsight_model::arch::ComputeCapability { major, minor };
        let arch = registry
            .arch(cc)
            .ok_or(format!("no architecture {major}.{minor}"))?;
        let mut table = vec![0u32; 256];
        for regs in 1..=255u32 {
            let config = warpsight_model::LaunchConfig::new(u32::try_from(block)?, regs);
            table[regs as usize] = warpsight_model::calculate(arch, &config)?.active_blocks;
        }
        tables.insert((major, minor, block), table);
    }
    let mut suggested = 0;
    for (row, &(major, minor, block, registers, _, _)) in rows.iter().enumerate() {
        let table = &tables[&(major, minor, block)];
        let current = table[registers as usize];
        let expected = (1..registers)
            .rev()
            .find(|&fewer| table[fewer as usize] > current);
        let limited = cells
            .str(mc::LIMITER, row)
            .is_some_and(|limiter| limiter.contains("registers"));
        let got = cells.i64(REGISTERS, row);
        if limited {
            assert_eq!(
                got, expected,
                "CC {major}.{minor}, {block} threads, {registers} registers"
            );
            suggested += usize::from(got.is_some());
        } else {
            assert_eq!(got, None, "no register advice when registers do not limit");
        }
    }
    assert!(suggested > 200, "suggestions compared: {suggested}");
    Ok(())
}
