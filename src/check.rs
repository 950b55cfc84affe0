//! `rankcheck PROGRAM`: preparatory runs, the search, and the report of the
//! first failure or of what the clean runs proved.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rankcheck_engine::priority::AppliedChange;
use rankcheck_engine::profile::{profile, Profile};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::search::{run_seed, Failure};
use rankcheck_engine::strategy::{RunChoices, Strategy};
use rankcheck_engine::{
    search, Executable, Instrumentation, Limits, PriorityScheme, ReplayFile, SearchConfig,
    SearchResult, VarId,
};
use rankcheck_stats::{HitRate, Probability};
use serde::Serialize;

use crate::cli::{Format, TestArgs};
use crate::guarantee::{confidence, needed, per_run_bound, show, show_confidence};
use crate::load::{load, Loaded};
use crate::plan::{describe_selection, plan, scheme, var_count, Plan};
use crate::report::{failure_text, save_replay, trace, trace_with, FailureJson, TracedFailure};
use crate::trace_view::{observe, Observed};

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
        deadline.is_none_or(|d| Instant::now() < d)
    };
    let started = Instant::now();
    let result = match &plan {
        Plan::Random(strategy) => search(strategy, &config, &keep_running),
        Plan::Priority(strategy) => search(strategy.as_ref(), &config, &keep_running),
    };
    let elapsed = started.elapsed().as_secs_f64();
    progress.finish_and_clear();

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
        return Ok(ExitCode::SUCCESS);
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
            eprintln!("warning: {error:#}");
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
    Ok(ExitCode::from(1))
}

/// A failure with everything the report shows.
struct Found {
    failure: Failure,
    traced: TracedFailure,
    /// For a priority search: what the failing run tracked.
    choices: Option<RunChoices>,
    /// For a priority search: the change points that fired.
    changes: Vec<AppliedChange>,
    /// Found by the search rather than the preparatory runs.
    by_search: bool,
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

/// What the search did and what it proved, for the closing summary.
struct Summary {
    json: SummaryJson,
    scheme: PriorityScheme,
}

/// One (depth, variables) setting's guarantee.
#[derive(Debug, Serialize)]
struct SettingJson {
    depth: u32,
    /// `v`, or null for all variables.
    vars: Option<usize>,
    /// How the variables were chosen: `1 of 4`, `all`, `none`, names.
    tracking: String,
    runs: u64,
    /// Per-run lower bound on finding a bug of this depth over this many
    /// variables, or null where none is claimed.
    bound: Option<f64>,
    /// `ln` of the bound, exact where `bound` underflows.
    bound_ln: Option<f64>,
    /// Probability that the runs done would have found such a bug.
    confidence: Option<f64>,
    /// Runs the target confidence needs.
    runs_needed: Option<u64>,
}

/// The JSON object of `rankcheck PROGRAM --format json`. Fields are added,
/// never renamed (README, JSON output).
#[derive(Debug, Serialize)]
struct SummaryJson {
    program: String,
    strategy: String,
    priorities: String,
    seed: u64,
    runs: u64,
    failures: u64,
    elapsed_s: f64,
    executions_per_s: f64,
    /// The depth asked for (null when rotating through settings).
    depth: Option<u32>,
    /// The `--vars` asked for, as given (null when rotating).
    vars: Option<String>,
    /// The thread bound the guarantee is stated for.
    threads: u32,
    n: usize,
    k: u64,
    #[serde(rename = "Q")]
    q: usize,
    k_q: Vec<KqJson>,
    profile_runs: u64,
    target_confidence: f64,
    runs_capped: bool,
    settings: Vec<SettingJson>,
    /// The lowest confidence over the settings (the guarantee of the run as
    /// a whole), null if no setting claims one.
    confidence: Option<f64>,
    /// The setting's bound when there is exactly one.
    bound: Option<f64>,
    runs_needed: Option<u64>,
    hit_rate: Option<f64>,
    hit_rate_low: Option<f64>,
    hit_rate_high: Option<f64>,
    first_failure: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct KqJson {
    var: String,
    kind: String,
    k_q: u64,
    mean: f64,
    shared: bool,
}

/// What the report adds to a failure: the strategy's choices and the
/// bug's observed bounds.
#[derive(Debug, Serialize)]
struct FailureDetails {
    found_by: &'static str,
    depth: Option<u32>,
    chosen_vars: Vec<String>,
    change_points: Vec<ChangeJson>,
    observed: Observed,
}

#[derive(Debug, Serialize)]
struct ChangeJson {
    index: usize,
    access: u64,
    step: u64,
    thread: String,
    var: Option<String>,
}

impl FailureDetails {
    fn new(
        found: &Found,
        loaded: &Loaded,
        settings: &[rankcheck_engine::strategy::PrioritySetting],
        observed: Observed,
    ) -> FailureDetails {
        let program = &loaded.program;
        FailureDetails {
            found_by: if found.by_search {
                "search"
            } else {
                "preparatory"
            },
            depth: found.choices.as_ref().map(|c| settings[c.setting].depth),
            chosen_vars: found
                .choices
                .as_ref()
                .and_then(|c| c.vars.as_ref())
                .map(|vars| {
                    vars.iter()
                        .map(|v| program.vars[v.index()].name.clone())
                        .collect()
                })
                .unwrap_or_default(),
            change_points: found
                .changes
                .iter()
                .map(|c| ChangeJson {
                    index: c.index,
                    access: c.access,
                    step: c.step,
                    thread: found
                        .traced
                        .steps
                        .get((c.step as usize).wrapping_sub(1))
                        .map(|s| s.thread.clone())
                        .unwrap_or_default(),
                    var: c.var.map(|v| program.vars[v.index()].name.clone()),
                })
                .collect(),
            observed,
        }
    }
}

impl Summary {
    #[allow(clippy::too_many_arguments)]
    fn new(
        args: &TestArgs,
        path: &Path,
        loaded: &Loaded,
        profile: &Profile,
        settings: &[rankcheck_engine::strategy::PrioritySetting],
        bounds: &[Option<Probability>],
        result: &SearchResult,
        seed: u64,
        elapsed: f64,
        runs_capped: bool,
    ) -> Summary {
        let program = &loaded.program;
        let per_setting = |i: usize| {
            let s = settings.len() as u64;
            result.runs / s + u64::from((i as u64) < result.runs % s)
        };
        let settings_json: Vec<SettingJson> = settings
            .iter()
            .zip(bounds)
            .enumerate()
            .map(|(i, (setting, bound))| SettingJson {
                depth: setting.depth,
                vars: var_count(&setting.vars),
                tracking: describe_selection(program, &setting.vars),
                runs: per_setting(i),
                bound: bound.map(|b| b.value()),
                bound_ln: bound.map(|b| b.ln()),
                confidence: bound.map(|b| confidence(b, per_setting(i))),
                runs_needed: bound.and_then(|b| needed(b, args.confidence)),
            })
            .collect();
        let hit = if args.keep_going {
            HitRate::new(result.failures, result.runs).ok()
        } else {
            None
        };
        let interval = hit.and_then(|h| h.clopper_pearson(args.confidence).ok());
        let overall = settings_json
            .iter()
            .map(|s| s.confidence)
            .collect::<Option<Vec<f64>>>();
        let kq: Vec<KqJson> = profile
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| KqJson {
                var: program.vars[i].name.clone(),
                kind: program.vars[i].kind.describe().to_string(),
                k_q: v.max_accesses,
                mean: v.mean_accesses,
                shared: v.shared(),
            })
            .collect();
        let json = SummaryJson {
            program: path.display().to_string(),
            strategy: args.strategy.name().to_string(),
            priorities: scheme(args).name().to_string(),
            seed,
            runs: result.runs,
            failures: result.failures,
            elapsed_s: elapsed,
            executions_per_s: if elapsed > 0.0 {
                result.runs as f64 / elapsed
            } else {
                0.0
            },
            depth: args.depth,
            vars: args.vars.as_ref().map(ToString::to_string),
            threads: args.threads,
            n: profile.max_threads,
            k: profile.max_accesses,
            q: program.n_vars(),
            k_q: kq,
            profile_runs: profile.runs,
            target_confidence: args.confidence,
            runs_capped,
            confidence: overall
                .filter(|c| !c.is_empty())
                .map(|c| c.into_iter().fold(1.0, f64::min)),
            bound: if settings_json.len() == 1 {
                settings_json[0].bound
            } else {
                None
            },
            runs_needed: if settings_json.len() == 1 {
                settings_json[0].runs_needed
            } else {
                None
            },
            settings: settings_json,
            hit_rate: hit.map(|h| h.estimate()),
            hit_rate_low: interval.map(|i| i.lower),
            hit_rate_high: interval.map(|i| i.upper),
            first_failure: None,
        };
        let scheme = scheme(args);
        Summary { json, scheme }
    }

    fn json(mut self, failure: Option<(FailureJson, FailureDetails)>) -> SummaryJson {
        self.json.first_failure = failure.map(|(failure, details)| {
            let mut value = serde_json::to_value(failure).unwrap_or_default();
            if let (serde_json::Value::Object(map), Ok(serde_json::Value::Object(extra))) =
                (&mut value, serde_json::to_value(details))
            {
                map.extend(extra);
            }
            value
        });
        self.json
    }

    fn text(&self, failed: bool) -> String {
        summary_text(&self.json, self.scheme, failed)
    }
}

/// The closing summary: after a clean search, what it proved; after a
/// failure (`failed`), the same figures without the claim.
fn summary_text(json: &SummaryJson, scheme: PriorityScheme, failed: bool) -> String {
    use std::fmt::Write as _;
    let mut out = if failed {
        format!(
            "{} runs of {} ({:.0} runs/s), {} failed\n",
            json.runs, json.strategy, json.executions_per_s, json.failures
        )
    } else {
        format!(
            "no failure in {} runs of {} (strategy {}, seed {}, {:.2}s, {:.0} runs/s)\n",
            json.runs,
            json.program,
            json.strategy,
            json.seed,
            json.elapsed_s,
            json.executions_per_s
        )
    };
    let _ = writeln!(
        out,
        "n = {} threads, k = {} tracked accesses per run at most, Q = {} variables ({} preparatory runs)",
        json.n, json.k, json.q, json.profile_runs
    );
    let accessed: Vec<String> = json
        .k_q
        .iter()
        .filter(|v| v.k_q > 0)
        .map(|v| {
            format!(
                "{} {}{}",
                v.var,
                v.k_q,
                if v.shared { "" } else { " (one thread)" }
            )
        })
        .collect();
    if !accessed.is_empty() {
        let _ = writeln!(out, "k_q: {}", accessed.join(", "));
    }
    if scheme != PriorityScheme::Pct && !json.settings.is_empty() {
        let _ = writeln!(
            out,
            "thread-bounded priorities: no per-run bound is claimed (see Lemma 4.1 of the paper)"
        );
    }
    for s in &json.settings {
        let Some(bound) = s.bound_ln.and_then(|ln| Probability::from_ln(ln).ok()) else {
            continue;
        };
        let over = match s.vars {
            None => "any variables".to_string(),
            Some(0) => "no variable".to_string(),
            Some(1) => format!("1 variable ({})", s.tracking),
            Some(v) => format!("{v} variables ({})", s.tracking),
        };
        if failed {
            let _ = writeln!(
                out,
                "depth {} over {over}: each run finds such a bug with p >= {} ({} runs)",
                s.depth,
                show(bound),
                s.runs
            );
            continue;
        }
        let _ = writeln!(
            out,
            "no bug of depth {} over {over}, with probability >= {} ({} runs, each finding one with p >= {}{})",
            s.depth,
            show_confidence(bound, s.runs),
            s.runs,
            show(bound),
            s.runs_needed
                .map(|n| format!("; {n} runs reach {}", json.target_confidence))
                .unwrap_or_default()
        );
    }
    if let (Some(rate), Some(low), Some(high)) =
        (json.hit_rate, json.hit_rate_low, json.hit_rate_high)
    {
        let _ = writeln!(
            out,
            "measured hit rate {rate:.6} ({low:.6} to {high:.6} at {})",
            json.target_confidence
        );
    }
    if json.runs_capped {
        let _ = writeln!(
            out,
            "the run count was capped at --max-runs; the target confidence was not reached"
        );
    }
    out
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
/// variables as `id:name`.
pub fn tracking_line(program: &rankcheck_engine::Program, vars: Option<&[VarId]>) -> String {
    match vars {
        None => "all".into(),
        Some(vars) => {
            let list: Vec<String> = vars
                .iter()
                .map(|v| format!("{}:{}", v.0, program.vars[v.index()].name.replace(' ', "_")))
                .collect();
            format!("vars {}", list.join(" ")).trim_end().to_string()
        }
    }
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
        tracking: tracking_line(program, tracked),
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
