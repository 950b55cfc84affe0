//! Every schedule of a small test, depth first, what `rankcheck explore`
//! does for a `.rk` program, with sleep sets (Godefroid) in place of its
//! pruning. A run replays the choices of the path so far and then takes
//! the first thread that can run and is not asleep; the next run changes
//! the last choice that has an untried thread. An execution is a function
//! of its schedule, so the runs cover every schedule up to reordering
//! independent steps, which reaches every failure.
//!
//! Independence is read off what each step touched ([`Footprint`]), which
//! the executor logs as the step runs (crate::footprint): two steps of
//! different threads commute unless they touch a common place and one of
//! them writes it. The places are an object (its memory and its
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
//! A step known only once it ran is compared only once it ran: a node
//! keeps, for each thread explored from it, what its step touched, and
//! the thread sleeps below a later choice only if that choice's step
//! commutes with it. An operation that only found that it must wait (a
//! lock held, a thread not finished, a channel empty or full, no park
//! token; not a condition variable's or barrier's wait, which release or
//! arrive, nor a timed one) touched nothing: blocking is as if the thread
//! had not run, since it goes on exactly when its operation could. A node
//! whose first choice is such a step has no other: every schedule from
//! there is a schedule from after it.
//!
//! A test that is not a function of its schedule (it reads the clock,
//! uses `std::sync` or `std::thread` directly, or keeps a value between
//! runs) breaks the premise: a run that replays an earlier run's choices
//! is then offered others (a thread that does not exist yet, a read where
//! the earlier run scheduled). The search stops at the first such run and
//! says so ([`Explored::nondeterminism`]) rather than explore a tree that
//! is not one: it cannot tell which schedules it covered.
//!
//! Under weak memory ([`explore_memory`]) every read choice (which store a
//! load reads, whether a `compare_exchange_weak` fails spuriously) is a
//! node of the same path, and an access to an atomic (or a fence) also
//! touches every atomic (which stores a load may read depends on what ran
//! before it, also on other atomics): every read of every schedule is
//! enumerated, up to reordering loads.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use rankcheck_engine::{Point, Scheduler, ThreadId};

use crate::executor::{RunConfig, RunResult, Session, StepLimit, Tracking};
use crate::failure::{Failure, FailureKind};
use crate::footprint::{Place, StepLog, Touch};
use crate::memory::choice::{ReadOracle, ReadPolicy};
use crate::memory::MemoryModel;
use crate::replay_string::ReplayString;
use crate::wake::WakeChoices;

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
    /// The schedules run.
    pub schedules: u64,
    /// Whether those covered every schedule (up to the order of
    /// independent steps): `false` when `max_schedules` stopped the
    /// search first, or when the test turned out not to be a function of
    /// its schedule (`nondeterminism`).
    pub complete: bool,
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
    reduce: bool,
    first_failure: bool,
    preemption_bound: Option<u32>,
}

impl Exploration {
    /// At most `max_schedules` schedules of at most `max_steps` operations
    /// each, sequentially consistent, every failure reached.
    pub fn new(max_schedules: u64, max_steps: u64) -> Exploration {
        Exploration {
            max_schedules,
            steps: StepLimit::operations(max_steps),
            model: MemoryModel::Sc,
            reduce: true,
            first_failure: false,
            preemption_bound: None,
        }
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

    /// Whether an access to a
    /// [`cell::UnsafeCell`](crate::cell::UnsafeCell) is a scheduling point
    /// and counts toward the step limit, as
    /// [`Builder::cell_scheduling_points`](crate::Builder::cell_scheduling_points).
    pub fn cell_scheduling_points(mut self, points: bool) -> Exploration {
        self.steps.cell_points = points;
        self
    }

    /// Stop at the first failing schedule (then `complete` is false unless
    /// it was the last): enough to know the test fails, as loom's `model`
    /// stops at its first failure.
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

/// The depth-first search (`reduce`: with sleep sets).
fn search(test: crate::executor::Test, exploration: &Exploration) -> Explored {
    let Exploration {
        max_schedules,
        steps,
        model,
        reduce,
        first_failure,
        preemption_bound,
    } = *exploration;
    let mut session = Session::new();
    let mut failures = BTreeSet::new();
    let walk = Rc::new(RefCell::new(Walk {
        reduce,
        preemption_bound,
        ..Walk::default()
    }));
    let log = StepLog::default();
    let weak = model == MemoryModel::Weak;
    let mut schedules = 0;
    let mut first_failing = None;
    loop {
        if schedules == max_schedules {
            return Explored {
                failures,
                schedules,
                complete: false,
                nondeterminism: None,
                first_failing,
            };
        }
        let config = RunConfig {
            tracking: Tracking::All,
            steps,
            trace: false,
            // No wait ends early: the run is a function of its schedule.
            wakes: WakeChoices::Replay(Vec::new()),
            memory: model,
            reads: ReadPolicy::Oracle(Rc::new(RefCell::new(Reads(walk.clone())))),
            footprint: Some(log.clone()),
        };
        walk.borrow_mut().start();
        log.borrow_mut().touches.clear();
        let depth = Depth {
            walk: walk.clone(),
            log: log.clone(),
            weak,
        };
        let result = session.run(&test, depth, config).0;
        schedules += 1;
        match &result.failure {
            // The executor stopped at the point whose choice could not run.
            Some(f) if f.kind == FailureKind::Diverged => {
                return Explored {
                    failures,
                    schedules,
                    complete: false,
                    nondeterminism: Some(Nondeterminism {
                        schedule: schedules,
                        point: result.schedule.len(),
                    }),
                    first_failing,
                };
            }
            Some(f) => {
                failures.insert(reached(f));
                first_failing.get_or_insert_with(|| FailingRun {
                    schedule: schedules,
                    replay: replay_of(&result, model, steps.cell_points),
                });
            }
            None => {}
        }
        // The last step ends the run with no point after it.
        walk.borrow_mut().stepped(&log.borrow().touches, weak);
        let more = backtrack(&mut walk.borrow_mut().path, reduce);
        if !more || (first_failure && !failures.is_empty()) {
            return Explored {
                failures,
                schedules,
                complete: !more,
                nondeterminism: None,
                first_failing,
            };
        }
    }
}

/// The replay string of a run of the exploration: every object tracked,
/// no wait ended early, its read choices and schedule.
fn replay_of(result: &RunResult, memory: MemoryModel, cell_points: bool) -> String {
    ReplayString {
        tracking: Tracking::All,
        early: result.early.clone(),
        memory,
        cell_points,
        reads: result.reads.clone(),
        schedule: result.schedule.clone(),
    }
    .encode()
}

fn reached(failure: &Failure) -> Reached {
    let mut blocked: Vec<(String, u32)> = failure
        .blocked
        .iter()
        .map(|b| (b.at.file.clone(), b.at.line))
        .collect();
    blocked.sort_unstable();
    Reached {
        kind: failure.kind.name(),
        message: failure.message.clone(),
        file: failure.location.as_ref().map(|at| at.file.clone()),
        line: failure.location.as_ref().map(|at| at.line),
        blocked,
    }
}

/// A choice on the path of the depth-first search.
enum Node {
    /// A scheduling point.
    Thread(ThreadNode),
    /// A read choice under weak memory: `chosen` of `options` (0: the
    /// latest store).
    Read {
        /// The choices there are.
        options: usize,
        /// The one the current run takes.
        chosen: usize,
    },
}

/// A scheduling point on the path of the depth-first search.
struct ThreadNode {
    /// The threads that could run, sorted.
    enabled: Vec<ThreadId>,
    /// The threads asleep here, with what their step touches: exploring
    /// them would only reorder independent steps of schedules already run.
    asleep: Vec<(ThreadId, Footprint)>,
    /// The threads already explored from here, with what their step
    /// touched.
    done: Vec<(ThreadId, Footprint)>,
    /// The thread the current run takes here.
    chosen: ThreadId,
    /// What its step touched, once the run went past it.
    step: Option<Footprint>,
    /// The thread that ran up to here, if it could go on: another choice
    /// preempts it.
    running: Option<ThreadId>,
    /// The preemptions the run made before this point, and how many more
    /// it may make (`None`: no bound).
    preemptions: (u32, Option<u32>),
}

impl ThreadNode {
    /// The first thread that can run here, is not asleep, was not
    /// explored yet, and stays within the preemption bound.
    fn untried(&self) -> Option<ThreadId> {
        let seen = |t: &ThreadId| self.done.iter().chain(&self.asleep).any(|(d, _)| d == t);
        self.enabled
            .iter()
            .copied()
            .find(|t| !seen(t) && self.within_bound(*t))
    }

    /// Whether choosing `thread` here preempts the running thread.
    fn preempts(&self, thread: ThreadId) -> bool {
        self.running.is_some_and(|r| r != thread)
    }

    /// Whether choosing `thread` here keeps the run within the bound.
    fn within_bound(&self, thread: ThreadId) -> bool {
        let (made, bound) = self.preemptions;
        bound.is_none_or(|b| made + u32::from(self.preempts(thread)) <= b)
    }

    /// The preemptions made once this node's choice ran.
    fn preemptions_after(&self) -> u32 {
        self.preemptions.0 + u32::from(self.preempts(self.chosen))
    }

    /// The sleep set after this node's choice: the threads asleep or
    /// explored here whose step is independent of the choice's.
    fn asleep_after(&self) -> Vec<(ThreadId, Footprint)> {
        let Some(step) = &self.step else {
            return Vec::new();
        };
        self.asleep
            .iter()
            .chain(&self.done)
            .filter(|(t, f)| *t != self.chosen && f.commutes_with(step))
            .cloned()
            .collect()
    }
}

/// What a step touched, as the search compares steps: the places of its
/// touches, each once (written if any touch wrote it), sorted. An
/// object's memory and its synchronisation are one place.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Footprint(Vec<(Place, bool)>);

impl Footprint {
    /// The footprint of a step that made `touches` (`weak`: under weak
    /// memory, where every access to an atomic touches them all too).
    fn of(touches: &[Touch], weak: bool) -> Footprint {
        let mut places: Vec<(Place, bool)> = Vec::with_capacity(touches.len() + 1);
        for touch in touches {
            match touch.place {
                Place::Memory(object) => {
                    places.push((Place::Object(object), touch.write));
                    if weak {
                        places.push((Place::Atomics, touch.write));
                    }
                }
                place => places.push((place, touch.write)),
            }
        }
        // Sorted by place, writes first: the first of each place says
        // whether any touch wrote it.
        places.sort_unstable_by_key(|&(place, write)| (place, !write));
        places.dedup_by_key(|(place, _)| *place);
        Footprint(places)
    }

    /// A step that may have touched anything.
    fn everything() -> Footprint {
        Footprint(vec![(Place::Everything, true)])
    }

    fn touches_everything(&self) -> bool {
        self.0.iter().any(|(place, _)| *place == Place::Everything)
    }

    /// Whether two threads' steps touching `self` and `other` commute
    /// (and neither enables or disables the other): no place both touch
    /// and one writes.
    fn commutes_with(&self, other: &Footprint) -> bool {
        if self.touches_everything() || other.touches_everything() {
            return false;
        }
        !self
            .0
            .iter()
            .any(|(key, write)| other.0.iter().any(|(k, w)| k == key && (*write || *w)))
    }
}

/// Move the path to the next schedule: the last node with an untried
/// thread takes it, the nodes below it go. `false` when none is left.
/// With `reduce`, a node whose first choice touched nothing (it yielded,
/// or found that it must wait) has no other: that step only moved its
/// thread to where it waits, which every schedule from there reaches too.
fn backtrack(path: &mut Vec<Node>, reduce: bool) -> bool {
    while let Some(last) = path.last_mut() {
        match last {
            Node::Thread(node) => {
                let step = node.step.take().unwrap_or_else(Footprint::everything);
                let stutters = reduce && step.0.is_empty();
                node.done.push((node.chosen, step));
                if let Some(next) = node.untried().filter(|_| !stutters) {
                    node.chosen = next;
                    return true;
                }
            }
            Node::Read { options, chosen } if *chosen + 1 < *options => {
                *chosen += 1;
                return true;
            }
            Node::Read { .. } => {}
        }
        path.pop();
    }
    false
}

/// The path of the search and how far the current run is along it,
/// shared by its scheduler and its read choices.
#[derive(Default)]
struct Walk {
    path: Vec<Node>,
    /// The choices the current run made so far.
    at: usize,
    /// Whether the run went past a point where every thread was asleep.
    redundant: bool,
    /// Whether threads sleep (off: every schedule is run).
    reduce: bool,
    /// The most preemptions a schedule may make (`None`: no bound).
    preemption_bound: Option<u32>,
    /// The node of the run's last scheduling point, while the run adds
    /// to the path: its choice's step is the one running.
    last: Option<usize>,
}

impl Walk {
    /// A run starts along the path.
    fn start(&mut self) {
        self.at = 0;
        self.redundant = false;
        self.last = None;
    }

    /// The step of the last point's choice made `touches`.
    fn stepped(&mut self, touches: &[Touch], weak: bool) {
        if let Some(Node::Thread(node)) = self.last.and_then(|i| self.path.get_mut(i)) {
            node.step = Some(Footprint::of(touches, weak));
        }
    }
}

/// The read choices of a run of the search.
struct Reads(Rc<RefCell<Walk>>);

impl ReadOracle for Reads {
    fn choose(&mut self, options: usize) -> usize {
        let mut walk = self.0.borrow_mut();
        let index = walk.at;
        walk.at += 1;
        match walk.path.get(index) {
            Some(Node::Read { chosen, .. }) => *chosen.min(&(options - 1)),
            // A replayed prefix that reads where it scheduled: the test is
            // not a function of its choices; the scheduler reports it.
            Some(Node::Thread(_)) => 0,
            None if walk.redundant => 0,
            None => {
                walk.path.push(Node::Read { options, chosen: 0 });
                0
            }
        }
    }
}

/// One run of the search: the path's choices, then new nodes, until every
/// thread that can run is asleep (the rest of the run only reorders what
/// ran already: it takes the first thread, and adds no node).
struct Depth {
    walk: Rc<RefCell<Walk>>,
    /// What the executor logs the running step's touches into.
    log: StepLog,
    /// Whether memory is weak: memory accesses then conflict with every
    /// access but a load.
    weak: bool,
}

impl Depth {
    /// The choice at the `index`-th point: the path's, or a new node's.
    fn choice(&mut self, point: &Point<'_>) -> ThreadId {
        let mut walk = self.walk.borrow_mut();
        let index = walk.at;
        walk.at += 1;
        match walk.path.get(index) {
            // A thread the point does not offer makes the run diverge,
            // which `search` reports.
            Some(Node::Thread(node)) => {
                let chosen = node.chosen;
                walk.last = Some(index);
                return chosen;
            }
            // A read choice where the run schedules: it diverged.
            Some(Node::Read { .. }) => return ThreadId(u32::MAX),
            None => {}
        }
        if walk.redundant {
            return without_preempting(point);
        }
        let mut enabled = point.enabled.to_vec();
        enabled.sort_unstable();
        let parent = walk.path.iter().rev().find_map(|n| match n {
            Node::Thread(node) => Some(node),
            Node::Read { .. } => None,
        });
        let asleep: Vec<(ThreadId, Footprint)> = match parent {
            Some(parent) if walk.reduce => parent
                .asleep_after()
                .into_iter()
                .filter(|(t, _)| point.is_enabled(*t))
                .collect(),
            _ => Vec::new(),
        };
        let made = parent.map_or(0, ThreadNode::preemptions_after);
        let mut node = ThreadNode {
            enabled,
            asleep,
            done: Vec::new(),
            chosen: ThreadId(0),
            step: None,
            running: point.last.filter(|t| point.is_enabled(*t)),
            preemptions: (made, walk.preemption_bound),
        };
        match node.untried() {
            Some(chosen) => {
                node.chosen = chosen;
                walk.path.push(Node::Thread(node));
                walk.last = Some(walk.path.len() - 1);
                chosen
            }
            None => {
                // No thread that can run here is awake (or within the
                // preemption bound): the rest of the run only reorders
                // what ran already, or leaves the bound (ending it here
                // would cost more, in unwinding its threads, than
                // finishing it).
                walk.redundant = true;
                walk.last = None;
                without_preempting(point)
            }
        }
    }
}

/// The choice of a run's rest that adds no node: the running thread while
/// it can go on, else the lowest that can run. Never a preemption, so a
/// thread that gives way in a spin loop lets the others finish, and the
/// run ends.
fn without_preempting(point: &Point<'_>) -> ThreadId {
    match point.last.filter(|t| point.is_enabled(*t)) {
        Some(running) => running,
        None => point
            .enabled
            .iter()
            .copied()
            .min()
            .unwrap_or(point.enabled[0]),
    }
}

impl Scheduler for Depth {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        let touches = std::mem::take(&mut self.log.borrow_mut().touches);
        self.walk.borrow_mut().stepped(&touches, self.weak);
        self.choice(point)
    }
}
