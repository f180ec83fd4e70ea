//! The roofline chart as inline SVG: log–log axes (arithmetic intensity in FLOP/byte against
//! FLOP/s), one slanted ceiling per memory level (bandwidth × intensity), one flat ceiling per
//! precision (peak FLOP/s), and the kernels as points sized by their share of GPU time, each with a
//! `<title>` tooltip.

use super::svg::{LogScale, Svg};
use crate::units;

pub use warpsight_model::roofline::{ComputeCeiling, MemoryCeiling};

/// A kernel on the chart.
#[derive(Debug, Clone)]
pub struct RooflinePoint {
    /// Short label printed beside the point.
    pub label: String,
    /// Tooltip text (kernel name and figures).
    pub tooltip: String,
    /// Arithmetic intensity, FLOP/byte.
    pub intensity: f64,
    /// Achieved FLOP/s.
    pub flops: f64,
    /// Share of GPU time, 0–1 (sets the point's size).
    pub time_share: f64,
    /// The model's bound (sets the point's colour).
    pub bound: String,
}

/// Everything the roofline chart shows.
#[derive(Debug, Clone)]
pub struct RooflineChart {
    /// Title, e.g. the device name.
    pub title: String,
    /// Memory ceilings (NaN bandwidths are skipped).
    pub memory: Vec<MemoryCeiling>,
    /// Compute ceilings (NaN peaks are skipped).
    pub compute: Vec<ComputeCeiling>,
    /// The kernels (points with a non-positive or missing coordinate are skipped).
    pub points: Vec<RooflinePoint>,
}

/// Chart geometry.
const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 480.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;

/// Stroke colours of the memory ceilings, in order.
const MEMORY_COLORS: [&str; 4] = ["#1f77b4", "#17becf", "#9467bd", "#8c564b"];
/// Stroke colours of the compute ceilings, in order.
const COMPUTE_COLORS: [&str; 6] = [
    "#d62728", "#ff7f0e", "#2ca02c", "#bcbd22", "#e377c2", "#7f7f7f",
];

/// The fill colour of a point by its bound.
pub fn bound_color(bound: &str) -> &'static str {
    match bound {
        "compute" => "#2ca02c",
        "memory-dram" => "#1f77b4",
        "memory-l2" => "#17becf",
        "memory-l1" => "#9467bd",
        "latency" => "#ff7f0e",
        "tail" => "#e377c2",
        "launch-overhead" => "#8c564b",
        _ => "#7f7f7f",
    }
}

/// Draws the chart.
pub fn roofline_svg(chart: &RooflineChart) -> String {
    let memory: Vec<&MemoryCeiling> = chart
        .memory
        .iter()
        .filter(|c| c.bandwidth.is_finite() && c.bandwidth > 0.0)
        .collect();
    let compute: Vec<&ComputeCeiling> = chart
        .compute
        .iter()
        .filter(|c| c.peak.is_finite() && c.peak > 0.0)
        .collect();
    let points: Vec<&RooflinePoint> = chart
        .points
        .iter()
        .filter(|p| {
            p.intensity.is_finite() && p.intensity > 0.0 && p.flops.is_finite() && p.flops > 0.0
        })
        .collect();

    let top_peak = compute.iter().map(|c| c.peak).fold(f64::NAN, f64::max);
    let slowest_bw = memory.iter().map(|c| c.bandwidth).fold(f64::NAN, f64::min);
    let fastest_bw = memory.iter().map(|c| c.bandwidth).fold(f64::NAN, f64::max);
    // The x range covers the ridge points and the kernels with a decade of margin.
    let ridges: Vec<f64> = compute
        .iter()
        .flat_map(|c| memory.iter().map(move |m| c.peak / m.bandwidth))
        .collect();
    let x_values: Vec<f64> = ridges
        .iter()
        .copied()
        .chain(points.iter().map(|p| p.intensity))
        .collect();
    let x_min = x_values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .min(0.1)
        / 10.0;
    let x_max = x_values.iter().copied().fold(0.0, f64::max).max(10.0) * 10.0;
    let x = LogScale::decades(x_min, x_max, LEFT, WIDTH - RIGHT);
    let mut y_values: Vec<f64> = points.iter().map(|p| p.flops).collect();
    if top_peak.is_finite() {
        y_values.push(top_peak * 2.0);
    }
    if slowest_bw.is_finite() {
        y_values.push(slowest_bw * x.min());
    }
    let y_min = y_values.iter().copied().fold(f64::INFINITY, f64::min);
    let y_max = y_values.iter().copied().fold(0.0, f64::max);
    let y = LogScale::decades(y_min, y_max, HEIGHT - BOTTOM, TOP);

    let mut svg = Svg::new(WIDTH, HEIGHT, &format!("Roofline: {}", chart.title));
    svg.text(
        (WIDTH / 2.0, 22.0),
        &format!("Roofline — {}", chart.title),
        "middle",
        "#111111",
    );
    draw_axes(&mut svg, &x, &y);

    // Memory ceilings: slanted, from the left edge to where they meet the top compute peak.
    for (index, ceiling) in memory.iter().enumerate() {
        let color = MEMORY_COLORS[index % MEMORY_COLORS.len()];
        let end_x = if top_peak.is_finite() {
            (top_peak / ceiling.bandwidth).min(x.max())
        } else {
            x.max()
        };
        let start_x = x.min().max(y.min() / ceiling.bandwidth);
        if start_x >= end_x {
            continue;
        }
        let from = (x.px(start_x), y.px(ceiling.bandwidth * start_x));
        let to = (x.px(end_x), y.px(ceiling.bandwidth * end_x));
        let tooltip = format!(
            "{} bandwidth {}",
            ceiling.label,
            units::bandwidth(ceiling.bandwidth)
        );
        svg.polyline(&[from, to], color, 2.0, Some(&tooltip));
        svg.text(
            (from.0 + 6.0, from.1 - 6.0),
            &format!("{} {}", ceiling.label, units::bandwidth(ceiling.bandwidth)),
            "start",
            color,
        );
    }
    // Compute ceilings: flat, from the fastest memory ceiling to the right edge.
    for (index, ceiling) in compute.iter().enumerate() {
        if !y.contains(ceiling.peak) {
            continue;
        }
        let color = COMPUTE_COLORS[index % COMPUTE_COLORS.len()];
        let start_x = if fastest_bw.is_finite() {
            (ceiling.peak / fastest_bw).max(x.min())
        } else {
            x.min()
        };
        let from = (x.px(start_x), y.px(ceiling.peak));
        let to = (x.px(x.max()), y.px(ceiling.peak));
        let tooltip = format!("{} peak {}", ceiling.label, units::flops(ceiling.peak));
        svg.polyline(&[from, to], color, 2.0, Some(&tooltip));
        svg.text(
            (to.0 + 4.0, to.1 + 4.0),
            &format!("{} {}", ceiling.label, units::flops(ceiling.peak)),
            "start",
            color,
        );
    }
    // Kernels: the largest first so that small points stay visible on top.
    let mut ordered = points.clone();
    ordered.sort_by(|a, b| b.time_share.total_cmp(&a.time_share));
    let mut placed: Vec<(f64, f64)> = Vec::new();
    for point in ordered {
        let center = (x.px(point.intensity), y.px(point.flops));
        let radius = 4.0 + 18.0 * point.time_share.clamp(0.0, 1.0).sqrt();
        svg.circle(center, radius, bound_color(&point.bound), &point.tooltip);
        // Labels of points that sit close together are moved down so that they stay readable.
        let mut label = (center.0 + radius + 3.0, center.1 + 4.0);
        while placed
            .iter()
            .any(|(lx, ly)| (lx - label.0).abs() < 90.0 && (ly - label.1).abs() < 13.0)
        {
            label.1 += 13.0;
        }
        placed.push(label);
        svg.text(label, &point.label, "start", "#222222");
    }
    if points.is_empty() {
        svg.text(
            ((LEFT + WIDTH - RIGHT) / 2.0, (TOP + HEIGHT - BOTTOM) / 2.0),
            "no launch has FLOP and byte counters to place on the roofline",
            "middle",
            "#666666",
        );
    }
    svg.finish()
}

/// Draws the frame, decade grid lines and axis labels.
fn draw_axes(svg: &mut Svg, x: &LogScale, y: &LogScale) {
    let (left, right) = (x.px(x.min()), x.px(x.max()));
    let (bottom, top) = (y.px(y.min()), y.px(y.max()));
    svg.rect(
        (left, top),
        (right - left, bottom - top),
        "#fbfbfb",
        "#999999",
    );
    for tick in x.ticks() {
        let px = x.px(tick);
        svg.line((px, top), (px, bottom), "#e0e0e0", 1.0, false);
        // Decade labels with exactly the digits they need: 0.001, 0.01, 0.1, 1, 10, ...
        let decimals = (-tick.log10().round()).max(0.0) as usize;
        svg.text(
            (px, bottom + 16.0),
            &format!("{tick:.decimals$}"),
            "middle",
            "#333333",
        );
    }
    for tick in y.ticks() {
        let py = y.px(tick);
        svg.line((left, py), (right, py), "#e0e0e0", 1.0, false);
        svg.text(
            (left - 6.0, py + 4.0),
            units::flops(tick).trim_end_matches("FLOP/s").trim_end(),
            "end",
            "#333333",
        );
    }
    svg.text(
        ((left + right) / 2.0, bottom + 38.0),
        "arithmetic intensity (FLOP/byte)",
        "middle",
        "#333333",
    );
    svg.vertical_text((18.0, (top + bottom) / 2.0), "performance (FLOP/s)");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a100() -> RooflineChart {
        // A100 SXM4 40GB datasheet: 1555 GB/s DRAM, 19.5 TFLOP/s FP32, 9.7 TFLOP/s FP64.
        RooflineChart {
            title: "A100".into(),
            memory: vec![MemoryCeiling {
                label: "DRAM".into(),
                bandwidth: 1555e9,
            }],
            compute: vec![
                ComputeCeiling {
                    label: "FP32".into(),
                    peak: 19.5e12,
                },
                ComputeCeiling {
                    label: "FP64".into(),
                    peak: 9.7e12,
                },
            ],
            points: vec![RooflinePoint {
                label: "axpy".into(),
                tooltip: "axpy <float>".into(),
                intensity: 0.25,
                flops: 300e9,
                time_share: 0.6,
                bound: "memory-dram".into(),
            }],
        }
    }

    #[test]
    fn chart_has_ceilings_points_and_tooltips() {
        let svg = roofline_svg(&a100());
        assert!(svg.starts_with("<svg"));
        assert!(svg.ends_with("</svg>"));
        assert!(svg.contains("DRAM 1.55 TB/s"));
        assert!(svg.contains("FP32 19.5 TFLOP/s"));
        assert!(svg.contains("<title>axpy &lt;float&gt;</title>"));
        assert_eq!(svg.matches("<circle").count(), 1);
    }

    #[test]
    fn the_dram_ceiling_ends_at_the_ridge_point() {
        // The FP32 ridge of the A100 is 19.5e12 / 1555e9 = 12.54 FLOP/byte; the slanted DRAM line
        // must end at the pixel of that intensity.
        let chart = a100();
        let svg = roofline_svg(&chart);
        let x = LogScale::decades(0.25 / 10.0 * 1.0, 12.54 * 10.0, LEFT, WIDTH - RIGHT);
        let ridge_px = format!("{:.1}", x.px(19.5e12 / 1555e9));
        assert!(
            svg.contains(&ridge_px),
            "expected the ridge pixel {ridge_px} in {svg}"
        );
    }

    #[test]
    fn points_without_counters_leave_a_note() {
        let mut chart = a100();
        chart.points[0].flops = f64::NAN;
        let svg = roofline_svg(&chart);
        assert!(svg.contains("no launch has FLOP and byte counters"));
        assert_eq!(svg.matches("<circle").count(), 0);
    }
}
