//! `warpsight analyze`: the per-kernel (default) or per-launch analysis table — occupancy and its
//! limiter, latency hiding, roofline, waves, measured and predicted time, findings — in table, md,
//! csv, json or parquet.
//!
//! Also holds the pieces `report`, `predict` and `diff` share: loading plugins and inputs (with a
//! progress bar), the `--filter`/`--sort`/`--top` handling, the stderr notes about rows that could
//! not be used, and where the output goes.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polars::prelude::*;

use super::errors::Hinted;
use super::{ColorChoice, GlobalArgs};
use crate::analysis::aggregate::{self, TransferSummary};
use crate::analysis::findings::Finding;
use crate::analysis::load::{self, Loaded};
use crate::analysis::pipeline::{self, Analysis, AnalysisConfig};
use crate::analysis::report_columns as rc;
use crate::arch::Registry;
use crate::ingest::ReadConfig;
use crate::launch_table::col as lt;
use crate::model::{ModelConfig, ModelError};
use crate::plugin_host::{self, PluginConfig};
use crate::render::output::{self, OutputFormat};
use crate::render::table::{DisplayColumn, TerminalStyle};
use crate::render::{units, views};
use crate::trace::kernel_summary_col as ks;

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
}

/// Runs `warpsight analyze`.
pub fn run(args: AnalyzeArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let (registry, rules_hooks) = load_plugins(global);
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
    let format = resolve_format(args.format, args.output.as_deref());

    let table = match args.per {
        Per::Kernel => aggregate::per_kernel_all(&analysis.launches, &loaded.kernel_summary)?,
        Per::Launch => rc::per_launch(analysis.launches.clone())?,
    };
    let table = sort_and_top(table, args.sort.as_deref(), args.top)?;
    let mut sink = open_output(args.output.as_deref(), format)?;
    if format.is_human() {
        let shown = views::with_config_text(&table)?;
        let columns = match (args.per, format) {
            (Per::Kernel, OutputFormat::Table) => views::kernel_terminal(),
            (Per::Kernel, _) => views::kernel_full(),
            (Per::Launch, OutputFormat::Table) => views::launch_terminal(),
            (Per::Launch, _) => views::launch_full(),
        };
        output::write_human(
            &shown,
            &columns,
            format,
            terminal_style(global, args.output.is_some()),
            &mut sink,
        )?;
        let shown_launches = launch_keys(&table)?;
        write_footer(
            &mut sink,
            &analysis.findings,
            &shown_launches,
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
    Ok(ExitCode::SUCCESS)
}

/// Loads the plugins and says on stderr when none provides any architecture.
pub fn load_registry(global: &GlobalArgs) -> Registry {
    load_plugins(global).0
}

/// Loads the plugins: the registry and the plugins' rules hooks.
pub fn load_plugins(global: &GlobalArgs) -> (Registry, Vec<plugin_host::RulesHook>) {
    let (registry, report) =
        plugin_host::load_registry(&PluginConfig::from_environment(&global.plugin_dirs));
    let hooks: Vec<plugin_host::RulesHook> = report
        .loaded
        .iter()
        .filter_map(|p| p.rules.clone())
        .collect();
    if registry.archs.is_empty() && !global.quiet {
        let searched: Vec<String> = report
            .searched
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "warning: no architecture plugin was loaded (searched: {}); launches cannot be modelled\n\
             hint: pass --plugin-dir DIR or set {}",
            if searched.is_empty() {
                "nothing".to_string()
            } else {
                searched.join(", ")
            },
            plugin_host::PLUGIN_PATH_ENV
        );
    }
    (registry, hooks)
}

/// Expands and reads the inputs with a progress bar (stderr, TTY only, not with `--quiet`), then
/// keeps only the kernels matching `filter`.
pub fn load_inputs(
    inputs: &[String],
    filter: Option<&str>,
    global: &GlobalArgs,
) -> anyhow::Result<Loaded> {
    let files = crate::ingest::batch::expand_inputs(inputs)?;
    let bar = progress_bar(files.len(), global);
    let read = ReadConfig {
        strict: global.strict,
        format: None,
    };
    let tick = |path: &Path| {
        bar.set_message(
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        bar.inc(1);
    };
    let loaded = load::load_paths(&files, &read, &tick);
    bar.finish_and_clear();
    let mut loaded = loaded?;
    if let Some(pattern) = filter {
        regex::Regex::new(pattern)
            .with_context(|| format!("invalid --filter regular expression `{pattern}`"))?;
        loaded = filter_kernels(loaded, pattern)?;
    }
    if loaded.is_empty() {
        return Err(anyhow::Error::new(Hinted {
            message: format!(
                "no kernel launches{} in {}",
                if filter.is_some() {
                    " match the filter"
                } else {
                    ""
                },
                loaded.describe()
            ),
            hint: "run `warpsight inspect` on the inputs to see what they contain".into(),
            source: None,
        }));
    }
    Ok(loaded)
}

/// A progress bar over `files` inputs, hidden unless stderr is a terminal and more than one file is
/// read.
fn progress_bar(files: usize, global: &GlobalArgs) -> ProgressBar {
    if global.quiet || files < 2 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} reading {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

/// Keeps the launches, rule rows and kernel summaries whose kernel name matches `pattern`.
fn filter_kernels(loaded: Loaded, pattern: &str) -> PolarsResult<Loaded> {
    let keep = |frame: DataFrame, name: &str| -> PolarsResult<DataFrame> {
        if frame.height() == 0 || !frame.schema().contains(name) {
            return Ok(frame);
        }
        frame
            .lazy()
            .filter(
                col(name)
                    .str()
                    .contains(lit(pattern), true)
                    .fill_null(lit(false)),
            )
            .collect()
    };
    Ok(Loaded {
        launches: keep(loaded.launches, lt::KERNEL_NAME)?,
        rules: keep(loaded.rules, crate::trace::rules_col::KERNEL_NAME)?,
        kernel_summary: keep(loaded.kernel_summary, ks::KERNEL_NAME)?,
        ..loaded
    })
}

/// Runs the analysis pipeline, turning an unknown `--device`/`--on` into an error with a hint.
pub fn run_pipeline(
    loaded: &Loaded,
    registry: &Registry,
    config: &AnalysisConfig,
) -> anyhow::Result<Analysis> {
    pipeline::analyze(loaded, registry, config).map_err(|err| match err {
        crate::analysis::AnalysisError::Model(ModelError::UnknownDevice { name, known }) => {
            unknown_device(&name, &known)
        }
        other => anyhow::Error::new(other),
    })
}

/// The error for a device no plugin provides, listing the known ones.
pub fn unknown_device(name: &str, known: &[String]) -> anyhow::Error {
    anyhow::Error::new(Hinted {
        message: format!("no loaded plugin provides the device `{name}`"),
        hint: if known.is_empty() {
            "no device is known: load the architecture plugins with --plugin-dir".into()
        } else {
            format!(
                "known devices: {} (see `warpsight devices`)",
                known.join(", ")
            )
        },
        source: None,
    })
}

/// Prints on stderr the rows that could not be used and the launches the model could not evaluate.
pub fn report_input_notes(loaded: &Loaded, analysis: &Analysis, global: &GlobalArgs) {
    if global.quiet {
        return;
    }
    for (file, count) in &loaded.rejected {
        eprintln!(
            "warning: {}: {count} row{} could not be used (see `warpsight inspect {}`)",
            file.display(),
            if *count == 1 { "" } else { "s" },
            file.display()
        );
    }
    for (reason, count) in &analysis.unmodelled {
        eprintln!(
            "warning: {count} launch{} could not be modelled: {reason}",
            if *count == 1 { "" } else { "es" }
        );
    }
}

/// The notes of [`report_input_notes`] as text lines (for the HTML report).
pub fn input_notes(loaded: &Loaded, analysis: &Analysis) -> Vec<String> {
    let mut notes: Vec<String> = loaded
        .rejected
        .iter()
        .map(|(file, count)| format!("{}: {count} rows could not be used", file.display()))
        .collect();
    notes.extend(
        analysis
            .unmodelled
            .iter()
            .map(|(reason, count)| format!("{count} launches could not be modelled: {reason}")),
    );
    notes
}

/// The output format: `--format`, else the `-o` extension, else `table`.
pub fn resolve_format(format: Option<OutputFormat>, output: Option<&Path>) -> OutputFormat {
    format
        .or_else(|| output.and_then(OutputFormat::from_path))
        .unwrap_or(OutputFormat::Table)
}

/// Where the output goes: the `-o` file, else stdout (Parquet refuses a terminal).
pub fn open_output(path: Option<&Path>, format: OutputFormat) -> anyhow::Result<Box<dyn Write>> {
    match path {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create `{}`", path.display()))?;
            Ok(Box::new(std::io::BufWriter::new(file)))
        }
        None if format == OutputFormat::Parquet && std::io::stdout().is_terminal() => {
            Err(anyhow::Error::new(Hinted {
                message: "refusing to write Parquet to a terminal".into(),
                hint: "add `-o FILE.parquet`, or redirect stdout".into(),
                source: None,
            }))
        }
        None => Ok(Box::new(std::io::BufWriter::new(std::io::stdout().lock()))),
    }
}

/// The terminal table's style: the terminal's width on a TTY (120 columns otherwise), colour only
/// on a TTY and never under `NO_COLOR` (or as `--color` says).
pub fn terminal_style(global: &GlobalArgs, to_file: bool) -> TerminalStyle {
    let tty = !to_file && std::io::stdout().is_terminal();
    let color = match global.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    TerminalStyle {
        width: if tty { None } else { Some(120) },
        color: color && !to_file,
    }
}

/// Sorts by `--sort` (an output column; `:asc` for ascending, descending by default) and keeps the
/// first `--top` rows.
pub fn sort_and_top(
    frame: DataFrame,
    sort: Option<&str>,
    top: Option<usize>,
) -> anyhow::Result<DataFrame> {
    let mut lazy = frame.clone().lazy();
    if let Some(spec) = sort {
        let (name, descending) = match spec.rsplit_once(':') {
            Some((name, "asc")) => (name, false),
            Some((name, "desc")) => (name, true),
            _ => (spec, true),
        };
        if !frame.schema().contains(name) {
            let names: Vec<String> = frame
                .get_column_names()
                .iter()
                .map(|n| n.to_string())
                .collect();
            return Err(anyhow::Error::new(Hinted {
                message: format!("cannot sort by `{name}`: no such column"),
                hint: format!("columns: {}", names.join(", ")),
                source: None,
            }));
        }
        lazy = lazy.sort(
            [name],
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_nulls_last(true)
                .with_maintain_order(true),
        );
    }
    if let Some(top) = top {
        lazy = lazy.limit(top as IdxSize);
    }
    Ok(lazy.collect()?)
}

/// The (file, launch id) of the rows shown: every launch per launch, the representative launch
/// of each kernel per kernel.
fn launch_keys(table: &DataFrame) -> PolarsResult<Vec<(String, i64)>> {
    let mut cells = crate::analysis::frame_access::Cells::new(table);
    Ok((0..table.height())
        .filter_map(|row| Some((cells.str(rc::FILE, row)?, cells.i64(lt::LAUNCH_ID, row)?)))
        .collect())
}

/// Below a human table: the findings of the launches shown and the transfers line.
fn write_footer(
    out: &mut dyn Write,
    findings: &[Finding],
    launches: &[(String, i64)],
    transfers: Option<TransferSummary>,
    format: OutputFormat,
) -> std::io::Result<()> {
    let shown: Vec<&Finding> = findings
        .iter()
        .filter(|f| {
            f.launch_id
                .is_some_and(|id| launches.iter().any(|(file, l)| *l == id && *file == f.file))
        })
        .collect();
    if !shown.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            if format == OutputFormat::Md {
                "### Findings"
            } else {
                "Findings:"
            }
        )?;
        for finding in shown {
            let launch = finding
                .launch_id
                .map(|id| format!(" (launch {id})"))
                .unwrap_or_default();
            let source = if finding.source == "warpsight" {
                String::new()
            } else {
                format!(" [{}]", finding.source)
            };
            writeln!(
                out,
                "- {} {} `{}`{source}: {}{launch}",
                finding.severity.name(),
                short(&finding.kernel),
                finding.rule_id,
                finding.message
            )?;
        }
    }
    if let Some(transfers) = transfers {
        writeln!(out)?;
        writeln!(out, "{}", transfer_line(&transfers))?;
    }
    Ok(())
}

/// A kernel name shortened to its function name for the findings list.
fn short(kernel: &str) -> String {
    let head = kernel.split('(').next().unwrap_or(kernel);
    let chars: Vec<char> = head.chars().collect();
    if chars.len() <= 60 {
        head.to_string()
    } else {
        format!("{}…", chars[..59].iter().collect::<String>())
    }
}

/// The transfers footer line.
pub fn transfer_line(transfers: &TransferSummary) -> String {
    format!(
        "transfers: {} memcpy/memset, {}, {}",
        transfers.count,
        units::bytes(transfers.bytes),
        units::duration_ns(transfers.duration_ns)
    )
}

/// Writes a table in a human or machine format (used by `predict` and `diff`).
pub fn write_table(
    table: &DataFrame,
    columns: &[DisplayColumn],
    format: OutputFormat,
    global: &GlobalArgs,
    output: Option<&Path>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if format.is_human() {
        output::write_human(
            table,
            columns,
            format,
            terminal_style(global, output.is_some()),
            out,
        )?;
    } else {
        output::write_machine(table, format, out)?;
    }
    Ok(())
}
