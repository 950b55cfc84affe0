//! Every schedule of a small test, depth first, what `rankcheck explore`
//! does for a `.rk` program: the engine's search
//! (`rankcheck_engine::explore::dfs`, a dynamic partial-order reduction
//! with sleep sets over what each step touched; sleep sets alone under a
//! preemption bound) on the executor, which `runner.rs` adapts to it. A
//! run replays the choices of the path so far and then takes the first
//! thread that can run and is not asleep; the next run takes a thread a
//! race of an earlier run asked for at the last point that has one. An
//! execution is a function of its schedule, so the runs cover every
//! schedule up to reordering independent steps, which reaches every
//! failure. Only what the executor sees counts: a test that shares state
//! through std types explores fewer orders of it than it has.
//!
//! Independence is read off what each step touched, which the executor
//! logs as the step runs (crate::footprint): two steps of different
//! threads commute unless they touch a common place and one of them
//! writes it. The places are an object (its memory and its
//! synchronisation alike, named by its variable, which does not depend on
//! the order in which threads made their objects), a thread's end (its
//! end writes it, `join` and `is_finished` read it), a thread's park
//! token (`unpark` and `park`), the thread table (every spawn: it takes
//! the next thread id) and the spawned threads' panics. So accesses to
//! different atomics, locks of different mutexes, a barrier and another
//! object's channel, joins and ends of different threads all commute.
//! What a step touches is logged also where it is not the operation the
//! thread stopped at: a new thread's first step, the end of a blocking
//! operation (a condition variable's wait takes its mutex back), a
//! `Sender`'s clone, a `Once` marked complete, a `fetch_update`'s write
//! after its closure, an object registered on first use (which variable
//! it gets depends on which is first). A step
//! of the async runtime, a yield (a test yields for what the runtime may
//! not see) and a failure touch everything.
//!
//! An operation that only found that it must wait (a lock held, a thread
//! not finished, a channel empty or full, no park token; not a condition
//! variable's or barrier's wait, which release or arrive, nor a timed
//! one) touched nothing: blocking is as if the thread had not run, since
//! it goes on exactly when its operation could, and the search tries no
//! other thread where such a step was the first choice. A run whose
//! every thread that can run is asleep finishes without preempting (and
//! counts as a schedule): stopping it would unwind real threads.
//!
//! A test that is not a function of its schedule (it reads the clock,
//! uses `std::sync` or `std::thread` directly, or keeps a value between
//! runs) breaks the premise: a run that replays an earlier run's choices
//! is then offered others (a thread that does not exist yet, a read where
//! the earlier run scheduled). The search stops at the first such run and
//! says so ([`Explored::nondeterminism`]).
//!
//! Under weak memory ([`explore_memory`]) every read choice (which store a
//! load reads, whether a `compare_exchange_weak` fails spuriously) is a
//! node of the same path, and an access to an atomic (or a fence) also
//! touches every atomic (which stores a load may read depends on what ran
//! before it, also on other atomics): every read of every schedule is
//! enumerated, up to reordering loads.
//!
//! An exploration may be bounded ([`Exploration::preemption_bound`], as
//! loom's), keeps its first failing run's replay string ([`FailingRun`]),
//! and runs no wait that ends early. The executor logs touches through
//! `Execution::touch`, which the operations of `op/` call, and so do the
//! few places that change shared state without a scheduling point of their
//! own; `Execution::retract` takes back an operation that only found it
//! must wait. `__private::explore_unreduced` is the same search with no
//! thread asleep, for the differential tests.

mod runner;

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rankcheck_engine::explore::dfs::{self, Pruning};
use rankcheck_engine::explore::Stop;

use crate::executor::StepLimit;
use crate::memory::MemoryModel;

use self::runner::OnExecutor;

/// A failure [`explore`] reached: how it failed and where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reached {
    /// `"panic"`, `"deadlock"` or `"step-limit"`, as reports name them.
    pub kind: &'static str,
    /// The panic's message; for a deadlock and the step limit, what the
    /// report says.
    pub message: String,
    /// The file of the failing operation, as the compiler names it: the
    /// panic, the first blocked thread's blocking operation, or the
    /// operation past the step limit.
    pub file: Option<String>,
    /// Its line.
    pub line: Option<u32>,
    /// For a deadlock, the file and line of every blocked thread's
    /// blocking operation, sorted; empty otherwise.
    pub blocked: Vec<(String, u32)>,
}

/// What [`explore`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explored {
    /// The distinct failures of the schedules run.
    pub failures: BTreeSet<Reached>,
    /// The schedules run, the first passes' among them.
    pub schedules: u64,
    /// The schedules run by the first passes under lower preemption
    /// bounds of an exploration that stops at its first failure
    /// ([`Exploration::stop_at_first_failure`]); 0 for one that does not.
    pub first_passes: u64,
    /// Whether those covered every schedule (up to the order of
    /// independent steps): `false` when `max_schedules` or the time limit
    /// stopped the search first, or when the test turned out not to be a
    /// function of its schedule (`nondeterminism`).
    pub complete: bool,
    /// Whether the time limit ([`Exploration::time_limit`]) stopped the
    /// search.
    pub timed_out: bool,
    /// Where the search found that the test is not a function of its
    /// schedule, which stopped it: `None` when every run repeated the
    /// choices of the runs before it that it replayed.
    pub nondeterminism: Option<Nondeterminism>,
    /// The first schedule that failed, to report and replay.
    pub first_failing: Option<FailingRun>,
}

/// A schedule of [`explore`] that failed: which one, and its replay
/// string, so that the failure is reported from the very run the
/// exploration reached (no search has to meet it again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailingRun {
    /// The schedule (from 1) of the exploration.
    pub schedule: u64,
    /// The replay string of its run (`RANKCHECK_REPLAY` reruns it, under
    /// the exploration's step limit and memory model).
    pub replay: String,
}

impl FailingRun {
    /// The report of this run of `test`, as `builder`'s search would
    /// write it (rerun with its trace, shrunk if the builder shrinks),
    /// or `None` when the rerun did not fail (a test that is not a
    /// function of its schedule).
    pub fn report<F>(&self, builder: &crate::Builder, test: F) -> Option<String>
    where
        F: Fn() + Send + Sync + 'static,
    {
        crate::search::explored_failure(builder, Arc::new(test), self)
    }
}

/// A run of [`explore`] that replayed the choices of earlier runs and was
/// offered other ones: the test took other decisions on the same
/// schedule, so it depends on something the search does not control (the
/// clock, `std::sync` or `std::thread` used directly, a value kept
/// between runs, I/O, randomness), and exhaustive exploration of it is
/// not possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nondeterminism {
    /// The run (from 1) that parted from the earlier ones.
    pub schedule: u64,
    /// The scheduling point (from 1) of that run where it parted.
    pub point: usize,
}

impl fmt::Display for Nondeterminism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the test took other decisions on the same schedule (run {} of the exploration \
             parted from the runs before it at scheduling point {}): it depends on something \
             rankcheck does not schedule, such as the clock (std::time::Instant), std::sync or \
             std::thread used directly, a value kept between runs, I/O or randomness",
            self.schedule, self.point
        )
    }
}

/// Run `test` under every schedule, every variable tracked, at most
/// `max_schedules` of them and `max_steps` operations each; the distinct
/// failures. No wait ends early: there are no spurious wake-ups, and a
/// timed wait times out only when no other thread can run. A schedule
/// that only reorders independent steps of one already run (steps on
/// different atomics, mutexes, channels, barriers or condition variables;
/// spawns, joins and ends of different threads) is skipped, or cut short
/// once every thread that can run would only do that (it still counts as
/// a schedule). Meant for small tests: the schedules still grow
/// exponentially with the steps that do conflict. A run past `max_steps`
/// is reached as a `step-limit` failure, at the operation where that
/// schedule stopped: the full search may stop others elsewhere.
///
/// A test that is not a function of its schedule (it reads the clock,
/// uses `std::sync` or `std::thread` directly, or keeps a value between
/// runs) offers other choices when a run replays a prefix of an earlier
/// one: the search stops there, incomplete, and says where in
/// [`Explored::nondeterminism`] (the failures reached before are kept).
/// It does not panic for it.
pub fn explore<F>(test: F, max_schedules: u64, max_steps: u64) -> Explored
where
    F: Fn() + Send + Sync + 'static,
{
    Exploration::new(max_schedules, max_steps).run(test)
}

/// As [`explore`], under the memory model `model`: under
/// [`MemoryModel::Weak`] every read choice the model allows is explored
/// too, so the failures are those of every outcome the model reaches (a
/// litmus test's outcome set, when the test fails with its outcome). A
/// test that is not a function of its schedule and read choices stops
/// the search as in [`explore`].
pub fn explore_memory<F>(
    test: F,
    max_schedules: u64,
    max_steps: u64,
    model: MemoryModel,
) -> Explored
where
    F: Fn() + Send + Sync + 'static,
{
    Exploration::new(max_schedules, max_steps)
        .memory_model(model)
        .run(test)
}

/// As [`explore_memory`] with no thread ever asleep: every schedule, for
/// the differential tests of the reduction (not API).
#[doc(hidden)]
pub fn explore_unreduced<F>(
    test: F,
    max_schedules: u64,
    max_steps: u64,
    model: MemoryModel,
) -> Explored
where
    F: Fn() + Send + Sync + 'static,
{
    let exploration = Exploration {
        reduce: false,
        ..Exploration::new(max_schedules, max_steps).memory_model(model)
    };
    exploration.run(test)
}

/// An exploration's settings: [`explore`]'s and [`explore_memory`]'s, and
/// what loom's `model` needs besides.
///
/// ```
/// use rankcheck_rt as rankcheck;
/// use rankcheck::{Exploration, MemoryModel};
/// use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
/// use rankcheck::sync::Arc;
///
/// let explored = Exploration::new(10_000, 1_000)
///     .memory_model(MemoryModel::Weak)
///     .stop_at_first_failure()
///     .run(|| {
///         let hits = Arc::new(AtomicUsize::new(0));
///         let other = {
///             let hits = hits.clone();
///             rankcheck::thread::spawn(move || hits.fetch_add(1, SeqCst))
///         };
///         hits.fetch_add(1, SeqCst);
///         other.join().unwrap();
///         assert_eq!(hits.load(SeqCst), 2);
///     });
/// assert!(explored.complete && explored.failures.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Exploration {
    max_schedules: u64,
    steps: StepLimit,
    model: MemoryModel,
    spurious_cas: bool,
    reduce: bool,
    first_failure: bool,
    preemption_bound: Option<u32>,
    time_limit: Option<Duration>,
}

impl Exploration {
    /// At most `max_schedules` schedules of at most `max_steps` operations
    /// each, sequentially consistent, every failure reached.
    pub fn new(max_schedules: u64, max_steps: u64) -> Exploration {
        Exploration {
            max_schedules,
            steps: StepLimit::operations(max_steps),
            model: MemoryModel::Sc,
            spurious_cas: true,
            reduce: true,
            first_failure: false,
            preemption_bound: None,
            time_limit: None,
        }
    }

    /// Stop once the search has run this long (checked after a run, every
    /// 256 runs or 100 ms, so that it ends within a run of the limit):
    /// `complete` is then false and `timed_out` true.
    pub fn time_limit(mut self, limit: Duration) -> Exploration {
        self.time_limit = Some(limit);
        self
    }

    /// Only the schedules with at most `bound` preemptions (a switch away
    /// from a thread that could have gone on), as loom's
    /// `preemption_bound`: `complete` then says that every such schedule
    /// ran. Under weak memory the read choices are not bounded.
    pub fn preemption_bound(mut self, bound: u32) -> Exploration {
        self.preemption_bound = Some(bound);
        self
    }

    /// Under the memory model `model` (as [`explore_memory`]).
    pub fn memory_model(mut self, model: MemoryModel) -> Exploration {
        self.model = model;
        self
    }

    /// Whether, under weak memory, a `compare_exchange_weak` that would
    /// succeed may also fail spuriously, as
    /// [`Builder::spurious_cas_failures`](crate::Builder::spurious_cas_failures)
    /// (default `true`). Each such operation is then a choice of two, so
    /// that a test with many in its runs has many more schedules: loom's
    /// model, which never fails one, has far fewer.
    pub fn spurious_cas_failures(mut self, offered: bool) -> Exploration {
        self.spurious_cas = offered;
        self
    }

    /// Whether an access to a
    /// [`cell::UnsafeCell`](crate::cell::UnsafeCell) is a scheduling point
    /// and counts toward the step limit, as
    /// [`Builder::cell_scheduling_points`](crate::Builder::cell_scheduling_points).
    pub fn cell_scheduling_points(mut self, points: bool) -> Exploration {
        self.steps.cell_points = points;
        self
    }

    /// No reduction: every schedule (within the bound), for the
    /// differential tests of the reduction (not API).
    #[doc(hidden)]
    pub fn unreduced(mut self) -> Exploration {
        self.reduce = false;
        self
    }

    /// Stop at the first failing schedule (then `complete` is false unless
    /// it was the last): enough to know the test fails, as loom's `model`
    /// stops at its first failure.
    ///
    /// Such an exploration looks for a failure first among the schedules
    /// with few preemptions, where most concurrency bugs are (iterative
    /// preemption bounding, as CHESS): before the search proper, the same
    /// search under the preemption bounds 0 and 1 (those below the
    /// exploration's own bound), which together run at most a tenth of
    /// `max_schedules` (a pass that would run more is left unfinished)
    /// besides the search proper's own `max_schedules`.
    /// A failure is then found with few preemptions, and often much
    /// sooner. A test that passes runs those passes' schedules twice;
    /// [`Explored::first_passes`] counts them.
    pub fn stop_at_first_failure(mut self) -> Exploration {
        self.first_failure = true;
        self
    }

    /// Explore `test`'s schedules (as [`explore`]).
    ///
    /// # Panics
    /// With `RANKCHECK_RECORDS` set (a nightly campaign's chunk), when the
    /// exploration's records cannot be written there (crate::campaign).
    #[track_caller]
    pub fn run<F>(&self, test: F) -> Explored
    where
        F: Fn() + Send + Sync + 'static,
    {
        let test: crate::executor::Test = Arc::new(test);
        let started = std::time::Instant::now();
        let explored = search(test.clone(), self);
        let elapsed_s = started.elapsed().as_secs_f64();
        let overrides = crate::environment::Overrides::from_env();
        if let Some(path) = &overrides.records {
            let failure = explored
                .first_failing
                .as_ref()
                .and_then(|run| crate::search::explored_failure_json(test, run, self.steps));
            let caller = std::panic::Location::caller();
            let explored = crate::campaign::ExploredChunk {
                explored: &explored,
                preemption_bound: self.preemption_bound,
                failure,
                program: &format!("{}:{}", caller.file(), caller.line()),
                first_run: overrides.first_run.unwrap_or(0),
                elapsed_s,
            };
            if let Err(why) = crate::campaign::record_exploration(path, &explored) {
                panic!("{why}");
            }
        }
        explored
    }
}

/// The depth-first search (`reduce`: with sleep sets), the engine's on
/// the executor.
fn search(test: crate::executor::Test, exploration: &Exploration) -> Explored {
    let Exploration {
        max_schedules,
        steps,
        model,
        spurious_cas,
        reduce,
        first_failure,
        preemption_bound,
        time_limit,
    } = *exploration;
    let settings = dfs::Settings {
        pruning: if reduce { Pruning::Dpor } else { Pruning::None },
        preemption_bound,
        spin_yields: None,
        max_schedules,
        max_memory: u64::MAX,
        stop_at_first_failure: first_failure,
        deepening: first_failure.then_some(dfs::Deepening {
            deepest: FIRST_PASSES_DEEPEST,
            budget: max_schedules / FIRST_PASSES_SHARE,
        }),
    };
    let mut runner = OnExecutor::new(test, steps, model, spurious_cas);
    let started = Instant::now();
    let in_time = |_: &_| time_limit.is_none_or(|limit| started.elapsed() < limit);
    let searched = dfs::search(&mut runner, &settings, &in_time);
    Explored {
        failures: runner.failures,
        schedules: searched.schedules,
        first_passes: searched.first_passes,
        complete: searched.exhausted,
        timed_out: searched.stop == Some(Stop::Interrupted),
        nondeterminism: searched.parted.map(|parted| Nondeterminism {
            schedule: parted.schedule,
            point: parted.point,
        }),
        first_failing: runner.first_failing,
    }
}

/// The highest preemption bound of the first passes of an exploration that
/// stops at its first failure. Most concurrency bugs need one or two
/// preemptions (Musuvathi and Qadeer, PLDI 2007); every historical bug
/// of `results/historical.md` that rankcheck's `model` finds is found by
/// the pass at bound 1, and a pass at bound 2 cost boxcar 0.2.14's
/// unbounded models 15% to 47% more schedules where bound 1 cost 4% to
/// 15% (`results/explore_rt.md`).
const FIRST_PASSES_DEEPEST: u32 = 1;

/// The first passes run at most `1 / FIRST_PASSES_SHARE` of the
/// exploration's schedules, which bounds what they cost a test that
/// passes.
const FIRST_PASSES_SHARE: u64 = 10;
