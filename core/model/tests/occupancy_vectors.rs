//! Tests of the occupancy calculation against independent references: the test vectors of
//! OCCUPANCY.md §7 (TV1–TV26, each confirmed there by NVIDIA documentation or Nsight Compute
//! output), the CUDA Best Practices / Programming Guide examples, and the frame-wide path with
//! several compute capabilities in one frame.

use polars::prelude::*;

use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::ArchSpec;
use warpsight_model::columns as out;
use warpsight_model::occupancy::{LaunchConfig, Limiter, calculate};
use warpsight_model::{ModelConfig, ModelError, evaluate};
use warpsight_test_support::{arch, registry};

const KIB: u64 = 1024;

/// Expected limits registers / shared memory / warps / blocks (None = unlimited).
type Limits = (Option<u32>, Option<u32>, Option<u32>, Option<u32>);

struct Case {
    name: &'static str,
    cc: (u32, u32),
    config: LaunchConfig,
    limits: Limits,
    active_blocks: u32,
    active_warps: u32,
    occupancy: f64,
    limiters: &'static [Limiter],
}

fn cfg(
    block: u32,
    regs: u32,
    static_smem: u64,
    dynamic_smem: u64,
    carveout_kib: Option<u64>,
) -> LaunchConfig {
    LaunchConfig {
        static_smem,
        dynamic_smem,
        smem_config: carveout_kib.map(|k| k * KIB),
        ..LaunchConfig::new(block, regs)
    }
}

fn spec(cc: (u32, u32)) -> Result<ArchSpec, String> {
    arch(cc.0, cc.1).ok_or_else(|| format!("no reference arch {}.{}", cc.0, cc.1))
}

fn check(case: &Case) -> Result<(), Box<dyn std::error::Error>> {
    let result = calculate(&spec(case.cc)?, &case.config)?;
    let limits = (
        result.limits.registers,
        result.limits.shared_memory,
        result.limits.warps,
        result.limits.blocks,
    );
    assert_eq!(limits, case.limits, "{}: limits R/S/W/B", case.name);
    assert_eq!(
        result.active_blocks, case.active_blocks,
        "{}: active blocks",
        case.name
    );
    assert_eq!(
        result.active_warps, case.active_warps,
        "{}: active warps",
        case.name
    );
    assert!(
        (result.occupancy - case.occupancy).abs() < 0.0005,
        "{}: occupancy {} != {}",
        case.name,
        result.occupancy,
        case.occupancy
    );
    if !case.limiters.is_empty() {
        assert_eq!(result.limiters, case.limiters, "{}: limiters", case.name);
    }
    Ok(())
}

use Limiter::{Blocks, Registers, SharedMemory, Warps};

fn cases() -> Vec<Case> {
    vec![
        // CUDA C++ Best Practices Guide, "Calculating Occupancy": 12 blocks of 128 threads, 75 %.
        Case {
            name: "TV1",
            cc: (7, 0),
            config: cfg(128, 37, 0, 0, Some(96)),
            limits: (Some(12), None, Some(16), Some(32)),
            active_blocks: 12,
            active_warps: 48,
            occupancy: 0.75,
            limiters: &[Registers],
        },
        // BPG: four 320-thread blocks, 63 %.
        Case {
            name: "TV2",
            cc: (7, 0),
            config: cfg(320, 37, 0, 0, Some(96)),
            limits: (Some(4), None, Some(6), Some(32)),
            active_blocks: 4,
            active_warps: 40,
            occupancy: 0.625,
            limiters: &[Registers],
        },
        // Programming Guide, Multiprocessor Level: 64 registers → two 512-thread blocks.
        Case {
            name: "TV3",
            cc: (6, 1),
            config: cfg(512, 64, 0, 0, None),
            limits: (Some(2), None, Some(4), Some(32)),
            active_blocks: 2,
            active_warps: 32,
            occupancy: 0.5,
            limiters: &[Registers],
        },
        // Same: 65 registers → one block.
        Case {
            name: "TV4",
            cc: (6, 1),
            config: cfg(512, 65, 0, 0, None),
            limits: (Some(1), None, Some(4), Some(32)),
            active_blocks: 1,
            active_warps: 16,
            occupancy: 0.25,
            limiters: &[Registers],
        },
        // New Programming Guide: 32-thread blocks stop at 32 blocks, 50 %.
        Case {
            name: "TV5",
            cc: (10, 0),
            config: cfg(32, 16, 0, 0, Some(228)),
            limits: (Some(128), Some(228), Some(64), Some(32)),
            active_blocks: 32,
            active_warps: 32,
            occupancy: 0.5,
            limiters: &[Blocks],
        },
        Case {
            name: "TV7",
            cc: (8, 9),
            config: cfg(1024, 56, 0, 0, None),
            limits: (Some(1), Some(100), Some(1), Some(24)),
            active_blocks: 1,
            active_warps: 32,
            occupancy: 2.0 / 3.0,
            limiters: &[Registers, Warps],
        },
        Case {
            name: "TV8a",
            cc: (7, 5),
            config: cfg(256, 16, 0, 1024, Some(32)),
            limits: (Some(16), Some(32), Some(4), Some(16)),
            active_blocks: 4,
            active_warps: 32,
            occupancy: 1.0,
            limiters: &[Warps],
        },
        Case {
            name: "TV8b",
            cc: (7, 5),
            config: cfg(256, 16, 16, 1024, Some(32)),
            limits: (Some(16), Some(25), Some(4), Some(16)),
            active_blocks: 4,
            active_warps: 32,
            occupancy: 1.0,
            limiters: &[Warps],
        },
        Case {
            name: "TV8c",
            cc: (7, 5),
            config: cfg(256, 30, 0, 1024, Some(32)),
            limits: (Some(8), Some(32), Some(4), Some(16)),
            active_blocks: 4,
            active_warps: 32,
            occupancy: 1.0,
            limiters: &[Warps],
        },
        Case {
            name: "TV9",
            cc: (8, 9),
            config: cfg(512, 54, 0, 29824, Some(64)),
            limits: (Some(2), Some(2), Some(3), Some(24)),
            active_blocks: 2,
            active_warps: 32,
            occupancy: 2.0 / 3.0,
            limiters: &[Registers, SharedMemory],
        },
        Case {
            name: "TV10",
            cc: (8, 9),
            config: cfg(128, 80, 43780, 0, Some(100)),
            limits: (Some(6), Some(2), Some(12), Some(24)),
            active_blocks: 2,
            active_warps: 8,
            occupancy: 1.0 / 6.0,
            limiters: &[SharedMemory],
        },
        Case {
            name: "TV11",
            cc: (8, 9),
            config: cfg(256, 72, 33020, 0, Some(100)),
            limits: (Some(3), Some(3), Some(6), Some(24)),
            active_blocks: 3,
            active_warps: 24,
            occupancy: 0.5,
            limiters: &[Registers, SharedMemory],
        },
        Case {
            name: "TV12",
            cc: (12, 0),
            config: cfg(256, 40, 0, 0, Some(16)),
            limits: (Some(6), Some(16), Some(6), Some(24)),
            active_blocks: 6,
            active_warps: 48,
            occupancy: 1.0,
            limiters: &[Registers, Warps],
        },
        Case {
            name: "TV13",
            cc: (12, 0),
            config: cfg(256, 37, 2048, 0, Some(64)),
            limits: (Some(6), Some(21), Some(6), Some(24)),
            active_blocks: 6,
            active_warps: 48,
            occupancy: 1.0,
            limiters: &[Registers, Warps],
        },
        // S. Boehm's SGEMM worklog on an RTX A6000: 9216 B per block → 11 blocks by smem.
        Case {
            name: "TV14",
            cc: (8, 6),
            config: cfg(1024, 37, 8192, 0, Some(100)),
            limits: (Some(1), Some(11), Some(1), Some(16)),
            active_blocks: 1,
            active_warps: 32,
            occupancy: 2.0 / 3.0,
            limiters: &[Registers, Warps],
        },
        Case {
            name: "TV15",
            cc: (10, 0),
            config: cfg(128, 255, 0, 98400, Some(228)),
            limits: (Some(2), Some(2), Some(16), Some(32)),
            active_blocks: 2,
            active_warps: 8,
            occupancy: 0.125,
            limiters: &[Registers, SharedMemory],
        },
        Case {
            name: "TV20",
            cc: (9, 0),
            config: cfg(256, 32, 0, 227 * KIB, Some(228)),
            limits: (Some(8), Some(1), Some(8), Some(32)),
            active_blocks: 1,
            active_warps: 8,
            occupancy: 0.125,
            limiters: &[SharedMemory],
        },
        Case {
            name: "TV21",
            cc: (9, 0),
            config: cfg(256, 32, 0, 227 * KIB + 1, None),
            limits: (Some(8), Some(0), Some(8), Some(32)),
            active_blocks: 0,
            active_warps: 0,
            occupancy: 0.0,
            limiters: &[SharedMemory],
        },
        Case {
            name: "TV22",
            cc: (6, 0),
            config: cfg(704, 88, 0, 0, None),
            limits: (Some(0), None, Some(2), Some(32)),
            active_blocks: 0,
            active_warps: 0,
            occupancy: 0.0,
            limiters: &[Registers],
        },
        Case {
            name: "TV23",
            cc: (6, 2),
            config: cfg(800, 40, 0, 0, None),
            limits: (Some(0), None, Some(2), Some(32)),
            active_blocks: 0,
            active_warps: 0,
            occupancy: 0.0,
            limiters: &[Registers],
        },
        Case {
            name: "TV24",
            cc: (8, 6),
            config: cfg(33, 32, 0, 0, Some(100)),
            limits: (Some(32), Some(100), Some(24), Some(16)),
            active_blocks: 16,
            active_warps: 32,
            occupancy: 2.0 / 3.0,
            limiters: &[Blocks],
        },
        Case {
            name: "TV25",
            cc: (3, 5),
            config: cfg(192, 63, 0, 0, None),
            limits: (Some(5), None, Some(10), Some(16)),
            active_blocks: 5,
            active_warps: 30,
            occupancy: 30.0 / 64.0,
            limiters: &[Registers],
        },
        Case {
            name: "TV26",
            cc: (6, 1),
            config: cfg(32, 256, 0, 0, None),
            limits: (Some(0), None, Some(64), Some(32)),
            active_blocks: 0,
            active_warps: 0,
            occupancy: 0.0,
            limiters: &[Registers],
        },
        // Seed case: 128 threads with 16 KB of shared memory on a 64 KB SM (GP100) → 25 %.
        Case {
            name: "seed-smem",
            cc: (6, 0),
            config: cfg(128, 32, 16 * KIB, 0, None),
            limits: (Some(16), Some(4), Some(16), Some(32)),
            active_blocks: 4,
            active_warps: 16,
            occupancy: 0.25,
            limiters: &[SharedMemory],
        },
        // Seed case: 32-thread blocks reach only 32 of 64 warps on CC 8.0.
        Case {
            name: "seed-32-threads",
            cc: (8, 0),
            config: cfg(32, 32, 0, 0, None),
            limits: (Some(64), Some(164), Some(64), Some(32)),
            active_blocks: 32,
            active_warps: 32,
            occupancy: 0.5,
            limiters: &[Blocks],
        },
    ]
}

#[test]
fn test_vectors_of_occupancy_md_match() -> Result<(), Box<dyn std::error::Error>> {
    // The architecture numbers are the shipped plugins'; a vector whose compute capability no
    // plugin provides (TV25, CC 3.5) is reported and left out.
    let mut checked = 0;
    for case in cases() {
        if arch(case.cc.0, case.cc.1).is_none() {
            println!(
                "{}: no plugin provides {}.{}; not checked",
                case.name, case.cc.0, case.cc.1
            );
            continue;
        }
        check(&case)?;
        checked += 1;
    }
    assert!(checked >= 24, "only {checked} vectors checked");
    Ok(())
}

#[test]
fn ncu_dumps_with_unknown_smem_agree_on_the_other_limits() -> Result<(), Box<dyn std::error::Error>>
{
    // TV6 (A800, ncu): registers 2, warps 4, SM 32, 50 %; the dump omits the shared-memory inputs.
    let result = calculate(&spec((8, 0))?, &LaunchConfig::new(512, 46))?;
    assert_eq!(
        (
            result.limits.registers,
            result.limits.warps,
            result.limits.blocks
        ),
        (Some(2), Some(4), Some(32))
    );
    assert_eq!(result.active_warps, 32);
    assert!((result.occupancy - 0.5).abs() < 1e-12);
    Ok(())
}

#[test]
fn carveout_percentages_round_up_to_the_next_carveout() -> Result<(), Box<dyn std::error::Error>> {
    // TV16: 50 % of 164 KB on CC 8.0 maps to a 100 KB carveout (PG §20.7.3); with 40 KB dynamic
    // smem (TV18) that gives 2 blocks.
    let tv18 = LaunchConfig {
        dynamic_smem: 40 * KIB,
        carveout_percent: Some(50),
        ..LaunchConfig::new(128, 32)
    };
    let result = calculate(&spec((8, 0))?, &tv18)?;
    assert_eq!(result.smem_capacity, Some(100 * KIB));
    assert_eq!(result.smem_capacity_source, "preference");
    assert_eq!(result.limits.shared_memory, Some(2));
    assert_eq!((result.active_blocks, result.active_warps), (2, 8));
    // TV17: 50 % on CC 7.0 is 48 KB, rounded up to the 64 KB carveout (PG §20.6.4).
    let tv17 = LaunchConfig {
        static_smem: KIB,
        carveout_percent: Some(50),
        ..LaunchConfig::new(128, 32)
    };
    assert_eq!(
        calculate(&spec((7, 0))?, &tv17)?.smem_capacity,
        Some(64 * KIB)
    );
    // TV19: a 0 % (max L1) preference too small for one 11 KB block is bumped to 16 KB: 1 block.
    let tv19 = LaunchConfig {
        dynamic_smem: 10 * KIB,
        carveout_percent: Some(0),
        ..LaunchConfig::new(128, 32)
    };
    let result = calculate(&spec((8, 0))?, &tv19)?;
    assert_eq!(result.smem_capacity, Some(16 * KIB));
    assert_eq!(
        (
            result.limits.shared_memory,
            result.active_blocks,
            result.active_warps
        ),
        (Some(1), 1, 4)
    );
    assert!((result.occupancy - 0.0625).abs() < 1e-12);
    Ok(())
}

#[test]
fn the_default_policy_is_the_maximum_carveout() -> Result<(), Box<dyn std::error::Error>> {
    // With no export and no preference, CC 9.0 uses 228 KB: 1 KB blocks → 228 by shared memory.
    let result = calculate(&spec((9, 0))?, &LaunchConfig::new(128, 32))?;
    assert_eq!(result.smem_capacity, Some(228 * KIB));
    assert_eq!(result.smem_capacity_source, "policy");
    assert_eq!(result.limits.shared_memory, Some(228));
    Ok(())
}

#[test]
fn unlaunchable_configurations_say_why() -> Result<(), Box<dyn std::error::Error>> {
    let too_big = calculate(&spec((8, 0))?, &LaunchConfig::new(2048, 32))?;
    assert_eq!(too_big.active_blocks, 0);
    assert_eq!(
        too_big.not_launchable.as_deref(),
        Some("needs 2048 threads per block, the device allows 1024")
    );
    let regs = calculate(&spec((6, 1))?, &LaunchConfig::new(32, 256))?;
    assert_eq!(
        regs.not_launchable.as_deref(),
        Some("needs 256 registers per thread, the device allows 255")
    );
    let smem = calculate(&spec((9, 0))?, &cfg(256, 32, 0, 227 * KIB + 1, None))?;
    assert_eq!(
        smem.not_launchable.as_deref(),
        Some("needs 232449 B shared memory per block, the device allows 232448 B")
    );
    let hw = calculate(&spec((6, 2))?, &LaunchConfig::new(800, 40))?;
    assert_eq!(
        hw.not_launchable.as_deref(),
        Some("needs 35840 registers per block, the device allows 32768")
    );
    let gp100 = calculate(&spec((6, 0))?, &LaunchConfig::new(704, 88))?;
    assert_eq!(
        gp100.not_launchable.as_deref(),
        Some("no block fits on an SM (limited by registers)")
    );
    let fine = calculate(&spec((8, 0))?, &LaunchConfig::new(256, 32))?;
    assert_eq!(fine.not_launchable, None);
    Ok(())
}

#[test]
fn barriers_limit_only_from_cc_9() -> Result<(), Box<dyn std::error::Error>> {
    // 9.0: k = 2, 32 block slots → 64 barriers; 16 barriers per block → 4 blocks (the H200 ncu raw
    // page #13, launch 18, reports "launch__barrier_count 16" and "Block Limit Barriers 4").
    let config = LaunchConfig {
        barriers: 16,
        ..LaunchConfig::new(128, 32)
    };
    let hopper = calculate(&spec((9, 0))?, &config)?;
    assert_eq!(hopper.limits.barriers, Some(4));
    assert_eq!(hopper.active_blocks, 4);
    assert_eq!(hopper.limiters, vec![Limiter::Barriers]);
    assert_eq!(calculate(&spec((8, 0))?, &config)?.limits.barriers, None);
    // TV12: 12.0 with one barrier per block → 24.
    assert_eq!(
        calculate(&spec((12, 0))?, &LaunchConfig::new(256, 40))?
            .limits
            .barriers,
        Some(24)
    );
    Ok(())
}

#[test]
fn max_potential_block_size_prefers_full_sms() -> Result<(), Box<dyn std::error::Error>> {
    // 32 registers on CC 8.0: every multiple of 64 threads up to 1024 fills the SM (2048 threads);
    // the search starts at 1024 and stops at the first full SM.
    let best = warpsight_model::occupancy::max_potential_block_size(
        &spec((8, 0))?,
        &LaunchConfig::new(0, 32),
        None,
        108,
        &|_| 0,
    )?
    .ok_or("no block size")?;
    assert_eq!(best.block_size, 1024);
    assert_eq!(best.min_grid_size, 2 * 108);
    // 64 registers: 32768 registers per block of 1024 → 2 blocks = 2048 threads; still 1024.
    // 128 registers (4096 per warp): 16 warps per SM → best is 512 threads (1 block of 16 warps).
    let best = warpsight_model::occupancy::max_potential_block_size(
        &spec((8, 0))?,
        &LaunchConfig::new(0, 128),
        None,
        108,
        &|_| 0,
    )?
    .ok_or("no block size")?;
    assert_eq!(best.block_size, 512);
    assert_eq!(best.occupancy.active_warps, 16);
    Ok(())
}

/// One launch-table row per test vector, several compute capabilities in one frame, through
/// [`evaluate`]: the frame path gives the same numbers as the scalar path.
#[test]
fn evaluate_matches_the_vectors_over_a_mixed_frame() -> Result<(), Box<dyn std::error::Error>> {
    let chosen: Vec<Case> = cases()
        .into_iter()
        .filter(|c| arch(c.cc.0, c.cc.1).is_some())
        .collect();
    let n = chosen.len();
    let frame = df!(
        lt::CC_MAJOR => chosen.iter().map(|c| i64::from(c.cc.0)).collect::<Vec<_>>(),
        lt::CC_MINOR => chosen.iter().map(|c| i64::from(c.cc.1)).collect::<Vec<_>>(),
        lt::BLOCK_X => chosen.iter().map(|c| i64::from(c.config.block_size)).collect::<Vec<_>>(),
        lt::BLOCK_Y => vec![1i64; n],
        lt::BLOCK_Z => vec![1i64; n],
        lt::GRID_X => vec![1000i64; n],
        lt::REGISTERS_PER_THREAD => chosen.iter().map(|c| i64::from(c.config.registers_per_thread)).collect::<Vec<_>>(),
        lt::STATIC_SMEM_BYTES => chosen.iter().map(|c| c.config.static_smem as i64).collect::<Vec<_>>(),
        lt::DYNAMIC_SMEM_BYTES => chosen.iter().map(|c| c.config.dynamic_smem as i64).collect::<Vec<_>>(),
        lt::SMEM_CONFIG_BYTES => chosen.iter().map(|c| c.config.smem_config.map(|v| v as i64)).collect::<Vec<_>>(),
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    assert_eq!(out.height(), n);
    let active = out.column(out::ACTIVE_BLOCKS)?.i64()?.clone();
    let occupancy = out.column(out::THEORETICAL_OCCUPANCY)?.f64()?.clone();
    let shared = out.column(out::LIMIT_SHARED_MEM)?.i64()?.clone();
    for (i, case) in chosen.iter().enumerate() {
        assert_eq!(
            active.get(i),
            Some(i64::from(case.active_blocks)),
            "{}",
            case.name
        );
        assert_eq!(shared.get(i), case.limits.1.map(i64::from), "{}", case.name);
        let got = occupancy.get(i).ok_or("null occupancy")?;
        assert!((got - case.occupancy).abs() < 0.0005, "{}", case.name);
    }
    Ok(())
}

#[test]
fn unknown_compute_capability_is_a_reason_not_a_zero() -> Result<(), ModelError> {
    let frame = df!(
        lt::CC_MAJOR => [2i64],
        lt::CC_MINOR => [1i64],
        lt::BLOCK_X => [128i64],
        lt::REGISTERS_PER_THREAD => [32i64],
    )?;
    let out = evaluate(frame.lazy(), &registry(), &ModelConfig::default())?.collect()?;
    assert_eq!(out.column(out::THEORETICAL_OCCUPANCY)?.f64()?.get(0), None);
    assert_eq!(
        out.column(out::NOT_LAUNCHABLE)?.str()?.get(0),
        Some("unknown compute capability 2.1 (no plugin provides it)")
    );
    assert_eq!(
        out.column(out::MODEL_REASON)?.str()?.get(0),
        Some("no loaded plugin provides compute capability 2.1")
    );
    assert_eq!(warpsight_model::count_unmodelled(&out)?, 1);
    Ok(())
}

/// The same vectors with the registry's own lookup (the path the model takes), per compute
/// capability the plugins provide.
#[test]
fn test_vectors_hold_with_the_plugins() -> Result<(), Box<dyn std::error::Error>> {
    let registry = registry();
    let mut checked = 0;
    for case in cases() {
        let cc = warpsight_model::arch::ComputeCapability::new(case.cc.0, case.cc.1);
        let Some(arch) = registry.arch(cc) else {
            println!("{}: no plugin provides {cc}; not checked", case.name);
            continue;
        };
        let result = calculate(arch, &case.config)?;
        assert_eq!(
            result.active_blocks, case.active_blocks,
            "{} with the plugins",
            case.name
        );
        assert_eq!(
            result.active_warps, case.active_warps,
            "{} with the plugins",
            case.name
        );
        assert_eq!(
            result.limits.shared_memory, case.limits.1,
            "{} with the plugins",
            case.name
        );
        checked += 1;
    }
    println!("{checked} vectors checked with the plugins");
    Ok(())
}
