//! `warpsight analyze`: the per-kernel (default) or per-launch analysis table — occupancy and its
//! limiter, latency hiding, roofline, waves, measured and predicted time, findings — in table, md,
//! csv, json or parquet.

use std::io::Write;

use polars::prelude::*;
use std::process::ExitCode;

use super::GlobalArgs;
use crate::inputs::{analyze_inputs, load_inputs, report_input_notes, run_pipeline, transfer_line};
use crate::output::{
    self, FindingsLimit, OutputFormat, Shown, open_output, resolve_format, sort_and_top,
    terminal_style, write_footer,
};
use crate::table::TerminalStyle;
use warpsight_model::ModelConfig;
use warpsight_report::analysis::aggregate::{self};
use warpsight_report::analysis::findings;
use warpsight_report::analysis::pipeline::AnalysisConfig;
use warpsight_report::analysis::report_columns as rc;
use warpsight_report::render::output::{FrameSink, SinkFormat};
use warpsight_report::render::views;

/// Grouping of the analysis table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Per {
    /// One row per kernel name (figures of its dominant configuration).
    Kernel,
    /// One row per launch.
    Launch,
}

/// Arguments of `warpsight analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Profiler exports: files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// One row per kernel name or per launch.
    #[arg(long, value_enum, default_value_t = Per::Kernel)]
    pub per: Per,
    /// Show only the first N rows (after sorting).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Sort by this output column, descending (`COLUMN:asc` for ascending). Default: total time
    /// per kernel, input order per launch.
    #[arg(long, value_name = "COLUMN")]
    pub sort: Option<String>,
    /// `--filter`.
    #[command(flatten)]
    pub kernels: output::KernelFilter,
    /// Model every launch on this device instead of the one it ran on.
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// `--format` and `--output`.
    #[command(flatten)]
    pub out: output::OutputArgs,
    /// How many findings to list below a human table, ranked by estimated time saved: `all`, a
    /// number, or `none`.
    #[arg(long, value_name = "all|N|none", default_value = "10", value_parser = FindingsLimit::parse)]
    pub findings: FindingsLimit,
    /// Which columns the table shows.
    #[command(flatten)]
    pub columns: output::ColumnArgs,
    /// The SM clock the launches are modelled at.
    #[command(flatten)]
    pub clock: crate::sm_clock::SmClockArgs,
}

/// Runs `warpsight analyze`.
pub fn run(args: AnalyzeArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (registry, rules_hooks) = crate::plugins::load_plugins_and_rules(global);
    let config = AnalysisConfig {
        model: ModelConfig {
            device_override: args.device.clone(),
            sm_clock: args.clock.sm_clock,
            ..ModelConfig::default()
        },
        rules_hooks,
        ..AnalysisConfig::default()
    };
    let format = resolve_format(args.out.format, args.out.output.as_deref())?;
    if let Some(path) = &args.out.output {
        crate::output_file::refuse_input_as_output(path, &args.inputs)?;
    }
    let streamed =
        args.per == Per::Launch && !format.is_human() && args.sort.is_none() && args.top.is_none();
    if streamed {
        return stream_launches(&args, global, &registry, &config, format);
    }
    let (loaded, analysis) = if args.per == Per::Launch {
        // A per-launch table to sort, cut or show as text: every launch of every input at once.
        let loaded = load_inputs(&args.inputs, args.kernels.filter.as_deref(), global)?;
        let analysis = run_pipeline(&loaded, &registry, &config)?;
        (loaded, analysis)
    } else {
        analyze_inputs(
            &args.inputs,
            args.kernels.filter.as_deref(),
            global,
            &registry,
            &config,
            &mut |_| Ok(()),
        )?
    };
    report_input_notes(&loaded, &analysis, global);

    let table = match args.per {
        Per::Kernel => aggregate::per_kernel_all(&analysis.groups, &loaded.side.kernel_summary)?,
        Per::Launch => rc::per_launch(analysis.launches()?)?,
    };
    warpsight_ingest::memory::log_stage("the output table");
    let table = sort_and_top(table, args.sort.as_deref(), args.top)?;
    let mut sink = open_output(args.out.output.as_deref(), format)?;
    if format.is_human() {
        let shown = views::with_config_text(&table)?;
        let (compact, full) = match args.per {
            Per::Kernel => (views::kernel_terminal(), views::kernel_full()),
            Per::Launch => (views::launch_terminal(), views::launch_full()),
        };
        let (columns, drop_columns) = args.columns.select(&shown, compact, full, format)?;
        let style = TerminalStyle {
            drop_columns,
            ..terminal_style(global, args.out.output.is_some())
        };
        output::write_human(&shown, &columns, format, style, &mut sink)?;
        let shown = match args.per {
            Per::Kernel => Shown::kernels(&table)?,
            Per::Launch => Shown::launches(&table)?,
        };
        write_footer(
            &mut sink,
            &analysis.findings,
            &shown,
            args.findings,
            aggregate::transfers(&loaded.side.transfers)?,
            format,
        )?;
    } else {
        output::write_machine(&table, format, &mut sink)?;
        if let Some(transfers) = aggregate::transfers(&loaded.side.transfers)? {
            crate::output_file::eprint(&format!("note: {}\n", transfer_line(&transfers)));
        }
    }
    sink.finish()?;
    warpsight_ingest::memory::log_stage("writing the output");
    crate::allocator::keep_until_exit((loaded, analysis, table));
    Ok(ExitCode::SUCCESS)
}

/// Launches per batch of a streamed per-launch output: about 100 MB of columns per batch.
const LAUNCHES_PER_BATCH: usize = 100_000;

/// `--per launch` in a machine format without `--sort` or `--top`: each input is analysed in
/// turn and its rows are written batch by batch as they are gathered, so the per-launch table is
/// never held whole (a training run's millions of launches in bounded memory).
fn stream_launches(
    args: &AnalyzeArgs,
    global: &GlobalArgs,
    registry: &warpsight_model::arch::Registry,
    config: &AnalysisConfig,
    format: OutputFormat,
) -> anyhow::Result<ExitCode> {
    let sink_format = match format {
        OutputFormat::Csv => SinkFormat::Csv,
        OutputFormat::Parquet => SinkFormat::Parquet,
        OutputFormat::Arrow => SinkFormat::Ipc,
        _ => SinkFormat::Json,
    };
    let mut out = open_output(args.out.output.as_deref(), format)?;
    // The output, lent to the sink when the first batch arrives.
    let mut pending: Option<&mut dyn Write> = Some(&mut out);
    let mut sink: Option<FrameSink<'_>> = None;
    let (loaded, analysis) = analyze_inputs(
        &args.inputs,
        args.kernels.filter.as_deref(),
        global,
        registry,
        config,
        &mut |analysis| {
            for batch in analysis.launch_batches(LAUNCHES_PER_BATCH) {
                let rows = rc::per_launch(batch?)?;
                if let Some(target) = pending.take() {
                    sink = Some(FrameSink::new(sink_format, rows.schema(), target)?);
                }
                if let Some(sink) = sink.as_mut() {
                    sink.write(&rows)?;
                }
            }
            Ok(())
        },
    )?;
    match sink {
        Some(sink) => sink.finish()?,
        None => {
            let Some(target) = pending.take() else {
                anyhow::bail!("the per-launch output was lent and not written");
            };
            // No launch at all (kernel summaries only): the header of an empty table.
            let mut empty = warpsight_model::evaluate(
                warpsight_ingest::launch_table::empty().lazy(),
                registry,
                &config.model,
            )?
            .collect()?;
            for name in [findings::FINDINGS, findings::FINDING_MESSAGES] {
                empty.with_column(Column::new_empty(name.into(), &DataType::String))?;
            }
            let empty = rc::per_launch(empty)?;
            let mut sink = FrameSink::new(sink_format, empty.schema(), target)?;
            sink.write(&empty)?;
            sink.finish()?;
        }
    }
    out.finish()?;
    report_input_notes(&loaded, &analysis, global);
    if let Some(transfers) = aggregate::transfers(&loaded.side.transfers)? {
        crate::output_file::eprint(&format!("note: {}\n", transfer_line(&transfers)));
    }
    Ok(ExitCode::SUCCESS)
}
