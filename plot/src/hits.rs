//! The guarantee against what really happens: the fraction of independent
//! searches that found the bug by `N` executions, with its Clopper-Pearson
//! band, over the guaranteed lower bound `1 - (1 - p)^N` of the same
//! setting. The bound must stay under the measured curve; the figure shows
//! by how much, and says how many times more runs the bound asks for half
//! the searches to succeed than they needed.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rankcheck_stats::{confidence_after, runs_needed, HitRate, Probability, RunCount};

use crate::axis::{count_label, decade_labels, decades, end_label_margin, one_in, thousands};
use crate::canvas::render;
use crate::error::{bad, PlotError};
use crate::font;
use crate::marks::{number, Mark};
use crate::style::{self, BLUE, LABEL_SIZE, TEXT_SIZE, TITLE_SIZE, VERMILLION};

/// The measured and the guaranteed probability of finding the bug by one
/// number of executions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checkpoint {
    /// Executions `N`.
    pub runs: u64,
    /// Trials whose first failure came at run `N` or before.
    pub found: u64,
    /// `found / trials`.
    pub fraction: f64,
    /// The Clopper-Pearson interval of `fraction` at the figure's level.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The guaranteed lower bound `1 - (1 - p)^N`.
    pub guarantee: f64,
}

impl Checkpoint {
    /// The checkpoint at `runs` executions: `found` of `trials` searches had
    /// failed by then; the interval at `level` (0.95); the guarantee of the
    /// per-run bound `bound`.
    pub fn new(
        runs: u64,
        found: u64,
        trials: u64,
        level: f64,
        bound: Probability,
    ) -> Result<Checkpoint, PlotError> {
        let rate = HitRate::new(found, trials).map_err(|e| bad("a hit count", e))?;
        let interval = rate
            .clopper_pearson(level)
            .map_err(|e| bad("an interval level", e))?;
        Ok(Checkpoint {
            runs,
            found,
            fraction: rate.estimate(),
            low: interval.lower,
            high: interval.upper,
            guarantee: confidence_after(bound, runs).value(),
        })
    }

    /// Whether the measured interval lies wholly below the guarantee: the
    /// bug is not of the class the bound speaks of, or the bound is wrong.
    pub fn below_bound(&self) -> bool {
        self.high < self.guarantee
    }
}

/// Where to look at the measured curve: about six points per decade
/// (1, 1.5, 2, 3, 5, 7 times a power of ten) up to `max`, and `max`.
pub fn checkpoint_runs(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut decade: u64 = 1;
    'outer: loop {
        for step in [10, 15, 20, 30, 50, 70] {
            let n = decade.saturating_mul(step) / 10;
            if n >= max {
                break 'outer;
            }
            if out.last() != Some(&n) {
                out.push(n);
            }
        }
        decade = decade.saturating_mul(10);
    }
    out.push(max);
    out
}

/// The figure.
#[derive(Clone, Debug)]
pub struct HitsFigure {
    /// The program.
    pub program: String,
    /// The setting: `pctvb, depth 2 over 1 variable (1 of 2)`.
    pub setting: String,
    /// Searches run.
    pub trials: u64,
    /// The level of the intervals (0.95).
    pub level: f64,
    /// The setting's per-run bound.
    pub bound: Probability,
    /// The checkpoints, by increasing runs.
    pub checkpoints: Vec<Checkpoint>,
    /// Runs by which half the searches had found the bug (none if fewer
    /// than half did).
    pub median_runs: Option<u64>,
}

/// Runs the bound needs to promise 1/2: `ceil(ln 2 / -ln(1 - p))`.
pub fn bound_median(bound: Probability) -> Option<u64> {
    match runs_needed(bound, 0.5) {
        Ok(RunCount::Finite(n)) => Some(n),
        _ => None,
    }
}

/// The line that says by how much the bound undershoots.
pub fn gap_sentence(figure: &HitsFigure) -> String {
    match (figure.median_runs, bound_median(figure.bound)) {
        (Some(m), Some(b)) => format!(
            "half the searches found the bug by {} runs; the bound promises 1/2 after {} ({:.1}x as many)",
            thousands(m),
            thousands(b),
            b as f64 / m.max(1) as f64
        ),
        (None, Some(b)) => format!(
            "fewer than half the searches found the bug; the bound promises 1/2 after {} runs",
            thousands(b)
        ),
        _ => "the bound promises 1/2 only after more than 2^64 runs".to_string(),
    }
}

/// Draw the figure as SVG.
pub fn hits_svg(figure: &HitsFigure) -> Result<String, PlotError> {
    let last = figure
        .checkpoints
        .last()
        .ok_or_else(|| PlotError::Empty("no checkpoint".into()))?;
    if figure.checkpoints.iter().any(|c| c.runs == 0) {
        return Err(bad("0 executions on a log axis", 0));
    }
    /// Height of the band of sentences under the chart.
    const NOTES: u32 = 90;
    /// The margin around the chart.
    const MARGIN: i32 = 16;
    /// Room left of the plot for the y labels and the axis title.
    const Y_LABELS: i32 = 70;
    let title = format!(
        "{}: found by N executions, {} searches against the bound",
        figure.program, figure.trials
    );
    let description = format!(
        "{}: the fraction of {} independently seeded searches that found the bug by N executions, with its {}% Clopper-Pearson interval, over the guarantee 1 - (1 - p)^N for p = {}.",
        figure.setting,
        figure.trials,
        figure.level * 100.0,
        one_in(figure.bound)
    );
    let x = decades(1.0, last.runs as f64);
    let legend = [
        format!("measured: fraction of {} searches", figure.trials),
        format!("{}% Clopper-Pearson interval", number(figure.level * 100.0)),
        format!("guarantee 1 - (1 - p)^N, p ≥ {}", one_in(figure.bound)),
    ];
    let mut lines = vec![(
        format!("{}. {}", figure.setting, gap_sentence(figure)),
        BLACK,
    )];
    if let Some(c) = figure.checkpoints.iter().find(|c| c.below_bound()) {
        lines.push((
            format!(
                "the measured interval falls below the bound from {} runs: the bug is not of this class",
                thousands(c.runs)
            ),
            VERMILLION,
        ));
    }
    // The canvas is wide enough for the title, the legend's row and every
    // sentence under the chart, each measured.
    let width = |text: &str, size: f64| font::text_size(text, size).0 as i32;
    let left = MARGIN + Y_LABELS;
    let needed = [
        980,
        width(&title, TITLE_SIZE) + 2 * MARGIN,
        left + legend
            .iter()
            .map(|entry| 30 + width(entry, LABEL_SIZE) + 28)
            .sum::<i32>(),
        left + lines
            .iter()
            .map(|(line, _)| width(line, LABEL_SIZE))
            .max()
            .unwrap_or(0)
            + MARGIN,
    ];
    let size = (needed.into_iter().max().unwrap_or(980) as u32, 680);
    render(size, &title, &description, |root, marks| {
        let (plot_area, notes) = root.split_vertically(size.1 - NOTES);
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(&title, style::text(TITLE_SIZE))
            .margin(MARGIN)
            .margin_right(end_label_margin(x.1, MARGIN, LABEL_SIZE))
            .x_label_area_size(54)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d((x.0..x.1).log_scale(), 0f64..1f64)?;
        chart
            .configure_mesh()
            .x_desc("executions N (log scale)")
            .y_desc("probability the bug is found by N")
            .x_labels(decade_labels(x))
            .x_label_formatter(&count_label)
            .y_labels(6)
            .y_label_formatter(&|y| format!("{y:.1}"))
            .label_style(style::text(LABEL_SIZE))
            .axis_desc_style(style::text(TEXT_SIZE))
            .bold_line_style(RGBColor(215, 215, 215))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()?;
        let points = &figure.checkpoints;
        // The band: up along the upper ends, back along the lower ones.
        let band: Vec<(f64, f64)> = points
            .iter()
            .map(|c| (c.runs as f64, c.high))
            .chain(points.iter().rev().map(|c| (c.runs as f64, c.low)))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(band, BLUE.mix(0.18).filled())))?;
        chart.draw_series(LineSeries::new(
            points.iter().map(|c| (c.runs as f64, c.fraction)),
            BLUE.stroke_width(3),
        ))?;
        let samples = 240;
        let curve: Vec<(f64, f64)> = (0..=samples)
            .map(|i| {
                let n = x.0 * (last.runs as f64 / x.0).powf(i as f64 / samples as f64);
                (n, -(n * figure.bound.ln_complement()).exp_m1())
            })
            .collect();
        chart.draw_series(DashedLineSeries::new(
            curve,
            8,
            5,
            VERMILLION.stroke_width(3),
        ))?;
        for c in points {
            let n = c.runs as f64;
            marks.push(
                Mark::new(
                    "measured",
                    n,
                    c.fraction,
                    chart.backend_coord(&(n, c.fraction)),
                    BLUE,
                )
                .attr("low", number(c.low))
                .attr("high", number(c.high))
                .attr("found", c.found)
                .title(format!(
                    "{} runs: {} of {} searches found the bug ({}; interval {} to {})",
                    thousands(c.runs),
                    c.found,
                    figure.trials,
                    number(c.fraction),
                    number(c.low),
                    number(c.high)
                )),
            );
            let guarantee = Mark::new(
                "guarantee",
                n,
                c.guarantee,
                chart.backend_coord(&(n, c.guarantee)),
                VERMILLION,
            )
            .title(format!(
                "{} runs: the bound guarantees {}",
                thousands(c.runs),
                number(c.guarantee)
            ));
            marks.push(if c.below_bound() {
                guarantee.ring()
            } else {
                guarantee
            });
        }
        let (left, _) = chart.backend_coord(&(x.0, 0.0));
        let mut at = left;
        for (i, entry) in legend.iter().enumerate() {
            let y = 16;
            match i {
                0 => notes.draw(&PathElement::new(
                    vec![(at, y), (at + 24, y)],
                    BLUE.stroke_width(3),
                ))?,
                1 => notes.draw(&Rectangle::new(
                    [(at, y - 7), (at + 24, y + 7)],
                    BLUE.mix(0.18).filled(),
                ))?,
                _ => notes.draw(&DashedPathElement::new(
                    vec![(at, y), (at + 24, y)],
                    8,
                    5,
                    VERMILLION.stroke_width(3),
                ))?,
            }
            let style = style::text(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
            notes.draw(&Text::new(entry.clone(), (at + 30, y), style.clone()))?;
            let (width, _) = notes
                .estimate_text_size(entry, &style)
                .map_err(|e| PlotError::Drawing(e.to_string()))?;
            at += 30 + width as i32 + 28;
        }
        for (i, (text, color)) in lines.iter().enumerate() {
            notes.draw(&Text::new(
                text.clone(),
                (left, 38 + 22 * i as i32),
                style::colored(LABEL_SIZE, *color).pos(Pos::new(HPos::Left, VPos::Top)),
            ))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_spread_over_decades() {
        assert_eq!(
            checkpoint_runs(120),
            vec![1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 120]
        );
        assert_eq!(checkpoint_runs(1), vec![1]);
        assert_eq!(checkpoint_runs(10), vec![1, 2, 3, 5, 7, 10]);
    }

    #[test]
    fn a_checkpoint_holds_the_printed_numbers() {
        let p = Probability::new(0.01).unwrap();
        let c = Checkpoint::new(100, 80, 100, 0.95, p).unwrap();
        assert_eq!(c.fraction, 0.8);
        assert!(c.low < 0.8 && c.high > 0.8);
        assert!((c.guarantee - (1.0 - 0.99f64.powi(100))).abs() < 1e-12);
        assert!(!c.below_bound());
        let low = Checkpoint::new(100, 0, 100, 0.95, p).unwrap();
        assert!(low.below_bound());
    }
}
