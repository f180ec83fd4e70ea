//! `warpsight diff`: two traces (or sets of traces) compared per kernel name — time, launches,
//! occupancy, limiter and bound — sorted by impact (absolute change of total time).

use std::io::Write;
use std::process::ExitCode;

use super::GlobalArgs;
use crate::inputs::{analyze_inputs, report_input_notes};
use crate::output::{open_output, resolve_format, sort_and_top, write_table};
use crate::plugins::load_registry;
use warpsight_report::analysis::pipeline::AnalysisConfig;
use warpsight_report::analysis::{aggregate, diff};
use warpsight_report::render::views;
use warpsight_report::units;

/// Arguments of `warpsight diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The baseline export (file, directory or glob pattern).
    #[arg(value_name = "BEFORE")]
    pub before: String,
    /// The export to compare with it.
    #[arg(value_name = "AFTER")]
    pub after: String,
    /// `--filter`.
    #[command(flatten)]
    pub kernels: crate::output::KernelFilter,
    /// Show only the first N kernels.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// `--format` and `--output`.
    #[command(flatten)]
    pub out: crate::output::OutputArgs,
    /// Which columns the table shows.
    #[command(flatten)]
    pub columns: crate::output::ColumnArgs,
}

/// Runs `warpsight diff`.
pub fn run(args: DiffArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.out.output {
        crate::output_file::refuse_input_as_output(
            path,
            &[args.before.clone(), args.after.clone()],
        )?;
    }
    let registry = load_registry(global);
    let config = AnalysisConfig {
        skip_what_if: true,
        ..AnalysisConfig::default()
    };
    let mut sides = Vec::new();
    for input in [&args.before, &args.after] {
        let (loaded, analysis) = analyze_inputs(
            std::slice::from_ref(input),
            args.kernels.filter.as_deref(),
            global,
            &registry,
            &config,
            &mut |_| Ok(()),
        )?;
        report_input_notes(&loaded, &analysis, global);
        sides.push(aggregate::per_kernel_all(
            &analysis.groups,
            &loaded.side.kernel_summary,
        )?);
    }
    let table = diff::diff(&sides[0], &sides[1])?;
    let totals = totals(&sides[0], &sides[1])?;
    let table = sort_and_top(table, None, args.top)?;
    let format = resolve_format(args.out.format, args.out.output.as_deref())?;
    let mut sink = open_output(args.out.output.as_deref(), format)?;
    let (columns, drop_columns) =
        args.columns
            .select(&table, views::diff_terminal(), views::diff(), format)?;
    write_table(
        &table,
        (&columns, drop_columns),
        format,
        global,
        args.out.output.as_deref(),
        &mut sink,
    )?;
    let line = format!(
        "total kernel time: {} → {} ({})",
        units::duration_ns(totals.0),
        units::duration_ns(totals.1),
        units::signed_percent(if totals.0 > 0.0 {
            totals.1 / totals.0 - 1.0
        } else {
            f64::NAN
        })
    );
    if format.is_human() {
        writeln!(sink)?;
        writeln!(sink, "{line}")?;
    } else if !global.quiet {
        crate::output_file::eprint(&format!("{line}\n"));
    }
    sink.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Total kernel time before and after, ns.
fn totals(
    before: &polars::prelude::DataFrame,
    after: &polars::prelude::DataFrame,
) -> anyhow::Result<(f64, f64)> {
    let sum = |frame: &polars::prelude::DataFrame| -> anyhow::Result<f64> {
        let column = frame
            .column(warpsight_report::analysis::report_columns::TOTAL_NS)?
            .cast(&polars::prelude::DataType::Float64)?;
        Ok(column.f64()?.iter().flatten().sum())
    };
    Ok((sum(before)?, sum(after)?))
}
