//! `rankcheck-bench figures`: every SVG in `results/` rebuilt from the CSV
//! beside it, as the house style asks (plots are always rebuilt from the
//! CSV): `corner_variable.svg`, `table2.svg` and `strategies.svg`. A
//! missing CSV is skipped with a note, so the command works before every
//! benchmark has run.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use rankcheck_plot::{
    corner_svg, cost_svg, strategies_svg, CornerFigure, CornerRun, CostBar, CostFigure, CostGroup,
    StrategiesFigure, StrategyTrial,
};
use serde::Deserialize;

use crate::workload::root;

/// The executions a strategy trial is allowed (the strategy benchmark's
/// cap).
const STRATEGY_CAP: u64 = 10_000;

/// The target of one tracked variable over none (Table 2).
const TABLE2_TARGET: f64 = 1.3;

/// A figure's CSV, its SVG, and how to draw one from the other.
type FigureFile = (&'static str, &'static str, fn(&str) -> Result<String>);

/// Rebuild every figure whose CSV is in `results/`.
pub fn run() -> Result<()> {
    let dir = root().join("results");
    let figures: [FigureFile; 3] = [
        ("corner_variable.csv", "corner_variable.svg", corner_figure),
        ("table2.csv", "table2.svg", table2_figure),
        ("strategies.csv", "strategies.svg", strategies_figure),
    ];
    for (csv, svg, draw) in figures {
        let input = dir.join(csv);
        if !input.is_file() {
            eprintln!("skipped results/{svg}: no results/{csv} yet");
            continue;
        }
        let text = std::fs::read_to_string(&input)
            .with_context(|| format!("cannot read {}", input.display()))?;
        let figure = draw(&text).with_context(|| format!("results/{csv}"))?;
        write(&dir.join(svg), &figure)?;
        eprintln!("wrote results/{svg} from results/{csv}");
    }
    Ok(())
}

fn write(path: &Path, svg: &str) -> Result<()> {
    std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
}

/// A row of `corner_variable.csv`.
#[derive(Debug, Deserialize)]
struct CornerRow {
    tool: String,
    strategy: String,
    hot: u64,
    seed: u64,
    executions_until_bug: u64,
    found: bool,
}

/// The corner-variable figure from `corner_variable.csv`.
pub fn corner_figure(csv: &str) -> Result<String> {
    let mut runs = Vec::new();
    for row in csv::Reader::from_reader(csv.as_bytes()).deserialize() {
        let row: CornerRow = row?;
        runs.push(CornerRun {
            tool: row.tool,
            strategy: row.strategy,
            hot: row.hot,
            seed: row.seed,
            executions: row.executions_until_bug,
            found: row.found,
        });
    }
    Ok(corner_svg(&CornerFigure { runs })?)
}

/// A row of `table2.csv`.
#[derive(Debug, Deserialize)]
struct Table2Row {
    program: String,
    tracking: String,
    vars: String,
    ns_per_execution: f64,
}

/// The median of some values (the mean of the middle two for an even
/// count), as `table2` computes its tables.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The cost chart from `table2.csv`: per program, each configuration's
/// median time per execution over rounds, divided by tracking none's;
/// `one` and `two` averaged over their variables (pairs), with the range.
pub fn table2_figure(csv: &str) -> Result<String> {
    // program -> tracking -> vars -> times
    type Times = BTreeMap<String, Vec<f64>>;
    let mut order: Vec<String> = Vec::new();
    let mut data: BTreeMap<String, BTreeMap<String, Times>> = BTreeMap::new();
    for row in csv::Reader::from_reader(csv.as_bytes()).deserialize() {
        let row: Table2Row = row?;
        if !order.contains(&row.program) {
            order.push(row.program.clone());
        }
        data.entry(row.program)
            .or_default()
            .entry(row.tracking)
            .or_default()
            .entry(row.vars)
            .or_default()
            .push(row.ns_per_execution);
    }
    let configurations = [
        ("observed-only", "observed only (checks, no extra points)"),
        ("one", "one variable (mean over variables)"),
        ("two", "two variables (mean over pairs)"),
        ("all", "every variable"),
    ];
    let mut groups = Vec::new();
    for program in &order {
        let by_tracking = &data[program];
        let none = by_tracking
            .get("none")
            .map(|t| median(t.values().flatten().copied().collect()))
            .with_context(|| format!("{program}: no row tracking none"))?;
        let bars = configurations
            .iter()
            .filter_map(|(tracking, label)| {
                let ratios: Vec<f64> = by_tracking
                    .get(*tracking)?
                    .values()
                    .map(|times| median(times.clone()) / none)
                    .collect();
                let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
                let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
                let high = ratios.iter().copied().fold(0.0, f64::max);
                Some(CostBar {
                    label: label.to_string(),
                    ratio: mean,
                    range: (ratios.len() > 1).then_some((low, high)),
                })
            })
            .collect();
        groups.push(CostGroup {
            program: program.clone(),
            bars,
        });
    }
    Ok(cost_svg(&CostFigure {
        title: "Time per execution by variables tracked (Table 2)".into(),
        target: Some(TABLE2_TARGET),
        groups,
    })?)
}

/// A row of `strategies.csv`.
#[derive(Debug, Deserialize)]
struct StrategyRow {
    program: String,
    group: String,
    strategy: String,
    parameters: String,
    seed: u64,
    executions: u64,
    found: bool,
}

/// The strategy comparison from `strategies.csv`.
pub fn strategies_figure(csv: &str) -> Result<String> {
    let mut trials = Vec::new();
    for row in csv::Reader::from_reader(csv.as_bytes()).deserialize() {
        let row: StrategyRow = row?;
        trials.push(StrategyTrial {
            program: row.program,
            group: row.group,
            strategy: row.strategy,
            parameters: row.parameters,
            seed: row.seed,
            executions: row.executions,
            found: row.found,
        });
    }
    Ok(strategies_svg(&StrategiesFigure {
        trials,
        cap: STRATEGY_CAP,
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `(series, panel, x, y)` of every mark of an SVG.
    fn marks(svg: &str) -> Vec<(String, String, f64, f64)> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("point"))
            .map(|n| {
                (
                    n.attribute("data-series").unwrap().to_string(),
                    n.attribute("data-panel")
                        .or(n.attribute("data-program"))
                        .unwrap_or_default()
                        .to_string(),
                    n.attribute("data-x").unwrap().parse().unwrap(),
                    n.attribute("data-y").unwrap().parse().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn the_strategy_figure_counts_bugs_found_by_n() {
        let svg = strategies_figure(include_str!("../testdata/strategies.csv")).unwrap();
        let marks = marks(&svg);
        let at = |series: &str, panel: &str, x: f64| {
            marks
                .iter()
                .find(|m| m.0 == series && m.1 == panel && m.2 == x)
                .unwrap_or_else(|| panic!("no mark {series} {panel} {x}"))
                .3
        };
        // pctvb in main: account found by seeds at 12 and 40, reorder by
        // one seed of two at 700: by 100 runs 1 bug, by 1,000 1.5.
        assert_eq!(at("pctvb d=2 v=1", "main", 10.0), 0.0);
        assert_eq!(at("pctvb d=2 v=1", "main", 100.0), 1.0);
        assert_eq!(at("pctvb d=2 v=1", "main", 1000.0), 1.5);
        // random: account by one seed of two at 3,000.
        assert_eq!(at("random", "main", 10_000.0), 0.5);
        assert_eq!(at("pct d=2", "trivial", 1.0), 0.5);
        assert_eq!(at("pct d=2", "trivial", 10.0), 1.0);
    }

    #[test]
    fn the_cost_chart_divides_medians_by_none() {
        let csv = "program,tracking,vars,round,executions,seconds,cpu_seconds,ns_per_execution,points_per_execution,sites,observed_sites,seed\n\
                   p,none,,1,10,1,1,100,1,1,0,1\n\
                   p,none,,1,10,1,1,100,1,1,0,1\n\
                   p,one,a,1,10,1,1,110,1,1,0,1\n\
                   p,one,b,1,10,1,1,130,1,1,0,1\n\
                   p,all,,1,10,1,1,200,1,1,0,1\n";
        let marks = marks(&table2_figure(csv).unwrap());
        let one = marks
            .iter()
            .find(|m| m.0.starts_with("one variable"))
            .unwrap();
        assert!((one.3 - 1.2).abs() < 1e-12, "{one:?}");
        let all = marks.iter().find(|m| m.0 == "every variable").unwrap();
        assert_eq!(all.3, 2.0);
    }

    #[test]
    fn the_corner_figure_reads_the_benchmark_csv() {
        let csv = "tool,strategy,depth,vars,hot,seed,executions_until_bug,found\n\
                   rankcheck,pct,2,all,10,0,40,true\n\
                   rankcheck,pct,2,all,10,1,60,true\n\
                   rankcheck,pctvb,2,1,10,0,3,true\n";
        let marks = marks(&corner_figure(csv).unwrap());
        assert!(marks.contains(&("rankcheck pct".into(), String::new(), 10.0, 50.0)));
        assert!(marks.contains(&("rankcheck pctvb (v = 1)".into(), String::new(), 10.0, 3.0)));
    }
}
