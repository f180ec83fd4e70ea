//! A small SVG writer and the axis scales the charts share (linear and base-10 logarithmic).
//!
//! The report must open without network access, so charts are plain inline SVG strings with no
//! scripts; tooltips use SVG `<title>` children, which every browser shows on hover.

use std::fmt::Write as _;

/// Escapes text for XML/HTML content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Maps data values to pixels on a base-10 logarithmic axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogScale {
    /// log10 of the smallest value on the axis.
    log_min: f64,
    /// log10 of the largest value on the axis.
    log_max: f64,
    /// Pixel of the smallest value.
    px_min: f64,
    /// Pixel of the largest value.
    px_max: f64,
}

impl LogScale {
    /// An axis covering whole decades around `[min, max]` (both must be > 0), drawn from `px_min`
    /// to `px_max` (`px_max < px_min` for a y axis that grows upwards).
    pub(crate) fn decades(min: f64, max: f64, px_min: f64, px_max: f64) -> Self {
        let safe_min = if min.is_finite() && min > 0.0 {
            min
        } else {
            1.0
        };
        let safe_max = if max.is_finite() && max > safe_min {
            max
        } else {
            safe_min * 10.0
        };
        let log_min = safe_min.log10().floor();
        let mut log_max = safe_max.log10().ceil();
        if log_max <= log_min {
            log_max = log_min + 1.0;
        }
        LogScale {
            log_min,
            log_max,
            px_min,
            px_max,
        }
    }

    /// The pixel of a value (values outside the axis extrapolate).
    pub(crate) fn px(&self, value: f64) -> f64 {
        let t =
            (value.max(f64::MIN_POSITIVE).log10() - self.log_min) / (self.log_max - self.log_min);
        self.px_min + t * (self.px_max - self.px_min)
    }

    /// The smallest value on the axis.
    pub(crate) fn min(&self) -> f64 {
        10f64.powf(self.log_min)
    }

    /// The largest value on the axis.
    pub(crate) fn max(&self) -> f64 {
        10f64.powf(self.log_max)
    }

    /// True when `value` lies on the axis.
    pub(crate) fn contains(&self, value: f64) -> bool {
        value.is_finite() && value >= self.min() * 0.999 && value <= self.max() * 1.001
    }

    /// One tick per decade.
    pub(crate) fn ticks(&self) -> Vec<f64> {
        let first = self.log_min as i32;
        let last = self.log_max as i32;
        (first..=last)
            .map(|exponent| 10f64.powi(exponent))
            .collect()
    }
}

/// Maps data values to pixels on a linear axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinearScale {
    /// Smallest value.
    min: f64,
    /// Largest value.
    max: f64,
    /// Pixel of the smallest value.
    px_min: f64,
    /// Pixel of the largest value.
    px_max: f64,
}

impl LinearScale {
    /// An axis from `min` to `max` drawn from `px_min` to `px_max`.
    pub(crate) fn new(min: f64, max: f64, px_min: f64, px_max: f64) -> Self {
        let max = if max > min { max } else { min + 1.0 };
        LinearScale {
            min,
            max,
            px_min,
            px_max,
        }
    }

    /// The pixel of a value.
    pub(crate) fn px(&self, value: f64) -> f64 {
        self.px_min + (value - self.min) / (self.max - self.min) * (self.px_max - self.px_min)
    }

    /// About `count` evenly spaced ticks on round numbers (1, 2 or 5 times a power of ten).
    pub(crate) fn ticks(&self, count: usize) -> Vec<f64> {
        let span = self.max - self.min;
        let raw_step = span / count.max(1) as f64;
        let magnitude = 10f64.powf(raw_step.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * magnitude)
            .find(|s| *s >= raw_step)
            .unwrap_or(10.0 * magnitude);
        let mut ticks = Vec::new();
        let mut value = (self.min / step).ceil() * step;
        while value <= self.max + step * 1e-9 {
            ticks.push(value);
            value += step;
        }
        ticks
    }
}

/// An SVG document being written.
#[derive(Debug)]
pub(crate) struct Svg {
    /// The markup so far.
    body: String,
}

impl Svg {
    /// Starts a document of the given size with an accessible label.
    pub(crate) fn new(width: f64, height: f64, label: &str) -> Self {
        let mut body = String::new();
        let _ = write!(
            body,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-label="{}" font-family="sans-serif" font-size="12">"#,
            escape(label)
        );
        body.push_str(&format!(
            r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
        ));
        Svg { body }
    }

    /// A straight line.
    pub(crate) fn line(
        &mut self,
        from: (f64, f64),
        to: (f64, f64),
        stroke: &str,
        width: f64,
        dashed: bool,
    ) {
        let dash = if dashed {
            r#" stroke-dasharray="4 3""#
        } else {
            ""
        };
        let _ = write!(
            self.body,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#,
            from.0, from.1, to.0, to.1
        );
    }

    /// An open polyline through `points`.
    pub(crate) fn polyline(
        &mut self,
        points: &[(f64, f64)],
        stroke: &str,
        width: f64,
        tooltip: Option<&str>,
    ) {
        let coords: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="{width}" stroke-linejoin="round">"#,
            coords.join(" ")
        );
        if let Some(text) = tooltip {
            let _ = write!(self.body, "<title>{}</title>", escape(text));
        }
        self.body.push_str("</polyline>");
    }

    /// An open polyline through `points`, dashed or solid, with a hover tooltip.
    pub(crate) fn path_line(
        &mut self,
        points: &[(f64, f64)],
        stroke: &str,
        width: f64,
        dashed: bool,
        tooltip: &str,
    ) {
        let coords: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let dash = if dashed {
            r#" stroke-dasharray="7 4""#
        } else {
            ""
        };
        let _ = write!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="{width}"{dash}><title>{}</title></polyline>"#,
            coords.join(" "),
            escape(tooltip)
        );
    }

    /// The number label of a marker at `center`, drawn at `at` (middle-anchored baseline) in bold
    /// with a white halo; a thin leader line joins it to the marker when it had to move away.
    pub(crate) fn marker_label(
        &mut self,
        center: (f64, f64),
        at: (f64, f64),
        text: &str,
        font_size: f64,
    ) {
        let label_center = (at.0, at.1 - font_size * 0.35);
        let distance = (label_center.0 - center.0).hypot(label_center.1 - center.1);
        if distance > font_size {
            self.line(center, label_center, "#555555", 0.8, false);
        }
        let _ = write!(
            self.body,
            r##"<text class="marker" x="{:.1}" y="{:.1}" text-anchor="middle" font-size="{font_size}" font-weight="bold" fill="#111111" stroke="#ffffff" stroke-width="3" paint-order="stroke">{}</text>"##,
            at.0,
            at.1,
            escape(text)
        );
    }

    /// A rectangle.
    pub(crate) fn rect(&mut self, origin: (f64, f64), size: (f64, f64), fill: &str, stroke: &str) {
        let _ = write!(
            self.body,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="{stroke}"/>"#,
            origin.0, origin.1, size.0, size.1
        );
    }

    /// A filled circle with a hover tooltip.
    pub(crate) fn circle(&mut self, center: (f64, f64), radius: f64, fill: &str, tooltip: &str) {
        let _ = write!(
            self.body,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{radius:.1}" fill="{fill}" fill-opacity="0.75" stroke="#222222" stroke-width="1"><title>{}</title></circle>"##,
            center.0,
            center.1,
            escape(tooltip)
        );
    }

    /// Text; `anchor` is `start`, `middle` or `end`.
    pub(crate) fn text(&mut self, at: (f64, f64), text: &str, anchor: &str, fill: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="{anchor}" fill="{fill}">{}</text>"#,
            at.0,
            at.1,
            escape(text)
        );
    }

    /// Text with a hover tooltip (e.g. an abbreviated name with the full one on hover).
    pub(crate) fn text_with_tooltip(
        &mut self,
        at: (f64, f64),
        text: &str,
        anchor: &str,
        fill: &str,
        tooltip: &str,
    ) {
        let _ = write!(
            self.body,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="{anchor}" fill="{fill}"><title>{}</title>{}</text>"#,
            at.0,
            at.1,
            escape(tooltip),
            escape(text)
        );
    }

    /// Text rotated by -90° (for a y-axis label).
    pub(crate) fn vertical_text(&mut self, at: (f64, f64), text: &str) {
        let _ = write!(
            self.body,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#333333" transform="rotate(-90 {:.1} {:.1})">{}</text>"##,
            at.0,
            at.1,
            at.0,
            at.1,
            escape(text)
        );
    }

    /// Finishes the document.
    pub(crate) fn finish(mut self) -> String {
        self.body.push_str("</svg>");
        self.body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_scale_spans_whole_decades() {
        let scale = LogScale::decades(0.25, 12.54, 0.0, 300.0);
        assert_eq!(scale.ticks(), vec![0.1, 1.0, 10.0, 100.0]);
        assert!((scale.px(1.0) - 100.0).abs() < 1e-9);
        assert!((scale.px(10.0) - 200.0).abs() < 1e-9);
    }

    #[test]
    fn linear_ticks_are_round() {
        let scale = LinearScale::new(0.0, 1024.0, 0.0, 100.0);
        // 1024 / 5 = 204.8 per tick rounds up to the next 1-2-5 step, 500.
        assert_eq!(scale.ticks(5), vec![0.0, 500.0, 1000.0]);
        assert_eq!(
            LinearScale::new(0.0, 1.0, 0.0, 1.0).ticks(4),
            vec![0.0, 0.5, 1.0]
        );
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        let mut svg = Svg::new(10.0, 10.0, "t");
        svg.text((1.0, 1.0), "void k<float>()", "start", "#000");
        assert!(svg.finish().contains("k&lt;float&gt;"));
    }
}
