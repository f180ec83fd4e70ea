//! The rules hook: a frame of launches goes to the plugin and its findings come back checked; a
//! panicking hook and findings about unknown launches are reported as errors.

use polars::prelude::*;
use warpsight_plugin_host::{PluginError, load_plugin};
use warpsight_test_support::plugins::fault_file;

use crate::TestResult;

/// A small launch frame with three launches.
fn launches() -> PolarsResult<DataFrame> {
    df!(
        "launch_id" => [10i64, 11, 12],
        "kernel_name" => ["a", "b", "c"],
        "duration_ns" => [1.0f64, 2.0, 3.0],
    )
}

#[test]
fn the_rules_hook_round_trips_and_its_faults_are_reported() -> TestResult {
    let ok = load_plugin(&fault_file("rules_ok")?)?;
    let hook = ok.rules.as_ref().ok_or("rules_ok has no hook")?;
    let findings = hook.run(&launches()?)?;
    let ids: Vec<i64> = findings.iter().map(|f| f.launch_id).collect();
    assert_eq!(ids, vec![10, 11, 12]);
    assert_eq!(
        findings[1].message,
        "launch 11 seen by the fault-test plugin"
    );
    assert_eq!(findings[0].rule_id, "fault_test.every_launch");

    let panicking = load_plugin(&fault_file("rules_panic")?)?;
    match panicking
        .rules
        .as_ref()
        .ok_or("rules_panic has no hook")?
        .run(&launches()?)
    {
        Err(PluginError::HookPanicked { message, .. }) => {
            assert!(message.contains("panics on purpose"), "{message}")
        }
        other => panic!("rules panic: {other:?}"),
    }
    // The host is still fine and the same hook can be called again.
    assert!(hook.run(&launches()?)?.len() == 3);

    let unknown = load_plugin(&fault_file("rules_unknown_launch")?)?;
    match unknown
        .rules
        .as_ref()
        .ok_or("rules_unknown_launch has no hook")?
        .run(&launches()?)
    {
        Err(PluginError::InvalidFindings { message, .. }) => {
            assert!(message.contains("-12345"), "{message}")
        }
        other => panic!("unknown launch: {other:?}"),
    }
    Ok(())
}
