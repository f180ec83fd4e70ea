//! The `regs_64_65` report: two kernels that differ by one register per thread, which halves
//! the blocks per SM that the register file allows.

use warpsight_ncu_rep::{Value, Values};

use super::support::report;

#[test]
fn registers_and_occupancy_limits() {
    let r = report("regs_64_65");
    assert_eq!(r.launches.len(), 2);
    let get = |i: usize, name: &str| r.value(&r.launches[i], name).cloned();

    let names: Vec<_> = r
        .launches
        .iter()
        .map(|l| l.function_name.clone().unwrap())
        .collect();
    assert_eq!(names, ["regs64_kernel", "regs65_kernel"]);
    for (i, (regs, limit, duration)) in [(64, 2.0, 155_264.0), (65, 1.0, 187_264.0)]
        .into_iter()
        .enumerate()
    {
        // ncu stores the register count as an integer, the block limit and the duration as
        // doubles.
        assert_eq!(
            get(i, "launch__registers_per_thread"),
            Some(Value::Uint64(regs))
        );
        assert_eq!(
            get(i, "launch__occupancy_limit_registers"),
            Some(Value::Double(limit))
        );
        assert_eq!(
            get(i, "gpu__time_duration.sum"),
            Some(Value::Double(duration))
        );
        let l = &r.launches[i];
        assert_eq!((l.grid.unwrap().x, l.block.unwrap().x), (4096, 512));
    }
    // Theoretical occupancy follows the register limit: 2 blocks of 16 warps = 50 %, 1 = 25 %.
    let occ = |i| get(i, "sm__maximum_warps_per_active_cycle_pct").and_then(|v| v.as_f64());
    assert_eq!(occ(0), Some(50.0));
    assert_eq!(occ(1), Some(25.0));
    // A `--set full` report keeps about 2300 metrics per launch.
    assert!(r.launches.iter().all(|l| l.metrics.len() > 2200));
}

#[test]
fn instance_values_and_correlation_ids() {
    let r = report("regs_64_65");
    let l = &r.launches[0];
    // A single-instance metric stores one instance with correlation id 0.
    let grid = r.metric(l, "launch__grid_size").unwrap();
    let inst = grid.instances.as_deref().unwrap();
    assert_eq!(inst.len(), 1);
    assert_eq!(inst.correlation_ids, Values::Uint64(vec![0].into()));
    assert_eq!(inst.values, Values::Uint64(vec![4096].into()));
    assert_eq!(
        inst.iter().next(),
        Some((Some(Value::Uint64(0)), Some(Value::Uint64(4096))))
    );
    // The PM-sampling series have instances (timestamps as correlation ids) and no value.
    let series = r
        .metric(
            l,
            "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed",
        )
        .unwrap();
    assert!(series.value.is_none());
    let inst = series.instances.as_deref().unwrap();
    assert!(inst.len() > 100);
    assert!(matches!(inst.correlation_ids, Values::Uint64(_)));
    assert_eq!(inst.correlation_ids.len(), inst.values.len());
    // No metric of this report is without a name.
    let instanced = l.metrics.iter().filter(|m| m.instances.is_some()).count();
    assert!(instanced > 100, "{instanced}");
}
