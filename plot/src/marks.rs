//! Data points written so that they can be read back: every point a figure
//! plots is a `<circle class="point">` whose attributes hold the exact
//! numbers, with a `<title>` a browser shows on hover.
//!
//! ```text
//! <circle class="point" data-series="pctvb" data-panel="depth 2 over 1 variable"
//!         data-x="5000" data-y="0.9983" cx="412" cy="88" r="4" ...>
//!   <title>pctvb: 5000 runs, guarantee 0.9983</title></circle>
//! ```
//!
//! `data-x` and `data-y` are Rust's shortest round-trip form of the `f64`
//! (scientific notation below 1e-6 and from 1e16 on), so parsing them gives
//! back the very number the command printed. Further `data-*` attributes
//! carry what a figure adds (`data-low`, `data-high` for an interval,
//! `data-night` for a date, `data-failures`). Circles are drawn after the
//! figure itself, on top of its lines.

use std::fmt::Write as _;

use plotters::style::RGBColor;
pub use rankcheck_stats::decimal::number;

/// One data point of a figure.
#[derive(Clone, Debug)]
pub struct Mark {
    /// The series it belongs to, as the legend or label names it.
    pub series: String,
    /// The x value in data units.
    pub x: f64,
    /// The y value in data units.
    pub y: f64,
    /// More `data-*` attributes: name (without `data-`) and value.
    pub attrs: Vec<(String, String)>,
    /// What a browser shows on hover.
    pub title: String,
    /// Where it is drawn, in SVG pixels.
    pub pixel: (i32, i32),
    /// Its colour.
    pub color: RGBColor,
    /// Filled (a data point) or a ring (a failure, a point of note).
    pub filled: bool,
}

impl Mark {
    /// A filled point of `series` at `(x, y)` drawn at `pixel`.
    pub fn new(series: &str, x: f64, y: f64, pixel: (i32, i32), color: RGBColor) -> Mark {
        Mark {
            series: series.to_string(),
            x,
            y,
            attrs: Vec::new(),
            title: format!("{series}: x = {}, y = {}", number(x), number(y)),
            pixel,
            color,
            filled: true,
        }
    }

    /// The same mark with one more `data-*` attribute.
    pub fn attr(mut self, name: &str, value: impl ToString) -> Mark {
        self.attrs.push((name.to_string(), value.to_string()));
        self
    }

    /// The same mark with another hover text.
    pub fn title(mut self, title: impl Into<String>) -> Mark {
        self.title = title.into();
        self
    }

    /// The same mark drawn as a ring.
    pub fn ring(mut self) -> Mark {
        self.filled = false;
        self
    }

    /// The mark as an SVG element.
    pub fn svg(&self) -> String {
        let RGBColor(r, g, b) = self.color;
        let color = format!("#{r:02X}{g:02X}{b:02X}");
        let (fill, stroke, radius) = if self.filled {
            (color.as_str(), "#FFFFFF", 4)
        } else {
            ("none", color.as_str(), 7)
        };
        let mut out = format!(
            "<circle class=\"point\" data-series=\"{}\" data-x=\"{}\" data-y=\"{}\"",
            escape(&self.series),
            number(self.x),
            number(self.y)
        );
        for (name, value) in &self.attrs {
            let _ = write!(out, " data-{}=\"{}\"", escape(name), escape(value));
        }
        let _ = write!(
            out,
            " cx=\"{}\" cy=\"{}\" r=\"{radius}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{}\"><title>{}</title></circle>",
            self.pixel.0,
            self.pixel.1,
            if self.filled { 1 } else { 2 },
            escape(&self.title)
        );
        out
    }
}

/// `text` safe inside an XML attribute or element.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for x in [
            0.0,
            1.0,
            5000.0,
            0.1 + 0.2,
            1.0 / 3.0,
            2.5e-9,
            1e300,
            123456789.0,
        ] {
            let text = number(x);
            assert_eq!(text.parse::<f64>().unwrap(), x, "{text}");
        }
        assert_eq!(number(5000.0), "5000");
        assert_eq!(number(1e-9), "1e-9");
    }

    #[test]
    fn a_mark_carries_its_numbers_escaped() {
        let mark = Mark::new("a<b", 10.0, 0.5, (3, 4), RGBColor(0, 0, 0)).attr("low", 0.25);
        let svg = mark.svg();
        assert!(svg.starts_with("<circle class=\"point\" data-series=\"a&lt;b\" data-x=\"10\" data-y=\"0.5\" data-low=\"0.25\""));
        assert!(svg.contains("<title>a&lt;b: x = 10, y = 0.5</title>"));
    }
}
