//! `warpsight accuracy`: the model's predicted time against the measured time — per launch, per
//! kernel and per device (median, p90 and worst absolute error, launches within 20 %) — on the
//! device the launches ran on, or across devices with `--on DEVICE --against OTHER_INPUTS...`.
//! The numbers come from `warpsight_report::analysis::accuracy`; this module reads the inputs and
//! writes the tables.

use std::io::Write;
use std::process::ExitCode;

use super::GlobalArgs;
use crate::errors::CliError;
use crate::inputs::load_inputs;
use crate::output::{self, OutputFormat, open_output, resolve_format, terminal_style};
use warpsight_model::ModelConfig;
use warpsight_report::analysis::accuracy::{self, Accuracy};
use warpsight_report::render::output::write_json;
use warpsight_report::render::table::DisplayColumn;
use warpsight_report::render::views;

/// One table of `warpsight accuracy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Per {
    /// One row per launch: measured, predicted, error, bottleneck, or why there is no prediction.
    Launch,
    /// One row per kernel name and launch configuration: summed times and the error of the sums.
    Kernel,
    /// One row per device: median / p90 / worst error per launch, launches within 20 %.
    Summary,
}

impl Per {
    /// The table's key in JSON output.
    fn key(self) -> &'static str {
        match self {
            Per::Launch => "launch",
            Per::Kernel => "kernel",
            Per::Summary => "summary",
        }
    }

    /// The table's heading in human output.
    fn heading(self) -> &'static str {
        match self {
            Per::Launch => "Per launch",
            Per::Kernel => "Per kernel",
            Per::Summary => "Summary",
        }
    }
}

/// Arguments of `warpsight accuracy`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  warpsight accuracy traces/h100-80gb-hbm3/*.ncu-raw.csv
  warpsight accuracy traces/h200/*.ncu-raw.csv --per launch --format md
  warpsight accuracy traces/h100-80gb-hbm3/*.ncu-raw.csv \\
      --on \"NVIDIA H200\" --against traces/h200/*.ncu-raw.csv")]
// `--filter` and `--format` of the shared arguments say more here: their help is replaced in
// place (`mut_args` keeps the order of the arguments, which completion scripts list).
#[command(mut_args(|arg| match arg.get_id().as_str() {
    "filter" => arg.help("Keep only kernels whose name matches this regular expression (both sides)"),
    "format" => arg.help(
        "Output format (default: from the `-o` extension, else `table`). CSV and Parquet hold one \
         table (one `--per` value); JSON is an object with one array per table",
    ),
    _ => arg,
}))]
pub struct AccuracyArgs {
    /// Profiler exports with measured times and counters: files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Cross-device: predict the INPUT launches on this device (as `warpsight devices` lists it)
    /// and compare with the launches of `--against`.
    #[arg(long, value_name = "DEVICE", requires = "against")]
    pub on: Option<String>,
    /// Cross-device: exports of the same launches measured on the `--on` device (give it last).
    /// Files pair by file name (then leftovers in order); within a pair the k-th launch of a kernel
    /// name matches the k-th launch of that name.
    #[arg(long, value_name = "OTHER_INPUT", num_args = 1.., requires = "on")]
    pub against: Vec<String>,
    /// Cross-device: the device the INPUT launches ran on, where the export does not say.
    #[arg(long, value_name = "DEVICE", requires = "on")]
    pub from: Option<String>,
    /// The tables to print, comma-separated, in this order.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Per::Summary, Per::Kernel])]
    pub per: Vec<Per>,
    /// `--filter`, on both sides (its help says so: see `mut_args` above).
    #[command(flatten)]
    pub kernels: crate::output::KernelFilter,
    /// `--format` (its help says more: see `mut_args` above) and `--output`.
    #[command(flatten)]
    pub out: crate::output::OutputArgs,
    /// The SM clock the launches are modelled at.
    #[command(flatten)]
    pub clock: crate::sm_clock::SmClockArgs,
}

/// Runs `warpsight accuracy`.
pub fn run(args: AccuracyArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let format = resolve_format(args.out.format, args.out.output.as_deref())?;
    if let Some(path) = &args.out.output {
        let inputs: Vec<String> = args.inputs.iter().chain(&args.against).cloned().collect();
        crate::output_file::refuse_input_as_output(path, &inputs)?;
    }
    let mut tables: Vec<Per> = Vec::new();
    for per in &args.per {
        if !tables.contains(per) {
            tables.push(*per);
        }
    }
    if matches!(
        format,
        OutputFormat::Csv | OutputFormat::Parquet | OutputFormat::Arrow
    ) && tables.len() != 1
    {
        return Err(anyhow::Error::new(CliError::new(
            format!(
                "{} holds one table, but --per asks for {}",
                match format {
                    OutputFormat::Csv => "CSV",
                    OutputFormat::Arrow => "Arrow IPC",
                    _ => "Parquet",
                },
                tables.len()
            ),
            "choose one with `--per summary`, `--per kernel` or `--per launch`, or use \
             `--format json`",
        )));
    }
    let registry = crate::plugins::load_registry(global);
    let loaded = load_inputs(&args.inputs, args.kernels.filter.as_deref(), global)?;
    let model = ModelConfig {
        sm_clock: args.clock.sm_clock,
        ..ModelConfig::default()
    };
    let result = match &args.on {
        None => accuracy::same_device(&loaded, &registry, &model),
        Some(target) => {
            let against = load_inputs(&args.against, args.kernels.filter.as_deref(), global)?;
            accuracy::cross_device(
                &loaded,
                &against,
                &registry,
                target,
                args.from.as_deref(),
                &model,
            )
        }
    };
    let result = result?;
    let cross = args.on.is_some();
    let notes = notes(&result, cross);
    let mut sink = open_output(args.out.output.as_deref(), format)?;
    if format.is_human() {
        let style = terminal_style(global, args.out.output.is_some());
        let mut shown: Vec<(String, polars::prelude::DataFrame, Vec<DisplayColumn>)> = tables
            .iter()
            .map(|per| -> anyhow::Result<_> {
                Ok(match per {
                    Per::Summary => (
                        per.heading().to_string(),
                        result.summary.clone(),
                        views::accuracy_summary(cross),
                    ),
                    Per::Kernel => (
                        per.heading().to_string(),
                        views::with_config_text(&result.per_kernel)?,
                        views::accuracy_kernel(result.summary.height() > 1),
                    ),
                    Per::Launch => (
                        per.heading().to_string(),
                        views::with_config_text(&result.per_launch)?,
                        views::accuracy_launch(cross),
                    ),
                })
            })
            .collect::<anyhow::Result<_>>()?;
        if let Some(unmatched) = result.unmatched.as_ref().filter(|u| u.height() > 0) {
            shown.push((
                "Unmatched launches".to_string(),
                unmatched.clone(),
                views::accuracy_unmatched(),
            ));
        }
        for (index, (heading, frame, columns)) in shown.iter().enumerate() {
            if index > 0 {
                writeln!(sink)?;
            }
            if format == OutputFormat::Md {
                writeln!(sink, "### {heading}\n")?;
            } else {
                writeln!(sink, "{heading}:")?;
            }
            output::write_human(frame, columns, format, style, &mut sink)?;
        }
        if !notes.is_empty() {
            writeln!(sink)?;
            for note in &notes {
                writeln!(sink, "{note}")?;
            }
        }
    } else {
        let frame_of = |per: Per| match per {
            Per::Summary => &result.summary,
            Per::Kernel => &result.per_kernel,
            Per::Launch => &result.per_launch,
        };
        if format == OutputFormat::Json {
            write!(sink, "{{")?;
            let mut keyed: Vec<(&str, &polars::prelude::DataFrame)> = tables
                .iter()
                .map(|per| (per.key(), frame_of(*per)))
                .collect();
            if let Some(unmatched) = &result.unmatched {
                keyed.push(("unmatched", unmatched));
            }
            for (index, (key, frame)) in keyed.iter().enumerate() {
                write!(sink, "{}\n\"{key}\": ", if index > 0 { "," } else { "" })?;
                write_json(frame, &mut sink)?;
            }
            writeln!(sink, "\n}}")?;
        } else {
            output::write_machine(frame_of(tables[0]), format, &mut sink)?;
        }
        if !global.quiet {
            for note in &notes {
                crate::output_file::eprint(&format!("note: {note}\n"));
            }
        }
    }
    sink.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The lines printed under human tables (on stderr for machine formats): the launches without a
/// prediction per reason, the unmatched launches, and the library's remarks.
fn notes(result: &Accuracy, cross: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let mut cells = warpsight_report::analysis::frame_access::Cells::new(&result.summary);
    for row in 0..result.summary.height() {
        let count = cells
            .i64(accuracy::accuracy_col::UNPREDICTED, row)
            .unwrap_or(0);
        if count > 0 {
            notes.push(format!(
                "{}: {count} launch{} not compared: {}",
                cells
                    .str(accuracy::accuracy_col::DEVICE, row)
                    .unwrap_or_else(|| "unknown device".into()),
                if count == 1 { "" } else { "es" },
                cells
                    .str(accuracy::accuracy_col::UNPREDICTED_REASONS, row)
                    .unwrap_or_default()
            ));
        }
    }
    if let Some(unmatched) = result.unmatched.as_ref().filter(|u| u.height() > 0) {
        notes.push(format!(
            "{} launch{} without a partner on the other side (listed{})",
            unmatched.height(),
            if unmatched.height() == 1 { "" } else { "es" },
            if cross { " as `unmatched`" } else { "" }
        ));
    }
    notes.extend(result.notes.iter().cloned());
    notes
}
