//! `warpsight predict`: the same launches on another GPU — predicted time and speedup per kernel
//! and in total, with the assumptions of the cross-device model printed beside the table (the SM
//! clock the target is modelled at among them). Kernels that cannot run on the target are marked
//! in the table ("On target") instead of a speedup, and counted below it with their causes.

use std::io::Write;
use std::process::ExitCode;

use super::GlobalArgs;
use crate::inputs::{check_filter, no_launches, part_config};
use crate::output::{open_output, resolve_format, sort_and_top, write_table};
use crate::plugins::load_registry;
use warpsight_model::ModelConfig;
use warpsight_report::analysis::predict::{self, ASSUMPTIONS};
use warpsight_report::analysis::read_parts::read_in_parts;
use warpsight_report::render::table::{self as report_table, DisplayColumn};
use warpsight_report::render::views;
use warpsight_report::units;

/// Arguments of `warpsight predict`.
#[derive(Debug, clap::Args)]
pub struct PredictArgs {
    /// Profiler exports: files, directories or glob patterns.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The target device (as `warpsight devices` lists it).
    #[arg(long, value_name = "DEVICE")]
    pub on: String,
    /// The device the launches ran on, where the export does not say.
    #[arg(long, value_name = "DEVICE")]
    pub from: Option<String>,
    /// `--filter`.
    #[command(flatten)]
    pub kernels: crate::output::KernelFilter,
    /// Show only the first N kernels.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Sort by this output column, descending (`COLUMN:asc` for ascending).
    #[arg(long, value_name = "COLUMN")]
    pub sort: Option<String>,
    /// `--format` and `--output`.
    #[command(flatten)]
    pub out: crate::output::OutputArgs,
    /// Which columns the table shows.
    #[command(flatten)]
    pub columns: crate::output::ColumnArgs,
    /// The SM clock the launches are modelled at.
    #[command(flatten)]
    pub clock: crate::sm_clock::SmClockArgs,
}

/// Runs `warpsight predict`.
pub fn run(args: PredictArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.out.output {
        crate::output_file::refuse_input_as_output(path, &args.inputs)?;
    }
    let registry = load_registry(global);
    let prediction = predict_inputs(&args, global, &registry)?;
    let format = resolve_format(args.out.format, args.out.output.as_deref())?;
    let table = sort_and_top(
        prediction.per_kernel.clone(),
        args.sort.as_deref(),
        args.top,
    )?;
    let mut sink = open_output(args.out.output.as_deref(), format)?;
    let (compact, full) = predict_views(&prediction);
    let (columns, drop_columns) = args.columns.select(&table, compact, full, format)?;
    write_table(
        &table,
        (&columns, drop_columns),
        format,
        global,
        args.out.output.as_deref(),
        &mut sink,
    )?;
    let notes = notes(&prediction);
    if format.is_human() {
        writeln!(sink)?;
        for note in &notes {
            writeln!(sink, "{note}")?;
        }
    } else if !global.quiet {
        for note in &notes {
            crate::output_file::eprint(&format!("{note}\n"));
        }
    }
    sink.finish()?;
    crate::allocator::keep_until_exit((prediction, table));
    Ok(ExitCode::SUCCESS)
}

/// The table's columns (compact, full): the predict view, with the mark of kernels that cannot run
/// on the target after the speedup where some cannot (always in the full view, which machine
/// formats use, with the launch count and the reason).
fn predict_views(prediction: &predict::Prediction) -> (Vec<DisplayColumn>, Vec<DisplayColumn>) {
    let with = |extra: Vec<DisplayColumn>| {
        let mut view = views::predict();
        let at = view
            .iter()
            .position(|c| c.source == predict::predict_col::SPEEDUP)
            .map_or(view.len(), |i| i + 1);
        for (i, column) in extra.into_iter().enumerate() {
            view.insert(at + i, column);
        }
        view
    };
    let mark = || {
        DisplayColumn::new(
            predict::predict_col::ON_TARGET,
            "On target",
            report_table::Unit::Text,
        )
    };
    let compact = if prediction.not_launchable.launches > 0 {
        with(vec![mark()])
    } else {
        views::predict()
    };
    let full = with(vec![
        mark(),
        DisplayColumn::new(
            predict::predict_col::NOT_LAUNCHABLE_LAUNCHES,
            "Launches that cannot run",
            report_table::Unit::Integer,
        ),
        DisplayColumn::new(
            predict::predict_col::NOT_LAUNCHABLE,
            "Not launchable",
            report_table::Unit::Text,
        ),
    ]);
    (compact, full)
}

/// The lines printed after the table: the totals, the launches that cannot run on the target and
/// those without a prediction, and the assumptions with the SM clock of the target.
fn notes(prediction: &predict::Prediction) -> Vec<String> {
    let totals = prediction.totals;
    let target = &prediction.target_device;
    let mut notes = vec![if totals.kernels == 0 {
        format!("total on {target}: no kernel has a predicted time on the target")
    } else {
        format!(
            "total on {target}: {} → {} ({} speedup over {} kernel{})",
            units::duration_ns(totals.baseline_ns),
            units::duration_ns(totals.target_ns),
            units::times(totals.speedup),
            totals.kernels,
            if totals.kernels == 1 { "" } else { "s" }
        )
    }];
    if let Some(line) = prediction.not_launchable.summary(target) {
        notes.push(line);
        if let Some((kernel, reason)) = &prediction.not_launchable.example {
            notes.push(format!("  e.g. {kernel}: {reason}"));
        }
    }
    if prediction.unpredicted > 0 {
        notes.push(format!(
            "{} launches have no prediction on the target (missing counters or unknown architecture)",
            prediction.unpredicted
        ));
    }
    notes.push("assumptions:".to_string());
    notes.extend(ASSUMPTIONS.iter().map(|a| format!("  - {a}")));
    notes.push(format!(
        "  - {}",
        prediction.target_sm_clock.as_ref().map_or_else(
            || "the target's SM clock is unknown".to_string(),
            predict::TargetClock::assumption
        )
    ));
    notes
}

/// Predicts the inputs on the target one file at a time, and each file in parts of about
/// [`warpsight_report::analysis::read_parts::LAUNCHES_PER_PART`] launches (only one part's launches in memory), their
/// per-kernel sums then combined.
fn predict_inputs(
    args: &PredictArgs,
    global: &GlobalArgs,
    registry: &warpsight_model::arch::Registry,
) -> anyhow::Result<predict::Prediction> {
    let files = warpsight_ingest::batch::expand_inputs(&args.inputs)?;
    check_filter(args.kernels.filter.as_deref())?;
    let read = part_config(global, args.kernels.filter.as_deref());
    let mut parts = Vec::new();
    for file in &files {
        // The parts of one file share the model's outputs (see `analyze_inputs`).
        let model = crate::inputs::with_evaluation_cache(&ModelConfig {
            sm_clock: args.clock.sm_clock,
            ..ModelConfig::default()
        });
        let rest = read_in_parts(file, &read, &mut |part| -> anyhow::Result<()> {
            let prediction =
                predict::predict_part(part, registry, &args.on, args.from.as_deref(), &model)?;
            parts.push(prediction);
            Ok(())
        })?;
        crate::inputs::report_rejected_rows(&rest, global);
        if files.len() > 1 {
            crate::allocator::release_freed_memory();
        }
    }
    if parts.is_empty() {
        let described = match files.as_slice() {
            [one] => format!("`{}`", one.display()),
            many => format!("{} files", many.len()),
        };
        return Err(no_launches(args.kernels.filter.as_deref(), &described));
    }
    Ok(predict::combine(parts, registry, &args.on)?)
}
