//! `warpsight analyze`: the per-kernel (default) or per-launch analysis table — occupancy and its
//! limiter, latency hiding, roofline, waves, measured and predicted time, findings — in table, md,
//! csv, json or parquet.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::GlobalArgs;
use crate::inputs::{load_inputs, report_input_notes, run_pipeline, transfer_line};
use crate::output::{
    self, OutputFormat, FindingsLimit, Shown, open_output, resolve_format, sort_and_top, terminal_style,
    write_footer,
};
use crate::table::TerminalStyle;
use warpsight_model::ModelConfig;
use warpsight_report::analysis::aggregate::{self};
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
    /// Keep only kernels whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Model every launch on this device instead of the one it ran on.
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Output format (default: from the `-o` extension, else `table`).
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// How many findings to list below a human table, ranked by estimated time saved: `all`, a
    /// number, or `none`.
    #[arg(long, value_name = "all|N|none", default_value = "10", value_parser = FindingsLimit::parse)]
    pub findings: FindingsLimit,
    /// Which columns the table shows.
    #[command(flatten)]
    pub columns: output::ColumnArgs,
}

/// Runs `warpsight analyze`.
pub fn run(args: AnalyzeArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (registry, rules_hooks) = crate::plugins::load_plugins_and_rules(global);
    let loaded = load_inputs(&args.inputs, args.filter.as_deref(), global)?;
    let config = AnalysisConfig {
        model: ModelConfig {
            device_override: args.device.clone(),
            ..ModelConfig::default()
        },
        rules_hooks,
        ..AnalysisConfig::default()
    };
    let analysis = run_pipeline(&loaded, &registry, &config)?;
    report_input_notes(&loaded, &analysis, global);
    let format = resolve_format(args.format, args.output.as_deref())?;

    if args.per == Per::Launch
        && !format.is_human()
        && args.sort.is_none()
        && args.top.is_none()
    {
        return stream_launches(&analysis, &loaded, format, args.output.as_deref());
    }
    let table = match args.per {
        Per::Kernel => aggregate::per_kernel_all(&analysis.groups, &loaded.kernel_summary)?,
        Per::Launch => rc::per_launch(analysis.launches()?)?,
    };
    warpsight_ingest::memory::log_stage("the output table");
    let table = sort_and_top(table, args.sort.as_deref(), args.top)?;
    let mut sink = open_output(args.output.as_deref(), format)?;
    if format.is_human() {
        let shown = views::with_config_text(&table)?;
        let (compact, full) = match args.per {
            Per::Kernel => (views::kernel_terminal(), views::kernel_full()),
            Per::Launch => (views::launch_terminal(), views::launch_full()),
        };
        let (columns, drop_columns) = args.columns.select(&shown, compact, full, format)?;
        let style = TerminalStyle {
            drop_columns,
            ..terminal_style(global, args.output.is_some())
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
            aggregate::transfers(&loaded.transfers)?,
            format,
        )?;
    } else {
        output::write_machine(&table, format, &mut sink)?;
        if let Some(transfers) = aggregate::transfers(&loaded.transfers)? {
            eprintln!("note: {}", transfer_line(&transfers));
        }
    }
    sink.flush()?;
    warpsight_ingest::memory::log_stage("writing the output");
    Ok(ExitCode::SUCCESS)
}

/// Launches per batch of a streamed per-launch output: about 100 MB of columns per batch.
const LAUNCHES_PER_BATCH: usize = 100_000;

/// `--per launch` in a machine format without `--sort` or `--top`: the rows are written batch by
/// batch as they are gathered, so the per-launch table is never held whole (a training run's
/// millions of launches in bounded memory).
fn stream_launches(
    analysis: &warpsight_report::analysis::pipeline::Analysis,
    loaded: &warpsight_report::analysis::load::Loaded,
    format: OutputFormat,
    output: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let sink_format = match format {
        OutputFormat::Csv => SinkFormat::Csv,
        OutputFormat::Parquet => SinkFormat::Parquet,
        _ => SinkFormat::Json,
    };
    let mut out = open_output(output, format)?;
    let mut batches = analysis.launch_batches(LAUNCHES_PER_BATCH);
    let first = match batches.next() {
        Some(batch) => rc::per_launch(batch?)?,
        None => rc::per_launch(analysis.launches()?)?,
    };
    let mut sink = FrameSink::new(sink_format, &first.schema(), &mut *out)?;
    sink.write(&first)?;
    drop(first);
    for batch in batches {
        sink.write(&rc::per_launch(batch?)?)?;
    }
    sink.finish()?;
    out.flush()?;
    if let Some(transfers) = aggregate::transfers(&loaded.transfers)? {
        eprintln!("note: {}", transfer_line(&transfers));
    }
    Ok(ExitCode::SUCCESS)
}
