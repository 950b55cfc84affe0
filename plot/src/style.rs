//! The look shared by every figure: colours, sizes, text styles.
//!
//! Colours are the Okabe-Ito palette, told apart by people with any common
//! colour-vision deficiency; lines of one figure also differ in dash or
//! width where colour alone would carry the meaning.

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

/// Series colours in order, for figures with many lines.
pub const SERIES: [RGBColor; 7] = [BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, GREY];

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
