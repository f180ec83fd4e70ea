//! Every `.ncu-rep` among the third-party exports in `../shared/traces/ncu-other-gpus/` (reports
//! that other people wrote with Nsight Compute 2022.2 to 2025.2 on other GPUs, read in place and
//! never copied) decodes, and the six COALDA reports of Nsight Compute 2023.3.0, whose string
//! table continues in later blocks, give the names and values NVIDIA's own reader gives.

use std::path::{Path, PathBuf};

use warpsight_ncu_rep::{LaunchStream, Report, Value, decode};

/// The `.ncu-rep` files of `dir`, sorted by name.
fn reports_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ncu-rep"))
        .collect();
    paths.sort();
    paths
}

/// Reads and decodes one report, panicking with its path on failure.
fn decode_file(path: &Path) -> Report {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_third_party_report_decodes() {
    let Some(dir) = warpsight_test_corpus::shared_traces() else {
        return;
    };
    let paths = reports_in(&dir.join("ncu-other-gpus"));
    // 39 reports when this test was written; fewer means the folder is not the one described.
    assert!(paths.len() >= 39, "only {} reports found", paths.len());
    let (mut launches, mut metrics) = (0, 0);
    for path in &paths {
        let shown = path.display();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let r = decode(&bytes).unwrap_or_else(|e| panic!("{shown}: {e}"));
        assert!(!r.launches.is_empty(), "{shown}: no launch");
        for l in &r.launches {
            assert!(!l.metrics.is_empty(), "{shown} launch {}: no metric", l.id);
            for m in &l.metrics {
                assert!(
                    m.name.index() < r.names().len() && !r.name(m.name).is_empty(),
                    "{shown} launch {}: unresolved name {:?}",
                    l.id,
                    m.name
                );
            }
            metrics += l.metrics.len();
        }
        launches += r.launches.len();
        // The stream resolves names as `decode` does, reading later tables ahead where needed.
        let mut stream = LaunchStream::new(&bytes).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let mut n = 0;
        for item in stream.by_ref() {
            let (launch, _) = item.unwrap_or_else(|e| panic!("{shown}: stream: {e}"));
            // Compared through Debug because NaN values are never equal to themselves.
            assert_eq!(
                format!("{launch:?}"),
                format!("{:?}", r.launches[n]),
                "{shown} launch {n}"
            );
            n += 1;
        }
        assert_eq!(n, r.launches.len(), "{shown}");
        assert_eq!(stream.names(), r.names(), "{shown}");
    }
    // 249 launches and 109,688 metrics when this test was written.
    assert!(
        launches >= 249 && metrics >= 100_000,
        "{launches} {metrics}"
    );
}

/// What NVIDIA's reader (`ncu_report` of Nsight Compute, `load_report(path)`, then
/// `range_by_idx(0).action_by_idx(0)`: `name()`, `metric_by_name(n).value()`) gives for the one
/// launch of each of the six COALDA reports that failed before: the kernel's function name,
/// `gpu__time_duration.sum` (ns), `launch__registers_per_thread`, `launch__grid_size`,
/// `launch__block_size` and `dram__bytes_read.sum`. The literals were copied from its output.
const COALDA: [(&str, &str, f64, f64, f64, f64, f64); 6] = [
    (
        "COALDA__coalesced_chart",
        "rgb_increase_brightness_coalesced",
        14112.0,
        26.0,
        64.0,
        1024.0,
        788608.0,
    ),
    (
        "COALDA__coalesced_chart_unroll",
        "rgb_increase_brightness_coalesced_unroll",
        14400.0,
        40.0,
        32.0,
        512.0,
        786560.0,
    ),
    (
        "COALDA__opted",
        "rgb_increase_brightness_pass_ready",
        13312.0,
        16.0,
        128.0,
        512.0,
        786560.0,
    ),
    (
        "COALDA__origin",
        "rgb_increase_brightness_pass_ready",
        13600.0,
        16.0,
        128.0,
        512.0,
        786560.0,
    ),
    (
        "COALDA__uncoalesced_chart",
        "rgb_increase_brightness",
        17504.0,
        16.0,
        64.0,
        1024.0,
        786560.0,
    ),
    (
        "COALDA__uncoalesced_chart_unroll",
        "rgb_increase_brightness_unroll",
        47744.0,
        26.0,
        32.0,
        512.0,
        786560.0,
    ),
];

#[test]
fn coalda_reports_match_nvidias_reader() {
    let Some(dir) = warpsight_test_corpus::shared_traces() else {
        return;
    };
    let dir = dir.join("ncu-other-gpus");
    for (file, kernel, time, regs, grid, block, dram) in COALDA {
        let r = decode_file(&dir.join(format!("{file}.ncu-rep")));
        assert_eq!(
            r.ncu_version.as_deref(),
            Some("2023.3.0.0 (build 33266684) (public-release)"),
            "{file}"
        );
        assert_eq!(r.launches.len(), 1, "{file}");
        let l = &r.launches[0];
        assert_eq!(l.function_name.as_deref(), Some(kernel), "{file}");
        // NVIDIA's reader lists 359 metrics for the launch: the 357 names of the result's own
        // block and the two names of the later one-entry tables.
        assert_eq!(l.metrics.len(), 359, "{file}");
        assert_eq!(r.names().len(), 359, "{file}");
        let num = |name: &str| r.value(l, name).and_then(Value::as_f64);
        for (name, want) in [
            ("gpu__time_duration.sum", time),
            ("launch__registers_per_thread", regs),
            ("launch__grid_size", grid),
            ("launch__block_size", block),
            ("dram__bytes_read.sum", dram),
            ("sass__inst_executed_shared_stores", 12288.0),
        ] {
            assert_eq!(num(name), Some(want), "{file} {name}");
        }
        assert_eq!(
            r.value(l, "device__attribute_display_name")
                .and_then(Value::as_str),
            Some("NVIDIA GeForce RTX 4050 Laptop GPU"),
            "{file}"
        );
        // NameIds 357 and 358, the names of the two later tables in file order. NVIDIA's reader
        // gives both the value 0; with the stored values patched to 7 and 9 it gave 7 for
        // nvlrx and 9 for nvltx, which fixed the order.
        let last: Vec<&str> = l.metrics[357..].iter().map(|m| r.name(m.name)).collect();
        assert_eq!(
            last,
            ["nvlrx__bytes.sum.per_second", "nvltx__bytes.sum.per_second"],
            "{file}"
        );
        for m in &l.metrics[357..] {
            assert_eq!(m.value, Some(Value::Uint64(0)), "{file}");
        }
    }
}
