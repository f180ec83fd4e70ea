//! Tests of `warpsight_report::analysis::sweep` that need the shipped plugins' architecture data.

use warpsight_model::arch::ComputeCapability;
use warpsight_report::analysis::AnalysisError;
use warpsight_report::analysis::sweep::*;

#[test]
fn register_sweep_reproduces_the_programming_guide_steps() -> Result<(), AnalysisError> {
    // CC 6.1, 512-thread blocks: 64 registers → 2 blocks (50 %), 65 → 1 block (25 %)
    // (CUDA Programming Guide, "Multiprocessor Level").
    let registry = warpsight_test_support::registry();
    let sweeps = for_config(&registry, ComputeCapability::new(6, 1), 512, 65, 0, 0, None)?;
    let registers = &sweeps[1];
    assert_eq!(registers.axis, SweepAxis::Registers);
    let at = |r: f64| {
        registers
            .points
            .iter()
            .find(|p| p.value == r)
            .map(|p| p.occupancy)
    };
    assert_eq!(at(64.0), Some(0.5));
    assert_eq!(at(65.0), Some(0.25));
    assert_eq!(registers.current, Some((65.0, 0.25)));
    // Block sizes go in warp steps up to 1024 threads. At 65 registers a warp takes 2304
    // registers, a sub-partition (16 384) holds 7 warps, the SM 28: 28 one-warp blocks = 43.75 %.
    let blocks = &sweeps[0];
    assert_eq!(blocks.points.len(), 32);
    assert_eq!(blocks.points[0].occupancy, 28.0 / 64.0);
    assert_eq!(blocks.points[0].limiter, "registers");
    let text = to_text(&sweeps);
    assert!(text.contains("← current"));
    assert!(
        warpsight_report::render::occupancy_chart::svg_document(&sweeps, "k")
            .matches("<svg")
            .count()
            == 4
    );
    Ok(())
}
