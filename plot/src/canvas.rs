//! Drawing one figure into SVG text: plotters on a string, then the
//! figure's title and data points added to the document.

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea, SVGBackend, WHITE};

use crate::error::PlotError;
use crate::font::ensure_registered;
use crate::marks::{escape, Mark};

/// The drawing area a figure draws on.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draw a figure of `size` pixels with `draw`, which may add data points
/// to the vector it is given; `title` and `description` become the SVG's
/// `<title>` and `<desc>` (what a screen reader or a file browser shows).
pub(crate) fn render(
    size: (u32, u32),
    title: &str,
    description: &str,
    draw: impl FnOnce(&Area, &mut Vec<Mark>) -> Result<(), PlotError>,
) -> Result<String, PlotError> {
    ensure_registered();
    let mut svg = String::new();
    let mut marks = Vec::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root, &mut marks)?;
        root.present()?;
    }
    let head_end = svg
        .find(">\n")
        .ok_or_else(|| PlotError::Drawing("plotters wrote no <svg> element".into()))?
        + 2;
    let head = format!(
        "<title>{}</title>\n<desc>{}</desc>\n",
        escape(title),
        escape(description)
    );
    svg.insert_str(head_end, &head);
    let tail = svg
        .rfind("</svg>")
        .ok_or_else(|| PlotError::Drawing("plotters did not close the <svg> element".into()))?;
    let mut points = String::from("<g class=\"points\">\n");
    for mark in &marks {
        points.push_str(&mark.svg());
        points.push('\n');
    }
    points.push_str("</g>\n");
    svg.insert_str(tail, &points);
    Ok(svg)
}
