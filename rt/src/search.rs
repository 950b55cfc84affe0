//! A search, phase by phase as the command's: preparatory runs, the plan,
//! the run count, the runs, then the failing run again with a trace, or the
//! guarantee.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rankcheck_engine::guarantee::{needed, per_run_bound};
use rankcheck_engine::profile::{Profile, Profiler, RunEnd};
use rankcheck_engine::search::run_seed;
use rankcheck_engine::strategy::{PortfolioScheduler, Strategy, Tracked};
use rankcheck_engine::{Point, PriorityScheduler, Scheduler, ThreadId};
use rankcheck_stats::Probability;

use crate::builder::Builder;
use crate::executor::{RunConfig, RunResult, Session, Test, Tracking};
use crate::plan::{plan, scheme, Plan};
use crate::replay_string::ReplayString;
use crate::report::{self, FoundBy, Guarantee, RunFacts, Searched};

/// Runs when neither runs nor time is given and no setting claims a
/// bound (random and sampling strategies), as the command's default.
const DEFAULT_RUNS: u64 = 10_000;

/// Search `test` as `builder` asks: the guarantee, or the failure report.
pub fn check(builder: &Builder, test: Test) -> Result<Guarantee, String> {
    let seed = builder.seed.unwrap_or_else(fresh_seed);
    let mut session = Session::new();
    let (profile, failed) = profile(&mut session, &test, builder, seed);
    if let Some((run, result)) = failed {
        let facts = RunFacts::random(run, run_seed(run_seed(seed, u64::MAX), run - 1));
        let (traced, replay) = retrace(&mut session, &test, builder, result, Tracking::All);
        let searched = Searched::preparatory(builder, seed, &profile, session.registry());
        let registry = session.registry();
        return Err(report::failure(
            &traced,
            &facts,
            FoundBy::Search,
            Some(&searched),
            &replay,
            registry,
        ));
    }
    let plan = plan(builder, &profile, session.registry())?;
    let bounds: Vec<Option<Probability>> = plan
        .settings()
        .iter()
        .map(|s| per_run_bound(s, scheme(builder), &profile))
        .collect();
    let runs = run_count(builder, &plan, &bounds);
    let started = Instant::now();
    // `runs_of` is generic over the strategy: one call per kind.
    macro_rules! search {
        ($strategy:expr) => {
            runs_of(&mut session, &test, builder, $strategy, seed, runs, started)
        };
    }
    let outcome = match &plan {
        Plan::Random(s) => search!(*s),
        Plan::Priority(s) => search!((**s).clone()),
        Plan::Sampling(s) => search!((**s).clone()),
        Plan::Portfolio(s) => search!((**s).clone()),
    };
    let elapsed = started.elapsed();
    let failed = outcome.failure.map(|(result, tracking, facts)| {
        (
            retrace(&mut session, &test, builder, result, tracking),
            facts,
        )
    });
    let searched = Searched {
        builder,
        seed,
        profile: &profile,
        registry: session.registry(),
        plan: Some(&plan),
        bounds: &bounds,
        runs: outcome.runs,
        elapsed,
    };
    match failed {
        None => Ok(report::guarantee(&searched)),
        Some(((traced, replay), facts)) => Err(report::failure(
            &traced,
            &facts,
            FoundBy::Search,
            Some(&searched),
            &replay,
            session.registry(),
        )),
    }
}

/// The preparatory runs: random, every variable tracked. Also the first
/// of them that failed, if one did: its number and result.
fn profile(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    seed: u64,
) -> (Profile, Option<(u64, RunResult)>) {
    let mut profiler = Profiler::new(0);
    let profile_seed = run_seed(seed, u64::MAX);
    let mut failed = None;
    for run in 0..builder.profile_runs {
        let counting = profiler.start_run(run_seed(profile_seed, run));
        let (result, counting) = session.run(test, counting, config(builder, Tracking::All));
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

fn config(builder: &Builder, tracking: Tracking) -> RunConfig {
    RunConfig {
        tracking,
        max_steps: builder.max_steps,
        trace: false,
    }
}

/// What the runs did.
struct Outcome {
    runs: u64,
    failure: Option<(RunResult, Tracking, RunFacts)>,
}

/// The runs of the search, until one fails, the count is done or the time
/// is up.
fn runs_of<St>(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    mut strategy: St,
    seed: u64,
    runs: u64,
    started: Instant,
) -> Outcome
where
    St: Strategy,
    St::Scheduler: Explained + 'static,
{
    let deadline = builder.time.map(|t| started + t);
    for run in 0..runs {
        if deadline.is_some_and(|d| run % 64 == 0 && Instant::now() >= d) {
            return Outcome {
                runs: run,
                failure: None,
            };
        }
        let run_seed = run_seed(seed, run);
        let (tracked, scheduler) = strategy.prepare(run, run_seed);
        let tracking = match tracked {
            Tracked::All => Tracking::All,
            Tracked::Vars(vars) => Tracking::Vars(vars.to_vec()),
        };
        let (result, scheduler) = session.run(test, scheduler, config(builder, tracking.clone()));
        if result.failure.is_some() {
            let facts = scheduler.facts(run + 1, run_seed, &tracking);
            return Outcome {
                runs: run + 1,
                failure: Some((result, tracking, facts)),
            };
        }
    }
    Outcome {
        runs,
        failure: None,
    }
}

/// What a failing run's scheduler tells the report.
pub trait Explained: Scheduler {
    /// The facts of run `run` (from 1) seeded `seed`.
    fn facts(&self, run: u64, seed: u64, tracking: &Tracking) -> RunFacts;
}

impl Explained for rankcheck_engine::RandomScheduler {
    fn facts(&self, run: u64, seed: u64, _: &Tracking) -> RunFacts {
        RunFacts::sampled(run, seed, "random")
    }
}

impl Explained for rankcheck_engine::strategy::SamplingScheduler {
    fn facts(&self, run: u64, seed: u64, _: &Tracking) -> RunFacts {
        use rankcheck_engine::strategy::SamplingScheduler as S;
        let name = match self {
            S::Pos(_) => "pos",
            S::Urw(_) => "urw",
            S::Surw(_) => "surw",
        };
        RunFacts::sampled(run, seed, name)
    }
}

impl Explained for PriorityScheduler {
    fn facts(&self, run: u64, seed: u64, tracking: &Tracking) -> RunFacts {
        RunFacts::priority(run, seed, self.applied().to_vec(), tracking, "pctvb")
    }
}

impl Explained for PortfolioScheduler {
    fn facts(&self, run: u64, seed: u64, tracking: &Tracking) -> RunFacts {
        match self {
            PortfolioScheduler::Priority(s) => {
                RunFacts::priority(run, seed, s.applied().to_vec(), tracking, "pct")
            }
            PortfolioScheduler::Sampling(s) => s.facts(run, seed, tracking),
        }
    }
}

/// Runs to aim for, as the command decides.
fn run_count(builder: &Builder, plan: &Plan, bounds: &[Option<Probability>]) -> u64 {
    match (builder.runs, builder.time) {
        (Some(runs), _) => runs,
        (None, Some(_)) => u64::MAX,
        (None, None) if bounds.is_empty() => DEFAULT_RUNS,
        (None, None) => {
            let needed: Option<Vec<u64>> = bounds
                .iter()
                .map(|b| b.and_then(|b| needed(b, builder.confidence)))
                .collect();
            needed
                .and_then(|needed| plan.rotation().runs_for(&needed))
                .unwrap_or(u64::MAX)
                .min(builder.max_runs)
        }
    }
}

/// Rerun the failing run with a trace: the traced run and its replay
/// string.
fn retrace(
    session: &mut Session,
    test: &Test,
    builder: &Builder,
    failed: RunResult,
    tracking: Tracking,
) -> (RunResult, String) {
    let replay = ReplayString {
        tracking: match tracking {
            Tracking::All => Tracking::All,
            _ => Tracking::Objects(failed.tracked_objects.clone()),
        },
        schedule: failed.schedule.clone(),
    };
    let traced = trace(session, test, &replay, builder.max_steps);
    let result = if traced.failure == failed.failure {
        traced
    } else {
        failed
    };
    (result, replay.encode())
}

/// Rerun `replay` with a trace.
fn trace(session: &mut Session, test: &Test, replay: &ReplayString, max_steps: u64) -> RunResult {
    let config = RunConfig {
        tracking: replay.tracking.clone(),
        max_steps,
        trace: true,
    };
    session
        .run(test, Replay::new(replay.schedule.clone()), config)
        .0
}

/// `rankcheck::replay`.
pub fn replay(test: Test, text: &str, max_steps: u64) {
    let replay = match ReplayString::decode(text) {
        Ok(replay) => replay,
        Err(why) => panic!("rankcheck::replay: not a replay string of rankcheck: {why}"),
    };
    let mut session = Session::new();
    let result = trace(&mut session, &test, &replay, max_steps);
    if result.failure.is_none() {
        panic!(
            "rankcheck::replay: the run did not fail: its {} choices ran the test to its end (has the test changed?)",
            replay.schedule.len()
        );
    }
    let facts = RunFacts::replayed();
    let report = report::failure(
        &result,
        &facts,
        FoundBy::Replay,
        None,
        text.trim(),
        session.registry(),
    );
    panic!("{report}");
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
