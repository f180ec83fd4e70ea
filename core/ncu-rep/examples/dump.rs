//! Prints a summary of a report: versions, devices, and per launch the kernel, grid, block and a
//! few metrics, plus the rules. Usage: `cargo run --example dump -- report.ncu-rep [metric…]`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: dump REPORT.ncu-rep [METRIC...]");
        return ExitCode::from(2);
    };
    let extra: Vec<String> = args.collect();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = match warpsight_ncu_rep::decode(&bytes) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "report version {} ncu {:?} blocks {} sources skipped {} launches {} rules {} names {}",
        report.report_version,
        report.ncu_version,
        report.block_count,
        report.source_count,
        report.launches.len(),
        report.rules.len(),
        report.names().len()
    );
    for d in &report.devices {
        println!(
            "device {} {:?} ({} attributes)",
            d.ordinal,
            d.name,
            d.attributes.len()
        );
    }
    for p in &report.processes {
        println!("process {:?} {:?} {:?}", p.id, p.host_name, p.name);
    }
    let mut names = vec![
        "gpu__time_duration.sum".to_string(),
        "launch__registers_per_thread".to_string(),
    ];
    names.extend(extra);
    for l in &report.launches {
        let grid = l.grid.map(|g| g.to_csv()).unwrap_or_default();
        let block = l.block.map(|b| b.to_csv()).unwrap_or_default();
        print!(
            "{} dev {:?} ctx {:?} stream {:?} {grid} {block} metrics {} {:?}",
            l.id,
            l.device,
            l.context_id,
            l.stream_id,
            l.metrics.len(),
            l.function_name
        );
        for n in &names {
            match report.metric(l, n) {
                Some(m) => print!(
                    " {n}={}",
                    m.value.as_ref().map(|v| v.to_string()).unwrap_or_default()
                ),
                None => print!(" {n}=-"),
            }
        }
        println!();
    }
    for r in &report.rules {
        println!(
            "rule {} {} {:?} {} {:?}: {}",
            r.launch_id,
            r.rule_id,
            r.section,
            r.severity.csv_code(),
            r.speedup,
            r.message
        );
    }
    ExitCode::SUCCESS
}
