//! Turning the command line and the preparatory runs into a search: which
//! strategy, which (depth, variables) settings, how many runs.

use std::sync::Arc;

use anyhow::{anyhow, bail, Result};
use rankcheck_engine::guarantee::RunsAsked;
use rankcheck_engine::ir::Program;
use rankcheck_engine::profile::Profile;
use rankcheck_engine::strategy::planning::{
    self, Asked, PlanError, PlannedSearch, SkippedSetting, Variables, VarsOption,
};
use rankcheck_engine::strategy::Instrumenter;
use rankcheck_engine::{PriorityScheme, VarId};
use rankcheck_instr::{PointsTo, Tracking};
use rankcheck_report::summary::describe_selection;

use crate::cli::{CheckArgs, PrioritiesArg, VarsArg};

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

/// The flags in the engine's planning terms (`rankcheck_engine::
/// strategy::planning`, which rt calls too: the same options plan the same
/// search); `--track` names resolved against the program.
fn asked(args: &CheckArgs, program: &Program) -> Result<Asked> {
    let pool = if args.track.is_empty() {
        None
    } else {
        Some(resolve_vars(program, &args.track, "--track")?)
    };
    Ok(Asked {
        strategy: args.strategy().registered(),
        depth: args.depth,
        vars: args.vars.as_ref().map(|vars| match vars {
            VarsArg::Count(v) => VarsOption::Count(*v),
            VarsArg::All => VarsOption::All,
            VarsArg::Sync => VarsOption::Sync,
            VarsArg::None => VarsOption::None,
        }),
        pool,
        scheme: scheme(args),
        spin_yields: None,
    })
}

/// Why the flags cannot be planned, in the flags' words.
fn refusal(args: &CheckArgs, program: &Program, error: PlanError) -> anyhow::Error {
    let strategy = args.strategy();
    match error {
        PlanError::TakesNoSettings(_) => {
            // A strategy with a bound but no settings of the user's runs
            // settings of its own (the portfolio).
            let why = if strategy.claims_bound() {
                "it runs its own settings; --strategy pctvb takes them"
            } else {
                "it tracks everything"
            };
            anyhow!(
                "--strategy {} takes no --depth, --vars or --track: {why}",
                strategy.name()
            )
        }
        PlanError::PctTracksAll => anyhow!(
            "--strategy pct tracks every variable; use --strategy pctvb with --vars or --track"
        ),
        PlanError::TooManyVars(too_many) => anyhow!("--vars {}: {too_many}", too_many.asked),
        PlanError::NoSetting => anyhow!("nothing to run: the flags ask for no setting"),
        PlanError::NothingToRun(skipped) => {
            let reasons: Vec<String> = skipped
                .iter()
                .map(|s| {
                    let vars = describe_selection(program, &s.setting.vars);
                    format!(
                        "depth {} over {vars}: {}",
                        s.setting.depth,
                        s.reason.describe()
                    )
                })
                .collect();
            anyhow!("nothing to run: {}", reasons.join("; "))
        }
    }
}

/// Build the strategy the flags ask for, with the settings set aside.
pub fn plan(
    args: &CheckArgs,
    program: &Arc<Program>,
    profile: &Profile,
) -> Result<(Plan, Vec<Skipped>)> {
    let sync = sync_vars(program);
    let variables = Variables {
        count: program.n_vars(),
        sync: &sync,
    };
    let planned = planning::plan(&asked(args, program)?, profile, variables)
        .map_err(|error| refusal(args, program, error))?;
    Ok((planned.plan, skipped(program, planned.skipped)))
}

/// The search the flags ask for, after the preparatory runs' `profile`:
/// its strategy, per-run bounds and runs (as rt's `plan::plan_search`,
/// through the same engine call), with the settings set aside.
pub fn plan_search(
    args: &CheckArgs,
    program: &Arc<Program>,
    profile: &Profile,
) -> Result<(PlannedSearch, Vec<Skipped>)> {
    let sync = sync_vars(program);
    let variables = Variables {
        count: program.n_vars(),
        sync: &sync,
    };
    let runs = RunsAsked {
        runs: args.runs,
        timed: args.time.is_some(),
        confidence: args.confidence,
        max_runs: max_runs(args.max_runs, profile),
    };
    // `.rk` programs are sequentially consistent: a bound stands as it is.
    let mut planned =
        planning::plan_search(&asked(args, program)?, profile, variables, &runs, |b, _| b)
            .map_err(|error| refusal(args, program, error))?;
    let skipped = skipped(program, std::mem::take(&mut planned.skipped));
    Ok((planned, skipped))
}

/// The settings set aside, in the report's words.
fn skipped(program: &Program, skipped: Vec<SkippedSetting>) -> Vec<Skipped> {
    skipped
        .into_iter()
        .map(|s| Skipped {
            depth: s.setting.depth,
            vars: describe_selection(program, &s.setting.vars),
            reason: s.reason.describe().to_string(),
        })
        .collect()
}

/// The names of `vars`, comma-separated.
pub fn names(program: &Program, vars: &[VarId]) -> String {
    vars.iter()
        .map(|v| program.vars[v.index()].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "plan_agree.rs"]
mod agree;

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
