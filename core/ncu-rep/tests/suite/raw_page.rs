//! Every launch of a report equals the row the raw CSV page printed from the same report: the
//! identification columns and every metric column, compared numerically (the page rounds to two
//! decimals and adds thousands separators) or as strings.

use super::support::{check_id_columns, csv_matches, csv_page, report};

/// Index of the first metric column of the raw page (after `CC`).
const FIRST_METRIC: usize = 11;

/// Compares one report with its raw page and returns the number of metric cells compared.
fn compare(name: &str) -> usize {
    let report = report(name);
    let rows = csv_page(name, "raw").expect("raw page");
    let header = &rows[0];
    assert_eq!(header[FIRST_METRIC - 1], "CC");
    let launches = &rows[2..];
    assert_eq!(
        launches.len(),
        report.launches.len(),
        "{name}: launch count"
    );

    let mut compared = 0;
    let mut list_only = 0;
    let mut no_data = 0;
    let mut mismatches = Vec::new();
    for (row, launch) in launches.iter().zip(&report.launches) {
        check_id_columns(&report, launch, header, row);
        for (i, column) in header.iter().enumerate().skip(FIRST_METRIC) {
            let text = row.get(i).map_or("", String::as_str);
            let metric = report.metric(launch, column);
            let ok = match (metric, text) {
                // The page prints an empty cell for a metric that has instance values but no
                // single value (the PM-sampling "TriageCompute" series), and for a metric the
                // launch lacks.
                (Some(m), "") if m.value.is_none() => {
                    list_only += 1;
                    m.instances.is_some()
                }
                (None, "") => true,
                // ncu prints "no data" for a metric with neither a value nor instances.
                (Some(m), "no data") => {
                    no_data += 1;
                    m.value.is_none() && m.instances.is_none()
                }
                (Some(m), t) => m.value.as_ref().is_some_and(|v| csv_matches(v, t)),
                (None, _) => false,
            };
            compared += 1;
            if !ok {
                mismatches.push(format!(
                    "launch {} {column}: csv {text:?} report {:?}",
                    launch.id,
                    metric.map(|m| &m.value)
                ));
            }
        }
        // Metrics of the report that the raw page does not print: ncu's internal section
        // helpers, named `breakdown:…` and `group:…`.
        for m in &launch.metrics {
            let n = report.name(m.name);
            if !header.iter().any(|h| h == n) {
                assert!(
                    n.starts_with("breakdown:") || n.starts_with("group:"),
                    "{name}: report-only metric {n}"
                );
            }
        }
    }
    eprintln!(
        "{name}: {} launches, {compared} metric cells compared ({list_only} list-only, \
         {no_data} 'no data'), {} mismatches",
        report.launches.len(),
        mismatches.len()
    );
    assert!(mismatches.is_empty(), "{name}:\n{}", mismatches.join("\n"));
    compared
}

#[test]
fn copy_basic_equals_its_raw_page() {
    assert_eq!(compare("copy_basic"), 3 * 555);
}

#[test]
fn regs_64_65_equals_its_raw_page() {
    assert_eq!(compare("regs_64_65"), 2 * 2281);
}
