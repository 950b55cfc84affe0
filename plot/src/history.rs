//! A nightly campaign's history for one program: the runs each setting has
//! accumulated, night by night, and the guarantee those runs earned
//! (docs/ALGORITHMS.md: runs of one setting on one program version add up
//! across nights), with the nights a failure appeared marked.
//!
//! The input is plain data, so that whatever stores the nights (the
//! nightly database) only has to fill in [`History`].

use std::collections::BTreeSet;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::axis::{count_label, decade_labels, decades, nines, nines_label, thousands};
use crate::canvas::{render, Area};
use crate::error::{bad, PlotError};
use crate::font;
use crate::marks::{number, Mark};
use crate::style::{self, LABEL_SIZE, TEXT_SIZE, TITLE_SIZE};

/// One night of one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct NightPoint {
    /// The night's name: `2025-03-14`.
    pub night: String,
    /// Its place in the campaign (the history's night index): nights are
    /// drawn in this order, whatever their names.
    pub index: u64,
    /// Runs of the setting accumulated up to and including this night
    /// (on the current program version).
    pub runs: u64,
    /// The guarantee those runs earned, `1 - (1 - p)^runs`; `None` where
    /// none is claimed: no bound, or the setting failed this night or
    /// before (the report says "none: it failed"), and no guarantee point
    /// is drawn.
    pub confidence: Option<f64>,
    /// Failures found this night.
    pub failures: u64,
}

/// One setting's nights.
#[derive(Clone, Debug, PartialEq)]
pub struct NightSeries {
    /// The setting, as reports name it: `depth 2 over 1 variable (1 of 3)`.
    pub setting: String,
    /// The strategy of its runs (`pctvb`, `urw`), which gives its colour
    /// ([`style::STRATEGY_COLORS`]); settings of one strategy differ in
    /// dash.
    pub strategy: String,
    /// Its nights, in any order (they are sorted by `index`).
    pub nights: Vec<NightPoint>,
}

/// A program's history.
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    /// The program.
    pub program: String,
    /// The target confidence, drawn as a line.
    pub target: f64,
    /// One series per setting.
    pub series: Vec<NightSeries>,
}

/// Confidences are drawn as "nines" up to this many (1 - 10^-12).
const NINES_CAP: f64 = 12.0;
/// The width the panels take beside their legends, at least.
const PANELS_WIDTH: i32 = 660;
/// The height of a legend row, in pixels.
const LEGEND_ROW: i32 = 22;

/// Draw the history as SVG: accumulated runs above (log axis), the
/// guarantee below (0.9, 0.99, 0.999 evenly spaced), nights along the
/// bottom, failures as rings (on the guarantee panel at its point, or at
/// its floor where a failure leaves no guarantee). Points are marks of series named after the
/// setting, with `data-panel` `runs` or `guarantee`, `data-x` the night's
/// place among the nights drawn (0 for the oldest), `data-night` its name
/// and `data-failures`; `data-y` is the runs or the guarantee.
pub fn history_svg(history: &History) -> Result<String, PlotError> {
    let nights: Vec<(u64, String)> = history
        .series
        .iter()
        .flat_map(|s| s.nights.iter().map(|n| (n.index, n.night.clone())))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if nights.is_empty() {
        return Err(PlotError::Empty(format!("no night of {}", history.program)));
    }
    if !(history.target > 0.0 && history.target < 1.0) {
        return Err(bad("a target confidence", history.target));
    }
    // A night's x: its place among the nights drawn.
    let index = |night: &NightPoint| {
        nights
            .iter()
            .position(|(i, _)| *i == night.index)
            .unwrap_or(0) as f64
    };
    let max_runs = history
        .series
        .iter()
        .flat_map(|s| &s.nights)
        .map(|n| n.runs)
        .max()
        .unwrap_or(1)
        .max(1);
    let runs_range = decades(1.0, max_runs as f64);
    let top_nines = history
        .series
        .iter()
        .flat_map(|s| &s.nights)
        .filter_map(|n| n.confidence)
        .map(|c| nines(c, NINES_CAP))
        .fold(nines(history.target, NINES_CAP) + 1.0, f64::max)
        .ceil();
    let title = format!("{}: nightly runs and guarantee", history.program);
    let description = format!(
        "Accumulated runs and the guarantee they earned per setting over {} nights; rings mark failures.",
        nights.len()
    );
    let x_range = -0.5..(nights.len() as f64 - 0.5);
    let night_label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() > 1e-9 || i < 0.0 {
            return String::new();
        }
        nights
            .get(i as usize)
            .map(|(_, name)| name.clone())
            .unwrap_or_default()
    };
    // Label at most about 8 nights, evenly.
    let x_labels = nights.len().min(8);
    let target_label = format!("target {}", history.target);
    // Settings whose lines coincide (the sampling streams of a program
    // often get the same runs night after night) share one colour and one
    // legend entry naming them all, instead of one line hiding the others.
    let leaders = coinciding_leaders(&history.series);
    let colors = style::strategy_colors(history.series.iter().map(|s| s.strategy.as_str()));
    // The n-th line of a strategy's colour gets the n-th dash.
    let variants: Vec<usize> = (0..history.series.len())
        .map(|i| {
            (0..i)
                .filter(|&j| leaders[j] == j && colors[j] == colors[i])
                .count()
        })
        .collect();
    let look_of = |i: usize| Look {
        color: colors[leaders[i]],
        dash: style::dash(variants[leaders[i]]),
    };
    let mut runs_legend: Vec<(Sample, String)> = (0..history.series.len())
        .filter(|&i| leaders[i] == i)
        .map(|i| {
            let names: Vec<&str> = (0..history.series.len())
                .filter(|&j| leaders[j] == i)
                .map(|j| history.series[j].setting.as_str())
                .collect();
            let label = match names.as_slice() {
                [one] => one.to_string(),
                many => format!("{} (one line)", many.join(", ")),
            };
            (Sample::Line(look_of(i)), label)
        })
        .collect();
    runs_legend.push((Sample::Ring, "night with a failure".into()));
    let guarantee_legend = [(Sample::Dashed, target_label)];
    // The legends go right of the panels, where they hide no data, as wide
    // as their longest entry: the figure grows to hold them, its title and
    // the runs legend's rows.
    let legend_width = runs_legend
        .iter()
        .chain(&guarantee_legend)
        .map(|(_, label)| legend_entry_width(label))
        .max()
        .unwrap_or(0);
    let title_width = font::text_size(&title, TITLE_SIZE).0 as i32;
    let size = (
        [980, PANELS_WIDTH + legend_width, title_width + 40]
            .into_iter()
            .max()
            .unwrap_or(980) as u32,
        760.max(2 * (LEGEND_ROW * runs_legend.len() as i32 + 120)) as u32,
    );
    render(size, &title, &description, |root, marks| {
        let (top, bottom) = root.split_vertically(size.1 / 2);
        let mut runs_chart = ChartBuilder::on(&top)
            .caption(&title, style::text(TITLE_SIZE))
            .margin(14)
            .margin_right(14 + legend_width)
            .x_label_area_size(40)
            .y_label_area_size(112)
            .build_cartesian_2d(x_range.clone(), (runs_range.0..runs_range.1).log_scale())?;
        runs_chart
            .configure_mesh()
            .y_desc("runs accumulated (log scale)")
            .x_labels(x_labels)
            .x_label_formatter(&night_label)
            .y_labels(decade_labels(runs_range))
            .y_label_formatter(&count_label)
            .label_style(style::text(LABEL_SIZE))
            .axis_desc_style(style::text(TEXT_SIZE))
            .bold_line_style(RGBColor(215, 215, 215))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        let mut guarantee_chart = ChartBuilder::on(&bottom)
            .margin(14)
            .margin_right(14 + legend_width)
            .x_label_area_size(50)
            .y_label_area_size(112)
            .build_cartesian_2d(x_range.clone(), 0f64..top_nines)?;
        guarantee_chart
            .configure_mesh()
            .x_desc("night")
            .y_desc("guarantee (nines)")
            .x_labels(x_labels)
            .x_label_formatter(&night_label)
            .y_labels(top_nines as usize + 1)
            .y_label_formatter(&nines_label)
            .label_style(style::text(LABEL_SIZE))
            .axis_desc_style(style::text(TEXT_SIZE))
            .bold_line_style(RGBColor(215, 215, 215))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        let target = nines(history.target, NINES_CAP);
        guarantee_chart.draw_series(DashedLineSeries::new(
            vec![(x_range.start, target), (x_range.end, target)],
            4,
            4,
            style::GREY.stroke_width(1),
        ))?;
        for (i, series) in history.series.iter().enumerate() {
            let look = look_of(i);
            let color = look.color;
            let mut nights_of: Vec<&NightPoint> = series.nights.iter().collect();
            nights_of.sort_by_key(|n| n.index);
            let runs: Vec<(f64, f64)> = nights_of
                .iter()
                .map(|n| (index(n), n.runs.max(1) as f64))
                .collect();
            look.draw(&mut runs_chart, runs)?;
            let confidences: Vec<(f64, f64)> = nights_of
                .iter()
                .filter_map(|n| n.confidence.map(|c| (index(n), nines(c, NINES_CAP))))
                .collect();
            look.draw(&mut guarantee_chart, confidences)?;
            for n in &nights_of {
                let x = index(n);
                let failed = n.failures > 0;
                let y = n.runs.max(1) as f64;
                let mark = Mark::new(
                    &series.setting,
                    x,
                    n.runs as f64,
                    runs_chart.backend_coord(&(x, y)),
                    color,
                )
                .attr("panel", "runs")
                .attr("night", &n.night)
                .attr("failures", n.failures)
                .title(format!(
                    "{}, {}: {} runs accumulated{}",
                    series.setting,
                    n.night,
                    thousands(n.runs),
                    failure_note(n.failures)
                ));
                marks.push(mark);
                if let Some(c) = n.confidence {
                    let y = nines(c, NINES_CAP);
                    marks.push(
                        Mark::new(
                            &series.setting,
                            x,
                            c,
                            guarantee_chart.backend_coord(&(x, y)),
                            color,
                        )
                        .attr("panel", "guarantee")
                        .attr("night", &n.night)
                        .attr("failures", n.failures)
                        .title(format!(
                            "{}, {}: guarantee {}{}",
                            series.setting,
                            n.night,
                            number(c),
                            failure_note(n.failures)
                        )),
                    );
                }
                if failed {
                    // A ring around the night's point on both panels; on the
                    // guarantee panel at its floor when none is claimed.
                    let guarantee = n.confidence.map_or(0.0, |c| nines(c, NINES_CAP));
                    let rings = [
                        (runs_chart.backend_coord(&(x, y)), "runs"),
                        (guarantee_chart.backend_coord(&(x, guarantee)), "guarantee"),
                    ];
                    for (pixel, panel) in rings {
                        marks.push(
                            Mark::new("failure", x, n.failures as f64, pixel, BLACK)
                                .attr("panel", panel)
                                .attr("night", &n.night)
                                .attr("setting", &series.setting)
                                .title(format!(
                                    "{}, {}: {}",
                                    series.setting,
                                    n.night,
                                    failure_note(n.failures).trim_start_matches(", ")
                                ))
                                .ring(),
                        );
                    }
                }
            }
        }
        draw_legend(
            root,
            &runs_legend,
            legend_corner(runs_chart.plotting_area()),
        )?;
        draw_legend(
            root,
            &guarantee_legend,
            legend_corner(guarantee_chart.plotting_area()),
        )?;
        Ok(())
    })
}

/// How a series' line looks: its strategy's colour, and a dash where
/// another setting of the strategy is drawn too.
#[derive(Clone, Copy)]
struct Look {
    color: RGBColor,
    dash: Option<(u32, u32)>,
}

impl Look {
    /// Draw `points` on `chart` in this look.
    fn draw<X, Y>(
        self,
        chart: &mut ChartContext<SVGBackend, Cartesian2d<X, Y>>,
        points: Vec<(X::ValueType, Y::ValueType)>,
    ) -> Result<(), PlotError>
    where
        X: Ranged,
        Y: Ranged,
        X::ValueType: Clone + 'static,
        Y::ValueType: Clone + 'static,
    {
        let line = self.color.stroke_width(2);
        match self.dash {
            None => chart.draw_series(LineSeries::new(points, line))?,
            Some((dash, gap)) => {
                chart.draw_series(DashedLineSeries::new(points, dash, gap, line))?
            }
        };
        Ok(())
    }

    /// Its sample in a legend, from `(x, y)` to `(x + 24, y)`.
    fn sample(self, root: &Area, (x, y): (i32, i32)) -> Result<(), PlotError> {
        let line = vec![(x, y), (x + 24, y)];
        let style = self.color.stroke_width(2);
        match self.dash {
            None => root.draw(&PathElement::new(line, style))?,
            Some((dash, gap)) => root.draw(&DashedPathElement::new(line, dash, gap, style))?,
        }
        Ok(())
    }
}

/// What a legend entry shows beside its text.
enum Sample {
    /// A series' line, in its look.
    Line(Look),
    /// The ring a failure is drawn with.
    Ring,
    /// The dashed target line.
    Dashed,
}

/// Where a legend beside a panel's plot starts: right of its top corner.
fn legend_corner<C: CoordTranslate>(plot: &DrawingArea<SVGBackend, C>) -> (i32, i32) {
    let (x, y) = plot.get_pixel_range();
    (x.end + 16, y.start + 10)
}

/// The room an entry takes: its sample, a gap, its text, a margin.
fn legend_entry_width(label: &str) -> i32 {
    16 + 30 + font::text_size(label, LABEL_SIZE).0 as i32
}

/// A legend, one entry a line downwards from `(x, y)` (pixels).
fn draw_legend(
    root: &Area,
    entries: &[(Sample, String)],
    (x, y): (i32, i32),
) -> Result<(), PlotError> {
    let text = style::text(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (sample, label)) in entries.iter().enumerate() {
        let y = y + LEGEND_ROW * i as i32;
        let line = vec![(x, y), (x + 24, y)];
        match sample {
            Sample::Line(look) => look.sample(root, (x, y))?,
            Sample::Ring => root.draw(&Circle::new((x + 12, y), 6, BLACK.stroke_width(2)))?,
            Sample::Dashed => root.draw(&DashedPathElement::new(
                line,
                4,
                4,
                style::GREY.stroke_width(1),
            ))?,
        }
        root.draw(&Text::new(label.clone(), (x + 30, y), text.clone()))?;
    }
    Ok(())
}

/// For each series, the first series whose line on both panels is the
/// same night for night (itself when none before it is).
fn coinciding_leaders(series: &[NightSeries]) -> Vec<usize> {
    let line = |s: &NightSeries| {
        let mut points: Vec<(u64, u64, Option<u64>)> = s
            .nights
            .iter()
            .map(|n| (n.index, n.runs, n.confidence.map(f64::to_bits)))
            .collect();
        points.sort_unstable();
        points
    };
    let lines: Vec<_> = series.iter().map(line).collect();
    (0..series.len())
        .map(|i| (0..=i).find(|&j| lines[j] == lines[i]).unwrap_or(i))
        .collect()
}

/// `, 2 failures` or nothing.
fn failure_note(failures: u64) -> String {
    match failures {
        0 => String::new(),
        1 => ", 1 failure".to_string(),
        n => format!(", {n} failures"),
    }
}
