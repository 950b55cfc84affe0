//! The strategy comparison, drawn as the SCTBench papers draw it (Thomson,
//! Donaldson, Betts, PPoPP 2014 and TOPC 2016): for each strategy, the
//! bugs found across a corpus against the executions allowed, on a log
//! axis, one line per strategy named at its end. A program counts as the
//! fraction of its seeds that found its bug by `N` executions, so a line
//! is the mean number of bugs one trial finds.

use std::collections::{BTreeMap, BTreeSet};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::axis::{count_label, decade_labels, decades};
use crate::canvas::render;
use crate::error::PlotError;
use crate::labels::spread;
use crate::marks::{number, Mark};
use crate::style::{self, LABEL_SIZE, TEXT_SIZE, TITLE_SIZE};

/// One trial, a row of `results/strategies.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyTrial {
    /// The corpus program.
    pub program: String,
    /// `main` or `trivial` (a bug nearly every schedule hits).
    pub group: String,
    /// The strategy.
    pub strategy: String,
    /// Its parameters (`d=2 v=1`), part of the line's name.
    pub parameters: String,
    /// The trial's seed.
    pub seed: u64,
    /// Executions until the first bug, or the cap when not found.
    pub executions: u64,
    /// Whether the bug was found.
    pub found: bool,
}

/// The figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct StrategiesFigure {
    /// Every trial.
    pub trials: Vec<StrategyTrial>,
    /// The executions a trial was allowed (10,000).
    pub cap: u64,
}

/// A line's name: the strategy and its parameters.
pub fn line_name(trial: &StrategyTrial) -> String {
    if trial.parameters.is_empty() {
        trial.strategy.clone()
    } else {
        format!("{} {}", trial.strategy, trial.parameters)
    }
}

/// The bugs found by `n` executions, per group and line: the sum over the
/// group's programs of the fraction of the line's seeds whose bug was found
/// within `n` executions.
pub fn bugs_found(figure: &StrategiesFigure, group: &str, line: &str, n: u64) -> f64 {
    let mut per_program: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for t in figure
        .trials
        .iter()
        .filter(|t| t.group == group && line_name(t) == line)
    {
        let entry = per_program.entry(&t.program).or_default();
        entry.1 += 1;
        if t.found && t.executions <= n {
            entry.0 += 1;
        }
    }
    per_program
        .values()
        .map(|&(found, seeds)| found as f64 / seeds as f64)
        .sum()
}

/// Where the figure puts its marks: every power of ten up to the cap, and
/// the cap.
pub fn mark_runs(cap: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut n = 1;
    while n < cap {
        out.push(n);
        n *= 10;
    }
    out.push(cap);
    out
}

/// Draw the figure as SVG: a panel per group (`main` first), a step line
/// per strategy named at its right end. Marks: series the line's name,
/// `data-panel` the group, `data-x` `N` (powers of ten and the cap),
/// `data-y` the bugs found.
pub fn strategies_svg(figure: &StrategiesFigure) -> Result<String, PlotError> {
    if figure.trials.is_empty() {
        return Err(PlotError::Empty("no strategy trial".into()));
    }
    let mut groups: Vec<String> = figure
        .trials
        .iter()
        .map(|t| t.group.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    groups.sort_by_key(|g| (g != "main", g.clone()));
    let lines: Vec<String> = figure
        .trials
        .iter()
        .map(line_name)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Each line in its strategy's colour; lines of one strategy (other
    // parameters) differ in dash.
    let strategy_of = |line: &String| {
        figure
            .trials
            .iter()
            .find(|t| line_name(t) == *line)
            .map_or("", |t| t.strategy.as_str())
    };
    let colors = style::strategy_colors(lines.iter().map(strategy_of));
    let dashes: Vec<Option<(u32, u32)>> = (0..lines.len())
        .map(|i| style::dash((0..i).filter(|&j| colors[j] == colors[i]).count()))
        .collect();
    let x = decades(1.0, figure.cap.max(1) as f64);
    let panel = (900u32, 520u32);
    let size = (panel.0, panel.1 * groups.len() as u32);
    let title = "Bugs found against executions, by strategy";
    let description = "For each strategy, the mean number of the corpus's bugs one trial finds within N executions (the sum over programs of the fraction of seeds that found the bug), against N on a log axis.";
    render(size, title, description, |root, marks| {
        let areas = root.split_evenly((groups.len(), 1));
        for (panel_index, (group, area)) in groups.iter().zip(&areas).enumerate() {
            let programs: BTreeSet<&str> = figure
                .trials
                .iter()
                .filter(|t| &t.group == group)
                .map(|t| t.program.as_str())
                .collect();
            let caption = if panel_index == 0 {
                format!("{title}: {group} programs ({})", programs.len())
            } else {
                format!("{group} programs ({})", programs.len())
            };
            let label_width = lines
                .iter()
                .map(|l| {
                    area.estimate_text_size(&format!("{l} (00.0)"), &style::text(LABEL_SIZE))
                        .map(|(w, _)| w)
                        .unwrap_or(200)
                })
                .max()
                .unwrap_or(100);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    caption,
                    style::text(if panel_index == 0 {
                        TITLE_SIZE
                    } else {
                        TEXT_SIZE
                    }),
                )
                .margin(16)
                .margin_right(24 + label_width)
                .x_label_area_size(54)
                .y_label_area_size(70)
                .build_cartesian_2d(
                    (x.0..x.1).log_scale(),
                    0f64..(programs.len() as f64).max(1.0),
                )?;
            chart
                .configure_mesh()
                .x_desc("executions N per trial (log scale)")
                .y_desc("bugs found (mean per trial)")
                .x_labels(decade_labels(x))
                .x_label_formatter(&count_label)
                .y_labels(programs.len().clamp(2, 10) + 1)
                .y_label_formatter(&|y| number((y * 10.0).round() / 10.0))
                .label_style(style::text(LABEL_SIZE))
                .axis_desc_style(style::text(TEXT_SIZE))
                .bold_line_style(RGBColor(215, 215, 215))
                .light_line_style(RGBColor(240, 240, 240))
                .draw()?;
            let mut ends = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                let color = colors[i];
                // The step function: it rises at every trial's count.
                let mut steps: Vec<u64> = figure
                    .trials
                    .iter()
                    .filter(|t| &t.group == group && line_name(t) == *line && t.found)
                    .map(|t| t.executions.max(1))
                    .filter(|&e| e <= figure.cap)
                    .collect();
                steps.sort_unstable();
                steps.dedup();
                let mut points = vec![(x.0, bugs_found(figure, group, line, x.0 as u64))];
                for &s in &steps {
                    let before = points.last().map_or(0.0, |p| p.1);
                    points.push((s as f64, before));
                    points.push((s as f64, bugs_found(figure, group, line, s)));
                }
                let end = bugs_found(figure, group, line, figure.cap);
                points.push((figure.cap as f64, end));
                match dashes[i] {
                    None => chart.draw_series(LineSeries::new(points, color.stroke_width(3)))?,
                    Some((dash, gap)) => chart.draw_series(DashedLineSeries::new(
                        points,
                        dash,
                        gap,
                        color.stroke_width(3),
                    ))?,
                };
                for n in mark_runs(figure.cap) {
                    let y = bugs_found(figure, group, line, n);
                    marks.push(
                        Mark::new(line, n as f64, y, chart.backend_coord(&(n as f64, y)), color)
                            .attr("panel", group)
                            .title(format!(
                                "{line}, {group} programs: {} bugs found per trial within {} executions",
                                number((y * 100.0).round() / 100.0),
                                n
                            )),
                    );
                }
                ends.push((line.clone(), end, color));
            }
            // Name each line at its end, moved apart so names never overlap.
            let wanted: Vec<i32> = ends
                .iter()
                .map(|(_, y, _)| chart.backend_coord(&(figure.cap as f64, *y)).1)
                .collect();
            let (right, top) = chart.backend_coord(&(figure.cap as f64, programs.len() as f64));
            let (_, bottom) = chart.backend_coord(&(figure.cap as f64, 0.0));
            let placed = spread(&wanted, (LABEL_SIZE * 1.05) as i32, top + 6, bottom - 6);
            for ((line, end, color), (&want, &at)) in ends.iter().zip(wanted.iter().zip(&placed)) {
                if want != at {
                    area.draw(&PathElement::new(
                        vec![
                            (
                                right - area.get_base_pixel().0 + 2,
                                want - area.get_base_pixel().1,
                            ),
                            (
                                right - area.get_base_pixel().0 + 10,
                                at - area.get_base_pixel().1,
                            ),
                        ],
                        color.stroke_width(1),
                    ))?;
                }
                area.draw(&Text::new(
                    format!("{line} ({})", number((end * 10.0).round() / 10.0)),
                    (
                        right - area.get_base_pixel().0 + 12,
                        at - area.get_base_pixel().1,
                    ),
                    style::colored(LABEL_SIZE, *color).pos(Pos::new(HPos::Left, VPos::Center)),
                ))?;
            }
        }
        Ok(())
    })
}
