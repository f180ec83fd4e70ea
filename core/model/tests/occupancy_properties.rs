//! Property tests of the occupancy calculation: more of a resource per block never raises
//! occupancy, and results stay within the hardware's bounds.
//!
//! Note on block size: more threads per block does **not** in general lower occupancy (32-thread
//! blocks give 50 % on CC 8.0 because of the 32-block slot limit, 64-thread blocks give 100 %), so
//! the property tested for block size is that the number of resident *blocks* never rises.

use proptest::prelude::*;

use warpsight_model::arch::ArchSpec;
use warpsight_model::occupancy::{LaunchConfig, OccupancyResult, calculate};
use warpsight_test_support::arch;

const CCS: &[(u32, u32)] = &[
    (5, 3),
    (6, 0),
    (6, 1),
    (6, 2),
    (7, 0),
    (7, 5),
    (8, 0),
    (8, 6),
    (8, 9),
    (9, 0),
    (10, 0),
    (12, 0),
];

fn spec(index: usize) -> ArchSpec {
    let (major, minor) = CCS[index % CCS.len()];
    arch(major, minor).unwrap_or_else(|| panic!("plugin arch {major}.{minor} missing"))
}

fn run(arch: &ArchSpec, config: &LaunchConfig) -> OccupancyResult {
    calculate(arch, config).unwrap_or_else(|e| panic!("calculate failed: {e}"))
}

fn config(block: u32, regs: u32, static_smem: u64, dynamic_smem: u64) -> LaunchConfig {
    LaunchConfig {
        static_smem,
        dynamic_smem,
        ..LaunchConfig::new(block, regs)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn more_registers_never_raise_occupancy(cc in 0usize..64, block in 1u32..=1024, r1 in 0u32..=255, extra in 0u32..=64, smem in 0u64..=48 * 1024) {
        let arch = spec(cc);
        let r2 = (r1 + extra).min(255);
        let low = run(&arch, &config(block, r1, smem, 0));
        let high = run(&arch, &config(block, r2, smem, 0));
        prop_assert!(high.occupancy <= low.occupancy, "{r1} → {r2} regs: {} → {}", low.occupancy, high.occupancy);
    }

    #[test]
    fn more_shared_memory_never_raises_occupancy(cc in 0usize..64, block in 1u32..=1024, regs in 0u32..=255, d1 in 0u64..=160 * 1024, extra in 0u64..=64 * 1024) {
        let arch = spec(cc);
        let low = run(&arch, &config(block, regs, 0, d1));
        let high = run(&arch, &config(block, regs, 0, d1 + extra));
        prop_assert!(high.occupancy <= low.occupancy, "{d1} → {} B: {} → {}", d1 + extra, low.occupancy, high.occupancy);
    }

    #[test]
    fn more_warps_per_block_never_raise_resident_blocks(cc in 0usize..64, w1 in 1u32..=32, extra in 0u32..=31, regs in 0u32..=255, smem in 0u64..=48 * 1024) {
        let arch = spec(cc);
        let w2 = (w1 + extra).min(32);
        let low = run(&arch, &config(w1 * 32, regs, smem, 0));
        let high = run(&arch, &config(w2 * 32, regs, smem, 0));
        prop_assert!(high.active_blocks <= low.active_blocks);
    }

    #[test]
    fn results_stay_within_hardware_bounds(cc in 0usize..64, block in 1u32..=1100, regs in 0u32..=260, stat in 0u64..=64 * 1024, dynamic in 0u64..=240 * 1024, config_kib in proptest::option::of(0u64..=228)) {
        let arch = spec(cc);
        let result = run(&arch, &LaunchConfig { smem_config: config_kib.map(|k| k * 1024), ..config(block, regs, stat, dynamic) });
        prop_assert!((0.0..=1.0).contains(&result.occupancy));
        prop_assert!(result.active_warps <= arch.max_warps_per_sm);
        prop_assert!(result.active_blocks <= arch.max_blocks_per_sm);
        prop_assert_eq!(result.active_warps, result.active_blocks * result.warps_per_block);
        prop_assert_eq!(result.active_blocks == 0, result.not_launchable.is_some());
    }
}
