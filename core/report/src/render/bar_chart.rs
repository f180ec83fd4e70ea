//! The summary's bar chart as inline SVG: the top kernels by share of GPU time, one horizontal bar
//! each (length proportional to the share, colour by the model's bound), with the kernel's number
//! and abbreviated name on the left and the share and bound after the bar.

use super::roofline_chart::bound_color;
use super::svg::Svg;
use super::table::abbreviate_kernel;
use crate::units;

/// One bar.
#[derive(Debug, Clone)]
pub(crate) struct Bar {
    /// The kernel's number on the page.
    pub(crate) number: usize,
    /// The kernel's full name (abbreviated on the chart, in full in the tooltip).
    pub(crate) name: String,
    /// Share of GPU time, 0–1.
    pub(crate) share: f64,
    /// The model's bound (`-` when unknown).
    pub(crate) bound: String,
}

/// Chart geometry.
const WIDTH: f64 = 1000.0;
const ROW: f64 = 24.0;
const TOP: f64 = 30.0;
const BAR_LEFT: f64 = 380.0;
/// The longest bar, pixels (the largest share); the rest of the width holds the value text.
pub(crate) const MAX_BAR: f64 = 430.0;
const BAR_HEIGHT: f64 = 16.0;
/// Most characters of a kernel name before it is abbreviated.
const NAME_CHARS: usize = 44;

/// The length in pixels of the bar for `share` when the largest share is `largest`.
pub(crate) fn bar_length(share: f64, largest: f64) -> f64 {
    if largest > 0.0 && share.is_finite() {
        MAX_BAR * (share / largest).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The text after a bar: the share, and the bound when the model knows it.
fn share_text(bar: &Bar) -> String {
    match bar.bound.as_str() {
        "" | "-" => units::percent(bar.share),
        bound => format!("{} · {bound}", units::percent(bar.share)),
    }
}

/// Draws the chart of `bars` (already the top ones, largest first) titled `title`.
pub(crate) fn bar_svg(bars: &[Bar], title: &str) -> String {
    let height = TOP + ROW * bars.len() as f64 + 10.0;
    let mut svg = Svg::new(WIDTH, height, title);
    svg.text((0.0, 16.0), title, "start", "#111111");
    let largest = bars.iter().map(|b| b.share).fold(0.0, f64::max);
    for (index, bar) in bars.iter().enumerate() {
        let top = TOP + ROW * index as f64;
        let baseline = top + BAR_HEIGHT / 2.0 + 4.0;
        svg.text((28.0, baseline), &bar.number.to_string(), "end", "#111111");
        svg.text_with_tooltip(
            (36.0, baseline),
            &abbreviate_kernel(&bar.name, NAME_CHARS),
            "start",
            "#222222",
            &bar.name,
        );
        let length = bar_length(bar.share, largest);
        svg.rect(
            (BAR_LEFT, top),
            (length.max(1.0), BAR_HEIGHT),
            bound_color(&bar.bound),
            "none",
        );
        svg.text(
            (BAR_LEFT + length.max(1.0) + 6.0, baseline),
            &share_text(bar),
            "start",
            "#333333",
        );
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bars() -> Vec<Bar> {
        vec![
            Bar {
                number: 1,
                name: "void gemm<float, 128, 128, 8, 4, 4, true, false>(float const*, float*)"
                    .into(),
                share: 0.6,
                bound: "compute".into(),
            },
            Bar {
                number: 2,
                name: "relu".into(),
                share: 0.3,
                bound: "memory-dram".into(),
            },
            Bar {
                number: 3,
                name: "copy".into(),
                share: 0.1,
                bound: "latency".into(),
            },
        ]
    }

    /// The widths of the bars (the rects after the background) in drawing order.
    fn widths(svg: &str) -> Vec<f64> {
        svg.split("<rect ")
            .skip(2)
            .filter_map(|r| r.split("width=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect()
    }

    #[test]
    fn bars_are_proportional_to_the_time_share() {
        let svg = bar_svg(&bars(), "Top kernels");
        let widths = widths(&svg);
        assert_eq!(widths.len(), 3);
        assert!((widths[0] - MAX_BAR).abs() < 0.05, "{widths:?}");
        assert!((widths[0] / widths[1] - 2.0).abs() < 1e-3, "{widths:?}");
        assert!((widths[0] / widths[2] - 6.0).abs() < 1e-2, "{widths:?}");
        assert_eq!(bar_length(0.2, 0.0), 0.0);
    }

    #[test]
    fn each_bar_has_its_number_share_bound_and_full_name() {
        let svg = bar_svg(&bars(), "Top kernels");
        assert!(svg.contains(">60.0 % · compute<"));
        assert!(svg.contains(">10.0 % · latency<"));
        let mut unknown = bars();
        unknown[2].bound = "-".into();
        assert!(
            bar_svg(&unknown, "t").contains(">10.0 %<"),
            "no bound, no dangling separator"
        );
        assert!(svg.contains("fill=\"#2ca02c\""), "compute bars are green");
        // The long templated name is abbreviated on the chart and whole in its tooltip.
        assert!(svg.contains("<title>void gemm&lt;float, 128, 128, 8, 4, 4, true, false&gt;"));
        assert!(svg.contains(">void gemm&lt;…&gt;(float const*, float*)<"));
    }
}
