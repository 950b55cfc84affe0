//! A search, phase by phase as the command's: preparatory runs, the plan,
//! the run count, the runs, then the failing run again with a trace, or the
//! guarantee.
//!
//! The phases use the engine's [`Profiler`], strategies and `guarantee`.
//! The runs stop at `Builder::deadline`: the time given, else, without a
//! run count, the default test budget (`DEFAULT_MAX_TIME`). A failing run
//! an exploration reached is reported from its replay string
//! ([`explored_failure`]), as a search's would be.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rankcheck_engine::priority::AppliedChange;
use rankcheck_engine::profile::{Profile, Profiler, RunEnd};
use rankcheck_engine::search::run_seed;
use rankcheck_engine::shrink::Guided;
use rankcheck_engine::strategy::planning::PlannedSearch;
use rankcheck_engine::strategy::{PlanRunner, Strategy, Tracked};
use rankcheck_engine::{Point, Scheduler, ThreadId};
use rankcheck_report::failure::ShrunkJson;

use crate::builder::Builder;
use crate::divergence::{self, Parted};
use crate::executor::{RunConfig, RunResult, Session, StepLimit, Test, Tracking};
use crate::explore::FailingRun;
use crate::memory::choice::{ReadPolicy, STALE_CHANCE};
use crate::memory::MemoryModel;
use crate::plan::plan_search;
use crate::progress::Progress;
use crate::replay_string::ReplayString;
use crate::report::{self, Reported, RunFacts, Searched};
use crate::shrink::{fails_the_same, shrink_run};
use crate::wake::{WakeChoices, WakeCount};

/// Search `test` as `builder` asks, `program` naming where the test
/// called `check`: the report (the guarantee or the failure, and the
/// summary), or why the settings cannot run.
pub fn check(builder: &Builder, test: Test, program: &str) -> Result<Reported, String> {
    let seed = builder.seed.unwrap_or_else(fresh_seed);
    let mut session = Session::new();
    // The time budget counts from here: the preparatory runs spend it too.
    let mut progress = Progress::new(program);
    let started = progress.started;
    let (profile, failed) = profile(&mut session, &test, builder, seed, started);
    if let Some((run, result)) = failed {
        let (traced, replay, shrunk) =
            retrace(&mut session, &test, builder, result, Tracking::All)?;
        let registry = session.registry();
        let searched = Searched::preparatory(builder, program, seed, &profile, registry);
        return Ok(report::failed(
            &traced,
            &RunFacts::preparatory(run).shrunk(shrunk),
            &replay,
            &searched,
        ));
    }
    let kinds = session.registry().vars().iter().map(|v| v.kind);
    let PlannedSearch {
        plan,
        bounds,
        runs_target: runs,
        runs_capped,
        ..
    } = plan_search(builder, &profile, kinds)?;
    let outcome = plan.run(Runs {
        session: &mut session,
        test: &test,
        builder,
        seed,
        runs,
        progress: &mut progress,
    });
    let elapsed = started.elapsed();
    // The most time the confidence may take stopped the runs short.
    let runs_capped = runs_capped || (builder.time.is_none() && outcome.runs < runs);
    let failed = match outcome.failure {
        None => None,
        Some(Failed {
            result,
            tracking,
            changes,
        }) => {
            // The failing run's number in its seed's runs: a campaign's
            // chunk starts at its own index (crate::campaign).
            let facts =
                RunFacts::search(builder.first_run + outcome.runs, &plan, changes, &tracking);
            let (traced, replay, shrunk) = retrace(&mut session, &test, builder, result, tracking)?;
            Some(((traced, replay), facts.shrunk(shrunk)))
        }
    };
    let searched = Searched {
        builder,
        program,
        seed,
        profile: &profile,
        registry: session.registry(),
        plan: Some(&plan),
        bounds: &bounds,
        runs: outcome.runs,
        runs_capped,
        elapsed,
    };
    Ok(match failed {
        None => report::clean(&searched)
            .with_wakes(outcome.wakes, builder.wakes)
            .with_memory(builder.memory, outcome.cut),
        Some(((traced, replay), facts)) => report::failed(&traced, &facts, &replay, &searched),
    })
}

/// The preparatory runs: random, every variable tracked, every load
/// reading the latest store; fewer once the time budget (counted from
/// `started`) is spent, but at least one. Also the first of them that
/// failed, if one did: its number and result.
fn profile(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    seed: u64,
    started: Instant,
) -> (Profile, Option<(u64, RunResult)>) {
    let mut profiler = Profiler::new(0);
    let profile_seed = run_seed(seed, u64::MAX);
    let deadline = builder.deadline(started);
    let mut failed = None;
    for run in 0..builder.profile_runs {
        if run > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let seed = run_seed(profile_seed, run);
        let counting = profiler.start_run(seed);
        // Every load reads the latest store: the profile measures the
        // sequentially consistent runs, and stale reads are the
        // strategy's (their chance, or the depth's change points).
        let config = RunConfig {
            reads: ReadPolicy::Latest,
            footprint: None,
            ..config(builder, Tracking::All, seed)
        };
        let (result, counting) = session.run(test, counting, config);
        profiler.end_run(
            counting,
            RunEnd {
                threads: result.threads,
                steps: result.schedule.len() as u64,
                failure: None,
                instances: &[],
            },
        );
        if result.failure.is_some() {
            failed = Some((run + 1, result));
            break;
        }
    }
    (profiler.finish(session.registry().len()), failed)
}

/// How run `seed` is run: its spurious wake-ups and early timeouts are
/// drawn from its seed.
fn config(builder: &Builder, tracking: Tracking, seed: u64) -> RunConfig {
    RunConfig {
        tracking,
        steps: builder.step_limit(),
        trace: false,
        wakes: WakeChoices::Draw {
            seed: run_seed(seed, WAKE_STREAM),
            budget: builder.wakes,
        },
        memory: builder.memory,
        reads: ReadPolicy::Chance {
            seed: run_seed(seed, READ_STREAM),
            chance: STALE_CHANCE,
        },
        spurious_cas: builder.spurious_cas,
        footprint: None,
    }
}

/// The stream of a run's seed its read choices are drawn from.
const READ_STREAM: u64 = 0x7265_6164;

/// The stream of a run's seed its wake-up decisions are drawn from.
const WAKE_STREAM: u64 = 0x7761_6b65;

/// What the runs did: how many, and the failing one.
struct Outcome {
    runs: u64,
    failure: Option<Failed>,
    /// The spurious wake-ups and timeouts the runs made.
    wakes: WakeCount,
    /// The loads whose choices the history bound cut, over the runs.
    cut: u64,
}

/// A failing run of the search.
struct Failed {
    result: RunResult,
    /// What it tracked.
    tracking: Tracking,
    /// Under priorities, the change points it fired.
    changes: Option<Vec<AppliedChange>>,
}

/// What the runs of a search need besides the strategy, which the plan
/// hands over (`Plan::run`): `runs_of` is then compiled once per kind of
/// search, each calling its scheduler directly.
struct Runs<'a, 'p> {
    session: &'a mut Session,
    test: &'a Test,
    builder: &'a Builder,
    seed: u64,
    runs: u64,
    progress: &'a mut Progress<'p>,
}

impl PlanRunner for Runs<'_, '_> {
    type Output = Outcome;

    fn run<St: Strategy>(self, strategy: &St) -> Outcome {
        runs_of(
            self.session,
            self.test,
            self.builder,
            strategy.clone(),
            self.seed,
            self.runs,
            self.progress,
        )
    }
}

/// The runs of the search, until one fails, the count is done or the time
/// is up.
fn runs_of<St: Strategy>(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    mut strategy: St,
    seed: u64,
    runs: u64,
    progress: &mut Progress<'_>,
) -> Outcome {
    let deadline = builder.deadline(progress.started);
    let mut wakes = WakeCount::default();
    let mut cut = 0;
    for done in 0..runs {
        // Every run: a run of a test that sleeps takes seconds, and a
        // clock read is nothing beside the cheapest run.
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return Outcome {
                runs: done,
                failure: None,
                wakes,
                cut,
            };
        }
        progress.tick(done, runs, now);
        // A campaign's chunk starts at its own run index (crate::campaign).
        let run = builder.first_run + done;
        let run_seed = run_seed(seed, run);
        let (tracked, mut scheduler) = strategy.prepare(run, run_seed);
        let tracking = match tracked {
            Tracked::All => Tracking::All,
            Tracked::Vars(vars) => Tracking::Vars(vars.to_vec()),
        };
        let mut config = config(builder, tracking.clone(), run_seed);
        if builder.memory == MemoryModel::Weak {
            config.reads = read_policy(&mut scheduler, config.reads);
        }
        let (result, mut scheduler) = session.run(test, scheduler, config);
        wakes.add(result.wakes);
        cut += result.cut;
        if result.failure.is_some() {
            return Outcome {
                runs: done + 1,
                failure: Some(Failed {
                    result,
                    tracking,
                    changes: scheduler
                        .priority_mut()
                        .map(|priority| priority.applied().to_vec()),
                }),
                wakes,
                cut,
            };
        }
    }
    Outcome {
        runs,
        failure: None,
        wakes,
        cut,
    }
}

/// Under weak memory, where a run's read choices come from, given the
/// strategy-independent `chance` ones: under priorities, each change point
/// becomes a stale read with chance 1/2 (crate::memory::choice), so that
/// staleness is only at the tracked atomics, and within the depth.
fn read_policy(scheduler: &mut impl Scheduler, chance: ReadPolicy) -> ReadPolicy {
    let ReadPolicy::Chance { seed, .. } = chance else {
        return chance;
    };
    let Some(priority) = scheduler.priority_mut() else {
        return chance;
    };
    let points = priority.divert_change_points(|i| run_seed(seed, i as u64) % 2 == 1);
    ReadPolicy::Points { seed, points }
}

/// Rerun the failing run with a trace, then shrink its schedule (unless
/// the builder says not to) and trace the shrunk one: the traced run, its
/// replay string, and how it was shrunk; or, when the rerun parts from the
/// run, the report of the
/// nondeterminism (crate::divergence).
fn retrace(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    failed: RunResult,
    tracking: Tracking,
) -> Result<(RunResult, String, Option<ShrunkJson>), String> {
    let replay = ReplayString {
        tracking: match tracking {
            Tracking::All => Tracking::All,
            _ => Tracking::Objects(failed.tracked_objects.clone()),
        },
        early: failed.early.clone(),
        memory: builder.memory,
        cell_points: builder.step_limit().cell_points,
        reads: failed.reads.clone(),
        schedule: failed.schedule.clone(),
    };
    let Rerun {
        result: traced,
        guided,
    } = rerun(session, test, &replay, builder.step_limit());
    let refused = guided.refused_at().map(|point| Parted::AtPoint(point + 1));
    if let Some(parted) = refused.or_else(|| divergence::parted(&failed, &traced)) {
        return Err(divergence::report(&failed, &parted));
    }
    // The same run; its message may still differ (an address printed).
    let same = match (&traced.failure, &failed.failure) {
        (Some(traced), Some(failed)) => fails_the_same(traced, failed),
        _ => false,
    };
    let result = if traced.failure == failed.failure {
        traced
    } else {
        failed
    };
    let first = same.then_some(guided);
    Ok(shrunk_trace(
        session,
        test,
        builder,
        result,
        (replay, first),
    ))
}

/// A rerun of a failing run's schedule with a trace, under a [`Guided`]
/// scheduler, which the shrinker starts from (its records are what the
/// shrinker's first replay of the schedule would make).
struct Rerun {
    result: RunResult,
    guided: Guided,
}

/// Rerun `replay` as [`trace`] does, under a [`Guided`] scheduler.
fn rerun(session: &mut Session, test: &Test, replay: &ReplayString, steps: StepLimit) -> Rerun {
    let guided = Guided::schedule(&replay.schedule);
    let (result, guided) = session.run(test, guided, trace_config(replay, steps));
    Rerun { result, guided }
}

/// The failing run `result` of `replay`, shrunk unless the builder says
/// not to (or there is no `first` rerun of it that failed the same way,
/// to start from): the traced run to report, its replay string, and how
/// it was shrunk.
fn shrunk_trace(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    result: RunResult,
    (replay, first): (ReplayString, Option<Guided>),
) -> (RunResult, String, Option<ShrunkJson>) {
    let shrunk = match (builder.shrink_time, &result.failure, first) {
        (Some(budget), Some(failure), Some(first)) => shrink_run(
            session,
            test,
            (&replay, builder.step_limit()),
            (failure, Some(first)),
            budget,
        ),
        _ => None,
    };
    let Some(shrunk) = shrunk else {
        return (result, replay.encode(), None);
    };
    let how = Some(ShrunkJson::from(&shrunk));
    // Nothing smaller: the traced rerun is the run to report.
    if shrunk.schedule == replay.schedule && result.trace.is_some() {
        return (result, replay.encode(), how);
    }
    let replay = ReplayString {
        schedule: shrunk.schedule,
        ..replay
    };
    let traced = trace(session, test, &replay, builder.step_limit());
    (traced, replay.encode(), how)
}

/// Rerun `replay` with a trace, within `steps` (its cells being
/// scheduling points as they were in the run).
fn trace(session: &mut Session, test: &Test, replay: &ReplayString, steps: StepLimit) -> RunResult {
    let config = trace_config(replay, steps);
    session
        .run(test, Replay::new(replay.schedule.clone()), config)
        .0
}

/// How [`trace`] runs `replay`.
fn trace_config(replay: &ReplayString, steps: StepLimit) -> RunConfig {
    RunConfig {
        tracking: replay.tracking.clone(),
        steps: StepLimit {
            cell_points: replay.cell_points,
            ..steps
        },
        trace: true,
        wakes: WakeChoices::Replay(replay.early.clone()),
        memory: replay.memory,
        reads: ReadPolicy::Replay(replay.reads.clone()),
        spurious_cas: true,
        footprint: None,
    }
}

/// `rankcheck::replay`: panics, at the caller, with the run's report.
#[track_caller]
pub fn replay(test: Test, text: &str, steps: StepLimit) -> ! {
    let replay = match ReplayString::decode(text) {
        Ok(replay) => replay,
        Err(why) => panic!("rankcheck::replay: not a replay string of rankcheck: {why}"),
    };
    let mut session = Session::new();
    let result = trace(&mut session, &test, &replay, steps);
    let Some(failure) = result.failure.clone() else {
        panic!(
            "rankcheck::replay: the run did not fail: its {} choices ran the test to its end (has the test changed?)",
            replay.schedule.len()
        );
    };
    let marks = replay_marks(&mut session, &test, (&replay, steps), &failure);
    let report = report::replayed(&result, marks, text.trim(), session.registry());
    panic!("{report}");
}

/// How long a replay looks for its run's preemptions and critical
/// switches: a shrunk schedule is confirmed in a few reruns.
const REPLAY_MARK_TIME: Duration = Duration::from_millis(500);

/// The preemptions and critical switches of the replayed run, as its
/// original report marked them: the shrinker's, when it finds nothing
/// shorter than the schedule replayed (a shrunk one); else none (the
/// report then shows the run as it was, switches counted).
fn replay_marks(
    session: &mut Session,
    test: &Test,
    replay: (&ReplayString, StepLimit),
    failure: &crate::failure::Failure,
) -> Option<ShrunkJson> {
    let shrunk = shrink_run(session, test, replay, (failure, None), REPLAY_MARK_TIME)?;
    (shrunk.schedule == replay.0.schedule).then(|| ShrunkJson::from(&shrunk))
}

/// The report of the failing run an exploration reached (`run`), as
/// `builder`'s search writes one: rerun with a trace, shrunk unless the
/// builder says not to; `None` when the rerun does not fail.
pub fn explored_failure(builder: &Builder, test: Test, run: &FailingRun) -> Option<String> {
    let started = Instant::now();
    let replay = ReplayString::decode(&run.replay).ok()?;
    let mut session = Session::new();
    let Rerun {
        result: traced,
        guided,
    } = rerun(&mut session, &test, &replay, builder.step_limit());
    // A rerun that parted from the run did not repeat it.
    if traced.failure.is_none() || guided.refused_at().is_some() {
        return None;
    }
    let first = Some(guided);
    let (traced, text, shrunk) =
        shrunk_trace(&mut session, &test, builder, traced, (replay, first));
    let facts = RunFacts::explored(run.schedule).shrunk(shrunk);
    Some(report::explored(
        &traced,
        &facts,
        &text,
        session.registry(),
        started.elapsed(),
    ))
}

/// The failure of an exploration's failing `run` as the shared model (a
/// campaign records it), unshrunk: the run the exploration reached, which
/// it reaches again every night. `None` when the rerun does not fail.
pub fn explored_failure_json(
    test: Test,
    run: &FailingRun,
    steps: StepLimit,
) -> Option<rankcheck_report::failure::FailureJson> {
    let replay = ReplayString::decode(&run.replay).ok()?;
    let mut session = Session::new();
    let traced = trace(&mut session, &test, &replay, steps);
    traced.failure.as_ref()?;
    let facts = RunFacts::explored(run.schedule);
    Some(report::failure_json(
        &traced,
        &facts,
        &run.replay,
        session.registry(),
    ))
}

/// Replays a schedule; past its end (a test that changed) it asks for a
/// thread that cannot exist, which the executor reports.
struct Replay {
    schedule: Vec<ThreadId>,
    next: usize,
}

impl Replay {
    fn new(schedule: Vec<ThreadId>) -> Replay {
        Replay { schedule, next: 0 }
    }
}

impl Scheduler for Replay {
    fn choose(&mut self, _point: &Point<'_>) -> ThreadId {
        let choice = self
            .schedule
            .get(self.next)
            .copied()
            .unwrap_or(ThreadId(u32::MAX));
        self.next += 1;
        choice
    }
}

/// A fresh seed for a search given none: reported, so a failure can be
/// searched for again.
fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_nanos();
    run_seed(nanos as u64, u64::from(std::process::id()))
}
