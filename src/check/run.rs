//! Checking one program, phase by phase: load it, run the preparatory
//! runs, plan the search, decide how many runs, and search with a progress
//! line, until the runs are done, the time is up, or a signal arrives.
//! [`prepare`] is a search's preparation (preparatory runs, plan, bounds,
//! run count), which `plot bound` stops after.

use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use rankcheck_engine::profile::{profile, Profile};
use rankcheck_engine::search::{run_seed, SearchResult};
use rankcheck_engine::strategy::planning::PlannedSearch;
use rankcheck_engine::strategy::{Executables, Instrumenter, PrioritySetting, Slot};
use rankcheck_engine::{search_plan, Executable, Instrumentation, Limits, SearchConfig};
use rankcheck_stats::Probability;

use crate::cli::CheckArgs;
use crate::guarantee::confidence;
use crate::interrupt;
use crate::load::{load, Loaded};
use crate::plan::{instrumenter, plan_search, Plan, Skipped};
use crate::progress::SearchProgress;

/// One program checked: what was asked, what the preparatory runs saw,
/// the plan, and what the search did.
pub struct Checked<'a> {
    /// The command line.
    pub args: &'a CheckArgs,
    /// The program's path as given.
    pub path: &'a Path,
    /// The program, its preparatory runs, plan, bounds and run target.
    pub prepared: Prepared,
    /// What the search did.
    pub result: SearchResult,
    /// Its wall time in seconds.
    pub elapsed: f64,
    /// Whether a signal stopped it.
    pub interrupted: bool,
}

/// Everything a search needs before its first run: the program, the
/// preparatory runs, the plan and its bounds, and the run count.
pub struct Prepared {
    /// The program.
    pub loaded: Loaded,
    /// The master seed.
    pub seed: u64,
    /// Limits of each execution.
    pub limits: Limits,
    /// What the preparatory runs measured.
    pub profile: Profile,
    /// The alias analysis's instrumentation of a tracked set.
    pub instrumenter: Instrumenter,
    /// The strategy.
    pub plan: Plan,
    /// The settings the search rotates through (none for random).
    pub settings: Vec<PrioritySetting>,
    /// Settings asked for but not run.
    pub skipped: Vec<Skipped>,
    /// Each setting's per-run bound.
    pub bounds: Vec<Option<Probability>>,
    /// The runs to aim for (`u64::MAX` with a time budget).
    pub runs_target: u64,
    /// Whether `--max-runs` cut the count the confidence asked for.
    pub runs_capped: bool,
}

/// Load the program at `path`, run the preparatory runs and plan the
/// search `args` asks for (`rankcheck plot bound` stops here).
pub fn prepare(args: &CheckArgs, path: &Path) -> Result<Prepared> {
    let loaded = load(path, &args.options.define)?;
    let seed = args.options.seed.unwrap_or_else(fresh_seed);
    let limits = Limits {
        max_steps: args.options.max_steps,
        ..Limits::default()
    };
    // Preparatory runs: n, k and k_q, on their own seed stream.
    let all_tracked = Executable::new(
        loaded.program.clone(),
        &Instrumentation::all(&loaded.program),
    );
    let profile = profile(
        &all_tracked,
        args.options.profile_runs,
        run_seed(seed, u64::MAX),
        limits,
    );
    let instrumenter = instrumenter(&loaded.program);
    let (planned, skipped) = plan_search(args, &loaded.program, &profile)?;
    let PlannedSearch {
        plan,
        bounds,
        runs_target,
        runs_capped,
        ..
    } = planned;
    let settings = plan.settings().to_vec();
    Ok(Prepared {
        loaded,
        seed,
        limits,
        profile,
        instrumenter,
        plan,
        settings,
        skipped,
        bounds,
        runs_target,
        runs_capped,
    })
}

/// Check the program at `path`.
pub fn check_program<'a>(args: &'a CheckArgs, path: &'a Path) -> Result<Checked<'a>> {
    let prepared = prepare(args, path)?;
    let config = SearchConfig {
        first_run: 0,
        runs: prepared.runs_target,
        seed: prepared.seed,
        limits: prepared.limits,
        keep_going: args.keep_going,
        jobs: args.options.jobs(),
    };
    let executables = Executables::new(
        prepared.loaded.program.clone(),
        prepared.instrumenter.clone(),
    );
    let started = Instant::now();
    let result = search_with_progress(
        args,
        path,
        &prepared.plan,
        &executables,
        &prepared.bounds,
        &config,
    );
    let elapsed = started.elapsed().as_secs_f64();
    Ok(Checked {
        args,
        path,
        prepared,
        result,
        elapsed,
        interrupted: interrupt::requested(),
    })
}

/// Run the search with a progress line, stopping at the deadline or a
/// signal.
fn search_with_progress(
    args: &CheckArgs,
    path: &Path,
    plan: &Plan,
    executables: &Executables,
    bounds: &[Option<Probability>],
    config: &SearchConfig,
) -> SearchResult {
    let deadline = args.time.map(|t| Instant::now() + t);
    let total = (config.runs != u64::MAX).then_some(config.runs);
    let progress = SearchProgress::new(
        args.options.format,
        &path.display().to_string(),
        total,
        deadline,
    );
    // Called once per chunk of runs: cheap enough to update the line, with
    // the lowest confidence reached so far, and to look at the clock.
    let rotation = plan.rotation();
    let keep_running = |done: u64| {
        let lowest = bounds
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (i, b)))
            .map(|(i, b)| confidence(b, rotation.runs_of(Slot::Setting(i), 0, done)))
            .reduce(f64::min);
        progress.update(done, lowest);
        !interrupt::requested() && deadline.is_none_or(|d| Instant::now() < d)
    };
    let result = search_plan(plan, executables, config, &keep_running);
    progress.finish();
    result
}

/// A seed for a run that was given none: different every time, and printed.
fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    run_seed(nanos as u64, u64::from(std::process::id()))
}
