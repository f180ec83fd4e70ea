//! Every report against its details CSV page: the identification columns of every launch, the
//! metric rows whose display label has a known raw metric name (plus the raw-named rows of the
//! "Command line profiler metrics" section), and the rule rows.

use std::collections::BTreeMap;

use warpsight_ncu_rep::Report;

use super::support::{REPORTS, check_id_columns, col, csv_matches, csv_number, csv_page, report};

/// Details-page labels (section, label) and the raw metric each one prints. Labels not listed
/// here (a few dozen, mostly ambiguous between equal-valued metrics) are counted, not compared.
const LABELS: &[(&str, &str, &str)] = &[
    (
        "GPU Speed Of Light Throughput",
        "Compute (SM) Throughput",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "GPU Speed Of Light Throughput",
        "DRAM Frequency",
        "dram__cycles_elapsed.avg.per_second",
    ),
    (
        "GPU Speed Of Light Throughput",
        "DRAM Throughput",
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "GPU Speed Of Light Throughput",
        "Duration",
        "gpu__time_duration.sum",
    ),
    (
        "GPU Speed Of Light Throughput",
        "Elapsed Cycles",
        "gpc__cycles_elapsed.max",
    ),
    (
        "GPU Speed Of Light Throughput",
        "L1/TEX Cache Throughput",
        "l1tex__throughput.avg.pct_of_peak_sustained_active",
    ),
    (
        "GPU Speed Of Light Throughput",
        "L2 Cache Throughput",
        "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "GPU Speed Of Light Throughput",
        "Memory Throughput",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "GPU Speed Of Light Throughput",
        "SM Active Cycles",
        "sm__cycles_active.avg",
    ),
    (
        "GPU Speed Of Light Throughput",
        "SM Frequency",
        "gpc__cycles_elapsed.avg.per_second",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Average DRAM Active Cycles",
        "dram__cycles_active.avg",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Average L1 Active Cycles",
        "l1tex__cycles_active.avg",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Average L2 Active Cycles",
        "lts__cycles_active.avg",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Average SM Active Cycles",
        "sm__cycles_active.avg",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Average SMSP Active Cycles",
        "smsp__cycles_active.avg",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Total DRAM Elapsed Cycles",
        "dram__cycles_elapsed.sum",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Total L1 Elapsed Cycles",
        "l1tex__cycles_elapsed.sum",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Total L2 Elapsed Cycles",
        "lts__cycles_elapsed.sum",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Total SM Elapsed Cycles",
        "sm__cycles_elapsed.sum",
    ),
    (
        "GPU and Memory Workload Distribution",
        "Total SMSP Elapsed Cycles",
        "smsp__cycles_elapsed.sum",
    ),
    (
        "Launch Statistics",
        "# SMs",
        "device__attribute_multiprocessor_count",
    ),
    ("Launch Statistics", "# TPCs", "launch__tpc_count"),
    ("Launch Statistics", "Block Size", "launch__block_size"),
    (
        "Launch Statistics",
        "Cluster Scheduling Policy",
        "launch__cluster_scheduling_policy",
    ),
    ("Launch Statistics", "Cluster Size", "launch__cluster_size"),
    (
        "Launch Statistics",
        "Driver Shared Memory Per Block",
        "launch__shared_mem_per_block_driver",
    ),
    (
        "Launch Statistics",
        "Dynamic Shared Memory Per Block",
        "launch__shared_mem_per_block_dynamic",
    ),
    (
        "Launch Statistics",
        "Enabled TPC IDs",
        "launch__tpc_enabled",
    ),
    (
        "Launch Statistics",
        "Function Cache Configuration",
        "launch__func_cache_config",
    ),
    ("Launch Statistics", "Grid Size", "launch__grid_size"),
    (
        "Launch Statistics",
        "Registers Per Thread",
        "launch__registers_per_thread",
    ),
    (
        "Launch Statistics",
        "Shared Memory Configuration Size",
        "launch__shared_mem_config_size",
    ),
    ("Launch Statistics", "Stack Size", "launch__stack_size"),
    (
        "Launch Statistics",
        "Static Shared Memory Per Block",
        "launch__shared_mem_per_block_static",
    ),
    ("Launch Statistics", "Threads", "launch__thread_count"),
    (
        "Launch Statistics",
        "Waves Per SM",
        "launch__waves_per_multiprocessor",
    ),
    (
        "Launch Statistics",
        "Uses Green Context",
        "launch__uses_green_context",
    ),
    (
        "Occupancy",
        "Achieved Active Warps Per SM",
        "sm__warps_active.avg.per_cycle_active",
    ),
    (
        "Occupancy",
        "Achieved Occupancy",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
    ),
    (
        "Occupancy",
        "Block Limit Barriers",
        "launch__occupancy_limit_barriers",
    ),
    (
        "Occupancy",
        "Block Limit Registers",
        "launch__occupancy_limit_registers",
    ),
    (
        "Occupancy",
        "Block Limit SM",
        "launch__occupancy_limit_blocks",
    ),
    (
        "Occupancy",
        "Block Limit Shared Mem",
        "launch__occupancy_limit_shared_mem",
    ),
    (
        "Occupancy",
        "Block Limit Warps",
        "launch__occupancy_limit_warps",
    ),
    (
        "Occupancy",
        "Max Cluster Size",
        "launch__cluster_max_potential_size",
    ),
    // The next three are 0 in every fixture, so the fixtures cannot tell these names apart from
    // other zero-valued cluster metrics.
    (
        "Occupancy",
        "Max Active Clusters",
        "launch__cluster_max_active",
    ),
    (
        "Occupancy",
        "Cluster Occupancy",
        "launch__occupancy_cluster_pct",
    ),
    (
        "Occupancy",
        "Overall GPU Occupancy",
        "launch__occupancy_cluster_gpu_pct",
    ),
    (
        "Occupancy",
        "Theoretical Active Warps per SM",
        "sm__maximum_warps_avg_per_active_cycle",
    ),
    (
        "Occupancy",
        "Theoretical Occupancy",
        "sm__maximum_warps_per_active_cycle_pct",
    ),
    (
        "Memory Workload Analysis",
        "L1/TEX Hit Rate",
        "l1tex__t_sector_hit_rate.pct",
    ),
    (
        "Memory Workload Analysis",
        "L2 Hit Rate",
        "lts__t_sector_hit_rate.pct",
    ),
    (
        "Memory Workload Analysis",
        "L2 Compression Input Sectors",
        "lrc__ilc_input_sectors.sum",
    ),
    (
        "Memory Workload Analysis",
        "L2 Persisting Size",
        "launch__persisting_l2_cache_size",
    ),
    (
        "Memory Workload Analysis",
        "Mem Busy",
        "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "Memory Workload Analysis",
        "Memory Throughput",
        "dram__bytes.sum.per_second",
    ),
    (
        "Scheduler Statistics",
        "Active Warps Per Scheduler",
        "smsp__warps_active.avg.per_cycle_active",
    ),
    (
        "Scheduler Statistics",
        "Eligible Warps Per Scheduler",
        "smsp__warps_eligible.avg.per_cycle_active",
    ),
    (
        "Scheduler Statistics",
        "Issued Warp Per Scheduler",
        "smsp__issue_active.avg.per_cycle_active",
    ),
    (
        "Scheduler Statistics",
        "No Eligible",
        "smsp__issue_inst0.avg.pct_of_peak_sustained_active",
    ),
    (
        "Scheduler Statistics",
        "One or More Eligible",
        "smsp__issue_active.avg.pct_of_peak_sustained_active",
    ),
    (
        "Instruction Statistics",
        "Avg. Executed Instructions Per Scheduler",
        "smsp__inst_executed.avg",
    ),
    (
        "Instruction Statistics",
        "Avg. Issued Instructions Per Scheduler",
        "smsp__inst_issued.avg",
    ),
    (
        "Instruction Statistics",
        "Issued Instructions",
        "smsp__inst_issued.sum",
    ),
    (
        "Compute Workload Analysis",
        "Executed Ipc Active",
        "sm__inst_executed.avg.per_cycle_active",
    ),
    (
        "Compute Workload Analysis",
        "Executed Ipc Elapsed",
        "sm__inst_executed.avg.per_cycle_elapsed",
    ),
    (
        "Compute Workload Analysis",
        "Issued Ipc Active",
        "sm__inst_issued.avg.per_cycle_active",
    ),
    (
        "PM Sampling",
        "Maximum Buffer Size",
        "profiler__pmsampler_buffer_size_bytes",
    ),
    (
        "PM Sampling",
        "Maximum Sampling Interval",
        "profiler__pmsampler_interval_time",
    ),
    (
        "Warp State Statistics",
        "Avg. Not Predicated Off Threads Per Warp",
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
    ),
    (
        "Source Counters",
        "Branch Instructions",
        "smsp__inst_executed_op_branch.sum",
    ),
];

/// The raw metric a details row prints, if known.
fn raw_name<'a>(section: &str, label: &'a str) -> Option<&'a str> {
    if section == "Command line profiler metrics" {
        return Some(label);
    }
    LABELS
        .iter()
        .find(|(s, l, _)| *s == section && *l == label)
        .map(|(_, _, raw)| *raw)
}

/// One rule row, in the form both sides can produce.
#[derive(Debug, PartialEq, PartialOrd)]
struct RuleRow {
    launch: usize,
    section: String,
    rule: String,
    kind: String,
    message: String,
    speedup_type: String,
    speedup: Option<f64>,
}

/// The report's rules as details-page rows, sorted (the page orders them by section).
fn report_rules(r: &Report) -> Vec<RuleRow> {
    let mut v: Vec<RuleRow> = r
        .rules
        .iter()
        .map(|x| RuleRow {
            launch: x.launch_id,
            section: x.section.clone().unwrap_or_default(),
            rule: x.rule_id.clone(),
            kind: x.severity.csv_code().to_string(),
            message: x.message.clone(),
            speedup_type: x
                .speedup
                .map(|s| s.kind.csv_code())
                .unwrap_or("")
                .to_string(),
            speedup: x.speedup.and_then(|s| s.value),
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

#[test]
fn every_report_equals_its_details_page() {
    let mut total_rules = 0;
    for name in REPORTS {
        let r = report(name);
        let rows = csv_page(name, "details").expect("details page");
        let header = &rows[0];
        let (c_id, c_section, c_metric, c_value) = (
            col(header, "ID"),
            col(header, "Section Name"),
            col(header, "Metric Name"),
            col(header, "Metric Value"),
        );
        let (c_rule, c_type, c_desc, c_stype, c_speedup) = (
            col(header, "Rule Name"),
            col(header, "Rule Type"),
            col(header, "Rule Description"),
            col(header, "Estimated Speedup Type"),
            col(header, "Estimated Speedup"),
        );
        let cell = |row: &Vec<String>, i: usize| row.get(i).cloned().unwrap_or_default();

        let mut seen = vec![false; r.launches.len()];
        let mut compared = 0;
        let mut unmapped: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut mismatches = Vec::new();
        let mut csv_rules = Vec::new();
        for row in &rows[1..] {
            let id: usize = row[c_id].parse().unwrap();
            let launch = &r.launches[id];
            if !seen[id] {
                check_id_columns(&r, launch, header, row);
                seen[id] = true;
            }
            let metric = cell(row, c_metric);
            if metric.is_empty() {
                csv_rules.push(RuleRow {
                    launch: id,
                    section: cell(row, c_section),
                    rule: cell(row, c_rule),
                    kind: cell(row, c_type),
                    message: cell(row, c_desc),
                    speedup_type: cell(row, c_stype),
                    speedup: csv_number(&cell(row, c_speedup)),
                });
                continue;
            }
            let section = cell(row, c_section);
            let text = cell(row, c_value);
            match raw_name(&section, &metric) {
                Some(raw) => {
                    compared += 1;
                    let v = r.value(launch, raw);
                    if !v.is_some_and(|v| csv_matches(v, &text)) {
                        mismatches.push(format!(
                            "launch {id} {section}/{metric} ({raw}): csv {text:?} report {v:?}"
                        ));
                    }
                }
                None => *unmapped.entry((section, metric)).or_default() += 1,
            }
        }
        assert!(
            seen.iter().all(|&s| s),
            "{name}: a launch has no details rows"
        );
        assert!(mismatches.is_empty(), "{name}:\n{}", mismatches.join("\n"));

        // Rule rows: same multiset; speedups compared to the 4 significant digits printed.
        csv_rules.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mine = report_rules(&r);
        assert_eq!(mine.len(), csv_rules.len(), "{name}: rule count");
        for (a, b) in mine.iter().zip(&csv_rules) {
            assert_eq!(
                (
                    a.launch,
                    &a.section,
                    &a.rule,
                    &a.kind,
                    &a.message,
                    &a.speedup_type
                ),
                (
                    b.launch,
                    &b.section,
                    &b.rule,
                    &b.kind,
                    &b.message,
                    &b.speedup_type
                ),
                "{name}"
            );
            match (a.speedup, b.speedup) {
                (Some(x), Some(y)) => {
                    assert!((x - y).abs() <= 6e-4 * x.abs(), "{name}: {x} vs {y}")
                }
                (None, None) => {}
                other => panic!("{name}: speedup {other:?}"),
            }
        }
        total_rules += mine.len();
        eprintln!(
            "{name}: details page: {} launches, {compared} metric rows compared, {} rows of {} \
             labels without a known raw name, {} rule rows equal",
            r.launches.len(),
            unmapped.values().sum::<usize>(),
            unmapped.len(),
            mine.len()
        );
    }
    assert_eq!(total_rules, 8 + 19 + 60);
    // gpt_layer_basic: 8 demangled PyTorch kernel names are printed simplified by ncu.
    let simplified =
        crate::suite::support::SIMPLIFIED_NAMES.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("kernel names matched only after ncu's simplification: {simplified}");
}
