//! The font text is measured with. plotters lays out labels, legends and
//! axis titles from the width of their text; with its `ab_glyph` feature it
//! measures with a font we hand it, here DejaVu Sans embedded in the crate
//! (`fonts/DejaVuSans.ttf`, Bitstream Vera licence, `fonts/LICENSE`), so no
//! system font is looked up. The SVG names the family ([`FAMILY`]) and the
//! viewer draws the text with its own copy: DejaVu Sans where installed,
//! Verdana (the same proportions) or the viewer's sans-serif, which are
//! narrower, so measured text never takes less room than drawn text.

use std::sync::Once;

use plotters::style::{FontDesc, FontFamily, FontStyle};

/// The CSS font family written into the SVG, and the name the embedded
/// font is registered under.
pub const FAMILY: &str = "DejaVu Sans, Verdana, sans-serif";

/// The font file.
static DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

static REGISTER: Once = Once::new();

/// Register the embedded font with plotters, under [`FAMILY`] and under
/// `sans-serif` (plotters' default for legends), once per process.
pub(crate) fn ensure_registered() {
    REGISTER.call_once(|| {
        for name in [FAMILY, "sans-serif"] {
            if plotters::style::register_font(name, FontStyle::Normal, DEJAVU_SANS).is_err() {
                panic!("invariant: the embedded DejaVu Sans is a valid font");
            }
        }
    });
}

/// The width and height in pixels that plotters lays `text` out in at
/// `size` (plotters' units: the SVG's `font-size` is `size / 1.24`, so
/// drawn text takes less room than this): what a figure measures to leave
/// room for a label.
pub fn text_size(text: &str, size: f64) -> (u32, u32) {
    ensure_registered();
    let font = FontDesc::new(FontFamily::Name(FAMILY), size, FontStyle::Normal);
    font.box_size(text)
        .unwrap_or_else(|_| panic!("invariant: the embedded DejaVu Sans lays out any text"))
}

#[cfg(test)]
mod tests {
    use plotters::style::{FontDesc, FontFamily, FontStyle};

    #[test]
    fn text_is_measured_with_the_embedded_font() {
        super::ensure_registered();
        let font = FontDesc::new(FontFamily::Name(super::FAMILY), 20.0, FontStyle::Normal);
        let (wide, _) = font.box_size("WWWW").expect("measurable");
        let (narrow, _) = font.box_size("iiii").expect("measurable");
        // A proportional font: W is about three times as wide as i.
        assert!(wide > 2 * narrow, "{wide} vs {narrow}");
    }
}
