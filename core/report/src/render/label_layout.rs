//! Places the number labels of chart markers so that no two labels overlap: each label takes the
//! first free spot on rings of growing distance around its marker, inside the plot area, and the
//! boxes already taken (labels, legends, titles) are remembered.
//!
//! Text sizes are estimated from the character count (the charts use one sans-serif font at a
//! known size); the estimate is generous, and the HTML review's layout check measures the real
//! boxes in a browser.

/// Width of one character as a fraction of the font size (generous for digits and sans-serif text).
const CHAR_WIDTH: f64 = 0.62;

/// Height of a line of text as a fraction of the font size.
const LINE_HEIGHT: f64 = 1.15;

/// Gap kept between two labels, pixels.
const GAP: f64 = 1.5;

/// An axis-aligned box: left, top, right, bottom, in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TextBox {
    /// Left edge.
    pub(crate) left: f64,
    /// Top edge.
    pub(crate) top: f64,
    /// Right edge.
    pub(crate) right: f64,
    /// Bottom edge.
    pub(crate) bottom: f64,
}

impl TextBox {
    /// The box of `text` drawn at `at` (SVG text position: the baseline) with `anchor` (`start`,
    /// `middle` or `end`) at `font_size` pixels.
    pub(crate) fn of_text(at: (f64, f64), text: &str, anchor: &str, font_size: f64) -> Self {
        let width = text.chars().count() as f64 * font_size * CHAR_WIDTH;
        let left = match anchor {
            "middle" => at.0 - width / 2.0,
            "end" => at.0 - width,
            _ => at.0,
        };
        // The baseline sits about 80 % down the line box.
        let top = at.1 - font_size * LINE_HEIGHT * 0.8;
        TextBox {
            left,
            top,
            right: left + width,
            bottom: top + font_size * LINE_HEIGHT,
        }
    }

    /// True when the two boxes share any area (with [`GAP`] between them counted as shared).
    pub(crate) fn overlaps(&self, other: &TextBox) -> bool {
        self.left < other.right + GAP
            && other.left < self.right + GAP
            && self.top < other.bottom + GAP
            && other.top < self.bottom + GAP
    }

    /// True when `self` lies entirely inside `outer`.
    pub(crate) fn inside(&self, outer: &TextBox) -> bool {
        self.left >= outer.left
            && self.right <= outer.right
            && self.top >= outer.top
            && self.bottom <= outer.bottom
    }
}

/// The label boxes of one chart.
#[derive(Debug, Clone)]
pub(crate) struct LabelLayout {
    /// Where labels may go (the plot area).
    bounds: TextBox,
    /// Boxes already taken.
    taken: Vec<TextBox>,
    /// Font size of the labels, pixels.
    font_size: f64,
}

impl LabelLayout {
    /// An empty layout for labels of `font_size` pixels inside `bounds`.
    pub(crate) fn new(bounds: TextBox, font_size: f64) -> Self {
        LabelLayout {
            bounds,
            taken: Vec::new(),
            font_size,
        }
    }

    /// Marks a box as taken (e.g. a legend drawn inside the plot area).
    pub(crate) fn reserve(&mut self, area: TextBox) {
        self.taken.push(area);
    }

    /// Places `text` (middle-anchored) near a marker of `radius` at `center` and returns its
    /// baseline position: on the marker when it fits there, else on the first free spot of rings
    /// of 8, 16, then 24 directions at growing distances; when nothing is free within 12 rings,
    /// the least crowded spot tried.
    pub(crate) fn place(&mut self, center: (f64, f64), radius: f64, text: &str) -> (f64, f64) {
        let baseline = self.font_size * 0.35;
        let mut candidates: Vec<(f64, f64)> = vec![(center.0, center.1 + baseline)];
        for ring in 0..12 {
            let distance = radius + 3.0 + self.font_size * 0.6 + f64::from(ring) * self.font_size;
            let directions = 8 * (1 + ring.min(2));
            for step in 0..directions {
                // Start to the right and go round, so that labels prefer the right side.
                let angle = f64::from(step) / f64::from(directions) * std::f64::consts::TAU;
                candidates.push((
                    center.0 + distance * angle.cos(),
                    center.1 - distance * angle.sin() + baseline,
                ));
            }
        }
        let mut best: Option<((f64, f64), usize)> = None;
        for at in candidates {
            let candidate = TextBox::of_text(at, text, "middle", self.font_size);
            if !candidate.inside(&self.bounds) {
                continue;
            }
            let clashes = self.taken.iter().filter(|t| t.overlaps(&candidate)).count();
            if clashes == 0 {
                self.taken.push(candidate);
                return at;
            }
            if best.is_none_or(|(_, fewest)| clashes < fewest) {
                best = Some((at, clashes));
            }
        }
        let at = best.map_or(center, |(at, _)| at);
        self.taken
            .push(TextBox::of_text(at, text, "middle", self.font_size));
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot() -> TextBox {
        TextBox {
            left: 0.0,
            top: 0.0,
            right: 400.0,
            bottom: 300.0,
        }
    }

    #[test]
    fn text_boxes_follow_the_anchor() {
        let start = TextBox::of_text((100.0, 50.0), "abcd", "start", 10.0);
        let end = TextBox::of_text((100.0, 50.0), "abcd", "end", 10.0);
        let middle = TextBox::of_text((100.0, 50.0), "abcd", "middle", 10.0);
        assert_eq!(start.left, 100.0);
        assert_eq!(end.right, 100.0);
        assert!((middle.left + middle.right - 200.0).abs() < 1e-9);
        assert!(start.top < 50.0 && start.bottom > 50.0);
    }

    #[test]
    fn labels_of_markers_at_one_spot_never_overlap() {
        // Thirty markers on the very same pixel: every label must find its own free box.
        let mut layout = LabelLayout::new(plot(), 11.0);
        let mut boxes = Vec::new();
        for number in 1..=30 {
            let text = number.to_string();
            let at = layout.place((200.0, 150.0), 6.0, &text);
            boxes.push(TextBox::of_text(at, &text, "middle", 11.0));
        }
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.inside(&plot()), "label {} outside the plot", i + 1);
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
        }
        // The first label sits on its marker.
        assert!((boxes[0].left + boxes[0].right - 400.0).abs() < 1e-9);
    }

    #[test]
    fn labels_stay_inside_the_plot_near_an_edge() {
        let mut layout = LabelLayout::new(plot(), 11.0);
        let at = layout.place((399.0, 1.0), 4.0, "12");
        let placed = TextBox::of_text(at, "12", "middle", 11.0);
        assert!(placed.inside(&plot()), "{placed:?}");
    }

    #[test]
    fn reserved_areas_are_avoided() {
        let mut layout = LabelLayout::new(plot(), 11.0);
        let legend = TextBox {
            left: 150.0,
            top: 100.0,
            right: 250.0,
            bottom: 200.0,
        };
        layout.reserve(legend);
        let at = layout.place((200.0, 150.0), 4.0, "7");
        assert!(!TextBox::of_text(at, "7", "middle", 11.0).overlaps(&legend));
    }
}
