//! The corner-variable figure (the paper's Figure 6): executions until the
//! bug of `examples/corner_variable.rk` as its hot variable's accesses
//! grow, for PCT, PCTVB and shuttle's PCT. PCT's count grows with `HOT`;
//! PCTVB's stays flat, because it draws the rarely accessed variable as
//! often as the hot one.

use std::collections::BTreeMap;

use plotters::prelude::*;

use crate::axis::{count_label, decade_labels, decades};
use crate::canvas::render;
use crate::error::PlotError;
use crate::marks::{number, Mark};
use crate::style::{self, LABEL_SIZE, SERIES, TEXT_SIZE, TITLE_SIZE};

/// One seed's search, a row of `results/corner_variable.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct CornerRun {
    /// `rankcheck` or `shuttle`.
    pub tool: String,
    /// `pct` or `pctvb`.
    pub strategy: String,
    /// The program's `HOT`.
    pub hot: u64,
    /// The seed.
    pub seed: u64,
    /// Executions until the bug (the cap when not found).
    pub executions: u64,
    /// Whether the bug was found.
    pub found: bool,
}

/// The figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct CornerFigure {
    /// Every seed's search.
    pub runs: Vec<CornerRun>,
}

/// A series' name: `rankcheck pctvb (v = 1)`.
pub fn series_name(tool: &str, strategy: &str) -> String {
    if strategy == "pctvb" {
        format!("{tool} {strategy} (v = 1)")
    } else {
        format!("{tool} {strategy}")
    }
}

/// The mean executions per series and `HOT`, as plotted: series name to
/// (HOT, mean, seeds).
pub fn corner_means(figure: &CornerFigure) -> BTreeMap<String, Vec<(u64, f64, usize)>> {
    let mut sums: BTreeMap<String, BTreeMap<u64, (u64, usize)>> = BTreeMap::new();
    for run in &figure.runs {
        let entry = sums
            .entry(series_name(&run.tool, &run.strategy))
            .or_default()
            .entry(run.hot)
            .or_default();
        entry.0 += run.executions;
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(name, by_hot)| {
            let points = by_hot
                .into_iter()
                .map(|(hot, (sum, n))| (hot, sum as f64 / n as f64, n))
                .collect();
            (name, points)
        })
        .collect()
}

/// Draw the figure as SVG: every seed as a faint dot, the mean per `HOT`
/// as a line with marks (series named by [`series_name`], `data-x` the
/// `HOT`, `data-y` the mean, `data-seeds`).
pub fn corner_svg(figure: &CornerFigure) -> Result<String, PlotError> {
    if figure.runs.is_empty() {
        return Err(PlotError::Empty("no corner-variable run".into()));
    }
    let means = corner_means(figure);
    let hots = figure.runs.iter().map(|r| r.hot as f64);
    let x = decades(
        hots.clone().fold(f64::INFINITY, f64::min),
        hots.fold(1.0, f64::max),
    );
    let y = decades(
        1.0,
        figure
            .runs
            .iter()
            .map(|r| r.executions as f64)
            .fold(1.0, f64::max),
    );
    let size = (980, 620);
    let title = "Executions until the corner-variable bug (depth 2)";
    let description = "Executions until the bug of examples/corner_variable.rk against HOT, the hot variable's accesses: each seed a dot, the mean a line; PCT and shuttle's PCT grow with HOT, PCTVB stays flat.";
    render(size, title, description, |root, marks| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, style::text(TITLE_SIZE))
            .margin(16)
            .x_label_area_size(54)
            .y_label_area_size(74)
            .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("HOT: accesses to the hot variable per thread (log scale)")
            .y_desc("executions until the bug (log scale)")
            .x_labels(12)
            .x_label_formatter(&|v| {
                let label = count_label(v);
                if label.is_empty() && (v - v.round()).abs() < 1e-9 && *v < 1e4 {
                    format!("{v:.0}")
                } else {
                    label
                }
            })
            .y_labels(decade_labels(y))
            .y_label_formatter(&count_label)
            .label_style(style::text(LABEL_SIZE))
            .axis_desc_style(style::text(TEXT_SIZE))
            .bold_line_style(RGBColor(215, 215, 215))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        let names: Vec<&String> = means.keys().collect();
        for (i, name) in names.iter().enumerate() {
            let color = SERIES[i % SERIES.len()];
            // Seeds side by side right of the HOT, so that series do not
            // hide each other: a shift of a few percent on the log axis.
            let shift = 1.0 + 0.05 * i as f64;
            let dots = figure
                .runs
                .iter()
                .filter(|r| series_name(&r.tool, &r.strategy) == **name)
                .map(|r| {
                    Circle::new(
                        (r.hot as f64 * shift, r.executions.max(1) as f64),
                        2,
                        color.mix(0.35).filled(),
                    )
                });
            chart.draw_series(dots)?;
            let points = &means[*name];
            chart
                .draw_series(LineSeries::new(
                    points
                        .iter()
                        .map(|&(hot, mean, _)| (hot as f64, mean.max(1.0))),
                    color.stroke_width(3),
                ))?
                .label(name.to_string())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
                });
            for &(hot, mean, seeds) in points {
                marks.push(
                    Mark::new(
                        name,
                        hot as f64,
                        mean,
                        chart.backend_coord(&(hot as f64, mean.max(1.0))),
                        color,
                    )
                    .attr("seeds", seeds)
                    .title(format!(
                        "{name}, HOT = {hot}: mean {} executions over {seeds} seeds",
                        number((mean * 10.0).round() / 10.0)
                    )),
                );
            }
        }
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
            .label("one seed")
            .legend(|(x, y)| Circle::new((x + 12, y), 3, style::GREY.mix(0.6).filled()));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(style::text(LABEL_SIZE))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(200, 200, 200))
            .draw()?;
        Ok(())
    })
}
