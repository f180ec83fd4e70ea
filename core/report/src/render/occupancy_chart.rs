//! Occupancy sweep charts as inline SVG, like the graphs of NVIDIA's occupancy calculator:
//! theoretical occupancy (0–100 %) against one varied launch parameter (block size, registers per
//! thread or shared memory per block), drawn as a step line, with the kernel's current value marked.

use super::svg::{LinearScale, Svg};
use crate::analysis::sweep::Sweep;
pub(crate) use crate::analysis::sweep::SweepAxis;
use crate::units;

/// One occupancy sweep to draw.
#[derive(Debug, Clone)]
pub(crate) struct SweepChart {
    /// Title, e.g. the kernel's short name.
    pub(crate) title: String,
    /// The varied parameter.
    pub(crate) axis: SweepAxis,
    /// (parameter value, theoretical occupancy 0–1), ascending in the parameter.
    pub(crate) points: Vec<(f64, f64)>,
    /// The kernel's current parameter value and occupancy, if known.
    pub(crate) current: Option<(f64, f64)>,
}

const WIDTH: f64 = 420.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 48.0;

impl SweepChart {
    /// The chart of `sweep`, titled `title`.
    pub(crate) fn from_sweep(sweep: &Sweep, title: &str) -> Self {
        SweepChart {
            title: title.to_string(),
            axis: sweep.axis,
            points: sweep
                .points
                .iter()
                .map(|p| (p.value, p.occupancy))
                .collect(),
            current: sweep.current,
        }
    }
}

/// Draws one sweep chart.
pub(crate) fn occupancy_svg(chart: &SweepChart) -> String {
    let mut svg = Svg::new(
        WIDTH,
        HEIGHT,
        &format!("Occupancy vs {}: {}", chart.axis.label(), chart.title),
    );
    svg.text(
        (WIDTH / 2.0, 20.0),
        &format!("{} — {}", chart.title, chart.axis.label()),
        "middle",
        "#111111",
    );
    // The x axis starts at zero like the calculator's graphs.
    let x_max = chart
        .points
        .last()
        .map_or(1.0, |p| p.0)
        .max(chart.current.map_or(f64::MIN, |c| c.0));
    let x = LinearScale::new(0.0, x_max, LEFT, WIDTH - RIGHT);
    let y = LinearScale::new(0.0, 1.0, HEIGHT - BOTTOM, TOP);

    svg.rect(
        (LEFT, TOP),
        (WIDTH - RIGHT - LEFT, HEIGHT - BOTTOM - TOP),
        "#fbfbfb",
        "#999999",
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let py = y.px(tick);
        svg.line((LEFT, py), (WIDTH - RIGHT, py), "#e0e0e0", 1.0, false);
        svg.text(
            (LEFT - 6.0, py + 4.0),
            &format!("{:.0} %", tick * 100.0),
            "end",
            "#333333",
        );
    }
    for tick in x.ticks(5) {
        let px = x.px(tick);
        svg.line(
            (px, HEIGHT - BOTTOM),
            (px, HEIGHT - BOTTOM + 4.0),
            "#999999",
            1.0,
            false,
        );
        svg.text(
            (px, HEIGHT - BOTTOM + 17.0),
            &chart.axis.format(tick),
            "middle",
            "#333333",
        );
    }
    svg.text(
        ((LEFT + WIDTH - RIGHT) / 2.0, HEIGHT - 10.0),
        chart.axis.label(),
        "middle",
        "#333333",
    );
    svg.vertical_text(
        (14.0, (TOP + HEIGHT - BOTTOM) / 2.0),
        "theoretical occupancy",
    );

    // A step line: occupancy holds its value until the next sampled parameter value.
    let mut steps: Vec<(f64, f64)> = Vec::with_capacity(chart.points.len() * 2);
    for (index, (value, occupancy)) in chart.points.iter().enumerate() {
        if index > 0 {
            let previous = chart.points[index - 1].1;
            steps.push((x.px(*value), y.px(previous)));
        }
        steps.push((x.px(*value), y.px(*occupancy)));
    }
    if steps.len() > 1 {
        svg.polyline(
            &steps,
            "#1f77b4",
            2.0,
            Some(&format!("occupancy vs {}", chart.axis.label())),
        );
    }
    if let Some((value, occupancy)) = chart.current {
        let at = (x.px(value), y.px(occupancy));
        svg.line((at.0, TOP), (at.0, HEIGHT - BOTTOM), "#d62728", 1.0, true);
        svg.circle(
            at,
            6.0,
            "#d62728",
            &format!(
                "current: {} → {}",
                chart.axis.format(value),
                units::percent(occupancy)
            ),
        );
    }
    svg.finish()
}

/// The sweeps' charts side by side in one standalone SVG document (for `--svg FILE`).
pub fn svg_document(sweeps: &[Sweep], title: &str) -> String {
    let charts: Vec<String> = sweeps
        .iter()
        .map(|s| occupancy_svg(&SweepChart::from_sweep(s, title)))
        .collect();
    let (width, height) = (420.0, 260.0);
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {height}" width="{w}" height="{height}">"#,
        w = width * charts.len() as f64
    );
    for (index, chart) in charts.iter().enumerate() {
        out.push_str(&format!(
            r#"<g transform="translate({} 0)">"#,
            width * index as f64
        ));
        out.push_str(chart);
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_value_is_marked_with_its_occupancy() {
        // Programming Guide example: 512-thread blocks on CC 6.1, 64 registers → 50 %, 65 → 25 %.
        let chart = SweepChart {
            title: "k".into(),
            axis: SweepAxis::Registers,
            points: vec![(32.0, 1.0), (64.0, 0.5), (65.0, 0.25), (128.0, 0.25)],
            current: Some((65.0, 0.25)),
        };
        let svg = occupancy_svg(&chart);
        assert!(svg.contains("<title>current: 65 → 25.0 %</title>"));
        assert!(svg.contains("<polyline"));
        // Three vertical steps plus four levels: 4 + 3 = 7 vertices.
        let points_attr = svg
            .split("points=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("");
        assert_eq!(points_attr.split(' ').count(), 7);
    }
}
