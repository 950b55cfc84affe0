//! `rankcheck PROGRAM`: preparatory runs, the search, and the report of the
//! first failure or of what the clean runs proved.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rankcheck_engine::priority::AppliedChange;
use rankcheck_engine::profile::profile;
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::search::{run_seed, Failure};
use rankcheck_engine::strategy::{RunChoices, Strategy};
use rankcheck_engine::{
    search, Executable, InstanceKey, Instrumentation, Limits, ReplayFile, SearchConfig, VarId,
};
use rankcheck_stats::Probability;

use crate::cli::{Format, TestArgs};
use crate::exit::Status;
use crate::guarantee::{confidence, needed, per_run_bound};
use crate::interrupt;
use crate::load::{load, Loaded};
use crate::plan::{plan, scheme, Plan};
use crate::report::{failure_text, save_replay, trace, trace_with, FailureJson, TracedFailure};
use crate::summary::{FailureDetails, Summary};
use crate::trace_view::observe;

/// Runs when neither --runs nor --time is given and no bound sets a count
/// (the random strategy).
const DEFAULT_RUNS: u64 = 10_000;

/// Run the search `args` describes.
pub fn check(args: &TestArgs) -> Result<ExitCode> {
    let common = &args.common;
    let Some(path) = common.program.as_deref() else {
        anyhow::bail!("no program given")
    };
    let loaded = load(path, &common.define)?;
    let program = loaded.program.clone();
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let limits = Limits {
        max_steps: common.max_steps,
        ..Limits::default()
    };

    // Preparatory runs: n, k and k_q, on their own seed stream.
    let all_tracked = Executable::new(program.clone(), &Instrumentation::all(&program));
    let profile = profile(
        &all_tracked,
        common.profile_runs,
        run_seed(seed, u64::MAX),
        limits,
    );
    let plan = plan(args, &program, &profile)?;
    let scheme = scheme(args);
    let settings = match &plan {
        Plan::Random(_) => Vec::new(),
        Plan::Priority(strategy) => strategy.settings().to_vec(),
    };
    let bounds: Vec<Option<Probability>> = settings
        .iter()
        .map(|s| per_run_bound(s, scheme, &profile))
        .collect();

    let (runs, runs_capped) = match (args.runs, args.time) {
        (Some(runs), _) => (runs, false),
        (None, Some(_)) => (u64::MAX, false),
        (None, None) if settings.is_empty() => (DEFAULT_RUNS, false),
        (None, None) => {
            // Runs rotate through the settings: each needs its own count.
            let most = bounds
                .iter()
                .map(|b| {
                    b.and_then(|b| needed(b, args.confidence))
                        .unwrap_or(u64::MAX)
                })
                .max()
                .unwrap_or(DEFAULT_RUNS);
            let total = most.saturating_mul(settings.len() as u64);
            (total.min(args.max_runs), total > args.max_runs)
        }
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let config = SearchConfig {
        runs,
        seed,
        limits,
        keep_going: args.keep_going,
        jobs,
    };

    let progress = progress_bar(runs, common.format);
    let deadline = args.time.map(|t| Instant::now() + t);
    // Called once per chunk of runs: cheap enough to update the bar, with
    // the lowest confidence reached so far, and to look at the clock.
    let keep_running = |done: u64| {
        progress.set_position(done);
        let per_setting = done / bounds.len().max(1) as u64;
        let lowest = bounds
            .iter()
            .flatten()
            .map(|&b| confidence(b, per_setting))
            .reduce(f64::min);
        if let Some(lowest) = lowest {
            progress.set_message(format!("confidence {lowest:.4}"));
        }
        !interrupt::requested() && deadline.is_none_or(|d| Instant::now() < d)
    };
    let started = Instant::now();
    let result = match &plan {
        Plan::Random(strategy) => search(strategy, &config, &keep_running),
        Plan::Priority(strategy) => search(strategy.as_ref(), &config, &keep_running),
    };
    let elapsed = started.elapsed().as_secs_f64();
    progress.finish_and_clear();
    let interrupted = interrupt::requested();

    let summary = Summary::new(
        args,
        path,
        &loaded,
        &profile,
        &settings,
        &bounds,
        &result,
        seed,
        elapsed,
        runs_capped,
        interrupted,
    );
    let found = match (&result.first_failure, &profile.failure) {
        (Some(failure), _) => Some(reproduce(&plan, failure, limits, &loaded, true)?),
        (None, Some(failure)) => {
            let traced = trace(&all_tracked, limits, &failure.schedule, &loaded.file)
                .map_err(|_| anyhow::anyhow!("internal error: a preparatory run did not replay"))?;
            Some(Found {
                failure: failure.clone(),
                traced,
                choices: None,
                changes: Vec::new(),
                by_search: false,
            })
        }
        (None, None) => None,
    };
    let Some(found) = found else {
        match common.format {
            Format::Json => outln!("{}", serde_json::to_string_pretty(&summary.json(None))?),
            Format::Human => out!("{}", summary.text(false)),
        }
        let status = if interrupted {
            Status::Incomplete
        } else {
            Status::Clean
        };
        return Ok(status.into());
    };

    let strategy_name = if found.by_search {
        args.strategy.name()
    } else {
        "random"
    };
    let replay = write_replay(args, path, &loaded, seed, &found, strategy_name);
    let replay_path = match &replay {
        Ok(p) => Some(p.display().to_string()),
        Err(error) => {
            errln!("warning: {error:#}");
            None
        }
    };
    let observed = observe(&found.traced.steps);
    match common.format {
        Format::Json => {
            let failure =
                FailureJson::new(found.failure.run, &found.traced, &loaded.file, replay_path);
            let details = FailureDetails::new(&found, &loaded, &settings, observed);
            outln!(
                "{}",
                serde_json::to_string_pretty(&summary.json(Some((failure, details))))?
            );
        }
        Format::Human => {
            out!("{}", failure_text(&found.traced, &loaded.file));
            outln!(
                "\nthe interleaving took {} preemption{} at {}, among {} threads",
                observed.preemptions,
                if observed.preemptions == 1 { "" } else { "s" },
                if observed.variables.is_empty() {
                    "no variable".to_string()
                } else {
                    observed.variables.join(", ")
                },
                observed.threads
            );
            if let Some(choices) = &found.choices {
                let setting = &settings[choices.setting];
                let tracked = match &choices.vars {
                    None => "all variables".to_string(),
                    Some(vars) if vars.is_empty() => "no variable".to_string(),
                    Some(vars) => vars
                        .iter()
                        .map(|v| {
                            format!(
                                "{} (k_q = {})",
                                program.vars[v.index()].name,
                                profile.vars[v.index()].max_accesses
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                outln!(
                    "depth {} run tracking {tracked}; change points: {}",
                    setting.depth,
                    describe_changes(&found, &loaded)
                );
            }
            if found.by_search {
                outln!(
                    "\nfound in run {} of {} (strategy {}, seed {seed}, {:.2}s){}",
                    found.failure.run,
                    if runs == u64::MAX {
                        "unlimited".to_string()
                    } else {
                        runs.to_string()
                    },
                    strategy_name,
                    elapsed,
                    if args.keep_going {
                        format!("; {} of {} runs failed", result.failures, result.runs)
                    } else {
                        String::new()
                    }
                );
            } else {
                outln!(
                    "\nfound by preparatory random run {} (seed {seed}); the {} search's {} runs did not fail",
                    found.failure.run,
                    args.strategy.name(),
                    result.runs
                );
            }
            if let Ok(p) = &replay {
                outln!("replay: rankcheck replay {}", p.display());
            }
            out!("\n{}", summary.text(true));
        }
    }
    Ok(Status::Failure.into())
}

/// A failure with everything the report shows.
pub struct Found {
    /// The failing run.
    pub failure: Failure,
    /// Its trace.
    pub traced: TracedFailure,
    /// For a priority search: what the failing run tracked.
    pub choices: Option<RunChoices>,
    /// For a priority search: the change points that fired.
    pub changes: Vec<AppliedChange>,
    /// Found by the search rather than the preparatory runs.
    pub by_search: bool,
}

/// Run the failing run again under its own strategy, with a trace, to see
/// what it tracked and where it changed priorities.
fn reproduce(
    plan: &Plan,
    failure: &Failure,
    limits: Limits,
    loaded: &Loaded,
    by_search: bool,
) -> Result<Found> {
    let run = failure.run - 1;
    let broken = || {
        anyhow::anyhow!(
            "internal error: run {} did not fail again under its own seed",
            failure.run
        )
    };
    match plan {
        Plan::Random(strategy) => {
            let mut strategy = strategy.clone();
            let (exe, scheduler) = strategy.prepare(run, failure.run_seed);
            let (traced, _) =
                trace_with(exe, limits, scheduler, &loaded.file).map_err(|_| broken())?;
            Ok(Found {
                failure: failure.clone(),
                traced,
                choices: None,
                changes: Vec::new(),
                by_search,
            })
        }
        Plan::Priority(strategy) => {
            let choices = strategy.choices(run, failure.run_seed);
            let mut strategy = strategy.clone();
            let (exe, scheduler) = strategy.prepare(run, failure.run_seed);
            let (traced, scheduler) =
                trace_with(exe, limits, scheduler, &loaded.file).map_err(|_| broken())?;
            Ok(Found {
                failure: failure.clone(),
                traced,
                choices: Some(choices),
                changes: scheduler.applied().to_vec(),
                by_search,
            })
        }
    }
}

fn describe_changes(found: &Found, loaded: &Loaded) -> String {
    if found.changes.is_empty() {
        return "none fired".into();
    }
    let program = &loaded.program;
    found
        .changes
        .iter()
        .map(|c| {
            format!(
                "#{} after tracked access {} (step {}, thread {}{})",
                c.index,
                c.access,
                c.step,
                found
                    .traced
                    .steps
                    .get((c.step as usize).wrapping_sub(1))
                    .map_or("?", |s| s.thread.as_str()),
                c.var
                    .map(|v| format!(", {}", program.vars[v.index()].name))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A seed for a run that was given none: different every time, and printed.
fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    run_seed(nanos as u64, u64::from(std::process::id()))
}

fn progress_bar(runs: u64, format: Format) -> ProgressBar {
    if format == Format::Json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let length = (runs != u64::MAX).then_some(runs);
    let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {per_sec} ({eta} left) {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// The `tracking` line of a replay file: `all`, or `vars` and the tracked
/// variables as `id:name`, then `instances` and tracked heap instances as
/// `var:context:index` (context in hex).
pub fn tracking_line(
    program: &rankcheck_engine::Program,
    vars: Option<&[VarId]>,
    instances: &[InstanceKey],
) -> String {
    let Some(vars) = vars else {
        return "all".into();
    };
    let mut line = String::from("vars");
    for v in vars {
        line.push_str(&format!(
            " {}:{}",
            v.0,
            program.vars[v.index()].name.replace(' ', "_")
        ));
    }
    if !instances.is_empty() {
        line.push_str(" instances");
        for key in instances {
            line.push_str(&format!(" {}:{:x}:{}", key.var.0, key.context, key.index));
        }
    }
    line
}

/// Write the failure's replay file into the replay directory.
fn write_replay(
    args: &TestArgs,
    path: &Path,
    loaded: &Loaded,
    seed: u64,
    found: &Found,
    strategy: &str,
) -> Result<PathBuf> {
    let program = &loaded.program;
    let tracked = found.choices.as_ref().and_then(|c| c.vars.as_deref());
    let file = ReplayFile {
        program: path.display().to_string(),
        fingerprint: fingerprint(loaded.file.source(), &args.common.define),
        defines: args.common.define.clone(),
        strategy: strategy.to_string(),
        tracking: tracking_line(program, tracked, &[]),
        seed,
        run: found.failure.run,
        max_steps: args.common.max_steps,
        kind: found.failure.bug.kind.name().to_string(),
        schedule: found.failure.schedule.clone(),
    };
    save_replay(
        &args.replay_dir,
        path,
        &file,
        &format!("seed{seed}-run{}", found.failure.run),
    )
}
