//! The roofline chart as inline SVG: log–log axes (arithmetic intensity in FLOP/byte against
//! FLOP/s), one slanted ceiling per memory level (bandwidth × intensity), one flat ceiling per
//! precision (peak FLOP/s, tensor ceilings dashed), and the kernels as numbered markers sized by
//! their share of GPU time and coloured by their bound, each with a `<title>` tooltip. The numbers
//! refer to the legend table the page prints under the chart; the ceilings and the colours are
//! listed in the chart's right margin, so no label floats over the plot.

use super::label_layout::{LabelLayout, TextBox};
use super::svg::{LogScale, Svg};
use crate::units;

pub(crate) use warpsight_model::roofline::{ComputeCeiling, MemoryCeiling};

/// A kernel on the chart.
#[derive(Debug, Clone)]
pub(crate) struct RooflinePoint {
    /// The kernel's number on the page (its rank by time), printed on its marker.
    pub(crate) number: usize,
    /// Tooltip text (kernel name and figures).
    pub(crate) tooltip: String,
    /// Arithmetic intensity, FLOP/byte.
    pub(crate) intensity: f64,
    /// Achieved FLOP/s.
    pub(crate) flops: f64,
    /// Share of GPU time, 0–1 (sets the marker's size).
    pub(crate) time_share: f64,
    /// The model's bound (sets the marker's colour).
    pub(crate) bound: String,
}

/// Everything the roofline chart shows.
#[derive(Debug, Clone)]
pub(crate) struct RooflineChart {
    /// Title, e.g. the device name.
    pub(crate) title: String,
    /// Memory ceilings (NaN bandwidths are skipped).
    pub(crate) memory: Vec<MemoryCeiling>,
    /// Compute ceilings (NaN peaks are skipped).
    pub(crate) compute: Vec<ComputeCeiling>,
    /// The kernels (points with a non-positive or missing coordinate are skipped).
    pub(crate) points: Vec<RooflinePoint>,
}

/// Chart geometry: the plot area on the left, the ceiling and colour legend in the right margin.
const WIDTH: f64 = 980.0;
const HEIGHT: f64 = 500.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 310.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;
/// Font size of the marker numbers, pixels.
const MARKER_FONT: f64 = 11.0;
/// Height of one legend line, pixels.
const LEGEND_LINE: f64 = 17.0;

/// Stroke colours of the memory ceilings, in order.
const MEMORY_COLORS: [&str; 4] = ["#1f77b4", "#17becf", "#9467bd", "#8c564b"];
/// Stroke colours of the compute ceilings, in order.
const COMPUTE_COLORS: [&str; 9] = [
    "#d62728", "#ff7f0e", "#2ca02c", "#7f7f7f", "#bcbd22", "#e377c2", "#8c564b", "#17becf",
    "#9467bd",
];

/// The fill colour of a point by its bound.
pub(crate) fn bound_color(bound: &str) -> &'static str {
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

/// The radius of a marker for a kernel with `time_share` (0–1) of the GPU time: 7 to 19 pixels, so
/// that a two-digit number fits on the smallest.
pub(crate) fn marker_radius(time_share: f64) -> f64 {
    7.0 + 12.0 * time_share.clamp(0.0, 1.0).sqrt()
}

/// Draws the chart.
pub(crate) fn roofline_svg(chart: &RooflineChart) -> String {
    let memory: Vec<&MemoryCeiling> = chart
        .memory
        .iter()
        .filter(|c| c.bandwidth.is_finite() && c.bandwidth > 0.0)
        .collect();
    let merged = merge_equal_peaks(&chart.compute);
    let compute: Vec<&ComputeCeiling> = merged.iter().collect();
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
        ((LEFT + WIDTH - RIGHT) / 2.0, 22.0),
        &format!("Roofline — {}", chart.title),
        "middle",
        "#111111",
    );
    draw_axes(&mut svg, &x, &y);
    let mut legend: Vec<(String, String, bool)> = Vec::new();

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
        let text = format!("{} {}", ceiling.label, units::bandwidth(ceiling.bandwidth));
        svg.polyline(
            &[from, to],
            color,
            2.0,
            Some(&format!("{text} (memory ceiling)")),
        );
        legend.push((text, color.to_string(), false));
    }
    // Compute ceilings: flat, from the fastest memory ceiling to the right edge; tensor ceilings
    // dashed.
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
        let text = format!("{} {}", ceiling.label, units::flops(ceiling.peak));
        let dashed = ceiling.label.starts_with("Tensor");
        svg.path_line(
            &[from, to],
            color,
            2.0,
            dashed,
            &format!("{text} (compute ceiling)"),
        );
        legend.push((text, color.to_string(), dashed));
    }
    draw_legend(&mut svg, &legend, &points);

    // Kernels: the largest first so that small markers stay visible on top; numbers placed so that
    // no two overlap.
    let mut ordered = points.clone();
    ordered.sort_by(|a, b| b.time_share.total_cmp(&a.time_share));
    let plot = TextBox {
        left: x.px(x.min()),
        top: y.px(y.max()),
        right: x.px(x.max()),
        bottom: y.px(y.min()),
    };
    let mut layout = LabelLayout::new(plot, MARKER_FONT);
    for point in &ordered {
        let center = (x.px(point.intensity), y.px(point.flops));
        svg.circle(
            center,
            marker_radius(point.time_share),
            bound_color(&point.bound),
            &point.tooltip,
        );
    }
    for point in &ordered {
        let center = (x.px(point.intensity), y.px(point.flops));
        let radius = marker_radius(point.time_share);
        let number = point.number.to_string();
        let at = layout.place(center, radius, &number);
        svg.marker_label(center, at, &number, MARKER_FONT);
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

/// The compute ceilings with known peaks, those with the same peak (within 0.5 %) merged into one
/// labelled `FP32/FP16/Tensor FP64`, so that coinciding lines are drawn and listed once.
pub(crate) fn merge_equal_peaks(ceilings: &[ComputeCeiling]) -> Vec<ComputeCeiling> {
    let mut merged: Vec<ComputeCeiling> = Vec::new();
    for ceiling in ceilings
        .iter()
        .filter(|c| c.peak.is_finite() && c.peak > 0.0)
    {
        match merged
            .iter_mut()
            .find(|m| (m.peak / ceiling.peak - 1.0).abs() < 0.005)
        {
            Some(existing) => {
                // `Tensor FP16` + `Tensor BF16` reads `Tensor FP16/BF16`.
                let last_is_tensor = existing
                    .label
                    .rsplit('/')
                    .next()
                    .is_some_and(|l| l.starts_with("Tensor "));
                let added = match ceiling.label.strip_prefix("Tensor ") {
                    Some(kind) if last_is_tensor => kind,
                    _ => ceiling.label.as_str(),
                };
                existing.label = format!("{}/{added}", existing.label);
            }
            None => merged.push(ceiling.clone()),
        }
    }
    merged
}

/// The legend in the right margin: one line per ceiling (its colour, dashed for tensor ceilings),
/// then one per bound colour the markers use.
fn draw_legend(svg: &mut Svg, ceilings: &[(String, String, bool)], points: &[&RooflinePoint]) {
    let left = WIDTH - RIGHT + 16.0;
    let mut y = TOP + 4.0;
    svg.text((left, y + 4.0), "Ceilings", "start", "#111111");
    y += LEGEND_LINE;
    for (text, color, dashed) in ceilings {
        svg.line((left, y), (left + 22.0, y), color, 2.0, *dashed);
        svg.text((left + 28.0, y + 4.0), text, "start", "#333333");
        y += LEGEND_LINE;
    }
    let mut bounds: Vec<&str> = Vec::new();
    for point in points {
        if !bounds.contains(&point.bound.as_str()) {
            bounds.push(&point.bound);
        }
    }
    if bounds.is_empty() {
        return;
    }
    y += LEGEND_LINE * 0.5;
    svg.text((left, y + 4.0), "Marker colour: bound", "start", "#111111");
    y += LEGEND_LINE;
    for bound in bounds {
        svg.rect(
            (left + 6.0, y - 5.0),
            (10.0, 10.0),
            bound_color(bound),
            "#222222",
        );
        svg.text((left + 28.0, y + 4.0), bound, "start", "#333333");
        y += LEGEND_LINE;
    }
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
            (px, bottom + 20.0),
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
        ((left + right) / 2.0, bottom + 42.0),
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
                number: 1,
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

    /// A chart with `count` kernels at one intensity and nearly one FLOP/s (their markers pile up).
    fn crowded(count: usize) -> RooflineChart {
        let mut chart = a100();
        chart.points = (1..=count)
            .map(|number| RooflinePoint {
                number,
                tooltip: format!("kernel {number}"),
                intensity: 2.0,
                flops: 1e12 * (1.0 + number as f64 * 0.01),
                time_share: 0.02,
                bound: if number % 2 == 0 {
                    "latency"
                } else {
                    "memory-dram"
                }
                .into(),
            })
            .collect();
        chart
    }

    /// The marker-number labels of an SVG: (x, y, text).
    fn marker_labels(svg: &str) -> Vec<(f64, f64, String)> {
        svg.split("<text class=\"marker\" x=\"")
            .skip(1)
            .map(|rest| {
                let x: f64 = rest
                    .split('"')
                    .next()
                    .unwrap_or("")
                    .parse()
                    .unwrap_or(f64::NAN);
                let y: f64 = rest
                    .split("y=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN);
                let text = rest
                    .split('>')
                    .nth(1)
                    .and_then(|r| r.split('<').next())
                    .unwrap_or("")
                    .to_string();
                (x, y, text)
            })
            .collect()
    }

    #[test]
    fn markers_carry_the_kernel_numbers_without_overlapping_labels() {
        let svg = roofline_svg(&crowded(25));
        let labels = marker_labels(&svg);
        let mut numbers: Vec<String> = labels.iter().map(|l| l.2.clone()).collect();
        numbers.sort_by_key(|n| n.parse::<usize>().unwrap_or(0));
        let expected: Vec<String> = (1..=25).map(|n| n.to_string()).collect();
        assert_eq!(
            numbers, expected,
            "one label per marker, numbered as the kernels"
        );
        assert_eq!(svg.matches("<circle").count(), 25);
        let boxes: Vec<TextBox> = labels
            .iter()
            .map(|(x, y, text)| TextBox::of_text((*x, *y), text, "middle", MARKER_FONT))
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
        }
        // Labels pushed off their markers get a leader line.
        assert!(svg.contains("stroke=\"#555555\" stroke-width=\"0.8\""));
        // No floating kernel names: the names are only in the tooltips.
        assert!(!svg.contains(">kernel 3</text>"));
    }

    #[test]
    fn the_legend_lists_ceilings_and_the_bounds_in_use() {
        let svg = roofline_svg(&crowded(3));
        let legend = svg.split(">Ceilings<").nth(1).unwrap_or("");
        assert!(legend.contains(">DRAM 1.55 TB/s<"));
        assert!(legend.contains(">FP32 19.5 TFLOP/s<"));
        assert!(legend.contains(">FP64 9.70 TFLOP/s<"));
        let colours = legend.split(">Marker colour: bound<").nth(1).unwrap_or("");
        assert!(colours.contains(">memory-dram<") && colours.contains(">latency<"));
        assert!(
            !colours.contains(">compute<"),
            "only bounds that occur are listed"
        );
    }

    #[test]
    fn h100_ceilings_from_the_shipped_plugin_match_nvidia_figures() {
        let registry = warpsight_test_support::plugins::registry();
        let device = registry
            .device("NVIDIA H100 80GB HBM3")
            .expect("the hopper plugin knows the H100 SXM");
        let (memory, compute) =
            warpsight_model::roofline::hierarchical_ceilings(device, registry.arch(device.cc));
        let memory_labels: Vec<&str> = memory.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(memory_labels, ["DRAM", "L2", "L1/shared"]);
        let compute_labels: Vec<&str> = compute.iter().map(|c| c.label.as_str()).collect();
        for label in [
            "FP64",
            "FP32",
            "FP16",
            "Tensor FP64",
            "Tensor TF32",
            "Tensor FP16",
            "Tensor BF16",
            "Tensor FP8",
            "Tensor INT8",
        ] {
            assert!(
                compute_labels.contains(&label),
                "{label} missing from {compute_labels:?}"
            );
        }
        let value = |list: &[(String, f64)], label: &str| {
            list.iter()
                .find(|(l, _)| l == label)
                .map_or(f64::NAN, |(_, v)| *v)
        };
        let memory: Vec<(String, f64)> =
            memory.into_iter().map(|c| (c.label, c.bandwidth)).collect();
        let compute: Vec<(String, f64)> = compute.into_iter().map(|c| (c.label, c.peak)).collect();
        // NVIDIA H100 SXM5 datasheet: 3.35 TB/s HBM3, 34 TFLOP/s FP64 (33.5 in the whitepaper),
        // 67 TFLOP/s FP32, 989 TFLOP/s dense FP16/BF16 tensor, 494.7 TF32 tensor, 1979 FP8 tensor.
        let near = |got: f64, want: f64, tolerance: f64| (got / want - 1.0).abs() <= tolerance;
        assert!(near(value(&memory, "DRAM"), 3.35e12, 0.01), "{memory:?}");
        assert!(near(value(&compute, "FP64"), 33.5e12, 0.02), "{compute:?}");
        assert!(near(value(&compute, "FP32"), 66.9e12, 0.01), "{compute:?}");
        assert!(
            near(value(&compute, "Tensor FP16"), 989.4e12, 0.01),
            "{compute:?}"
        );
        assert!(
            near(value(&compute, "Tensor BF16"), 989.4e12, 0.01),
            "{compute:?}"
        );
        assert!(
            near(value(&compute, "Tensor TF32"), 494.7e12, 0.01),
            "{compute:?}"
        );
        assert!(
            near(value(&compute, "Tensor FP8"), 1979e12, 0.01),
            "{compute:?}"
        );
        // L2 is the measured 6.6 TB/s; L1/shared is 128 B per SM per clock: 128 × 132 × 1.98 GHz.
        assert!(near(value(&memory, "L2"), 6.6e12, 0.01), "{memory:?}");
        assert!(
            near(value(&memory, "L1/shared"), 128.0 * 132.0 * 1.98e9, 1e-9),
            "{memory:?}"
        );
        // The hierarchy is ordered: DRAM < L2 < L1/shared, FP64 < FP32 < tensor FP16 < FP8.
        assert!(value(&memory, "DRAM") < value(&memory, "L2"));
        assert!(value(&memory, "L2") < value(&memory, "L1/shared"));
        assert!(value(&compute, "FP64") < value(&compute, "FP32"));
        assert!(value(&compute, "Tensor FP16") < value(&compute, "Tensor FP8"));
    }

    #[test]
    fn coinciding_compute_ceilings_are_drawn_once() {
        let ceiling = |label: &str, peak: f64| ComputeCeiling {
            label: label.into(),
            peak,
        };
        let merged = merge_equal_peaks(&[
            ceiling("FP64", 33.5e12),
            ceiling("FP32", 66.9e12),
            ceiling("Tensor FP64", 66.9e12),
            ceiling("FP16", f64::NAN),
            ceiling("Tensor FP16", 989.4e12),
            ceiling("Tensor BF16", 989.4e12),
        ]);
        let labels: Vec<&str> = merged.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["FP64", "FP32/Tensor FP64", "Tensor FP16/BF16"]);
        let mut chart = a100();
        chart.compute = vec![ceiling("FP32", 19.5e12), ceiling("Tensor TF32", 19.5e12)];
        let svg = roofline_svg(&chart);
        assert!(svg.contains(">FP32/Tensor TF32 19.5 TFLOP/s<"));
        // Drawn solid: one of the merged ceilings is not a tensor one.
        assert_eq!(svg.matches("stroke-dasharray=\"7 4\"").count(), 0);
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
