//! `rankcheck explore` and `rankcheck classify`: exhaustive search with
//! variable and thread bounding (the paper's Algorithm 1), or without a
//! preemption bound, and the minimal (c, v, t) of a bug.

mod output;
mod sets;

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use indicatif::ProgressBar;
use rankcheck_engine::explore::{
    classify as engine_classify, explore_round, fails_with, priority_orders, thread_bound,
    ExploreConfig, Order, Progress,
};
use rankcheck_engine::profile::{profile, Profile};
use rankcheck_engine::strategy::Instrumenter;
use rankcheck_engine::{Executable, Instrumentation, Limits};
use rankcheck_stats::{miss_after_permutations, runs_for_thread_coverage, LemmaForm, RunCount};

use crate::cli::{Bound, ClassifyArgs, ExhaustiveArgs, ExploreArgs};
use crate::exit::Status;
use crate::interrupt;
use crate::load::{load, Loaded};
use crate::plan::instrumenter;
use crate::progress::status_line;

use self::output::{report_bug, report_clean, ExploreJson};
use self::sets::{executable, var_sets, TrackSet};

/// The miss probability sampled priority orders are drawn for.
const ORDER_EPSILON: f64 = 0.01;

/// The most priority orders sampled for one exploration.
const MAX_SAMPLED_ORDERS: u64 = 100_000;

/// The priority orders of an exploration.
pub struct Orders {
    orders: Vec<Order>,
    /// `None` when every order is enumerated; otherwise the probability
    /// that the sample misses some order of some `t` threads (Lemma 4.1's
    /// union bound for the sample's size; 1 when it guarantees nothing).
    epsilon: Option<f64>,
    /// The thread bound the sample was drawn for.
    t: u32,
}

/// Every order of `n + c` fragments when there are few enough, else enough
/// random ones to cover every order of `t` threads with probability
/// `1 - ORDER_EPSILON` (Lemma 4.1 as docs/ALGORITHMS.md states it), at most
/// [`MAX_SAMPLED_ORDERS`]; the miss probability reported is the one the
/// sample drawn really has.
fn orders(n: usize, c: u32, t: u32, seed: u64) -> Orders {
    let t = t.min(n.max(2) as u32);
    let count = match runs_for_thread_coverage(LemmaForm::Summary, n as u64, c, t, ORDER_EPSILON) {
        Ok(RunCount::Finite(count)) => count.min(MAX_SAMPLED_ORDERS),
        _ => MAX_SAMPLED_ORDERS,
    };
    let (orders, enumerated) = priority_orders(n, c, || count as usize, seed);
    let epsilon =
        (!enumerated).then(|| miss_after_permutations(n as u64, c, t, orders.len() as u64).value());
    Orders { orders, epsilon, t }
}

/// A program with its profile, ready to explore.
pub struct Subject {
    loaded: Loaded,
    profile: Profile,
    limits: Limits,
    instrumenter: Instrumenter,
}

fn subject(args: &ExhaustiveArgs) -> Result<(Subject, &Path)> {
    let options = &args.options;
    let path = args.program.as_path();
    let loaded = load(path, &options.define)?;
    let limits = Limits {
        max_steps: options.max_steps,
        ..Limits::default()
    };
    let all = Executable::new(
        loaded.program.clone(),
        &Instrumentation::all(&loaded.program),
    );
    let profile = profile(&all, options.profile_runs, options.seed_or_zero(), limits);
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

fn config(args: &ExhaustiveArgs, subject: &Subject, c: u32, finish_bound: bool) -> ExploreConfig {
    ExploreConfig {
        preemptions: c,
        n_threads: subject.profile.max_threads,
        limits: subject.limits,
        prune: !args.no_prune,
        finish_bound,
        max_schedules: args.max_schedules,
        max_memory: args.max_memory,
        jobs: args.options.jobs(),
    }
}

/// The progress monitor of an exploration: a status line, and a stop when
/// a signal arrived.
fn monitor<'b>(bar: &'b ProgressBar, bound: Option<u32>) -> impl Fn(&Progress) -> bool + Sync + 'b {
    move |p: &Progress| {
        bar.set_message(status_line(&[
            match bound {
                Some(c) => format!("bound {} of {c}", p.bound),
                None => "unbounded".to_string(),
            },
            format!("{} schedules", p.schedules),
            format!("{} pruned", p.pruned),
            format!("{} items left", p.items_left),
            format!("{} MB", p.memory >> 20),
        ]));
        !interrupt::requested()
    }
}

/// The orders an exploration at bound `c` over `n` threads uses, sampled
/// for thread bound `t` with `seed` when too many to enumerate.
fn order_source(t: u32, seed: u64) -> impl Fn(usize, u32) -> Vec<Order> {
    move |n, c| orders(n, c, t, seed).orders
}

/// `rankcheck explore`.
pub fn explore(args: &ExploreArgs) -> Result<ExitCode> {
    let (subject, path) = subject(&args.exhaustive)?;
    let program = subject.loaded.program.clone();
    let loop_bound = u32::try_from(args.loop_bound).unwrap_or(u32::MAX);
    let sets = var_sets(&program, &subject.profile, &args.vars, loop_bound)?;
    let bound = match args.preemptions {
        Bound::At(c) => Some(c),
        Bound::Unbounded => None,
    };
    let base = config(&args.exhaustive, &subject, bound.unwrap_or(0), false);
    let bar = crate::progress::spinner(args.exhaustive.options.format);
    let started = Instant::now();
    let seed = args.exhaustive.options.seed_or_zero();
    let round = explore_round(
        sets.len(),
        |i| executable(&subject, &sets[i]),
        bound,
        &order_source(args.threads, seed),
        &base,
        &monitor(&bar, bound),
    );
    bar.finish_and_clear();
    let round_orders = orders(
        round.config.n_threads,
        bound.unwrap_or(0),
        args.threads,
        seed,
    );
    let mut json = ExploreJson::new(
        path,
        &subject,
        &args.vars.to_string(),
        bound,
        &round,
        &round_orders,
        sets.len(),
    );
    json.finish(started.elapsed().as_secs_f64());
    json.threads = Some(args.threads);
    let Some((index, explored)) = &round.result.failing else {
        return report_clean(&json, args.exhaustive.options.format);
    };
    let set = &sets[*index];
    let bug = &explored.bugs[0];
    // The thread bound needs every order: only enumerated orders give one.
    let t = (bound.is_some() && round_orders.epsilon.is_none())
        .then(|| {
            let exe = executable(&subject, set);
            thread_bound(&round.orders, bug.preemptions.len(), &|order: &Order| {
                fails_with(&exe, &round.config, order, &bug.preemptions)
            })
        })
        .flatten();
    report_bug(&args.exhaustive, path, &subject, set, bug, t, json)
}

/// `rankcheck classify`.
pub fn classify(args: &ClassifyArgs) -> Result<ExitCode> {
    let (subject, path) = subject(&args.exhaustive)?;
    let started = Instant::now();
    let bar = crate::progress::spinner(args.exhaustive.options.format);
    let seed = args.exhaustive.options.seed_or_zero();
    // Sampled orders (too many fragments to enumerate) cover every order of
    // two threads, the common bug; t is then not reported.
    let t = 2;
    let max_c = u32::try_from(args.max_preemptions).unwrap_or(u32::MAX);
    let base = config(&args.exhaustive, &subject, 0, true);
    let program = &subject.loaded.program;
    let executable = |vars: &[rankcheck_engine::VarId]| {
        let set = TrackSet::of_vars(program, vars);
        executable(&subject, &set)
    };
    let classified = engine_classify(
        &subject.profile,
        &executable,
        &order_source(t, seed),
        &base,
        max_c,
        &monitor(&bar, Some(max_c)),
    );
    bar.finish_and_clear();
    let (c, v) = (classified.c, classified.v);
    let mut round = classified.round;
    round.result.schedules = classified.schedules;
    round.result.pruned = classified.pruned;
    round.result.schedules_to_first_bug = classified.schedules_to_first_bug;
    let round_orders = orders(round.config.n_threads, c, t, seed);
    let mut json = ExploreJson::new(
        path,
        &subject,
        &v.to_string(),
        Some(c),
        &round,
        &round_orders,
        classified.sets.len(),
    );
    json.finish(started.elapsed().as_secs_f64());
    let Some((index, explored)) = &round.result.failing else {
        return report_clean(&json, args.exhaustive.options.format);
    };
    let set = TrackSet::of_vars(program, &classified.sets[*index]);
    let exe = executable(&set.vars.clone().unwrap_or_default());
    // The thread bound needs every order: only enumerated orders give one.
    let t = round_orders
        .epsilon
        .is_none()
        .then(|| {
            let mut distinct: Vec<&Vec<u64>> =
                explored.bugs.iter().map(|b| &b.preemptions).collect();
            distinct.sort();
            distinct.dedup();
            distinct
                .into_iter()
                .filter_map(|at| {
                    thread_bound(&round.orders, c as usize, &|order: &Order| {
                        fails_with(&exe, &round.config, order, at)
                    })
                })
                .min()
        })
        .flatten();
    let bug = explored
        .bugs
        .iter()
        .min_by_key(|b| b.preemptions.len())
        .unwrap_or(&explored.bugs[0]);
    report_bug(&args.exhaustive, path, &subject, &set, bug, t, json)
}

/// The exit status of an exploration without a bug.
fn clean_status(json: &ExploreJson) -> Status {
    if json.exhausted {
        Status::Clean
    } else {
        Status::Incomplete
    }
}
