//! `warpsight report`: one self-contained HTML review (inline CSS and SVG, one inline sort script,
//! no network): the summary with the top kernels, the kernel table, a roofline per device,
//! predicted against measured time, and a section per kernel with its launch configuration,
//! occupancy sweeps (top kernels) and findings.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::GlobalArgs;
use crate::inputs::{analyze_inputs, input_notes, report_input_notes, transfer_line};
use crate::plugins::load_plugins_and_rules as load_plugins;
use warpsight_model::ModelConfig;
use warpsight_report::analysis::aggregate;
use warpsight_report::analysis::pipeline::AnalysisConfig;
use warpsight_report::render::html;
use warpsight_report::render::report_page::{self, ReportOptions};

/// Arguments of `warpsight report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Profiler exports: files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The HTML file to write.
    #[arg(
        short,
        long,
        value_name = "FILE",
        default_value = "warpsight-report.html"
    )]
    pub output: PathBuf,
    /// `--filter`.
    #[command(flatten)]
    pub kernels: crate::output::KernelFilter,
    /// Model every launch on this device instead of the one it ran on.
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Number of top kernels (by time) that get occupancy charts.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub top: usize,
    /// Page title.
    #[arg(long, default_value = "warpsight report")]
    pub title: String,
    /// Embed the layout check script (tests open the page in a headless browser and read the
    /// verdict it writes into the page).
    #[arg(long, hide = true)]
    pub layout_check: bool,
}

/// Runs `warpsight report`.
pub fn run(args: ReportArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    check_output_name(&args.output)?;
    crate::output_file::refuse_input_as_output(&args.output, &args.inputs)?;
    let (registry, rules_hooks) = load_plugins(global);
    let model = ModelConfig {
        device_override: args.device.clone(),
        ..ModelConfig::default()
    };
    let config = AnalysisConfig {
        model: model.clone(),
        rules_hooks,
        ..AnalysisConfig::default()
    };
    let (loaded, analysis) = analyze_inputs(
        &args.inputs,
        args.kernels.filter.as_deref(),
        global,
        &registry,
        &config,
        &mut |_| Ok(()),
    )?;
    report_input_notes(&loaded, &analysis, global);
    let per_kernel = aggregate::per_kernel_all(&analysis.groups, &loaded.side.kernel_summary)?;
    let mut notes = input_notes(&loaded, &analysis);
    if let Some(transfers) = aggregate::transfers(&loaded.side.transfers)? {
        notes.push(transfer_line(&transfers));
    }
    let page = report_page::build(
        &per_kernel,
        &analysis.groups,
        &analysis.findings,
        notes,
        loaded
            .files
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        &registry,
        &model,
        &ReportOptions {
            title: args.title.clone(),
            sweep_kernels: args.top,
            max_findings: 30,
            layout_check: args.layout_check,
        },
    )?;
    let text = html::render(&page);
    crate::output_file::write_file(&args.output, text.as_bytes())?;
    if !global.quiet {
        crate::output_file::eprint(&format!(
            "wrote {} ({} kernels, {} findings)\n",
            args.output.display(),
            per_kernel.height(),
            analysis.findings.len()
        ));
    }
    crate::allocator::keep_until_exit((loaded, analysis, page));
    Ok(ExitCode::SUCCESS)
}

/// Refuses an output that is not named as an HTML page (`*.html` or `*.htm`): the report is one,
/// and a name such as `report.csv` promises a format it is not.
fn check_output_name(path: &Path) -> anyhow::Result<()> {
    let html = path
        .extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| {
            extension.eq_ignore_ascii_case("html") || extension.eq_ignore_ascii_case("htm")
        });
    if html {
        return Ok(());
    }
    Err(anyhow::Error::new(crate::errors::CliError::new(
        format!(
            "the report is an HTML page, but `{}` is not named `*.html`",
            path.display()
        ),
        "name the output `*.html` (or `*.htm`); for tables in other formats, use \
         `warpsight analyze -o FILE.csv|.json|.parquet`",
    )))
}
