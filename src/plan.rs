//! Turning the command line and the preparatory runs into a search: which
//! strategy, which (depth, variables) settings, how many runs.

use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use rankcheck_engine::ir::Program;
use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::settings::{default_pool, pct_settings, pctvb_settings, VarsAsked};
use rankcheck_engine::strategy::{default_search, Instrumenter, PrioritySetting, VarSelection};
use rankcheck_engine::{PriorityScheme, PriorityStrategy, RandomStrategy, SamplingStrategy, VarId};
use rankcheck_instr::{PointsTo, Tracking};
use rankcheck_report::summary::describe_selection;

use crate::cli::{CheckArgs, PrioritiesArg, StrategyArg, VarsArg};

pub use rankcheck_engine::strategy::Plan;

/// The most runs a search aims for when `--max-runs` is not given and
/// steps are cheap.
pub const DEFAULT_MAX_RUNS: u64 = 1_000_000;

/// The steps (scheduling points, loop iterations and calls) a search aims
/// for at most when `--max-runs` is not given: a long program gets fewer
/// runs, so that a plain `rankcheck check` takes seconds on it, as on a
/// short one, instead of minutes: about 12 s of one core at the VM's 8
/// million steps a second (a 475-step program: 210,526 runs; 1,000,000
/// took two minutes on two busy cores). The cap depends on the seed's
/// preparatory runs alone, never on the clock, so a seed's result stays
/// the same on every machine.
pub const DEFAULT_STEP_BUDGET: u64 = 100_000_000;

/// The fewest runs the step budget leaves a search.
pub const DEFAULT_MIN_RUNS: u64 = 10_000;

/// The most runs a search's confidence target may ask for: `--max-runs`
/// as given, else [`DEFAULT_MAX_RUNS`], cut for a program whose longest
/// preparatory run took many steps to what [`DEFAULT_STEP_BUDGET`]
/// allows, but not below [`DEFAULT_MIN_RUNS`]. It only caps the count:
/// the summary states the guarantee the runs done earned and says when
/// the cap kept a setting from the target, as for any `--max-runs`.
pub fn max_runs(asked: Option<u64>, profile: &Profile) -> u64 {
    asked.unwrap_or_else(|| default_max_runs(profile.max_steps))
}

/// The default cap on runs of `steps` steps each.
fn default_max_runs(steps: u64) -> u64 {
    (DEFAULT_STEP_BUDGET / steps.max(1)).clamp(DEFAULT_MIN_RUNS, DEFAULT_MAX_RUNS)
}

/// A setting the flags asked for that is not run, and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// Its depth.
    pub depth: u32,
    /// Its variables, as reports name them.
    pub vars: String,
    /// Why it cannot do anything.
    pub reason: String,
}

/// The instrumentation every search, exploration and replay of `program`
/// uses for a set of tracked variables: the sites the alias analysis says
/// may touch them (issue 3). The analysis runs once, here.
pub fn instrumenter(program: &Program) -> Instrumenter {
    let points_to = Arc::new(PointsTo::analyze(program));
    Arc::new(move |program: &Program, vars: &[VarId]| {
        Tracking::Vars(vars.iter().copied().collect()).instrumentation(program, &points_to)
    })
}

/// The priority scheme the flags ask for.
pub fn scheme(args: &CheckArgs) -> PriorityScheme {
    match args.priorities {
        PrioritiesArg::Pct => PriorityScheme::Pct,
        PrioritiesArg::ThreadBounded => PriorityScheme::ThreadBounded,
    }
}

/// The variables of the program's mutexes and condition variables.
pub fn sync_vars(program: &Program) -> Vec<VarId> {
    program
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.kind.is_sync())
        .map(|(i, _)| VarId(i as u32))
        .collect()
}

/// Look variables up by the names reports use; `flag` is the option that
/// named them, for the error.
pub fn resolve_vars(program: &Program, names: &[String], flag: &str) -> Result<Vec<VarId>> {
    let mut vars = Vec::new();
    for name in names {
        match program.vars.iter().position(|v| v.name == *name) {
            Some(i) => vars.push(VarId(i as u32)),
            None => {
                let known: Vec<&str> = program.vars.iter().map(|v| v.name.as_str()).collect();
                bail!(
                    "{flag} {name}: the program has no variable `{name}` (it has {})",
                    known.join(", ")
                )
            }
        }
    }
    vars.sort_unstable();
    vars.dedup();
    Ok(vars)
}

/// The (depth, variables) settings a priority search rotates through.
pub fn settings(
    args: &CheckArgs,
    program: &Program,
    profile: &Profile,
) -> Result<Vec<PrioritySetting>> {
    let window = profile.max_accesses;
    let pool = if args.track.is_empty() {
        default_pool(profile, program.n_vars())
    } else {
        resolve_vars(program, &args.track, "--track")?
    };
    if args.strategy() == StrategyArg::Pct {
        if matches!(args.vars, Some(VarsArg::Count(_))) || !args.track.is_empty() {
            bail!(
                "--strategy pct tracks every variable; use --strategy pctvb with --vars or --track"
            );
        }
        return Ok(pct_settings(args.depth, window));
    }
    let vars = match &args.vars {
        None => VarsAsked::Unset,
        Some(VarsArg::Count(v)) => VarsAsked::Count(*v),
        Some(VarsArg::All) => VarsAsked::Selection(VarSelection::All { window }),
        Some(VarsArg::Sync) => VarsAsked::Selection(VarSelection::Fixed(sync_vars(program))),
        Some(VarsArg::None) => VarsAsked::Selection(VarSelection::Fixed(Vec::new())),
    };
    pctvb_settings(args.depth, vars, &pool, !args.track.is_empty())
        .map_err(|e| anyhow!("--vars {}: {e}", e.asked))
}

/// Set aside the settings that cannot do anything: a depth above 1 whose
/// variables saw no tracked access in the preparatory runs has nowhere to
/// place a change point, so its runs would be depth-1 runs.
fn runnable(
    settings: Vec<PrioritySetting>,
    program: &Program,
    profile: &Profile,
) -> (Vec<PrioritySetting>, Vec<Skipped>) {
    let bounds = profile.access_bounds();
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for setting in settings {
        let window = match &setting.vars {
            VarSelection::All { window } => *window,
            VarSelection::Fixed(vars) => vars.iter().map(|v| bounds[v.index()]).sum(),
            VarSelection::Drawn { pool, count } => {
                // The largest window a draw can have: its most accessed
                // variables.
                let mut k: Vec<u64> = pool.iter().map(|v| bounds[v.index()]).collect();
                k.sort_unstable_by(|a, b| b.cmp(a));
                k.iter().take(*count).sum()
            }
        };
        if setting.depth > 1 && window == 0 {
            let reason = match &setting.vars {
                VarSelection::Fixed(vars) if vars.is_empty() => {
                    "it tracks no variable, so no change point can be placed".to_string()
                }
                _ => "the preparatory runs saw no access to its variables, so no change point can be placed".to_string(),
            };
            skipped.push(Skipped {
                depth: setting.depth,
                vars: describe_selection(program, &setting.vars),
                reason,
            });
        } else {
            kept.push(setting);
        }
    }
    (kept, skipped)
}

/// Build the strategy the flags ask for, with the settings set aside.
pub fn plan(
    args: &CheckArgs,
    program: &Arc<Program>,
    profile: &Profile,
) -> Result<(Plan, Vec<Skipped>)> {
    let strategy = args.strategy();
    let asks_settings = args.depth.is_some() || args.vars.is_some() || !args.track.is_empty();
    if asks_settings && !strategy.takes_settings() {
        let why = if strategy == StrategyArg::Portfolio {
            "it runs its own settings; --strategy pctvb takes them"
        } else {
            "it tracks everything"
        };
        bail!(
            "--strategy {} takes no --depth, --vars or --track: {why}",
            strategy.name()
        );
    }
    if let Some(sampling) = strategy.sampling() {
        let sampling = SamplingStrategy::new(sampling, profile);
        return Ok((Plan::Sampling(Box::new(sampling)), Vec::new()));
    }
    match strategy {
        StrategyArg::Random => Ok((Plan::Random(RandomStrategy::new()), Vec::new())),
        StrategyArg::Portfolio => {
            let (settings, skipped) = runnable(default_search::settings(profile), program, profile);
            let priority = priority_strategy(args, profile, settings);
            let portfolio = default_search::portfolio(priority, profile);
            Ok((Plan::Portfolio(Box::new(portfolio)), skipped))
        }
        _ => {
            let (settings, skipped) = runnable(settings(args, program, profile)?, program, profile);
            if settings.is_empty() {
                let reasons: Vec<String> = skipped
                    .iter()
                    .map(|s| format!("depth {} over {}: {}", s.depth, s.vars, s.reason))
                    .collect();
                bail!("nothing to run: {}", reasons.join("; "));
            }
            let priority = priority_strategy(args, profile, settings);
            Ok((Plan::Priority(Box::new(priority)), skipped))
        }
    }
}

/// The priority search over `settings`.
fn priority_strategy(
    args: &CheckArgs,
    profile: &Profile,
    settings: Vec<PrioritySetting>,
) -> PriorityStrategy {
    PriorityStrategy::new(
        scheme(args),
        profile.max_threads,
        profile.access_bounds(),
        settings,
    )
}

/// The names of `vars`, comma-separated.
pub fn names(program: &Program, vars: &[VarId]) -> String {
    vars.iter()
        .map(|v| program.vars[v.index()].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_programs_get_fewer_runs_by_default() {
        // Short programs keep the million runs.
        assert_eq!(default_max_runs(40), DEFAULT_MAX_RUNS);
        assert_eq!(default_max_runs(0), DEFAULT_MAX_RUNS);
        // A 500-step program: the step budget over 500.
        assert_eq!(default_max_runs(500), DEFAULT_STEP_BUDGET / 500);
        // A very long one still gets the minimum.
        assert_eq!(default_max_runs(u64::MAX), DEFAULT_MIN_RUNS);
    }
}
