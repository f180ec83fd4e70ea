//! Assembles the HTML review of `warpsight report` from an analysis: the summary (totals and the
//! top kernels' bar chart), the kernel table, one roofline per device (the device's hierarchical
//! ceilings), predicted against measured time, and one section per kernel (launch configuration,
//! occupancy sweeps of the top kernels, findings).
//!
//! Every kernel is numbered by its rank in the per-kernel frame (sorted by total time, largest
//! first); the number labels its markers on every chart and heads its section.

use std::collections::HashMap;

use polars::prelude::*;

use super::bar_chart::{Bar, bar_svg};
use super::html::{ChartBlock, FindingLine, HtmlReport, KernelSection, Summary};
use super::html_table::{HtmlCell, HtmlColumn, HtmlTable};
use super::occupancy_chart::{SweepChart, occupancy_svg};
use super::roofline_chart::{RooflineChart, RooflinePoint, roofline_svg};
use super::scatter_chart::{ScatterPoint, scatter_svg};
use super::table::cells;
use super::views;
use crate::analysis::error::AnalysisError;
use crate::analysis::findings::Finding;
use crate::analysis::frame_access::Cells;
use crate::analysis::report_columns as rc;
use crate::analysis::sweep;
use crate::units;
use warpsight_ingest::launch_table::column_names as lt;
use warpsight_model::arch::Registry;
use warpsight_model::{ModelConfig, columns as mc};

/// Options of the report.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Page title.
    pub title: String,
    /// How many of the top kernels get occupancy sweeps.
    pub sweep_kernels: usize,
    /// Most findings listed per kernel section, and most listed for kernels without a section.
    pub max_findings: usize,
    /// Embed the layout check script (for tests in a headless browser).
    pub layout_check: bool,
}

/// How many kernels the bar chart shows.
const TOP_BARS: usize = 10;
/// How many kernels (the first by time) get a section of their own.
const MAX_SECTIONS: usize = 40;

/// What the page needs of one kernel (one row of the per-kernel frame).
#[derive(Debug, Clone)]
struct Kernel {
    /// Rank by total time, from 1.
    number: usize,
    /// Display name.
    name: String,
    /// Full name (what findings are keyed by).
    full_name: String,
    /// Device the model used.
    device: Option<String>,
    /// Share of GPU time, 0–1.
    share: f64,
    /// The model's bound.
    bound: String,
}

impl Kernel {
    /// `#3 name`.
    fn tag(&self) -> String {
        format!("#{} {}", self.number, self.name)
    }
}

/// The kernels of the per-kernel frame, in its order.
fn kernels(per_kernel: &DataFrame) -> Vec<Kernel> {
    let mut cells = Cells::new(per_kernel);
    (0..per_kernel.height())
        .map(|row| {
            let name = cells.str(rc::KERNEL, row).unwrap_or_else(|| "?".into());
            Kernel {
                number: row + 1,
                full_name: cells
                    .str(rc::KERNEL_NAME, row)
                    .unwrap_or_else(|| name.clone()),
                name,
                device: cells.str(rc::DEVICE, row),
                share: cells.f64(rc::TIME_SHARE, row).unwrap_or(0.0),
                bound: cells.str(mc::BOUND, row).unwrap_or_else(|| "-".into()),
            }
        })
        .collect()
}

/// A legend table's `#` and kernel columns for `kernel` (the full name on hover).
fn legend_head(kernel: &Kernel) -> Vec<HtmlCell> {
    vec![
        HtmlCell::number(kernel.number.to_string(), Some(kernel.number as f64)),
        HtmlCell {
            text: kernel.name.clone(),
            title: Some(kernel.full_name.clone()),
            sort: None,
        },
    ]
}

/// The summary: total time, kernel and launch counts, devices, predictions, and the bar chart.
fn summary(per_kernel: &DataFrame, kernels: &[Kernel], findings: usize) -> Summary {
    let mut cells = Cells::new(per_kernel);
    let rows = 0..per_kernel.height();
    let total: f64 = rows
        .clone()
        .filter_map(|r| cells.f64(rc::TOTAL_NS, r))
        .sum();
    let launches: f64 = rows
        .clone()
        .filter_map(|r| cells.f64(rc::LAUNCHES, r))
        .sum();
    let predicted = rows
        .clone()
        .filter(|r| cells.f64(mc::PREDICTED_NS, *r).is_some())
        .count();
    let mut devices: Vec<String> = Vec::new();
    for device in kernels.iter().filter_map(|k| k.device.clone()) {
        if !devices.contains(&device) {
            devices.push(device);
        }
    }
    let mut facts = vec![
        (
            "GPU time of all kernels".to_string(),
            units::duration_ns(total),
        ),
        ("kernels".to_string(), kernels.len().to_string()),
        ("launches".to_string(), format!("{launches:.0}")),
        (
            "kernels with a predicted time".to_string(),
            format!("{predicted} of {}", kernels.len()),
        ),
        ("findings".to_string(), findings.to_string()),
    ];
    if !devices.is_empty() {
        facts.push(("modelled on".to_string(), devices.join(", ")));
    }
    let bars: Vec<Bar> = kernels
        .iter()
        .take(TOP_BARS)
        .map(|k| Bar {
            number: k.number,
            name: k.full_name.clone(),
            share: k.share,
            bound: k.bound.clone(),
        })
        .collect();
    let rest = (kernels.len() > TOP_BARS).then(|| {
        let share: f64 = kernels[TOP_BARS..].iter().map(|k| k.share).sum();
        format!(
            "The other {} kernels take {} of the GPU time.",
            kernels.len() - TOP_BARS,
            units::percent(share)
        )
    });
    Summary {
        facts,
        bars: if bars.is_empty() {
            String::new()
        } else {
            bar_svg(
                &bars,
                "Top kernels by share of GPU time (bar colour and text: the model's bound)",
            )
        },
        rest,
    }
}

/// The kernel table: `#`, the review's columns, and the number of findings.
fn kernel_table(
    per_kernel: &DataFrame,
    kernels: &[Kernel],
    counts: &HashMap<String, usize>,
) -> Result<HtmlTable, AnalysisError> {
    let shown = views::with_config_text(per_kernel)?;
    let mut table = HtmlTable::from_frame(&shown, &views::kernel_review())?;
    table.columns.insert(0, HtmlColumn::new("#", true, 34));
    table
        .columns
        .push(HtmlColumn::new("Findings", true, 70).help("findings of all the kernel's launches"));
    for column in &mut table.columns {
        column.help = column.help.take().or_else(|| header_help(&column.header));
    }
    for (row, kernel) in table.rows.iter_mut().zip(kernels) {
        row.insert(
            0,
            HtmlCell::number(kernel.number.to_string(), Some(kernel.number as f64)),
        );
        row[1].title = Some(kernel.full_name.clone());
        let count = counts.get(&kernel.full_name).copied().unwrap_or(0);
        row.push(HtmlCell::number(count.to_string(), Some(count as f64)));
    }
    table.sortable = true;
    Ok(table)
}

/// What a kernel-table header means (its hover text).
fn header_help(header: &str) -> Option<String> {
    let help = match header {
        "#" => "rank by total GPU time; the charts and sections use this number",
        "Share" => "share of the GPU time of all kernels",
        "Mean" => "mean time per launch",
        "Grid × block" => {
            "dominant launch configuration: grid × block · registers · shared memory"
        }
        "Occ." => "theoretical occupancy (warpsight's model)",
        "Achieved" => "achieved occupancy measured by ncu",
        "Limiter" => "what limits the theoretical occupancy",
        "Bound" => "the model's bound",
        "Of roof" => "achieved FLOP/s as a share of the attainable roofline",
        "Predicted" => "predicted time of all launches",
        _ => return None,
    };
    Some(help.to_string())
}

/// One roofline per device in the per-kernel table, with its legend.
fn rooflines(per_kernel: &DataFrame, kernels: &[Kernel], registry: &Registry) -> Vec<ChartBlock> {
    let mut cells = Cells::new(per_kernel);
    let mut devices: Vec<String> = Vec::new();
    for device in kernels.iter().filter_map(|k| k.device.clone()) {
        if !devices.contains(&device) {
            devices.push(device);
        }
    }
    devices
        .into_iter()
        .filter_map(|name| {
            let device = registry.device(&name)?;
            let (memory, compute) =
                warpsight_model::roofline::hierarchical_ceilings(device, registry.arch(device.cc));
            let mut points = Vec::new();
            let mut legend = Vec::new();
            for (row, kernel) in kernels.iter().enumerate() {
                if kernel.device.as_deref() != Some(name.as_str()) {
                    continue;
                }
                let Some(intensity) = cells
                    .f64(mc::AI_DRAM, row)
                    .or_else(|| cells.f64(mc::AI_L2, row))
                    .filter(|v| *v > 0.0)
                else {
                    continue;
                };
                let Some(flops) = cells.f64(mc::ACHIEVED_FLOPS, row).filter(|v| *v > 0.0) else {
                    continue;
                };
                let roof = cells.f64(mc::PCT_OF_ROOF, row);
                points.push(RooflinePoint {
                    number: kernel.number,
                    tooltip: format!(
                        "#{} {}\n{} FLOP/byte (DRAM), {}, {} of roof, {}, {} of GPU time",
                        kernel.number,
                        kernel.full_name,
                        units::number(intensity),
                        units::flops(flops),
                        roof.map_or_else(|| "-".into(), units::percent),
                        kernel.bound,
                        units::percent(kernel.share)
                    ),
                    intensity,
                    flops,
                    time_share: kernel.share,
                    bound: kernel.bound.clone(),
                });
                let mut row_cells = legend_head(kernel);
                row_cells.extend([
                    HtmlCell::full(kernel.bound.clone()),
                    HtmlCell::number(units::number(intensity), Some(intensity)),
                    HtmlCell::number(units::flops(flops), Some(flops)),
                    HtmlCell::number(roof.map_or_else(|| "-".into(), units::percent), roof),
                    HtmlCell::number(units::percent(kernel.share), Some(kernel.share)),
                ]);
                legend.push(row_cells);
            }
            Some(ChartBlock {
                svg: roofline_svg(&RooflineChart {
                    title: device.name.clone(),
                    memory,
                    compute,
                    points,
                }),
                legend: HtmlTable {
                    columns: vec![
                        HtmlColumn::new("#", true, 34),
                        HtmlColumn::new("Kernel", false, 420),
                        HtmlColumn::new("Bound", false, 130),
                        HtmlColumn::new("FLOP/B (DRAM)", true, 120)
                            .help("arithmetic intensity: FLOP per DRAM byte"),
                        HtmlColumn::new("Achieved", true, 110),
                        HtmlColumn::new("Of roof", true, 64),
                        HtmlColumn::new("Share", true, 70),
                    ],
                    rows: legend,
                    sortable: true,
                },
            })
        })
        .collect()
}

/// Predicted against measured time of each kernel's representative launch, and the kernels that
/// have no prediction.
fn prediction(per_kernel: &DataFrame, kernels: &[Kernel]) -> (Option<ChartBlock>, Vec<String>) {
    let mut cells = Cells::new(per_kernel);
    let mut points = Vec::new();
    let mut legend = Vec::new();
    let mut missing = Vec::new();
    for (row, kernel) in kernels.iter().enumerate() {
        let measured = cells.f64(lt::DURATION_NS, row).filter(|v| *v > 0.0);
        let predicted = cells.f64(mc::PREDICTED_NS, row).filter(|v| *v > 0.0);
        let (Some(measured), Some(predicted)) = (measured, predicted) else {
            missing.push(kernel.tag());
            continue;
        };
        let error = predicted / measured - 1.0;
        points.push(ScatterPoint {
            number: kernel.number,
            tooltip: format!(
                "#{} {}\nmeasured {}, predicted {} ({})",
                kernel.number,
                kernel.full_name,
                units::duration_ns(measured),
                units::duration_ns(predicted),
                units::signed_percent(error)
            ),
            measured_ns: measured,
            predicted_ns: predicted,
            time_share: kernel.share,
            bound: kernel.bound.clone(),
        });
        let mut row_cells = legend_head(kernel);
        row_cells.extend([
            HtmlCell::number(units::duration_ns(measured), Some(measured)),
            HtmlCell::number(units::duration_ns(predicted), Some(predicted)),
            HtmlCell::number(units::signed_percent(error), Some(error)),
            HtmlCell::full(kernel.bound.clone()),
        ]);
        legend.push(row_cells);
    }
    if points.is_empty() {
        return (None, missing);
    }
    let block = ChartBlock {
        svg: scatter_svg(&points, "Predicted vs measured, one launch per kernel"),
        legend: HtmlTable {
            columns: vec![
                HtmlColumn::new("#", true, 34),
                HtmlColumn::new("Kernel", false, 420),
                HtmlColumn::new("Measured", true, 80),
                HtmlColumn::new("Predicted", true, 80),
                HtmlColumn::new("Error", true, 70).help("(predicted − measured) / measured"),
                HtmlColumn::new("Bound", false, 130),
            ],
            rows: legend,
            sortable: true,
        },
    };
    (Some(block), missing)
}

/// Occupancy sweeps of the kernel in `row`, from its representative launch (empty when the launch
/// has no occupancy or no known architecture).
fn kernel_sweeps(
    per_kernel: &DataFrame,
    row: usize,
    number: usize,
    launches: &DataFrame,
    registry: &Registry,
    model: &ModelConfig,
) -> Result<Vec<String>, AnalysisError> {
    let mut cells = Cells::new(per_kernel);
    let (Some(file), Some(launch_id)) = (cells.str(rc::FILE, row), cells.i64(lt::LAUNCH_ID, row))
    else {
        return Ok(Vec::new());
    };
    if cells.f64(mc::THEORETICAL_OCCUPANCY, row).is_none() {
        return Ok(Vec::new());
    }
    let base = launches
        .clone()
        .lazy()
        .filter(
            col(lt::SOURCE_FILE)
                .eq(lit(file))
                .and(col(lt::LAUNCH_ID).eq(lit(launch_id))),
        )
        .limit(1)
        .collect()?;
    let Some(arch) = sweep::arch_of(&base, 0, registry) else {
        return Ok(Vec::new());
    };
    let sweeps = sweep::sweeps(&base, 0, arch, registry, model)?;
    Ok(sweeps
        .iter()
        .map(|s| occupancy_svg(&SweepChart::from_sweep(s, &format!("#{number}"))))
        .collect())
}

/// A finding as the page lists it.
fn finding_line(f: &Finding) -> FindingLine {
    FindingLine {
        severity: f.severity.name().to_string(),
        kernel: f.kernel.to_string(),
        launch_id: f.launch_id,
        source: f.source.to_string(),
        rule: f.rule_id.to_string(),
        message: f.message.clone(),
    }
}

/// The sections of the first kernels by time that have a configuration or findings to show.
#[allow(clippy::too_many_arguments)]
fn sections(
    per_kernel: &DataFrame,
    kernels: &[Kernel],
    by_kernel: &HashMap<String, Vec<&Finding>>,
    launches: &DataFrame,
    registry: &Registry,
    model: &ModelConfig,
    options: &ReportOptions,
) -> Result<Vec<KernelSection>, AnalysisError> {
    let shown = views::with_config_text(per_kernel)?;
    let columns = views::kernel_section();
    let texts = cells(&shown, &columns)?;
    let mut out = Vec::new();
    for (row, kernel) in kernels.iter().enumerate().take(MAX_SECTIONS) {
        let config: Vec<(String, String)> = columns
            .iter()
            .zip(&texts[row])
            .filter(|(_, text)| text.as_str() != units::MISSING)
            .map(|(column, text)| (column.header.clone(), text.clone()))
            .collect();
        let found = by_kernel
            .get(&kernel.full_name)
            .map_or(&[][..], Vec::as_slice);
        let has_launch = Cells::new(per_kernel).i64(lt::LAUNCH_ID, row).is_some();
        if !has_launch && found.is_empty() {
            continue;
        }
        let sweeps = if row < options.sweep_kernels {
            kernel_sweeps(per_kernel, row, kernel.number, launches, registry, model)?
        } else {
            Vec::new()
        };
        out.push(KernelSection {
            number: kernel.number,
            name: kernel.name.clone(),
            full_name: kernel.full_name.clone(),
            config,
            sweeps,
            findings: found
                .iter()
                .take(options.max_findings)
                .map(|f| finding_line(f))
                .collect(),
            findings_left_out: found.len().saturating_sub(options.max_findings),
        });
    }
    Ok(out)
}

/// Builds the report page.
#[allow(clippy::too_many_arguments)]
pub fn build(
    per_kernel: &DataFrame,
    launches: &DataFrame,
    findings: &[Finding],
    notes: Vec<String>,
    inputs: Vec<String>,
    registry: &Registry,
    model: &ModelConfig,
    options: &ReportOptions,
) -> Result<HtmlReport, AnalysisError> {
    let kernels = kernels(per_kernel);
    let mut by_kernel: HashMap<String, Vec<&Finding>> = HashMap::new();
    for finding in findings {
        by_kernel
            .entry(finding.kernel.to_string())
            .or_default()
            .push(finding);
    }
    let counts: HashMap<String, usize> = by_kernel
        .iter()
        .map(|(k, v)| (k.clone(), v.len()))
        .collect();
    let sections = sections(
        per_kernel, &kernels, &by_kernel, launches, registry, model, options,
    )?;
    let in_sections: Vec<&str> = sections.iter().map(|s| s.full_name.as_str()).collect();
    let other_findings = findings
        .iter()
        .filter(|f| !in_sections.contains(&&*f.kernel))
        .take(options.max_findings)
        .map(finding_line)
        .collect();
    let (prediction, unpredicted) = prediction(per_kernel, &kernels);
    Ok(HtmlReport {
        title: options.title.clone(),
        inputs,
        notes,
        summary: summary(per_kernel, &kernels, findings.len()),
        kernels: kernel_table(per_kernel, &kernels, &counts)?,
        rooflines: rooflines(per_kernel, &kernels, registry),
        prediction,
        unpredicted,
        sections,
        other_findings,
        layout_check: options.layout_check,
    })
}
