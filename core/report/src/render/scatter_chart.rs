//! Predicted against measured time per kernel as inline SVG: log–log axes sharing one decade range,
//! the y = x line (a perfect prediction) and dashed lines at 2× and ½×, and the kernels as numbered
//! markers coloured by their bound. Kernels without a prediction are not plotted; the page lists
//! them beside the chart.

use super::label_layout::{LabelLayout, TextBox};
use super::roofline_chart::{bound_color, marker_radius};
use super::svg::{LogScale, Svg};
use crate::units;

/// A kernel on the chart.
#[derive(Debug, Clone)]
pub(crate) struct ScatterPoint {
    /// The kernel's number on the page.
    pub(crate) number: usize,
    /// Tooltip text (kernel name and figures).
    pub(crate) tooltip: String,
    /// Measured time, ns.
    pub(crate) measured_ns: f64,
    /// Predicted time, ns.
    pub(crate) predicted_ns: f64,
    /// Share of GPU time, 0–1 (sets the marker's size).
    pub(crate) time_share: f64,
    /// The model's bound (sets the marker's colour).
    pub(crate) bound: String,
}

/// Chart geometry: a square plot area.
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 520.0;
const LEFT: f64 = 90.0;
const TOP: f64 = 40.0;
const SIDE: f64 = 420.0;
/// Font size of the marker numbers, pixels.
const MARKER_FONT: f64 = 11.0;

/// The shared log axis of both directions for `points` (whole decades around every time).
pub(crate) fn axis_range(points: &[&ScatterPoint]) -> (f64, f64) {
    let values = points.iter().flat_map(|p| [p.measured_ns, p.predicted_ns]);
    let min = values.clone().fold(f64::INFINITY, f64::min);
    let max = values.fold(0.0, f64::max);
    (min, max)
}

/// Draws the chart titled `title`.
pub(crate) fn scatter_svg(points: &[ScatterPoint], title: &str) -> String {
    let plotted: Vec<&ScatterPoint> = points
        .iter()
        .filter(|p| {
            p.measured_ns.is_finite()
                && p.measured_ns > 0.0
                && p.predicted_ns.is_finite()
                && p.predicted_ns > 0.0
        })
        .collect();
    let (min, max) = axis_range(&plotted);
    let x = LogScale::decades(min, max, LEFT, LEFT + SIDE);
    let y = LogScale::decades(min, max, TOP + SIDE, TOP);
    let mut svg = Svg::new(WIDTH, HEIGHT, title);
    svg.text((LEFT + SIDE / 2.0, 22.0), title, "middle", "#111111");
    svg.rect((LEFT, TOP), (SIDE, SIDE), "#fbfbfb", "#999999");
    for tick in x.ticks() {
        let px = x.px(tick);
        svg.line((px, TOP), (px, TOP + SIDE), "#e0e0e0", 1.0, false);
        svg.text(
            (px, TOP + SIDE + 20.0),
            &units::duration_ns(tick),
            "middle",
            "#333333",
        );
        let py = y.px(tick);
        svg.line((LEFT, py), (LEFT + SIDE, py), "#e0e0e0", 1.0, false);
        svg.text(
            (LEFT - 6.0, py + 4.0),
            &units::duration_ns(tick),
            "end",
            "#333333",
        );
    }
    svg.text(
        (LEFT + SIDE / 2.0, TOP + SIDE + 42.0),
        "measured time (representative launch)",
        "middle",
        "#333333",
    );
    svg.vertical_text((18.0, TOP + SIDE / 2.0), "predicted time (same launch)");

    // The perfect prediction and the factor-of-two band, corner to corner of the square.
    let (lo, hi) = (x.min(), x.max());
    svg.path_line(
        &[(x.px(lo), y.px(lo)), (x.px(hi), y.px(hi))],
        "#444444",
        1.5,
        false,
        "y = x: predicted equals measured",
    );
    svg.path_line(
        &[(x.px(lo), y.px(lo * 2.0)), (x.px(hi / 2.0), y.px(hi))],
        "#aaaaaa",
        1.0,
        true,
        "predicted 2× measured",
    );
    svg.path_line(
        &[(x.px(lo * 2.0), y.px(lo)), (x.px(hi), y.px(hi / 2.0))],
        "#aaaaaa",
        1.0,
        true,
        "predicted ½× measured",
    );
    let mut layout = LabelLayout::new(
        TextBox {
            left: LEFT,
            top: TOP,
            right: LEFT + SIDE,
            bottom: TOP + SIDE,
        },
        MARKER_FONT,
    );
    // The lines' key sits in the top-left corner, above the diagonal, and is kept free of labels.
    for (row, (text, stroke, dashed)) in [
        ("y = x: exact", "#444444", false),
        ("2× or ½×", "#aaaaaa", true),
    ]
    .into_iter()
    .enumerate()
    {
        let y_row = TOP + 16.0 + 16.0 * row as f64;
        svg.line(
            (LEFT + 8.0, y_row - 4.0),
            (LEFT + 30.0, y_row - 4.0),
            stroke,
            1.5,
            dashed,
        );
        svg.text((LEFT + 36.0, y_row), text, "start", "#444444");
        let mut area = TextBox::of_text((LEFT + 36.0, y_row), text, "start", 12.0);
        area.left = LEFT + 6.0;
        layout.reserve(area);
    }

    let mut ordered = plotted.clone();
    ordered.sort_by(|a, b| b.time_share.total_cmp(&a.time_share));
    for point in &ordered {
        let center = (x.px(point.measured_ns), y.px(point.predicted_ns));
        svg.circle(
            center,
            marker_radius(point.time_share),
            bound_color(&point.bound),
            &point.tooltip,
        );
    }
    for point in &ordered {
        let center = (x.px(point.measured_ns), y.px(point.predicted_ns));
        let number = point.number.to_string();
        let at = layout.place(center, marker_radius(point.time_share), &number);
        svg.marker_label(center, at, &number, MARKER_FONT);
    }
    if plotted.is_empty() {
        svg.text(
            (LEFT + SIDE / 2.0, TOP + SIDE / 2.0),
            "no kernel has a predicted time",
            "middle",
            "#666666",
        );
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(number: usize, measured_ns: f64, predicted_ns: f64) -> ScatterPoint {
        ScatterPoint {
            number,
            tooltip: format!("k{number}"),
            measured_ns,
            predicted_ns,
            time_share: 0.1,
            bound: "memory-dram".into(),
        }
    }

    /// The centre of the circle whose tooltip is `tooltip`.
    fn center(svg: &str, tooltip: &str) -> (f64, f64) {
        let circle = svg
            .split("<circle ")
            .find(|c| c.contains(&format!("<title>{tooltip}</title>")))
            .unwrap_or("");
        let attr = |name: &str| -> f64 {
            circle
                .split(&format!("{name}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(f64::NAN)
        };
        (attr("cx"), attr("cy"))
    }

    #[test]
    fn exact_predictions_sit_on_the_y_equals_x_line() {
        let svg = scatter_svg(&[point(1, 2e3, 2e3), point(2, 5e5, 5e5)], "t");
        // The y = x line runs corner to corner: from (left, bottom) to (right, top).
        assert!(
            svg.contains(&format!(
                "points=\"{:.1},{:.1} {:.1},{:.1}\" fill=\"none\" stroke=\"#444444\"",
                LEFT,
                TOP + SIDE,
                LEFT + SIDE,
                TOP
            )),
            "{svg}"
        );
        // A point with predicted = measured is as far from the left as from the bottom.
        for tooltip in ["k1", "k2"] {
            let (cx, cy) = center(&svg, tooltip);
            assert!(
                ((cx - LEFT) - (TOP + SIDE - cy)).abs() < 0.11,
                "{tooltip}: {cx},{cy}"
            );
        }
    }

    #[test]
    fn the_axes_are_logarithmic() {
        // 1 µs, 10 µs and 100 µs measured: equal steps on the x axis.
        let svg = scatter_svg(
            &[point(1, 1e3, 1e3), point(2, 1e4, 2e4), point(3, 1e5, 5e4)],
            "t",
        );
        let (x1, _) = center(&svg, "k1");
        let (x2, y2) = center(&svg, "k2");
        let (x3, y3) = center(&svg, "k3");
        assert!(((x2 - x1) - (x3 - x2)).abs() < 0.11, "{x1} {x2} {x3}");
        // The decade ticks are labelled as durations.
        assert!(svg.contains(">1.00 µs<") && svg.contains(">100 µs<"));
        // Twice the measured time sits log10(2) of a decade above the diagonal.
        let decade = x2 - x1;
        assert!(((TOP + SIDE - y2) - (x2 - LEFT) - decade * 2f64.log10()).abs() < 0.2);
        assert!(((x3 - LEFT) - (TOP + SIDE - y3) - decade * 2f64.log10()).abs() < 0.2);
    }

    #[test]
    fn kernels_without_a_prediction_are_not_plotted() {
        let svg = scatter_svg(&[point(1, 1e3, f64::NAN), point(2, 1e4, 1e4)], "t");
        assert_eq!(svg.matches("<circle").count(), 1);
        assert!(svg.contains("<title>k2</title>"));
        let empty = scatter_svg(&[point(1, 1e3, f64::NAN)], "t");
        assert!(empty.contains("no kernel has a predicted time"));
    }
}
