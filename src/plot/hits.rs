//! `rankcheck plot hits`: run independently seeded searches of one
//! setting, and plot (and print) the fraction that found the bug by `N`
//! executions, with its Clopper-Pearson interval, over the guaranteed lower
//! bound `1 - (1 - p)^N` of that setting.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{bail, Result};
use rankcheck_engine::search::run_seed;
use rankcheck_engine::{search_plan, Executables, Program, SearchConfig};
use rankcheck_plot::hits::{bound_median, checkpoint_runs, gap_sentence};
use rankcheck_plot::{hits_svg, Checkpoint, HitsFigure};
use rankcheck_report::summary::{describe_selection, over_vars, var_count};
use rankcheck_report::words::count;
use rankcheck_stats::decimal::number;
use serde::Serialize;

use crate::check::{prepare, Prepared};
use crate::cli::{CheckArgs, Format, PlotHitsArgs, PrioritiesArg, DEFAULT_REPLAY_DIR};
use crate::exit::Status;
use crate::guarantee::show;
use crate::interrupt;

use super::write_svg;

/// One checkpoint's numbers.
#[derive(Debug, Serialize)]
struct CheckpointJson {
    runs: u64,
    found: u64,
    fraction: f64,
    low: f64,
    high: f64,
    guarantee: f64,
}

/// The JSON of `rankcheck plot hits --format json`.
#[derive(Debug, Serialize)]
struct PlotHitsJson {
    program: String,
    strategy: String,
    depth: u32,
    vars: Option<usize>,
    tracking: String,
    seed: u64,
    trials: u64,
    runs: u64,
    level: f64,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    profile_runs: u64,
    bound: f64,
    bound_ln: f64,
    /// Trials that found the bug within `runs`.
    found: u64,
    median_runs: Option<u64>,
    bound_median_runs: Option<u64>,
    below_bound: bool,
    output: String,
    checkpoints: Vec<CheckpointJson>,
}

/// The seed of trial `t`: its own stream, apart from the preparatory runs'.
fn trial_seed(seed: u64, trial: u64) -> u64 {
    run_seed(run_seed(seed, u64::MAX - 1), trial)
}

/// Run the trials, plot them, and print what was plotted.
pub fn plot_hits(args: &PlotHitsArgs) -> Result<ExitCode> {
    if !args.strategy.takes_settings() {
        bail!(
            "--strategy {} states no per-run bound to compare with",
            args.strategy.name()
        );
    }
    // PCTVB's setting plotted by default: one variable per run.
    let vars = match (&args.vars, args.strategy.name()) {
        (Some(v), _) => Some(v.clone()),
        (None, "pctvb") => Some(crate::cli::VarsArg::Count(1)),
        (None, _) => None,
    };
    let mut options = args.options.clone();
    let seed = options.seed_or_zero();
    options.seed = Some(seed);
    let check_args = CheckArgs {
        programs: vec![args.program.clone()],
        options,
        strategy_flag: Some(args.strategy),
        depth: Some(args.depth),
        vars,
        track: args.track.clone(),
        priorities: PrioritiesArg::Pct,
        threads: None,
        runs: Some(args.runs),
        time: None,
        max_runs: Some(args.runs),
        confidence: 0.99,
        keep_going: false,
        shrink_time: std::time::Duration::ZERO,
        no_shrink: true,
        replay_dir: DEFAULT_REPLAY_DIR.into(),
        plot: None,
    };
    let prepared = prepare(&check_args, &args.program)?;
    let (setting, bound) = match (prepared.settings.as_slice(), prepared.bounds.as_slice()) {
        ([setting], [Some(bound)]) => (setting.clone(), *bound),
        _ => bail!("plot hits needs one setting with a per-run bound: give --depth and --vars"),
    };
    let firsts = trials(args, &prepared, seed);
    let mut found_at: Vec<u64> = firsts.iter().flatten().copied().collect();
    found_at.sort_unstable();
    let trials_run = firsts.len() as u64;
    if trials_run == 0 {
        bail!("interrupted before the first trial ended");
    }
    let checkpoints: Vec<Checkpoint> = checkpoint_runs(args.runs)
        .into_iter()
        .map(|n| {
            let found = found_at.iter().take_while(|&&r| r <= n).count() as u64;
            Checkpoint::new(n, found, trials_run, args.confidence, bound)
        })
        .collect::<Result<_, _>>()?;
    // Half the trials found it by the run of the ceil(T/2)-th success.
    let half = trials_run.div_ceil(2) as usize;
    let median_runs = found_at
        .get(half.saturating_sub(1))
        .copied()
        .filter(|_| found_at.len() >= half);
    let program: &Program = &prepared.loaded.program;
    let name = args.program.display().to_string();
    let setting_name = format!(
        "{}, depth {} over {}",
        args.strategy.name(),
        setting.depth,
        describe_selection(program, &setting.vars)
    );
    let figure = HitsFigure {
        program: name.clone(),
        setting: setting_name,
        trials: trials_run,
        level: args.confidence,
        bound,
        checkpoints: checkpoints.clone(),
        median_runs,
    };
    write_svg(&args.output, &hits_svg(&figure)?)?;
    let json = PlotHitsJson {
        program: name,
        strategy: args.strategy.name().to_string(),
        depth: setting.depth,
        vars: var_count(&setting.vars),
        tracking: describe_selection(program, &setting.vars),
        seed,
        trials: trials_run,
        runs: args.runs,
        level: args.confidence,
        n: prepared.profile.max_threads,
        k: prepared.profile.max_accesses,
        q: program.n_vars(),
        profile_runs: prepared.profile.runs,
        bound: bound.value(),
        bound_ln: bound.ln(),
        found: found_at.len() as u64,
        median_runs,
        bound_median_runs: bound_median(bound),
        below_bound: !found_at.is_empty() && checkpoints.iter().any(Checkpoint::below_bound),
        output: args.output.display().to_string(),
        checkpoints: checkpoints
            .iter()
            .map(|c| CheckpointJson {
                runs: c.runs,
                found: c.found,
                fraction: c.fraction,
                low: c.low,
                high: c.high,
                guarantee: c.guarantee,
            })
            .collect(),
    };
    match args.options.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Csv => out!("{}", csv_text(&json)?),
        Format::Human => out!("{}", text(&json, &figure)),
    }
    Ok(if interrupt::requested() {
        Status::Incomplete
    } else if found_at.is_empty() {
        // A hit rate of a bug never hit measures nothing: the program (or
        // the setting) is not what the command was asked to measure.
        errln!(
            "error: no search failed, so there is no hit rate to compare with the bound: {} has no bug of depth {} over {} that {} found",
            args.program.display(),
            setting.depth,
            over_vars(var_count(&setting.vars), &describe_selection(program, &setting.vars)),
            count(trials_run * args.runs, "run", "runs"),
        );
        Status::Usage
    } else {
        Status::Clean
    }
    .into())
}

/// The run of each trial's first failure (`None`: none within the runs),
/// trial by trial until done or interrupted.
fn trials(args: &PlotHitsArgs, prepared: &Prepared, seed: u64) -> Vec<Option<u64>> {
    let executables = Executables::new(
        prepared.loaded.program.clone(),
        prepared.instrumenter.clone(),
    );
    let mut firsts = Vec::new();
    for t in 0..args.trials {
        if interrupt::requested() {
            break;
        }
        let config = SearchConfig {
            first_run: 0,
            runs: args.runs,
            seed: trial_seed(seed, t),
            limits: prepared.limits,
            keep_going: false,
            jobs: args.options.jobs(),
        };
        let result = search_plan(&prepared.plan, &executables, &config, &|_| {
            !interrupt::requested()
        });
        firsts.push(result.first_failure.map(|f| f.run));
    }
    firsts
}

fn text(json: &PlotHitsJson, figure: &HitsFigure) -> String {
    let bound = rankcheck_stats::Probability::from_ln(json.bound_ln)
        .map(show)
        .unwrap_or_default();
    let mut out = format!(
        "{}: {} of {} ({}, depth {} over {}, seed {}) found the bug within {}; each run finds a bug of this class with p >= {bound}\n",
        json.program,
        json.found,
        count(json.trials, "search", "searches"),
        json.strategy,
        json.depth,
        json.tracking,
        json.seed,
        count(json.runs, "run", "runs"),
    );
    let _ = writeln!(
        out,
        "{:>10}  {:>6}  {:>9}  {:>21}  {:>10}",
        "runs",
        "found",
        "fraction",
        format!("{}% interval", json.level * 100.0),
        "guarantee"
    );
    for c in &json.checkpoints {
        let _ = writeln!(
            out,
            "{:>10}  {:>6}  {:>9.4}  {:>10.4} to {:>7.4}  {:>10.4}{}",
            c.runs,
            c.found,
            c.fraction,
            c.low,
            c.high,
            c.guarantee,
            if json.found > 0 && c.high < c.guarantee {
                "  below the bound"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(out, "{}", gap_sentence(figure));
    if json.below_bound {
        let _ = writeln!(
            out,
            "the measured rate falls below the bound: the bug is not of depth {} over {} as searched",
            json.depth,
            over_vars(json.vars, &json.tracking)
        );
    }
    out
}

/// The columns of `plot hits --format csv`: one row per checkpoint.
pub const PLOT_HITS_COLUMNS: [&str; 11] = [
    "program",
    "strategy",
    "depth",
    "vars",
    "trials",
    "runs",
    "found",
    "fraction",
    "low",
    "high",
    "guarantee",
];

fn csv_text(json: &PlotHitsJson) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(PLOT_HITS_COLUMNS)?;
    for c in &json.checkpoints {
        writer.write_record([
            json.program.clone(),
            json.strategy.clone(),
            json.depth.to_string(),
            json.vars.map_or("all".to_string(), |v| v.to_string()),
            json.trials.to_string(),
            c.runs.to_string(),
            c.found.to_string(),
            number(c.fraction),
            number(c.low),
            number(c.high),
            number(c.guarantee),
        ])?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}
