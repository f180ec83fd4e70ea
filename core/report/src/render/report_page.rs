//! Assembles the HTML report of `warpsight report` from an analysis: the per-kernel summary table,
//! one roofline chart per device (ceilings from the device spec), occupancy sweeps of the top
//! kernels, the findings, and notes about what could not be used.

use polars::prelude::*;

use super::html::{FindingLine, HtmlReport, HtmlTable, KernelCharts};
use super::occupancy_chart::{SweepChart, occupancy_svg};
use super::roofline_chart::{
    RooflineChart, RooflinePoint, roofline_svg,
};
use super::views;
use crate::units;
use crate::analysis::error::AnalysisError;
use crate::analysis::findings::Finding;
use crate::analysis::frame_access::Cells;
use crate::analysis::report_columns as rc;
use crate::analysis::sweep;
use warpsight_model::arch::Registry;
use warpsight_ingest::launch_table::col as lt;
use warpsight_model::{ModelConfig, columns as mc};

/// Options of the report.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Page title.
    pub title: String,
    /// How many of the top kernels get occupancy sweeps.
    pub sweep_kernels: usize,
    /// Most findings listed (the most severe first).
    pub max_findings: usize,
}

/// One roofline chart per device in the per-kernel table.
fn rooflines(per_kernel: &DataFrame, registry: &Registry) -> Vec<String> {
    let mut cells = Cells::new(per_kernel);
    let mut devices: Vec<String> = Vec::new();
    for row in 0..per_kernel.height() {
        if let Some(device) = cells.str(rc::DEVICE, row)
            && !devices.contains(&device)
        {
            devices.push(device);
        }
    }
    devices
        .into_iter()
        .filter_map(|name| {
            let device = registry.device(&name)?;
            let (memory, compute) = warpsight_model::roofline::ceilings(device, registry.arch(device.cc));
            let points = (0..per_kernel.height())
                .filter_map(|row| {
                    if cells.str(rc::DEVICE, row).as_deref() != Some(name.as_str()) {
                        return None;
                    }
                    let kernel = cells.str(rc::KERNEL, row)?;
                    let intensity = cells.f64(mc::AI_DRAM, row).or_else(|| cells.f64(mc::AI_L2, row))?;
                    let flops = cells.f64(mc::ACHIEVED_FLOPS, row)?;
                    let share = cells.f64(rc::TIME_SHARE, row).unwrap_or(0.0);
                    let bound = cells.str(mc::BOUND, row).unwrap_or_else(|| "unknown".into());
                    let roof = cells.f64(mc::PCT_OF_ROOF, row).map(units::percent).unwrap_or_else(|| "-".into());
                    Some(RooflinePoint {
                        label: short_label(&kernel),
                        tooltip: format!(
                            "{kernel}\n{} FLOP/byte (DRAM), {}, {roof} of roof, {bound}, {} of GPU time",
                            units::number(intensity),
                            units::flops(flops),
                            units::percent(share)
                        ),
                        intensity,
                        flops,
                        time_share: share,
                        bound,
                    })
                })
                .collect();
            Some(roofline_svg(&RooflineChart { title: device.name.clone(), memory, compute, points }))
        })
        .collect()
}

/// A kernel name shortened for a chart label.
fn short_label(kernel: &str) -> String {
    let chars: Vec<char> = kernel.chars().collect();
    if chars.len() <= 28 {
        kernel.to_string()
    } else {
        format!("{}…", chars[..27].iter().collect::<String>())
    }
}

/// Occupancy sweeps of the top kernels (by total time), from their representative launches.
fn kernel_sweeps(
    per_kernel: &DataFrame,
    launches: &DataFrame,
    registry: &Registry,
    model: &ModelConfig,
    count: usize,
) -> Result<Vec<KernelCharts>, AnalysisError> {
    let mut cells = Cells::new(per_kernel);
    let mut out = Vec::new();
    for row in 0..per_kernel.height() {
        if out.len() >= count {
            break;
        }
        let (Some(file), Some(launch_id), Some(kernel)) = (
            cells.str(rc::FILE, row),
            cells.i64(lt::LAUNCH_ID, row),
            cells.str(rc::KERNEL, row),
        ) else {
            continue;
        };
        if cells.f64(mc::THEORETICAL_OCCUPANCY, row).is_none() {
            continue;
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
            continue;
        };
        let sweeps = sweep::sweeps(&base, 0, arch, registry, model)?;
        let config = views::with_config_text(&per_kernel.slice(row as i64, 1))?;
        let config_text = Cells::new(&config)
            .str(views::CONFIG, 0)
            .unwrap_or_default();
        out.push(KernelCharts {
            title: format!(
                "{kernel} — {config_text} (launch {launch_id}, CC {})",
                arch.cc
            ),
            svgs: sweeps
                .iter()
                .map(|s| occupancy_svg(&SweepChart::from_sweep(s, &short_label(&kernel))))
                .collect(),
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
    let shown = views::with_config_text(per_kernel)?;
    let summary = HtmlTable::from_frame(&shown, &views::kernel_full())?;
    let findings = findings
        .iter()
        .take(options.max_findings)
        .map(|f| FindingLine {
            severity: f.severity.name().to_string(),
            kernel: f.kernel.clone(),
            launch_id: f.launch_id,
            source: f.source.clone(),
            rule: f.rule_id.clone(),
            message: f.message.clone(),
        })
        .collect();
    Ok(HtmlReport {
        title: options.title.clone(),
        inputs,
        notes,
        summary,
        rooflines: rooflines(per_kernel, registry),
        kernels: kernel_sweeps(per_kernel, launches, registry, model, options.sweep_kernels)?,
        findings,
    })
}
