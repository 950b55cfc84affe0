//! `rankcheck explore` and `rankcheck classify`: exhaustive,
//! preemption-bounded search with variable and thread bounding (the
//! paper's Algorithm 1), and the minimal (c, v, t) of a bug.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use rankcheck_engine::explore::{
    combinations, explore_sets as explore_each, fails_with, priority_orders, ranked_vars,
    thread_bound, ExploreConfig, Explored, FoundBug, Order,
};
use rankcheck_engine::profile::{accessed_vars, profile, Profile};
use rankcheck_engine::replay_file::fingerprint;
use rankcheck_engine::strategy::Instrumenter;
use rankcheck_engine::{
    Executable, InstanceKey, Instrumentation, Limits, Program, ReplayFile, VarId,
};
use rankcheck_stats::{runs_for_thread_coverage, LemmaForm, RunCount};
use serde::Serialize;

use crate::check::tracking_line;
use crate::cli::{ClassifyArgs, ExhaustiveArgs, ExploreArgs, Format, VarsArg};
use crate::load::{load, Loaded};
use crate::plan::{instrumenter, sync_vars};
use crate::report::{failure_text, save_replay, trace, FailureJson};

/// The miss probability sampled priority orders are drawn for.
const ORDER_EPSILON: f64 = 0.01;

/// The priority orders of an exploration.
struct Orders {
    orders: Vec<Order>,
    /// `None` when every order is enumerated; otherwise the `epsilon` of
    /// Lemma 4.1 the sample was drawn for.
    epsilon: Option<f64>,
}

/// Every order of `n + c` fragments when there are few enough, else enough
/// random ones to cover every order of `t` threads with probability
/// `1 - epsilon` (Lemma 4.1 as PAPER.md states it).
fn orders(n: usize, c: u32, t: u32, seed: u64) -> Orders {
    let sampled =
        || match runs_for_thread_coverage(LemmaForm::Summary, n as u64, c, t, ORDER_EPSILON) {
            Ok(RunCount::Finite(count)) => count.min(100_000) as usize,
            _ => 100_000,
        };
    let (orders, enumerated) = priority_orders(n, c, sampled, seed);
    Orders {
        orders,
        epsilon: (!enumerated).then_some(ORDER_EPSILON),
    }
}

/// What one exploration tracks: variables (`None`: every one) and, for
/// allocation sites split by instance, the instances.
#[derive(Clone, Debug)]
struct TrackSet {
    vars: Option<Vec<VarId>>,
    instances: Vec<InstanceKey>,
    /// The names of its units, as reports show them.
    names: Vec<String>,
}

/// One thing a variable set may hold: a variable, or a heap instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Var(VarId),
    Instance(InstanceKey),
}

/// How reports name an instance: `push:new@8#1`, with the call stack's
/// hash when the site allocates from several.
fn instance_name(program: &Program, profile: &Profile, key: &InstanceKey) -> String {
    let site = &program.vars[key.var.index()].name;
    let contexts: BTreeSet<u64> = profile
        .instances
        .iter()
        .filter(|k| k.var == key.var)
        .map(|k| k.context)
        .collect();
    if contexts.len() > 1 {
        format!("{site}#{}@{:04x}", key.index, key.context & 0xffff)
    } else {
        format!("{site}#{}", key.index)
    }
}

/// The sets to explore for `vars`: every `v`-subset of the variables, those
/// the preparatory runs saw shared ranked first. With `loop_bound` L > 0,
/// allocation sites are split into their instances of index below L (the
/// first L objects each site and call stack makes), ranked by index.
fn var_sets(
    program: &Program,
    profile: &Profile,
    vars: &VarsArg,
    loop_bound: u32,
) -> Result<Vec<TrackSet>> {
    let whole = |vars: Option<Vec<VarId>>| {
        let names = vars.as_ref().map_or_else(
            || vec!["every variable".to_string()],
            |vars| {
                vars.iter()
                    .map(|v| program.vars[v.index()].name.clone())
                    .collect()
            },
        );
        TrackSet {
            vars,
            instances: Vec::new(),
            names,
        }
    };
    Ok(match vars {
        VarsArg::All => vec![whole(None)],
        VarsArg::Sync => vec![whole(Some(sync_vars(program)))],
        VarsArg::None => vec![whole(Some(Vec::new()))],
        VarsArg::Count(v) => {
            let ranked = ranked_vars(profile);
            let mut units: Vec<Unit> = Vec::new();
            for &var in &ranked {
                let site = program.vars[var.index()].kind.is_allocation_site();
                if !(site && loop_bound > 0) {
                    units.push(Unit::Var(var));
                }
            }
            if loop_bound > 0 {
                units.extend(
                    profile
                        .instances
                        .iter()
                        .filter(|k| k.index < loop_bound && ranked.contains(&k.var))
                        .map(|&k| Unit::Instance(k)),
                );
            }
            if *v > units.len() {
                anyhow::bail!(
                    "--vars {v}: the preparatory runs accessed only {} variables",
                    units.len()
                );
            }
            combinations(&units, *v)
                .into_iter()
                .map(|subset| {
                    let mut vars: Vec<VarId> = subset
                        .iter()
                        .map(|u| match u {
                            Unit::Var(v) => *v,
                            Unit::Instance(k) => k.var,
                        })
                        .collect();
                    vars.sort_unstable();
                    vars.dedup();
                    let instances = subset
                        .iter()
                        .filter_map(|u| {
                            if let Unit::Instance(k) = u {
                                Some(*k)
                            } else {
                                None
                            }
                        })
                        .collect();
                    let names = subset
                        .iter()
                        .map(|u| match u {
                            Unit::Var(v) => program.vars[v.index()].name.clone(),
                            Unit::Instance(k) => instance_name(program, profile, k),
                        })
                        .collect();
                    TrackSet {
                        vars: Some(vars),
                        instances,
                        names,
                    }
                })
                .collect()
        }
    })
}

/// A program with its profile, ready to explore.
struct Subject {
    loaded: Loaded,
    profile: Profile,
    limits: Limits,
    instrumenter: Instrumenter,
}

fn subject(args: &ExhaustiveArgs) -> Result<(Subject, &Path)> {
    let common = &args.common;
    let Some(path) = common.program.as_deref() else {
        anyhow::bail!("no program given")
    };
    let loaded = load(path, &common.define)?;
    let limits = Limits {
        max_steps: common.max_steps,
        ..Limits::default()
    };
    let all = Executable::new(
        loaded.program.clone(),
        &Instrumentation::all(&loaded.program),
    );
    let profile = profile(&all, common.profile_runs, args.seed, limits);
    let instrumenter = instrumenter(&loaded.program);
    Ok((
        Subject {
            loaded,
            profile,
            limits,
            instrumenter,
        },
        path,
    ))
}

fn executable(subject: &Subject, set: &TrackSet) -> Executable {
    let program = &subject.loaded.program;
    let instrumentation = match &set.vars {
        None => Instrumentation::all(program),
        Some(vars) => (subject.instrumenter)(program, vars),
    };
    Executable::with_instances(program.clone(), &instrumentation, &set.instances)
}

/// Totals over the variable sets explored.
#[derive(Default)]
struct Totals {
    schedules: u64,
    schedules_to_first_bug: Option<u64>,
    pruned: u64,
    exhausted: bool,
}

/// Explore every variable set in turn until a bug appears; `totals` gets
/// what the sets took.
fn explore_sets(
    subject: &Subject,
    sets: &[TrackSet],
    orders: &[Order],
    config: &ExploreConfig,
    totals: &mut Totals,
) -> Option<(TrackSet, Explored)> {
    let result = explore_each(
        sets.len(),
        |i| executable(subject, &sets[i]),
        orders,
        config,
    );
    *totals = Totals {
        schedules: result.schedules,
        schedules_to_first_bug: result.schedules_to_first_bug,
        pruned: result.pruned,
        exhausted: result.exhausted,
    };
    result
        .failing
        .map(|(index, explored)| (sets[index].clone(), explored))
}

/// The JSON of `explore` and `classify`.
#[derive(Serialize)]
struct ExploreJson {
    program: String,
    preemptions: u32,
    vars: String,
    threads: Option<u32>,
    n: usize,
    #[serde(rename = "Q")]
    q: usize,
    orders: usize,
    orders_epsilon: Option<f64>,
    prune: bool,
    schedules: u64,
    schedules_to_first_bug: Option<u64>,
    pruned: u64,
    exhausted: bool,
    elapsed_s: f64,
    schedules_per_s: f64,
    c: Option<usize>,
    v: Option<usize>,
    t: Option<usize>,
    kind: Option<String>,
    line: Option<usize>,
    replay: Option<String>,
    tracked: Option<Vec<String>>,
    bug: Option<FailureJson>,
}

/// `rankcheck explore`.
pub fn explore(args: &ExploreArgs) -> Result<ExitCode> {
    let (subject, path) = subject(&args.exhaustive)?;
    let program = subject.loaded.program.clone();
    let n = subject.profile.max_threads;
    let orders = orders(n, args.preemptions, args.threads, args.exhaustive.seed);
    let sets = var_sets(&program, &subject.profile, &args.vars, args.loop_bound)?;
    let config = config(&args.exhaustive, &subject, args.preemptions, false);
    let started = Instant::now();
    let mut totals = Totals::default();
    let found = explore_sets(&subject, &sets, &orders.orders, &config, &mut totals);
    let elapsed = started.elapsed().as_secs_f64();
    let mut json = base_json(
        path,
        &subject,
        &args.vars.to_string(),
        args.preemptions,
        &orders,
        &config,
        &totals,
        elapsed,
    );
    json.threads = Some(args.threads);
    let Some((vars, explored)) = found else {
        emit(&json, args.exhaustive.common.format, || proved_text(&json))?;
        return Ok(ExitCode::SUCCESS);
    };
    let bug = &explored.bugs[0];
    // The thread bound needs every order: only enumerated orders give one.
    let t = if orders.epsilon.is_none() {
        let exe = executable(&subject, &vars);
        thread_bound(&orders.orders, bug.preemptions.len(), &|order: &Order| {
            fails_with(&exe, &config, order, &bug.preemptions)
        })
    } else {
        None
    };
    report_bug(
        args.exhaustive.common.format,
        &args.exhaustive,
        path,
        &subject,
        &vars,
        bug,
        t,
        json,
    )
}

/// `rankcheck classify`.
pub fn classify(args: &ClassifyArgs) -> Result<ExitCode> {
    let (subject, path) = subject(&args.exhaustive)?;
    let program = subject.loaded.program.clone();
    let n = subject.profile.max_threads;
    let accessed = accessed_vars(&subject.profile).len();
    let started = Instant::now();
    let mut totals = Totals::default();
    let mut steps: Vec<(u32, usize)> = vec![(0, 0)];
    for c in 1..=args.max_preemptions {
        steps.extend((1..=(c as usize).min(accessed)).map(|v| (c, v)));
    }
    let mut last = None;
    for (c, v) in steps {
        let orders = orders(n, c, (n as u32).max(2), args.exhaustive.seed);
        let sets = var_sets(&program, &subject.profile, &VarsArg::Count(v), 0)?;
        let config = config(&args.exhaustive, &subject, c, true);
        let mut round = Totals::default();
        let found = explore_sets(&subject, &sets, &orders.orders, &config, &mut round);
        totals.schedules += round.schedules;
        totals.pruned += round.pruned;
        if let Some(first) = round.schedules_to_first_bug {
            totals.schedules_to_first_bug = Some(totals.schedules - round.schedules + first);
        }
        if let Some((vars, explored)) = found {
            let exe = executable(&subject, &vars);
            // The thread bound needs every order: only enumerated orders
            // give one.
            let t = orders.epsilon.is_none().then(|| {
                let mut distinct: Vec<&Vec<u64>> =
                    explored.bugs.iter().map(|b| &b.preemptions).collect();
                distinct.sort();
                distinct.dedup();
                distinct
                    .into_iter()
                    .filter_map(|at| {
                        thread_bound(&orders.orders, c as usize, &|order: &Order| {
                            fails_with(&exe, &config, order, at)
                        })
                    })
                    .min()
            });
            let elapsed = started.elapsed().as_secs_f64();
            totals.exhausted = false;
            let json = base_json(
                path,
                &subject,
                &v.to_string(),
                c,
                &orders,
                &config,
                &totals,
                elapsed,
            );
            let bug = explored
                .bugs
                .iter()
                .min_by_key(|b| b.preemptions.len())
                .unwrap_or(&explored.bugs[0]);
            return report_bug(
                args.exhaustive.common.format,
                &args.exhaustive,
                path,
                &subject,
                &vars,
                bug,
                t.flatten(),
                json,
            );
        }
        last = Some((c, v, orders, config));
    }
    let elapsed = started.elapsed().as_secs_f64();
    totals.exhausted = true;
    let Some((c, v, orders, config)) = last else {
        anyhow::bail!("nothing to classify")
    };
    let json = base_json(
        path,
        &subject,
        &v.to_string(),
        c,
        &orders,
        &config,
        &totals,
        elapsed,
    );
    emit(&json, args.exhaustive.common.format, || {
        format!(
            "no bug up to c = {c}: {} schedules, {} pruned\n",
            json.schedules, json.pruned
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

fn config(args: &ExhaustiveArgs, subject: &Subject, c: u32, finish_bound: bool) -> ExploreConfig {
    ExploreConfig {
        preemptions: c,
        n_threads: subject.profile.max_threads,
        limits: subject.limits,
        prune: !args.no_prune,
        finish_bound,
        max_schedules: args.max_schedules,
    }
}

#[allow(clippy::too_many_arguments)]
fn base_json(
    path: &Path,
    subject: &Subject,
    vars: &str,
    c: u32,
    orders: &Orders,
    config: &ExploreConfig,
    totals: &Totals,
    elapsed: f64,
) -> ExploreJson {
    ExploreJson {
        program: path.display().to_string(),
        preemptions: c,
        vars: vars.to_string(),
        threads: None,
        n: subject.profile.max_threads,
        q: subject.loaded.program.n_vars(),
        orders: orders.orders.len(),
        orders_epsilon: orders.epsilon,
        prune: config.prune,
        schedules: totals.schedules,
        schedules_to_first_bug: totals.schedules_to_first_bug,
        pruned: totals.pruned,
        exhausted: totals.exhausted,
        elapsed_s: elapsed,
        schedules_per_s: if elapsed > 0.0 {
            totals.schedules as f64 / elapsed
        } else {
            0.0
        },
        c: None,
        v: None,
        t: None,
        kind: None,
        line: None,
        replay: None,
        tracked: None,
        bug: None,
    }
}

fn emit(json: &ExploreJson, format: Format, text: impl FnOnce() -> String) -> Result<()> {
    match format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(json)?),
        Format::Human => out!("{}", text()),
    }
    Ok(())
}

/// What an exhausted exploration proved.
fn proved_text(json: &ExploreJson) -> String {
    let what = match json.vars.as_str() {
        "all" => "at any access".to_string(),
        "sync" => "at mutex and condition operations".to_string(),
        "none" => "(no preemption point)".to_string(),
        v => format!(
            "at accesses to any {v} variable{} (of Q = {})",
            if v == "1" { "" } else { "s" },
            json.q
        ),
    };
    let head = format!(
        "{} schedules in {:.2}s ({:.0}/s), {} pruned by happens-before\n",
        json.schedules, json.elapsed_s, json.schedules_per_s, json.pruned
    );
    if !json.exhausted {
        return format!(
            "{head}stopped at --max-schedules before the bound was exhausted: nothing is proved\n"
        );
    }
    let orders = match json.orders_epsilon {
        None => format!("under every one of the {} priority orders of n + c = {} fragments", json.orders, json.n + json.preemptions as usize),
        Some(eps) => format!(
            "under {} random priority orders, which cover every order of {} threads with probability >= {}",
            json.orders,
            json.threads.unwrap_or(2),
            1.0 - eps
        ),
    };
    format!(
        "{head}no bug with at most {} preemptions {what}, {orders}\n",
        json.preemptions
    )
}

#[allow(clippy::too_many_arguments)]
fn report_bug(
    format: Format,
    args: &ExhaustiveArgs,
    path: &Path,
    subject: &Subject,
    set: &TrackSet,
    bug: &FoundBug,
    t: Option<usize>,
    mut json: ExploreJson,
) -> Result<ExitCode> {
    let program = &subject.loaded.program;
    let exe = executable(subject, set);
    let traced = trace(&exe, subject.limits, &bug.schedule, &subject.loaded.file)
        .map_err(|_| anyhow::anyhow!("internal error: an explored schedule did not replay"))?;
    let replay = write_replay(args, path, &subject.loaded, set, bug);
    let replay_path = match &replay {
        Ok(p) => Some(p.display().to_string()),
        Err(error) => {
            eprintln!("warning: {error:#}");
            None
        }
    };
    json.c = Some(bug.preemptions.len());
    json.v = Some(
        set.vars
            .as_ref()
            .map_or(program.n_vars(), |_| set.names.len()),
    );
    json.t = t;
    json.kind = Some(bug.bug.kind.name().to_string());
    json.line = Some(subject.loaded.file.line(bug.bug.span));
    json.replay = replay_path.clone();
    json.tracked = set.vars.as_ref().map(|_| set.names.clone());
    json.bug = Some(FailureJson::new(
        0,
        &traced,
        &subject.loaded.file,
        replay_path.clone(),
    ));
    match format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&json)?),
        Format::Human => {
            out!("{}", failure_text(&traced, &subject.loaded.file));
            let tracked = set.names.join(", ");
            outln!(
                "\nfound after {} schedules ({} pruned), with c = {} preemptions at {}{}",
                json.schedules_to_first_bug.unwrap_or(json.schedules),
                json.pruned,
                bug.preemptions.len(),
                if tracked.is_empty() {
                    "no variable".to_string()
                } else {
                    tracked
                },
                t.map(|t| format!(", thread bound t = {t}"))
                    .unwrap_or_default()
            );
            if let Some(p) = replay_path {
                outln!("replay: rankcheck replay {p}");
            }
        }
    }
    Ok(ExitCode::from(1))
}

fn write_replay(
    args: &ExhaustiveArgs,
    path: &Path,
    loaded: &Loaded,
    set: &TrackSet,
    bug: &FoundBug,
) -> Result<PathBuf> {
    let file = ReplayFile {
        program: path.display().to_string(),
        fingerprint: fingerprint(loaded.file.source(), &args.common.define),
        defines: args.common.define.clone(),
        strategy: "explore".to_string(),
        tracking: tracking_line(&loaded.program, set.vars.as_deref(), &set.instances),
        seed: args.seed,
        run: 1,
        max_steps: args.common.max_steps,
        kind: bug.bug.kind.name().to_string(),
        schedule: bug.schedule.clone(),
    };
    save_replay(
        &args.replay_dir,
        path,
        &file,
        &format!("explore-c{}", bug.preemptions.len()),
    )
}
