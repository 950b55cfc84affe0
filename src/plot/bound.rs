//! The guarantee against executions for each setting of a search: the
//! curves `rankcheck plot bound` and `check --plot` draw, and the numbers
//! `plot bound` prints (the same ones the marks on the curves carry).

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{bail, Result};
use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::{PrioritySetting, VarSelection};
use rankcheck_engine::{PriorityScheme, Program};
use rankcheck_plot::{bound_svg, BoundCurve, BoundFigure, BoundPanel, CurveKind};
use rankcheck_report::summary::{describe_selection, over_vars, var_count};
use rankcheck_report::words::count;
use rankcheck_stats::{decimal::number, Probability};
use serde::Serialize;

use crate::check::prepare;
use crate::cli::{CheckArgs, Format, PlotBoundArgs, PrioritiesArg, DEFAULT_REPLAY_DIR};
use crate::exit::Status;
use crate::guarantee::{confidence, needed, per_run_bound, per_set_bounds, show, show_confidence};

use super::write_svg;

/// The most variable sets drawn in one panel: the weakest half and the
/// strongest half of them (every set stays in the JSON).
const SETS_DRAWN: usize = 6;

/// One curve's numbers.
#[derive(Debug, Serialize)]
pub struct CurveJson {
    /// Its name in the legend and the marks: `pctvb`, `pct`, `pct and
    /// pctvb`, `pctvb over hot`.
    label: String,
    /// `pct` or `pctvb`.
    strategy: String,
    /// For a variable set's curve, the set.
    set: Option<Vec<String>>,
    bound: f64,
    bound_ln: f64,
    /// The guarantee the runs reached: the mark on the curve.
    confidence: f64,
    runs_needed: Option<u64>,
    /// Whether the figure draws it (all but the middle of many sets).
    drawn: bool,
}

/// One setting's panel.
#[derive(Debug, Serialize)]
pub struct PanelJson {
    depth: u32,
    vars: Option<usize>,
    tracking: String,
    /// The panel's title: `depth 2 over 1 variable (1 of 2)`.
    title: String,
    /// Runs of this setting (marked on every curve).
    runs: u64,
    curves: Vec<CurveJson>,
}

/// The settings' curves, and the figure of them.
pub struct Guarantees {
    /// Per setting, its numbers.
    pub panels: Vec<PanelJson>,
    /// The figure.
    pub figure: BoundFigure,
}

/// `depth 2 over 1 variable (1 of 2)`, as the summary says it.
fn panel_title(program: &Program, setting: &PrioritySetting) -> String {
    let over = over_vars(
        var_count(&setting.vars),
        &describe_selection(program, &setting.vars),
    );
    format!("depth {} over {over}", setting.depth)
}

/// The curves of every setting that has a per-run bound: its own (PCTVB's,
/// or PCT's under `--strategy pct`), PCT's at the same depth beside
/// PCTVB's (one curve when they are equal), and one per variable set where
/// variables are drawn; `runs[i]` runs of setting `i` marked on each.
#[allow(clippy::too_many_arguments)]
pub fn guarantee_figure(
    name: &str,
    program: &Program,
    profile: &Profile,
    settings: &[PrioritySetting],
    scheme: PriorityScheme,
    runs: &[u64],
    target: f64,
) -> Result<Guarantees> {
    if scheme != PriorityScheme::Pct {
        bail!("thread-bounded priorities claim no per-run bound, so there is no guarantee to plot");
    }
    let mut panels = Vec::new();
    for (setting, &runs) in settings.iter().zip(runs) {
        let Some(own) = per_run_bound(setting, scheme, profile) else {
            continue;
        };
        let curve = |label: String,
                     strategy: &str,
                     set: Option<Vec<String>>,
                     bound: Probability| CurveJson {
            label,
            strategy: strategy.to_string(),
            set,
            bound: bound.value(),
            bound_ln: bound.ln(),
            confidence: confidence(bound, runs),
            runs_needed: needed(bound, target),
            drawn: true,
        };
        let mut curves = Vec::new();
        if let VarSelection::All { .. } = setting.vars {
            curves.push(curve("pct".into(), "pct", None, own));
        } else {
            let pct_setting = PrioritySetting {
                depth: setting.depth,
                vars: VarSelection::All {
                    window: profile.max_accesses,
                },
            };
            match per_run_bound(&pct_setting, scheme, profile) {
                Some(pct) if (pct.ln() - own.ln()).abs() < 1e-12 => {
                    curves.push(curve("pct and pctvb".into(), "pctvb", None, own));
                }
                Some(pct) => {
                    curves.push(curve("pctvb".into(), "pctvb", None, own));
                    curves.push(curve("pct".into(), "pct", None, pct));
                }
                None => curves.push(curve("pctvb".into(), "pctvb", None, own)),
            }
        }
        let sets = per_set_bounds(setting, scheme, profile).unwrap_or_default();
        if sets.len() > 1 {
            let shown = sets.len().min(SETS_DRAWN);
            for (i, set) in sets.iter().enumerate() {
                let names: Vec<String> = set
                    .vars
                    .iter()
                    .map(|v| program.vars[v.index()].name.clone())
                    .collect();
                let mut c = curve(
                    format!("pctvb over {}", names.join(" and ")),
                    "pctvb",
                    Some(names),
                    set.bound,
                );
                c.drawn = i < shown / 2 || i >= sets.len() - (shown - shown / 2);
                curves.push(c);
            }
        }
        panels.push(PanelJson {
            depth: setting.depth,
            vars: var_count(&setting.vars),
            tracking: describe_selection(program, &setting.vars),
            title: panel_title(program, setting),
            runs,
            curves,
        });
    }
    if panels.is_empty() {
        bail!("no setting has a per-run bound, so there is no guarantee to plot");
    }
    let figure = BoundFigure {
        program: name.to_string(),
        target,
        panels: panels
            .iter()
            .map(|panel| BoundPanel {
                title: panel.title.clone(),
                curves: panel
                    .curves
                    .iter()
                    .filter(|c| c.drawn)
                    .enumerate()
                    .map(|(i, c)| BoundCurve {
                        label: c.label.clone(),
                        kind: match (c.set.is_some(), c.strategy.as_str()) {
                            (true, _) => CurveKind::Set(i),
                            (false, "pct") => CurveKind::Pct,
                            (false, _) => CurveKind::Pctvb,
                        },
                        bound: Probability::from_ln(c.bound_ln).unwrap_or_else(|_| {
                            unreachable!("invariant: bounds are probabilities")
                        }),
                        runs: Some(panel.runs),
                    })
                    .collect(),
            })
            .collect(),
    };
    Ok(Guarantees { panels, figure })
}

/// The JSON of `rankcheck plot bound --format json`.
#[derive(Debug, Serialize)]
struct PlotBoundJson {
    program: String,
    /// Executions of the search the marks are for, in all.
    runs: u64,
    target_confidence: f64,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    profile_runs: u64,
    /// The SVG file written.
    output: String,
    panels: Vec<PanelJson>,
}

/// `rankcheck plot bound`: plan the search `check` would run with the same
/// flags, and draw what its runs would guarantee.
pub fn plot_bound(args: &PlotBoundArgs) -> Result<ExitCode> {
    if !args.strategy.takes_settings() {
        bail!(
            "--strategy {} states no per-run bound: there is no guarantee to plot",
            args.strategy.name()
        );
    }
    let mut options = args.options.clone();
    options.seed = Some(options.seed_or_zero());
    let check_args = CheckArgs {
        programs: vec![args.program.clone()],
        options,
        strategy_flag: Some(args.strategy),
        depth: args.depth,
        vars: args.vars.clone(),
        track: args.track.clone(),
        priorities: PrioritiesArg::Pct,
        threads: None,
        runs: args.runs,
        time: None,
        max_runs: args.max_runs,
        confidence: args.confidence,
        keep_going: false,
        shrink_time: std::time::Duration::ZERO,
        no_shrink: true,
        replay_dir: DEFAULT_REPLAY_DIR.into(),
        plot: None,
    };
    let prepared = prepare(&check_args, &args.program)?;
    let total = prepared.runs_target;
    let n_settings = prepared.settings.len();
    let runs: Vec<u64> = (0..n_settings)
        .map(|i| prepared.plan.setting_runs(i, 0, total))
        .collect();
    let name = args.program.display().to_string();
    let guarantees = guarantee_figure(
        &name,
        &prepared.loaded.program,
        &prepared.profile,
        &prepared.settings,
        PriorityScheme::Pct,
        &runs,
        args.confidence,
    )?;
    write_svg(&args.output, &bound_svg(&guarantees.figure)?)?;
    let json = PlotBoundJson {
        program: name,
        runs: total,
        target_confidence: args.confidence,
        n: prepared.profile.max_threads,
        k: prepared.profile.max_accesses,
        q: prepared.loaded.program.n_vars(),
        profile_runs: prepared.profile.runs,
        output: args.output.display().to_string(),
        panels: guarantees.panels,
    };
    match args.options.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Csv => out!("{}", csv_text(&json)?),
        Format::Human => out!("{}", text(&json)),
    }
    Ok(Status::Clean.into())
}

fn text(json: &PlotBoundJson) -> String {
    let mut out = format!(
        "{}: n = {}, k = {} per run, Q = {} ({}); {} in all\n",
        json.program,
        count(json.n as u64, "thread", "threads"),
        count(json.k, "tracked access", "tracked accesses"),
        count(json.q as u64, "variable", "variables"),
        count(json.profile_runs, "preparatory run", "preparatory runs"),
        count(json.runs, "run", "runs"),
    );
    for panel in &json.panels {
        let _ = writeln!(
            out,
            "{} ({}):",
            panel.title,
            count(panel.runs, "run", "runs")
        );
        for c in &panel.curves {
            let Ok(p) = Probability::from_ln(c.bound_ln) else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {:<28} p >= {:<14} guarantee {:<22} runs for {}: {}{}",
                c.label,
                show(p),
                show_confidence(p, panel.runs),
                json.target_confidence,
                c.runs_needed
                    .map_or("more than 2^64".to_string(), |n| n.to_string()),
                if c.drawn { "" } else { " (not drawn)" }
            );
        }
    }
    out
}

/// The columns of `plot bound --format csv`: one row per curve.
pub const PLOT_BOUND_COLUMNS: [&str; 10] = [
    "program",
    "depth",
    "vars",
    "tracking",
    "curve",
    "strategy",
    "bound",
    "runs",
    "confidence",
    "runs_needed",
];

fn csv_text(json: &PlotBoundJson) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(PLOT_BOUND_COLUMNS)?;
    for panel in &json.panels {
        for c in &panel.curves {
            writer.write_record([
                json.program.clone(),
                panel.depth.to_string(),
                panel.vars.map_or("all".to_string(), |v| v.to_string()),
                panel.tracking.clone(),
                c.label.clone(),
                c.strategy.clone(),
                number(c.bound),
                panel.runs.to_string(),
                number(c.confidence),
                c.runs_needed.map(|n| n.to_string()).unwrap_or_default(),
            ])?;
        }
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}
