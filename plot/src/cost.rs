//! The cost of tracking (the paper's Table 2 as a chart): time per
//! execution for each tracking configuration relative to tracking no
//! variable, grouped by program, with the target for one variable drawn.

use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::canvas::render;
use crate::error::{bad, PlotError};
use crate::marks::{number, Mark};
use crate::style::{self, LABEL_SIZE, SERIES, TEXT_SIZE, TITLE_SIZE};

/// One configuration of one program.
#[derive(Clone, Debug, PartialEq)]
pub struct CostBar {
    /// The configuration, the same in every group: `one variable (mean)`.
    pub label: String,
    /// Time per execution over that of tracking nothing.
    pub ratio: f64,
    /// The lowest and highest ratio over the configuration's variables or
    /// pairs, drawn as a whisker.
    pub range: Option<(f64, f64)>,
}

/// One program's bars.
#[derive(Clone, Debug, PartialEq)]
pub struct CostGroup {
    /// The program.
    pub program: String,
    /// Its bars, in the same order in every group.
    pub bars: Vec<CostBar>,
}

/// The figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct CostFigure {
    /// The figure's title.
    pub title: String,
    /// The ratio one tracked variable should stay under (1.3), if any.
    pub target: Option<f64>,
    /// One group per program.
    pub groups: Vec<CostGroup>,
}

/// Draw the chart as SVG. Each bar is a mark: series the configuration,
/// `data-x` the group's index, `data-y` the ratio, `data-program`, and
/// `data-low`, `data-high` for a range.
pub fn cost_svg(figure: &CostFigure) -> Result<String, PlotError> {
    let labels: Vec<&String> = figure
        .groups
        .first()
        .ok_or_else(|| PlotError::Empty("no program".into()))?
        .bars
        .iter()
        .map(|b| &b.label)
        .collect();
    for group in &figure.groups {
        let same = group
            .bars
            .iter()
            .map(|b| &b.label)
            .eq(labels.iter().copied());
        if !same {
            return Err(bad(
                format!("the bars of {}", group.program),
                "not the configurations of the first program",
            ));
        }
        if let Some(b) = group
            .bars
            .iter()
            .find(|b| !(b.ratio.is_finite() && b.ratio > 0.0))
        {
            return Err(bad(format!("{}'s ratio", b.label), b.ratio));
        }
    }
    let top = figure
        .groups
        .iter()
        .flat_map(|g| &g.bars)
        .map(|b| b.range.map_or(b.ratio, |r| r.1).max(b.ratio))
        .fold(figure.target.unwrap_or(1.0), f64::max);
    let top = (top * 1.15 * 2.0).ceil() / 2.0;
    let groups = figure.groups.len();
    let bars = labels.len();
    let size = (980, 600);
    let description = "Time per execution of each tracking configuration divided by that of tracking no variable, per program; the whiskers span the variables (or pairs) of a configuration.";
    render(size, &figure.title, description, |root, marks| {
        let mut chart = ChartBuilder::on(root)
            .caption(&figure.title, style::text(TITLE_SIZE))
            .margin(16)
            .x_label_area_size(46)
            .y_label_area_size(74)
            .build_cartesian_2d(-0.5f64..(groups as f64 - 0.5), 0f64..top)?;
        let group_label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() > 1e-9 || i < 0.0 {
                return String::new();
            }
            figure
                .groups
                .get(i as usize)
                .map(|g| g.program.clone())
                .unwrap_or_default()
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("program")
            .y_desc("time per execution / tracking none (x)")
            .x_labels(groups)
            .x_label_formatter(&group_label)
            .y_labels(((top / 0.25) as usize).min(12) + 1)
            .y_label_formatter(&|y| format!("{y:.2}x"))
            .label_style(style::text(LABEL_SIZE))
            .axis_desc_style(style::text(TEXT_SIZE))
            .bold_line_style(RGBColor(215, 215, 215))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        let width = 0.8 / bars as f64;
        for (b, label) in labels.iter().enumerate() {
            let color = SERIES[b % SERIES.len()];
            let rects = figure.groups.iter().enumerate().map(|(g, group)| {
                let left = g as f64 - 0.4 + b as f64 * width;
                Rectangle::new(
                    [
                        (left + 0.1 * width, 0.0),
                        (left + 0.9 * width, group.bars[b].ratio),
                    ],
                    color.filled(),
                )
            });
            chart
                .draw_series(rects)?
                .label(label.to_string())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 18, y + 6)], color.filled())
                });
            for (g, group) in figure.groups.iter().enumerate() {
                let bar = &group.bars[b];
                let center = g as f64 - 0.4 + (b as f64 + 0.5) * width;
                if let Some((low, high)) = bar.range {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(center, low), (center, high)],
                        BLACK.stroke_width(1),
                    )))?;
                    for end in [low, high] {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(center - width * 0.15, end), (center + width * 0.15, end)],
                            BLACK.stroke_width(1),
                        )))?;
                    }
                }
                let mut mark = Mark::new(
                    &bar.label,
                    g as f64,
                    bar.ratio,
                    chart.backend_coord(&(center, bar.ratio)),
                    color,
                )
                .attr("program", &group.program)
                .title(format!(
                    "{}, {}: {:.2}x tracking none",
                    group.program, bar.label, bar.ratio
                ));
                if let Some((low, high)) = bar.range {
                    mark = mark.attr("low", number(low)).attr("high", number(high));
                }
                marks.push(mark);
            }
        }
        let (left, _) = chart.backend_coord(&(-0.5, 1.0));
        let (right, one) = chart.backend_coord(&(groups as f64 - 0.5, 1.0));
        root.draw(&PathElement::new(
            vec![(left, one), (right, one)],
            BLACK.stroke_width(1),
        ))?;
        if let Some(target) = figure.target {
            let dashed = style::VERMILLION.stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(-0.5, target), (groups as f64 - 0.5, target)],
                    6,
                    4,
                    dashed,
                ))?
                .label(format!("target for one variable: {target}x"))
                .legend(move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 18, y)], 5, 3, dashed)
                });
        }
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
