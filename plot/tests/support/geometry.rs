//! Where the text of an SVG figure lies: every `<text>` element's box,
//! estimated from its position, anchor, size and rotation with the metrics
//! of the font the figure is laid out with, so that a test can check that
//! no label runs past the canvas. Shared by the plot crate's tests and the
//! binary's (`#[path]`), which both depend on `rankcheck-plot` and
//! `roxmltree`.

use rankcheck_plot::font::text_size;

/// One text element's box, in the SVG's pixels.
#[derive(Debug)]
pub struct TextBox {
    /// What it says.
    pub text: String,
    /// Its left edge.
    pub left: f64,
    /// Its top edge.
    pub top: f64,
    /// Its right edge.
    pub right: f64,
    /// Its bottom edge.
    pub bottom: f64,
}

/// The width and height of the SVG's viewBox, and the box of every
/// `<text>` in it.
///
/// A text's extent is estimated as the figure measured it: the embedded
/// DejaVu Sans at the size plotters laid it out at (the SVG's `font-size`
/// times 1.24), which is wider than the text drawn at `font-size`, so a
/// box inside the canvas is text inside it. Plotters writes the anchor as
/// `text-anchor` (start, middle, end) and `dy` (`0.76em`: the top at `y`;
/// `0.5ex`: centred on `y`; `-0.5ex`: the bottom at `y`), and a rotation
/// as `rotate(A, x, y)` about the anchor.
pub fn text_boxes(svg: &str) -> ((f64, f64), Vec<TextBox>) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    let view: Vec<f64> = root
        .attribute("viewBox")
        .expect("the SVG has a viewBox")
        .split_whitespace()
        .map(|n| n.parse().expect("a number"))
        .collect();
    let canvas = (view[2], view[3]);
    let number = |node: roxmltree::Node, name: &str| -> f64 {
        node.attribute(name)
            .unwrap_or_else(|| panic!("<text> without {name}"))
            .parse()
            .expect("a number")
    };
    let boxes = root
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|node| {
            // Plotters writes the text between newlines, which take no room.
            let text = node.text().unwrap_or("").trim().to_string();
            let (x, y) = (number(node, "x"), number(node, "y"));
            let laid_out = number(node, "font-size") * 1.24;
            let (width, _) = text_size(&text, laid_out);
            let (width, height) = (f64::from(width), laid_out);
            // Along the text, from the anchor.
            let (along_start, along_end) = match node.attribute("text-anchor") {
                Some("middle") => (-width / 2.0, width / 2.0),
                Some("end") => (-width, 0.0),
                _ => (0.0, width),
            };
            // Across it, downwards from the anchor.
            let (across_start, across_end) = match node.attribute("dy") {
                Some("0.76em") => (0.0, height),
                Some("-0.5ex") => (-height, 0.0),
                _ => (-height / 2.0, height / 2.0),
            };
            let angle = node
                .attribute("transform")
                .and_then(|t| t.strip_prefix("rotate("))
                .and_then(|t| t.split(',').next())
                .map_or(0, |a| a.trim().parse::<i64>().expect("a whole angle"));
            // SVG rotates clockwise on the screen: by 90, (a, b) goes to
            // (-b, a).
            let corners = [(along_start, across_start), (along_end, across_end)].map(|(a, b)| {
                match angle.rem_euclid(360) {
                    0 => (a, b),
                    90 => (-b, a),
                    180 => (-a, -b),
                    270 => (b, -a),
                    other => panic!("rotation by {other} degrees"),
                }
            });
            let (xs, ys) = ([corners[0].0, corners[1].0], [corners[0].1, corners[1].1]);
            TextBox {
                text,
                left: x + xs[0].min(xs[1]),
                right: x + xs[0].max(xs[1]),
                top: y + ys[0].min(ys[1]),
                bottom: y + ys[0].max(ys[1]),
            }
        })
        .collect();
    (canvas, boxes)
}

/// Panic, naming `what` and the text, if any text of `svg` runs past its
/// viewBox.
pub fn assert_text_inside(svg: &str, what: &str) {
    let ((width, height), boxes) = text_boxes(svg);
    assert!(!boxes.is_empty(), "{what}: no text at all");
    for b in &boxes {
        // Half a pixel for rounding.
        let inside =
            b.left >= -0.5 && b.top >= -0.5 && b.right <= width + 0.5 && b.bottom <= height + 0.5;
        assert!(
            inside,
            "{what}: `{}` lies at x {:.1} to {:.1}, y {:.1} to {:.1}, past the {width} x {height} canvas",
            b.text, b.left, b.right, b.top, b.bottom
        );
    }
}
