//! The look shared by every figure: colours, sizes, text styles.
//!
//! Colours are the Okabe-Ito palette, told apart by people with any common
//! colour-vision deficiency, and a few of Paul Tol's muted colours and a
//! brown where a figure needs more; lines of one figure also differ in dash or width
//! where colour alone would carry the meaning. A strategy has one colour
//! wherever it is drawn ([`STRATEGY_COLORS`]): the guarantee figure, the
//! nightly history (and the HTML report that embeds it) and the strategy
//! comparison.

use plotters::style::{Color, FontFamily, RGBColor, TextStyle, BLACK};

use crate::font::FAMILY;

/// Okabe-Ito blue: PCTVB, the measured curve, the first series.
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
/// Okabe-Ito vermillion: PCT, failures.
pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
/// Okabe-Ito bluish green.
pub const GREEN: RGBColor = RGBColor(0, 158, 115);
/// Okabe-Ito reddish purple.
pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
/// Okabe-Ito orange.
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
/// Okabe-Ito sky blue.
pub const SKY: RGBColor = RGBColor(86, 180, 233);
/// Okabe-Ito yellow (dark enough on white only as a fill).
pub const YELLOW: RGBColor = RGBColor(240, 228, 66);
/// Grey for reference lines (targets) and secondary text.
pub const GREY: RGBColor = RGBColor(110, 110, 110);

/// Tol muted olive.
pub const OLIVE: RGBColor = RGBColor(153, 153, 51);
/// Tol muted wine.
pub const WINE: RGBColor = RGBColor(136, 34, 85);
/// Tol muted indigo.
pub const INDIGO: RGBColor = RGBColor(51, 34, 136);
/// Tol muted sand.
pub const SAND: RGBColor = RGBColor(221, 204, 119);
/// Brown, ColorBrewer's BrBG dark end.
pub const BROWN: RGBColor = RGBColor(140, 81, 10);
/// Near-black for the portfolio, which is every strategy at once.
pub const INK: RGBColor = RGBColor(0, 0, 0);

/// Series colours in order, for figures with many lines that are not
/// strategies.
pub const SERIES: [RGBColor; 7] = [BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, GREY];

/// Colours of the guarantee figure's per-variable-set curves (thin,
/// dashed, named in its legend): none is PCT's or PCTVB's, the only
/// strategies drawn beside them.
pub const VARIABLE_SETS: [RGBColor; 6] = [GREEN, PURPLE, ORANGE, SKY, INDIGO, BROWN];

/// The colour of every strategy the engine runs, by the name reports give
/// it: the one place figures take a strategy's colour from. Every pair is
/// told apart (CIE76 difference above 20; the plot crate's tests check it,
/// and the binary's that every strategy it knows has an entry).
pub const STRATEGY_COLORS: [(&str, RGBColor); 10] = [
    ("portfolio", INK),
    ("pctvb", BLUE),
    ("pct", VERMILLION),
    ("random", GREY),
    ("pos", GREEN),
    ("wpos", OLIVE),
    ("swpos", ORANGE),
    ("urw", PURPLE),
    ("surw", SKY),
    ("ksurw", WINE),
];

/// Colours for lines of strategies [`STRATEGY_COLORS`] does not know (a
/// benchmark's own baselines), in order of appearance.
pub const OTHER_STRATEGIES: [RGBColor; 3] = [INDIGO, BROWN, SAND];

/// The colour of strategy `name`, if it is one the engine runs.
pub fn strategy_color(name: &str) -> Option<RGBColor> {
    STRATEGY_COLORS
        .iter()
        .find(|(strategy, _)| *strategy == name)
        .map(|&(_, color)| color)
}

/// Colours for lines of the strategies `names` (in order, with repeats):
/// each known strategy its own colour, the others [`OTHER_STRATEGIES`] in
/// order of first appearance.
pub fn strategy_colors<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<RGBColor> {
    let mut others: Vec<&str> = Vec::new();
    names
        .into_iter()
        .map(|name| {
            strategy_color(name).unwrap_or_else(|| {
                let i = others.iter().position(|&o| o == name).unwrap_or_else(|| {
                    others.push(name);
                    others.len() - 1
                });
                OTHER_STRATEGIES[i % OTHER_STRATEGIES.len()]
            })
        })
        .collect()
}

/// The dash of the `variant`-th line of one colour (several settings of
/// one strategy): solid first, then dashes of other lengths, as
/// `(dash, gap)` in pixels.
pub fn dash(variant: usize) -> Option<(u32, u32)> {
    const DASHES: [(u32, u32); 4] = [(9, 4), (3, 3), (14, 4), (6, 2)];
    variant.checked_sub(1).map(|i| DASHES[i % DASHES.len()])
}

/// Font size of a figure's title, in plotters' units (the SVG gets this
/// divided by 1.24).
pub const TITLE_SIZE: f64 = 22.0;
/// Font size of axis titles and legends.
pub const TEXT_SIZE: f64 = 17.0;
/// Font size of tick labels and direct labels.
pub const LABEL_SIZE: f64 = 15.0;

/// Text in the embedded family, black.
pub fn text(size: f64) -> TextStyle<'static> {
    TextStyle::from((FontFamily::Name(FAMILY), size)).color(&BLACK)
}

/// Text in the embedded family and a colour.
pub fn colored(size: f64, color: RGBColor) -> TextStyle<'static> {
    let mut style = TextStyle::from((FontFamily::Name(FAMILY), size));
    style.color = color.to_backend_color();
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CIE L*a*b* of an sRGB colour (D65).
    fn lab(RGBColor(r, g, b): RGBColor) -> [f64; 3] {
        let linear = |u: u8| {
            let u = f64::from(u) / 255.0;
            if u <= 0.04045 {
                u / 12.92
            } else {
                ((u + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (linear(r), linear(g), linear(b));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 0.008856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        [
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        ]
    }

    fn difference(a: RGBColor, b: RGBColor) -> f64 {
        let (a, b) = (lab(a), lab(b));
        (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
    }

    #[test]
    fn every_strategy_has_a_colour_of_its_own() {
        let colors: Vec<(&str, RGBColor)> = STRATEGY_COLORS
            .iter()
            .copied()
            .chain(OTHER_STRATEGIES.iter().map(|&c| ("other", c)))
            .collect();
        for (i, &(a, ca)) in colors.iter().enumerate() {
            for &(b, cb) in &colors[i + 1..] {
                assert!(a != b || a == "other", "{a} is listed twice");
                let d = difference(ca, cb);
                assert!(d > 20.0, "{a} and {b} are {d:.1} apart");
            }
        }
    }

    #[test]
    fn unknown_strategies_take_the_other_colours_in_turn() {
        let colors = strategy_colors(["urw", "default", "ksurw", "pctvb-tb", "default"]);
        assert_eq!(
            colors,
            [PURPLE, INDIGO, WINE, BROWN, INDIGO],
            "known names keep their colour wherever they come"
        );
        assert_eq!(dash(0), None);
        assert_ne!(dash(1), dash(2));
    }
}
