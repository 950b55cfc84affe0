//! The guarantee against executions: for each (depth, variables) setting,
//! `1 - (1 - p)^N` for its per-run bound `p`, PCT and PCTVB of the same
//! depth in one panel, a curve per variable set where PCTVB states one,
//! the target confidence as a line and the runs done marked on every curve
//! (docs/ALGORITHMS.md, Confidence and run counts). It answers "how many
//! runs are enough?" at a glance.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::ShapeStyle;
use rankcheck_stats::{confidence_after, Probability};

use crate::axis::{count_label, decade_labels, decades, end_label_margin, one_in, thousands};
use crate::canvas::{render, Area};
use crate::error::{bad, PlotError};
use crate::font;
use crate::marks::{number, Mark};
use crate::style::{self, GREY, LABEL_SIZE, TEXT_SIZE, TITLE_SIZE};

/// What kind of curve, which decides its look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurveKind {
    /// PCTVB's bound for any bug of the setting's class (PCTVB's colour,
    /// solid).
    Pctvb,
    /// PCT's bound at the same depth (PCT's colour, solid).
    Pct,
    /// PCTVB's bound for a bug over one variable set (thin, dashed; the
    /// number picks the colour).
    Set(usize),
}

/// One curve: a per-run bound, and the runs done with it.
#[derive(Clone, Debug)]
pub struct BoundCurve {
    /// The series' name, as the legend shows it (`pctvb`, `over hot`).
    pub label: String,
    /// Its look.
    pub kind: CurveKind,
    /// The per-run lower bound `p`.
    pub bound: Probability,
    /// The runs done, marked on the curve with the guarantee they earned.
    pub runs: Option<u64>,
}

impl BoundCurve {
    /// The guarantee `1 - (1 - p)^N` the runs done earned: the number the
    /// mark on the curve carries, computed as `rankcheck` prints it.
    pub fn guarantee(&self) -> Option<f64> {
        self.runs.map(|n| confidence_after(self.bound, n).value())
    }
}

/// One (depth, variables) setting.
#[derive(Clone, Debug)]
pub struct BoundPanel {
    /// Its title: `depth 2 over 1 variable (1 of 2)`.
    pub title: String,
    /// Its curves, PCTVB's first.
    pub curves: Vec<BoundCurve>,
}

/// The whole figure.
#[derive(Clone, Debug)]
pub struct BoundFigure {
    /// The program, for the title.
    pub program: String,
    /// The target confidence, drawn as a line.
    pub target: f64,
    /// One panel per setting.
    pub panels: Vec<BoundPanel>,
}

/// Width of one panel in pixels, at least.
const PANEL_WIDTH: u32 = 620;
/// Height of one panel without its legend, in pixels.
const PLOT_HEIGHT: u32 = 426;
/// Height of the figure's title band.
const TITLE_BAND: u32 = 44;
/// Points per curve.
const SAMPLES: usize = 240;
/// The height of a legend row, in pixels.
const LEGEND_ROW: i32 = 22;
/// Where the legend's first column starts: under the plot, past the
/// y axis's labels.
const LEGEND_LEFT: i32 = 78;
/// A legend entry's sample line and the gap after it, before its text.
const LEGEND_SAMPLE: i32 = 30;
/// The gap after a legend column's longest text.
const LEGEND_GAP: i32 = 16;
/// The margin around a panel.
const MARGIN: i32 = 14;

/// The panels' layout, measured from the text they hold: every label
/// inside the canvas, whatever the series are called and however far the
/// axis runs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layout {
    /// A panel's size in pixels.
    panel: (u32, u32),
    /// Legend columns (1 or 2) and rows.
    legend: (usize, usize),
    /// The width of a legend column.
    column: i32,
    /// The margin right of the plot: room for half the last tick label.
    right: i32,
    /// Room left of the plot for the y labels and the axis title.
    y_labels: i32,
    /// Room under the plot for the x labels and the axis title.
    x_labels: i32,
}

/// Text's width in pixels as the figure lays it out.
fn width(text: &str, size: f64) -> i32 {
    font::text_size(text, size).0 as i32
}

/// Text's height in pixels as the figure lays it out.
fn height(text: &str, size: f64) -> i32 {
    font::text_size(text, size).1 as i32
}

impl Layout {
    /// Measure `panels` over executions `x`: legend columns as wide as the
    /// longest entry (two side by side where they fit in a panel of the
    /// usual width, else one, else a wider panel), the right margin from
    /// the last tick label, and panels wide enough for their titles.
    fn measure(panels: &[&BoundPanel], x: (f64, f64)) -> Layout {
        let entries = panels.iter().map(|p| p.curves.len()).max().unwrap_or(1);
        let longest = panels
            .iter()
            .flat_map(|p| &p.curves)
            .map(|c| width(&legend_text(c), LABEL_SIZE))
            .max()
            .unwrap_or(0);
        let column = LEGEND_SAMPLE + longest + LEGEND_GAP;
        let fits_two = LEGEND_LEFT + 2 * column + MARGIN <= PANEL_WIDTH as i32;
        let columns = if fits_two && entries > 1 { 2 } else { 1 };
        let rows = entries.div_ceil(columns);
        // The last tick is centred on the plot's right edge.
        let right = end_label_margin(x.1, MARGIN, LABEL_SIZE);
        let y_labels = ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
            .iter()
            .map(|l| width(l, LABEL_SIZE))
            .max()
            .unwrap_or(0)
            + height("g", TEXT_SIZE)
            + 24;
        let x_labels = height("1k", LABEL_SIZE) + height("g", TEXT_SIZE) + 20;
        let title = panels
            .iter()
            .map(|p| width(&p.title, TEXT_SIZE))
            .max()
            .unwrap_or(0);
        let wide = [
            PANEL_WIDTH as i32,
            LEGEND_LEFT + columns as i32 * column + MARGIN,
            title + 2 * MARGIN,
        ]
        .into_iter()
        .max()
        .unwrap_or(PANEL_WIDTH as i32);
        Layout {
            panel: (wide as u32, PLOT_HEIGHT + (LEGEND_ROW * rows as i32) as u32),
            legend: (columns, rows),
            column,
            right,
            y_labels,
            x_labels,
        }
    }
}

/// The guarantee `1 - (1 - p)^n` for a real `n` (for drawing curves).
fn guarantee_at(p: Probability, n: f64) -> f64 {
    -(n * p.ln_complement()).exp_m1()
}

/// The executions axis: from 1 to the decade past where the weakest curve
/// reaches 0.999 or the runs done, whichever is larger, at most 10^12.
fn x_range(figure: &BoundFigure) -> (f64, f64) {
    let mut high: f64 = 10.0;
    for curve in figure.panels.iter().flat_map(|p| &p.curves) {
        // 1 - (1-p)^N = 0.999 at N = ln(0.001) / ln(1-p).
        let reach = 1000f64.ln() / -curve.bound.ln_complement();
        if reach.is_finite() {
            high = high.max(reach);
        }
        if let Some(n) = curve.runs {
            high = high.max(2.0 * n as f64);
        }
    }
    decades(1.0, high.min(1e12))
}

/// Draw the figure as SVG.
pub fn bound_svg(figure: &BoundFigure) -> Result<String, PlotError> {
    if figure.panels.iter().all(|p| p.curves.is_empty()) {
        return Err(PlotError::Empty(
            "no setting has a per-run bound to plot".into(),
        ));
    }
    if !(figure.target > 0.0 && figure.target < 1.0) {
        return Err(bad("a target confidence", figure.target));
    }
    let panels: Vec<&BoundPanel> = figure
        .panels
        .iter()
        .filter(|p| !p.curves.is_empty())
        .collect();
    let x = x_range(figure);
    let layout = Layout::measure(&panels, x);
    let columns = panels.len().min(2) as u32;
    let rows = panels.len().div_ceil(2) as u32;
    let title = format!("{}: what N clean runs guarantee", figure.program);
    let size = (
        (layout.panel.0 * columns).max(width(&title, TITLE_SIZE) as u32 + 2 * MARGIN as u32),
        TITLE_BAND + layout.panel.1 * rows,
    );
    let description = format!(
        "For each setting, the probability 1 - (1 - p)^N that N runs would have found a bug of that class, against N on a log axis; target confidence {}.",
        figure.target
    );
    render(size, &title, &description, |root, marks| {
        let (top, body) = root.split_vertically(TITLE_BAND);
        top.draw(&Text::new(
            title.clone(),
            (size.0 as i32 / 2, TITLE_BAND as i32 / 2),
            style::text(TITLE_SIZE).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
        // Every panel keeps room for the longest legend, so that panels
        // side by side have their axes level.
        let areas = body.split_evenly((rows as usize, columns as usize));
        for (panel, area) in panels.iter().zip(&areas) {
            draw_panel(area, panel, figure.target, x, layout, marks)?;
        }
        Ok(())
    })
}

/// The colour of a strategy the engine runs.
fn strategy(name: &str) -> RGBColor {
    style::strategy_color(name).unwrap_or(GREY)
}

/// The look of a curve.
fn curve_style(kind: CurveKind) -> (ShapeStyle, bool) {
    match kind {
        CurveKind::Pctvb => (strategy("pctvb").stroke_width(3), false),
        CurveKind::Pct => (strategy("pct").stroke_width(3), false),
        CurveKind::Set(i) => {
            let colors = style::VARIABLE_SETS;
            (colors[i % colors.len()].stroke_width(2), true)
        }
    }
}

/// Text with a white box behind it, so lines under it do not hide it, at
/// `at` in the backend's pixels.
pub(crate) fn boxed_text(
    area: &Area,
    text: &str,
    at: (i32, i32),
    anchor: Pos,
    color: RGBColor,
) -> Result<(), PlotError> {
    let base = area.get_base_pixel();
    let at = (at.0 - base.0, at.1 - base.1);
    let style = style::colored(LABEL_SIZE, color).pos(anchor);
    let (w, h) = area
        .estimate_text_size(text, &style)
        .map_err(|e| PlotError::Drawing(e.to_string()))?;
    let (w, h) = (w as i32, h as i32);
    let x0 = match anchor.h_pos {
        HPos::Left => at.0,
        HPos::Center => at.0 - w / 2,
        HPos::Right => at.0 - w,
    };
    let y0 = match anchor.v_pos {
        VPos::Top => at.1,
        VPos::Center => at.1 - h / 2,
        VPos::Bottom => at.1 - h,
    };
    area.draw(&Rectangle::new(
        [(x0 - 2, y0 - 1), (x0 + w + 2, y0 + h + 1)],
        WHITE.mix(0.85).filled(),
    ))?;
    area.draw(&Text::new(text.to_string(), at, style))?;
    Ok(())
}

fn draw_panel(
    area: &Area,
    panel: &BoundPanel,
    target: f64,
    x: (f64, f64),
    layout: Layout,
    marks: &mut Vec<Mark>,
) -> Result<(), PlotError> {
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, style::text(TEXT_SIZE))
        .margin(MARGIN)
        .margin_right(layout.right)
        .margin_bottom(MARGIN + LEGEND_ROW * layout.legend.1 as i32)
        .x_label_area_size(layout.x_labels)
        .y_label_area_size(layout.y_labels)
        .build_cartesian_2d((x.0..x.1).log_scale(), 0f64..1f64)?;
    chart
        .configure_mesh()
        .x_desc("executions N (log scale)")
        .y_desc("guarantee 1 - (1 - p)^N")
        .x_labels(decade_labels(x))
        .x_label_formatter(&count_label)
        .y_labels(6)
        .y_label_formatter(&|y| format!("{y:.1}"))
        .label_style(style::text(LABEL_SIZE))
        .axis_desc_style(style::text(TEXT_SIZE))
        .bold_line_style(RGBColor(215, 215, 215))
        .light_line_style(RGBColor(240, 240, 240))
        .draw()?;
    let samples: Vec<f64> = (0..=SAMPLES)
        .map(|i| x.0 * (x.1 / x.0).powf(i as f64 / SAMPLES as f64))
        .collect();
    // Sets last: dashed over a headline curve they equal, both show.
    let mut order: Vec<&BoundCurve> = panel.curves.iter().collect();
    order.sort_by_key(|c| matches!(c.kind, CurveKind::Set(_)));
    for curve in &order {
        let (line, dashed) = curve_style(curve.kind);
        let points: Vec<(f64, f64)> = samples
            .iter()
            .map(|&n| (n, guarantee_at(curve.bound, n)))
            .collect();
        if dashed {
            chart.draw_series(DashedLineSeries::new(points, 7, 5, line))?;
        } else {
            chart.draw_series(LineSeries::new(points, line))?;
        }
    }
    // The target confidence.
    chart.draw_series(DashedLineSeries::new(
        vec![(x.0, target), (x.1, target)],
        4,
        4,
        GREY.stroke_width(1),
    ))?;
    let (right, target_y) = chart.backend_coord(&(x.1, target));
    boxed_text(
        area,
        &format!("target {target}"),
        (right - 4, target_y + 3),
        Pos::new(HPos::Right, VPos::Top),
        GREY,
    )?;
    // The runs done: a line, a label, and a mark on every curve.
    let runs: Vec<u64> = panel.curves.iter().filter_map(|c| c.runs).collect();
    if let Some(&n) = runs.iter().max() {
        if runs.iter().all(|&r| r == n) {
            chart.draw_series(DashedLineSeries::new(
                vec![(n as f64, 0.0), (n as f64, 1.0)],
                2,
                3,
                BLACK.stroke_width(1),
            ))?;
            let (px, bottom) = chart.backend_coord(&(n as f64, 0.0));
            let label = format!("{} runs", thousands(n));
            let near_right =
                px + 8 + width(&label, LABEL_SIZE) > chart.backend_coord(&(x.1, 0.0)).0;
            boxed_text(
                area,
                &label,
                (px + if near_right { -4 } else { 4 }, bottom - 4),
                Pos::new(
                    if near_right { HPos::Right } else { HPos::Left },
                    VPos::Bottom,
                ),
                BLACK,
            )?;
        }
    }
    for curve in &panel.curves {
        let (Some(n), Some(g)) = (curve.runs, curve.guarantee()) else {
            continue;
        };
        let (line, _) = curve_style(curve.kind);
        let color = line.color.rgb();
        let color = RGBColor(color.0, color.1, color.2);
        let pixel = chart.backend_coord(&(n as f64, g));
        marks.push(
            Mark::new(&curve.label, n as f64, g, pixel, color)
                .attr("panel", &panel.title)
                .attr("bound", number(curve.bound.value()))
                .title(format!(
                    "{}, {}: {} runs, guarantee {} (p ≥ {})",
                    panel.title,
                    curve.label,
                    thousands(n),
                    number(g),
                    one_in(curve.bound)
                )),
        );
    }
    draw_legend_below(area, &panel.curves, layout)
}

/// The legend under the panel's axis, in the layout's columns (each as
/// wide as the longest entry), where it hides no curve and no label
/// (inside the plot, a corner variable's curve rises through the upper
/// left and the slowest setting's crosses the lower right).
fn draw_legend_below(area: &Area, curves: &[BoundCurve], layout: Layout) -> Result<(), PlotError> {
    let (_, ys) = area.get_pixel_range();
    let (columns, rows) = layout.legend;
    let per_column = curves.len().div_ceil(columns).max(1) as i32;
    let text = style::text(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, curve) in curves.iter().enumerate() {
        let (column, row) = (i as i32 / per_column, i as i32 % per_column);
        let x = LEGEND_LEFT + column * layout.column;
        let y = (ys.end - ys.start) - LEGEND_ROW * (rows as i32 - row) + LEGEND_ROW / 2 - 6;
        let (line, dashed) = curve_style(curve.kind);
        let sample = vec![(x, y), (x + 24, y)];
        if dashed {
            area.draw(&DashedPathElement::new(sample, 7, 5, line))?;
        } else {
            area.draw(&PathElement::new(sample, line))?;
        }
        area.draw(&Text::new(
            legend_text(curve),
            (x + LEGEND_SAMPLE, y),
            text.clone(),
        ))?;
    }
    Ok(())
}

/// A curve's legend entry.
fn legend_text(curve: &BoundCurve) -> String {
    format!("{}: p ≥ {}", curve.label, one_in(curve.bound))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_meets_the_printed_guarantee() {
        let p = Probability::new(1.0 / 800.0).unwrap();
        let curve = BoundCurve {
            label: "pctvb".into(),
            kind: CurveKind::Pctvb,
            bound: p,
            runs: Some(3682),
        };
        let g = curve.guarantee().unwrap();
        assert!((g - 0.99).abs() < 1e-3, "{g}");
        assert!((guarantee_at(p, 3682.0) - g).abs() < 1e-12);
    }
}
