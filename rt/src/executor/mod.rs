//! The executor: runs one execution of a test, its threads as coroutines on
//! the calling OS thread, under one scheduler.
//!
//! Every replacement type's operation enters here ([`crate::op`]) before it
//! acts. A thread runs until an operation ends its step (an access to a
//! tracked variable, any synchronisation operation, docs/LANGUAGE.md,
//! Steps and scheduling points); the scheduling point then comes when the
//! thread reaches its next operation, so that the scheduler sees what every
//! thread will do next (the code in between touches nothing shared). A
//! point whose choice is the running thread costs no context switch.
//!
//! A [`Session`] keeps one boxed execution from run to run, with the
//! registry and the buffers the last run grew, and names threads and
//! objects only for a failing or traced run. The parts: `coroutine.rs`
//! pools the coroutines, `suspend.rs` holds the executor's one `unsafe`
//! line (suspending from deep in user code), `threads.rs` the
//! thread table, the enabled set and each object's waiters, `point.rs` the
//! scheduling points and deadlocks, `give_way.rs` a thread that gave way,
//! `foreign_wakes.rs` wakes from OS threads outside the run, and
//! `teardown.rs` the end of a run (leaking what a failed run's stopped
//! threads hold, dropping the futures of tasks left between two polls).

mod coroutine;
pub mod foreign_wakes;
mod give_way;
pub mod point;
mod suspend;
mod teardown;
pub mod threads;

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicU64, Ordering};

use rankcheck_engine::{Event, EventKind, Pending, Scheduler, ThreadId, VarId};

use crate::failure::{Failure, FailureKind, SourceLocation};
use crate::footprint::{Place, StepLog, Touch};
use crate::memory::choice::{ReadChoice, ReadPolicy};
use crate::memory::{Memory, MemoryModel, Spare, StaleRead};
use crate::object::{Handle, Object, ObjectId, ObjectKind, SyncState};
use crate::panic_capture;
use crate::trace::TraceLog;
use crate::var::{same_site, Registry, MAIN_IDENTITY};
use crate::wake::{WakeChoices, WakeState, Wakes};
use coroutine::{Job, Pool, Worker, Yield};
use threads::{Status, ThreadState, Threads};

/// A test: what one execution runs on its main thread.
pub type Test = std::sync::Arc<dyn Fn() + Send + Sync + 'static>;

/// A scheduler the executor can hand back after the run.
pub trait RunScheduler: Scheduler {
    /// Itself, to downcast.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<S: Scheduler + 'static> RunScheduler for S {
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Which variables a run tracks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tracking {
    /// Every variable, also those first seen in this run.
    All,
    /// These variables, by id.
    Vars(Vec<VarId>),
    /// Objects of this run by creation order (a replay string's form).
    Objects(Vec<ObjectId>),
}

/// The step limit: past `max` operations, a run fails as possibly not
/// terminating.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepLimit {
    /// The most operations.
    pub max: u64,
    /// Whether an access to a `cell::UnsafeCell` is a scheduling point
    /// (when tracked) and counts toward `max`. loom's are neither: its
    /// branch points, which `max_branches` counts, are the other
    /// operations, and its race check finds a racing cell access however
    /// it is scheduled.
    pub cell_points: bool,
}

impl StepLimit {
    /// At most `max` operations of every kind.
    pub fn operations(max: u64) -> StepLimit {
        StepLimit {
            max,
            cell_points: true,
        }
    }
}

/// How one execution is run.
pub struct RunConfig {
    /// What is tracked.
    pub tracking: Tracking,
    /// The most operations before the run counts as a step-limit failure.
    pub steps: StepLimit,
    /// Whether to keep the trace (the failing run's rerun).
    pub trace: bool,
    /// Where the run's spurious wake-ups and early timeouts come from.
    pub wakes: WakeChoices,
    /// The memory model.
    pub memory: MemoryModel,
    /// Under weak memory, where the run's read choices come from.
    pub reads: ReadPolicy,
    /// Under weak memory, whether a `compare_exchange_weak` that would
    /// succeed may fail spuriously (a read choice; a replayed run makes
    /// the failures its choices recorded, whatever this says).
    pub spurious_cas: bool,
    /// Where to log what each step touches, when the scheduler reads it
    /// ([`crate::explore`]).
    pub footprint: Option<StepLog>,
}

/// How an execution ended.
pub struct RunResult {
    /// The failure, if it failed.
    pub failure: Option<Failure>,
    /// The thread chosen at every scheduling point.
    pub schedule: Vec<ThreadId>,
    /// The steps, when traced.
    pub trace: Option<TraceLog>,
    /// Threads the run created.
    pub threads: usize,
    /// The objects tracked (for a replay string), in creation order.
    pub tracked_objects: Vec<ObjectId>,
    /// The variable of each object, by [`ObjectId`].
    pub objects: Vec<VarId>,
    /// Each thread's name, by id.
    pub thread_names: Vec<String>,
    /// The spurious wake-ups and timeouts the run made.
    pub wakes: Wakes,
    /// The waits that ended early, by ordinal (for a replay string).
    pub early: Vec<u32>,
    /// Under weak memory, the read choices other than the latest (for a
    /// replay string).
    pub reads: Vec<ReadChoice>,
    /// The stale reads, for the report.
    pub stale: Vec<StaleRead>,
    /// The loads whose choices the history bound cut.
    pub cut: u64,
}

/// The state of the execution running on this OS thread, if any.
pub struct Execution {
    /// Unique in the process: objects of another execution are refused.
    pub id: u64,
    /// The test's variables, over all its runs.
    pub registry: Registry,
    /// This execution's threads.
    pub threads: Threads,
    /// This execution's objects.
    pub objects: Vec<Object>,
    /// The running thread.
    pub current: ThreadId,
    /// The thread the executor resumes next; `None` once the execution is
    /// over.
    pub next: Option<ThreadId>,
    /// The event that ended the running thread's step, when its last
    /// operation ended one: the next operation is then a scheduling point.
    pub step_end: Option<Event>,
    /// Scheduling points passed.
    pub points: u64,
    /// Operations done, for the step limit.
    pub operations: u64,
    steps: StepLimit,
    tracking: Tracking,
    /// `tracked[var]` when tracking a set.
    tracked: Vec<bool>,
    tracked_objects: Vec<ObjectId>,
    /// Values registered on first use (lazy.rs), per creation site: how
    /// many so far in this run.
    first_used: Vec<(&'static Location<'static>, u32)>,
    scheduler: Option<Box<dyn RunScheduler>>,
    /// Each thread's next operation, when the scheduler wants them.
    pub pending: Vec<Pending>,
    /// Whether the scheduler wants them.
    pub wants_pending: bool,
    /// Where the running step's touches go, when logged.
    footprint: Option<StepLog>,
    /// The choices so far.
    pub schedule: Vec<ThreadId>,
    /// The longest schedule of the session's runs so far: the next one's
    /// capacity.
    longest_schedule: usize,
    /// The failure, once one happened: the execution then winds down.
    pub failure: Option<Failure>,
    /// Set while unfinished threads are unwound after the end: operations
    /// then do nothing but their own bookkeeping, and never switch.
    pub aborting: bool,
    /// The trace, when kept.
    pub trace: Option<TraceLog>,
    /// Panics of spawned threads, kept for `join` to deliver.
    pub panics: Vec<Panicked>,
    /// Spurious wake-ups and timeouts: the decisions so far.
    pub wakes: WakeState,
    /// The atomics' memory (crate::memory).
    pub memory: Memory,
    /// The room the last run's memory left, for the next run's.
    spare_memory: Spare,
    /// Steps that ended with a tracked event so far: the count a priority
    /// scheduler's change points are drawn among.
    pub tracked_steps: u64,
    /// The async side of each thread (crate::future): woken or not, what
    /// it awaits, its timers.
    pub tasks: crate::future::Tasks,
    /// Wakes of this session's tasks posted from other OS threads.
    pub foreign: std::sync::Arc<foreign_wakes::ForeignWakes>,
    /// Whether this session's runs wait for wakes from outside.
    pub foreign_waiting: foreign_wakes::Waiting,
}

/// A spawned thread's panic: its result, which `join` delivers as `Err`.
pub struct Panicked {
    /// The failure it is if nobody takes it.
    pub failure: Failure,
    /// The thread that panicked.
    pub thread: ThreadId,
    /// The thread whose `join` took it, once one did.
    pub delivered_to: Option<ThreadId>,
}

thread_local! {
    static EXECUTION: RefCell<Option<Box<Execution>>> = const { RefCell::new(None) };
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

static NEXT_EXECUTION: AtomicU64 = AtomicU64::new(1);

/// Run `f` on the execution of this OS thread.
///
/// # Panics
/// With a message saying how to use the crate, outside `rankcheck::check`.
pub fn with<R>(f: impl FnOnce(&mut Execution) -> R) -> R {
    EXECUTION.with(|cell| {
        let mut slot = cell.borrow_mut();
        match slot.as_deref_mut() {
            Some(execution) => f(execution),
            None => outside_check(),
        }
    })
}

#[cold]
fn outside_check() -> ! {
    panic!(
        "rankcheck: a rankcheck thread or sync type was used outside a test run; \
         use them only inside the closure given to rankcheck::check or rankcheck::replay"
    )
}

/// The running execution's id and running thread.
pub fn running() -> (u64, ThreadId) {
    with(|ex| (ex.id, ex.current))
}

/// Whether an execution runs on this OS thread and is not unwinding.
pub fn active() -> bool {
    EXECUTION.with(|cell| {
        cell.try_borrow()
            .ok()
            .and_then(|slot| slot.as_ref().map(|e| !e.aborting))
            .unwrap_or(false)
    })
}

/// Run `f` on the execution of this OS thread if one runs and is not
/// unwinding ([`active`]); `None` otherwise. One visit to the thread-local
/// execution where `active` then [`with`] would be two.
pub fn with_active<R>(f: impl FnOnce(&mut Execution) -> R) -> Option<R> {
    EXECUTION.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        let execution = slot.as_deref_mut()?;
        (!execution.aborting).then(|| f(execution))
    })
}

/// Run `f` on the execution of this OS thread if one is installed
/// (running or unwinding, [`present`]); `None` otherwise.
pub fn with_present<R>(f: impl FnOnce(&mut Execution) -> R) -> Option<R> {
    EXECUTION.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        slot.as_deref_mut().map(f)
    })
}

/// Run `f` on the execution of this OS thread, if one is installed and
/// not borrowed (a waker woken anywhere): its result, `None` otherwise.
pub fn try_with<R>(f: impl FnOnce(&mut Execution) -> R) -> Option<R> {
    EXECUTION.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        slot.as_deref_mut().map(f)
    })
}

/// Whether an execution is installed on this OS thread (running or
/// unwinding) and not borrowed.
pub fn present() -> bool {
    EXECUTION.with(|cell| {
        cell.try_borrow()
            .map(|slot| slot.is_some())
            .unwrap_or(false)
    })
}

/// A test's session on this OS thread: between runs it keeps the
/// execution (with the registry, and the memory the last run grew) and the
/// coroutines, so that a run allocates little and moves nothing big.
pub struct Session {
    execution: Option<Box<Execution>>,
    workers: Vec<Option<Worker>>,
}

impl Session {
    /// Start a test on this OS thread.
    ///
    /// # Panics
    /// When a test already runs here (`check` inside `check`).
    pub fn new() -> Session {
        let nested = EXECUTION.with(|cell| cell.try_borrow().map_or(true, |slot| slot.is_some()));
        if nested {
            panic!("rankcheck: rankcheck::check or replay was called inside a test run; runs cannot be nested");
        }
        panic_capture::install();
        Session {
            execution: Some(Box::new(Execution::idle(Registry::new()))),
            workers: Vec::new(),
        }
    }

    /// The variables seen so far.
    pub fn registry(&self) -> &Registry {
        &self
            .execution
            .as_ref()
            .unwrap_or_else(|| unreachable!("invariant: the execution is back after each run"))
            .registry
    }

    /// Run `test` once under `scheduler`; the scheduler comes back with the
    /// result.
    pub fn run<S: Scheduler + 'static>(
        &mut self,
        test: &Test,
        scheduler: S,
        config: RunConfig,
    ) -> (RunResult, S) {
        let mut execution = self
            .execution
            .take()
            .unwrap_or_else(|| Box::new(Execution::idle(Registry::new())));
        execution.begin(Box::new(scheduler), config);
        let id = execution.id;
        EXECUTION.with(|cell| *cell.borrow_mut() = Some(execution));
        crate::lazy::started(id);
        let test = test.clone();
        let leaked = drive(Box::new(move || test()), &mut self.workers);
        crate::lazy::ended(id, leaked);
        let mut execution = EXECUTION
            .with(|cell| cell.borrow_mut().take())
            .unwrap_or_else(|| unreachable!("invariant: the execution is still installed"));
        let (result, scheduler) = execution.finish();
        self.execution = Some(execution);
        let scheduler = scheduler
            .into_any()
            .downcast::<S>()
            .unwrap_or_else(|_| unreachable!("invariant: the scheduler comes back as it went in"));
        (result, *scheduler)
    }
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

impl Execution {
    /// An execution between runs: no threads, no objects, no scheduler.
    fn idle(registry: Registry) -> Execution {
        Execution {
            id: 0,
            registry,
            threads: Threads::default(),
            objects: Vec::new(),
            current: ThreadId(0),
            next: None,
            step_end: None,
            points: 0,
            operations: 0,
            steps: StepLimit::default(),
            tracking: Tracking::All,
            tracked: Vec::new(),
            tracked_objects: Vec::new(),
            first_used: Vec::new(),
            scheduler: None,
            pending: Vec::new(),
            wants_pending: false,
            footprint: None,
            schedule: Vec::new(),
            longest_schedule: 0,
            failure: None,
            aborting: false,
            trace: None,
            panics: Vec::new(),
            wakes: WakeState::new(WakeChoices::Replay(Vec::new())),
            memory: Memory::default(),
            spare_memory: Spare::default(),
            tracked_steps: 0,
            tasks: crate::future::Tasks::default(),
            foreign: std::sync::Arc::default(),
            foreign_waiting: foreign_wakes::Waiting::for_this_test(),
        }
    }

    /// Start a run under `scheduler`, as `config` says, in the memory the
    /// last run left (emptied by [`Execution::finish`]).
    fn begin(&mut self, scheduler: Box<dyn RunScheduler>, config: RunConfig) {
        self.id = NEXT_EXECUTION.fetch_add(1, Ordering::Relaxed);
        self.wants_pending = scheduler.wants_pending();
        self.scheduler = Some(scheduler);
        if let Tracking::Vars(vars) = &config.tracking {
            for v in vars {
                if self.tracked.len() <= v.index() {
                    self.tracked.resize(v.index() + 1, false);
                }
                self.tracked[v.index()] = true;
            }
        }
        self.tracking = config.tracking;
        self.footprint = config.footprint;
        self.steps = config.steps;
        self.current = ThreadId(0);
        self.next = None;
        self.step_end = None;
        self.points = 0;
        self.operations = 0;
        self.schedule = Vec::with_capacity(self.longest_schedule);
        self.aborting = false;
        self.trace = config.trace.then(TraceLog::default);
        self.wakes = WakeState::new(config.wakes);
        self.memory = Memory::new(
            config.memory,
            config.reads,
            config.spurious_cas,
            std::mem::take(&mut self.spare_memory),
        );
        self.tasks.clear();
        self.tracked_steps = 0;
    }

    /// End the run: its result and its scheduler, the execution emptied
    /// for the next run (keeping its memory).
    fn finish(&mut self) -> (RunResult, Box<dyn RunScheduler>) {
        let scheduler = self
            .scheduler
            .take()
            .unwrap_or_else(|| unreachable!("invariant: the scheduler is back after each point"));
        // Only a failing or traced run is reported step by step: the names
        // are made for those alone (formatting them is most of a small
        // run's cost otherwise).
        let reported = self.failure.is_some() || self.trace.is_some();
        let (objects, thread_names) = if reported {
            (
                self.objects.iter().map(|o| o.var).collect(),
                (0..self.threads.all.len())
                    .map(|i| self.threads.name(ThreadId(i as u32)))
                    .collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        self.longest_schedule = self.longest_schedule.max(self.schedule.len());
        let mut memory = std::mem::take(&mut self.memory);
        let stale = std::mem::take(&mut memory.stale);
        let (reads, cut, spare) = memory.finish();
        self.spare_memory = spare;
        let result = RunResult {
            failure: self.failure.take(),
            schedule: std::mem::take(&mut self.schedule),
            trace: self.trace.take(),
            threads: self.threads.all.len(),
            tracked_objects: std::mem::take(&mut self.tracked_objects),
            objects,
            thread_names,
            wakes: self.wakes.made,
            early: std::mem::take(&mut self.wakes.early),
            reads,
            stale,
            cut,
        };
        self.threads.clear();
        self.objects.clear();
        self.pending.clear();
        self.tracked.clear();
        self.first_used.clear();
        self.panics.clear();
        (result, scheduler)
    }

    /// The most operations a run may take.
    pub fn max_steps(&self) -> u64 {
        self.steps.max
    }

    /// Whether an access to a `cell::UnsafeCell` is a scheduling point and
    /// counts toward the step limit ([`StepLimit::cell_points`]).
    #[inline(always)]
    pub fn cell_points(&self) -> bool {
        self.steps.cell_points
    }

    /// Whether an access to `object` is tracked.
    pub fn is_tracked(&self, object: ObjectId) -> bool {
        let var = self.objects[object.index()].var;
        match self.tracking {
            Tracking::All => true,
            _ => self.tracked.get(var.index()).copied().unwrap_or(false),
        }
    }

    /// Create an object of kind `kind` at `site` for the running thread.
    pub fn create(
        &mut self,
        kind: ObjectKind,
        site: &'static Location<'static>,
        sync: SyncState,
    ) -> Handle {
        let thread = self.threads.get_mut(self.current);
        let index = match thread.created.iter_mut().find(|(s, _)| same_site(s, site)) {
            Some((_, count)) => {
                *count += 1;
                *count - 1
            }
            None => {
                thread.created.push((site, 1));
                0
            }
        };
        let identity = thread.identity;
        let var = self.registry.var(kind, site, identity, index);
        self.add_object(var, sync)
    }

    /// An object for a value made by a `const fn new` and seen first now
    /// (lazy.rs): which thread made it is unknown, so its variable is the
    /// `index`-th such value of `site` in the run, whichever thread uses
    /// it first. Keying it by the first user instead would make one shared
    /// value two variables in runs where different threads reach it first,
    /// and variable bounding would track a different object each run.
    pub fn create_first_used(
        &mut self,
        kind: ObjectKind,
        site: &'static Location<'static>,
        sync: SyncState,
    ) -> Handle {
        let index = match self.first_used.iter_mut().find(|(s, _)| same_site(s, site)) {
            Some((_, count)) => {
                *count += 1;
                *count - 1
            }
            None => {
                self.first_used.push((site, 1));
                0
            }
        };
        let var = self.registry.var(kind, site, MAIN_IDENTITY, index);
        // Which value of `site` gets which variable depends on which is
        // used first: a step that takes one conflicts with any that took
        // it in another order (a new object of the thread's own needs
        // nothing: no other step can touch it before this one).
        self.touch(Place::Object(var.0), true);
        self.add_object(var, sync)
    }

    /// The running thread gives way (`thread::give_way`, or a spin the
    /// memory model saw: crate::memory::spin): it does not run again until
    /// the others that can run took a step (`give_way.rs`), and its loads
    /// then read newer stores. Its next operation is a scheduling point,
    /// even where its accesses are not (a spin on an untracked atomic).
    /// Its step touches everything: it waits for a change it may not
    /// name, so every order of its next step with every other thread's is
    /// tried, and a thread asleep in the exploration wakes (a writer left
    /// asleep would never let a spin loop end).
    pub fn give_way(&mut self) {
        self.touch(Place::Everything, true);
        let running = self.current;
        self.threads.gave_way = Some(running);
        self.memory.gave_way(running);
        if self.step_end.is_none() {
            end_step(self, point::event(EventKind::Yield, None, false));
        }
    }

    /// The running step touches `place` (`write`: it may change it), when
    /// steps are logged.
    #[inline]
    pub fn touch(&self, place: Place, write: bool) {
        if let Some(log) = &self.footprint {
            log.borrow_mut().touches.push(Touch { place, write });
        }
    }

    /// An operation of the running step begins: [`Execution::retract`]
    /// takes back its touches.
    #[inline]
    pub fn mark_operation(&self) {
        if let Some(log) = &self.footprint {
            let mut log = log.borrow_mut();
            log.mark = log.touches.len();
        }
    }

    /// The operation that began last only found that it must wait, which
    /// changed nothing shared: its touches are taken back. Blocking then
    /// is as if the thread had not run (it can go on exactly when its
    /// operation could), so the step commutes with every other.
    pub fn retract(&self) {
        if let Some(log) = &self.footprint {
            let mut log = log.borrow_mut();
            let mark = log.mark;
            log.touches.truncate(mark);
        }
    }

    /// Whether steps are logged.
    #[inline]
    pub fn logs_footprint(&self) -> bool {
        self.footprint.is_some()
    }

    /// Add an object of variable `var`, in state `sync`.
    pub fn add_object(&mut self, var: VarId, sync: SyncState) -> Handle {
        let object = ObjectId(self.objects.len() as u32);
        self.objects.push(Object { var, sync });
        if let Tracking::Objects(objects) = &self.tracking {
            if objects.binary_search(&object).is_ok() {
                if self.tracked.len() <= var.index() {
                    self.tracked.resize(var.index() + 1, false);
                }
                self.tracked[var.index()] = true;
            }
        }
        if self.is_tracked(object) && self.tracking != Tracking::All {
            self.tracked_objects.push(object);
        }
        Handle {
            execution: self.id,
            object,
            var,
        }
    }

    /// Whether an operation on `handle` is one of this run's, while the
    /// run goes on (not torn down): its bookkeeping (the memory model,
    /// footprints) counts.
    pub fn is_live_for(&self, handle: &Handle) -> bool {
        !self.aborting && handle.execution == self.id
    }

    /// Check that `handle` belongs to this execution.
    ///
    /// # Panics
    /// When it does not: an object kept from another run.
    pub fn check(&self, handle: &Handle) {
        if handle.is_detached() {
            panic!(
                "rankcheck: an async object (a channel, lock or other tokio-shaped type) made \
                 outside a test run was used inside one; make it inside the test's closure"
            );
        }
        if handle.execution != self.id {
            foreign_object(
                self.registry
                    .vars()
                    .get(handle.var.index())
                    .map(|v| v.name.as_str()),
            );
        }
    }

    /// Add a thread (`task`: an async task) that will run `job`, named
    /// `name`, spawned by the running thread (none: the main thread).
    pub fn add_thread(
        &mut self,
        job: Job,
        label: Option<String>,
        spawner: Option<ThreadId>,
        task: bool,
        site: &'static Location<'static>,
    ) -> ThreadId {
        let (identity, ordinal) = match spawner {
            None => (MAIN_IDENTITY, 0),
            Some(parent) => {
                let p = self.threads.get_mut(parent);
                let index = p.children;
                p.children += 1;
                let parent_identity = p.identity;
                let same = self
                    .threads
                    .all
                    .iter()
                    .filter(|t| {
                        t.ordinal > 0
                            && t.task == task
                            && t.label == label
                            && (label.is_some() || t.site.line() == site.line())
                    })
                    .count() as u32;
                let named = || match &label {
                    Some(l) => format!("{l}#{}", same + 1),
                    None if task => format!("task@{}#{}", site.line(), same + 1),
                    None => format!("thread@{}#{}", site.line(), same + 1),
                };
                let identity = self.registry.child(parent_identity, index, named);
                (identity, same + 1)
            }
        };
        let id = self.threads.add(ThreadState {
            status: Status::Runnable,
            identity,
            label,
            ordinal,
            site,
            children: 0,
            created: Vec::new(),
            job: Some(job),
            suspender: None,
            unparked: false,
            task,
            exiting: false,
            future: None,
            polling: false,
        });
        if self.wants_pending {
            self.pending.resize(self.threads.all.len(), Pending::LOCAL);
        }
        id
    }

    /// Record a failure of the running thread; the execution winds down.
    pub fn fail(&mut self, kind: FailureKind, message: String, at: Option<SourceLocation>) {
        if self.failure.is_some() {
            return;
        }
        // The run ends here: no step may be moved past this one.
        self.touch(Place::Everything, true);
        let thread = self.current;
        self.failure = Some(Failure {
            kind,
            message,
            location: at,
            thread: self.threads.name(thread),
            blocked: Vec::new(),
        });
    }

    /// The running thread panicked and nothing caught it. When it had
    /// taken another thread's panic from `join` (`join().unwrap()`), that
    /// panic is the cause, and the failure names it first.
    /// Otherwise, when a panic no `join` took came first (a lock it
    /// poisoned may be why), the failure says so.
    fn fail_panicking(&mut self, message: String, at: Option<SourceLocation>) {
        let running = self.current;
        let cause = self.panics.iter().find(|p| p.delivered_to == Some(running));
        let Some(cause) = cause else {
            let message = match self.undelivered_panic() {
                Some(earlier) => format!(
                    "{message} (after thread {} panicked{}: {})",
                    earlier.thread,
                    earlier
                        .location
                        .map_or_else(String::new, |at| format!(" at {at}")),
                    earlier.message
                ),
                None => message,
            };
            return self.fail(FailureKind::Panic, message, at);
        };
        let mut failure = cause.failure.clone();
        let place = at.map_or_else(String::new, |at| format!(" at {at}"));
        failure.message = format!(
            "{} (then {}, which took it from join, panicked{place}: {message})",
            failure.message,
            self.threads.name(running)
        );
        self.failure.get_or_insert(failure);
    }

    /// The first panic of a spawned thread that no `join` took, if any:
    /// nothing caught it, so it fails the run.
    pub fn undelivered_panic(&self) -> Option<Failure> {
        self.panics
            .iter()
            .find(|p| p.delivered_to.is_none())
            .map(|p| p.failure.clone())
    }
}

#[cold]
fn foreign_object(name: Option<&str>) -> ! {
    panic!(
        "rankcheck: {} was created in another run of the test; every run must create \
         its own channels and cells (a value kept from one run to the next is supported \
         only for the types with a `const fn new`)",
        name.map_or("a rankcheck object".to_owned(), |n| format!(
            "the object {n}"
        ))
    )
}

/// Run the execution installed on this OS thread to its end: the main
/// thread runs `main`, then whichever thread the scheduler picks. Whether
/// the teardown leaked the run (crate::executor's teardown).
fn drive(main: Job, workers: &mut Vec<Option<Worker>>) -> bool {
    let first = with(|ex| {
        let main_thread = ex.add_thread(main, None, None, false, Location::caller());
        point::start(ex, main_thread)
    });
    let mut next = first;
    while let Some(thread) = next {
        // Resumed where it sits: a worker is too big to move in and out
        // of its slot at every switch.
        let slot = worker_slot(workers, thread);
        let yielded = slot
            .as_mut()
            .unwrap_or_else(|| unreachable!("invariant: the slot has its worker"))
            .resume();
        if let Yield::JobDone(_) = yielded {
            if let Some(worker) = slot.take() {
                POOL.with(|pool| pool.borrow_mut().put(worker));
            }
        }
        next = with(|ex| {
            if ex.failure.is_some() {
                None
            } else {
                point::next_to_run(ex)
            }
        });
    }
    teardown::tear_down(workers)
}

/// The slot of `thread`'s worker: its own, or a pooled one started on its
/// job.
fn worker_slot(workers: &mut Vec<Option<Worker>>, thread: ThreadId) -> &mut Option<Worker> {
    if workers.len() <= thread.index() {
        workers.resize_with(thread.index() + 1, || None);
    }
    let slot = &mut workers[thread.index()];
    if slot.is_none() {
        let job = with(|ex| ex.threads.get_mut(thread).job.take())
            .unwrap_or_else(|| unreachable!("invariant: a thread without a coroutine has its job"));
        let worker = POOL.with(|pool| pool.borrow_mut().take(thread, job));
        let suspender = worker.suspender();
        with(|ex| ex.threads.get_mut(thread).suspender = Some(suspender));
        *slot = Some(worker);
    }
    slot
}

/// What a coroutine runs for `thread`: its job, a panic caught as the
/// execution's failure, then the thread's end.
fn run_thread(thread: ThreadId, job: Job) {
    // An async task's start is a step of its own, which touches nothing:
    // its first operation is a scheduling point like every other, so that
    // what its first poll does before it can be interleaved, and the run
    // can end there, with the task between two polls.
    with(|ex| {
        if ex.threads.get(thread).task {
            point::end_step(ex, point::event(EventKind::Start, None, false));
        }
    });
    let outcome = panic::catch_unwind(AssertUnwindSafe(job));
    if let Err(payload) = outcome {
        if with(|ex| ex.aborting) {
            // Teardown unwinds stopped threads: let it go through.
            panic::resume_unwind(payload);
        }
        fail_with_panic(thread, payload.as_ref());
        return;
    }
    crate::local::destroy(thread);
    crate::op::finish(thread);
}

/// `thread` panicked with `payload` and nothing caught it: the execution
/// fails with the panic (or with the one it took from a `join`).
pub fn fail_with_panic(thread: ThreadId, payload: &(dyn Any + Send)) {
    let (message, location) = panic_capture::take(payload);
    with(|ex| {
        ex.current = thread;
        ex.fail_panicking(message, location);
    });
}

/// A spawned thread's body panicked with `payload`: kept as its result for
/// `join` to deliver (the run fails with it if none does); returns the
/// payload. The teardown's unwinding goes on through.
pub fn thread_panicked(payload: Box<dyn Any + Send>) -> Box<dyn Any + Send> {
    if with(|ex| ex.aborting) {
        panic::resume_unwind(payload);
    }
    let (message, location) = panic_capture::take(payload.as_ref());
    with(|ex| {
        let thread = ex.current;
        let failure = Failure {
            kind: FailureKind::Panic,
            message,
            location,
            thread: ex.threads.name(thread),
            blocked: Vec::new(),
        };
        ex.touch(Place::Panics, true);
        ex.panics.push(Panicked {
            failure,
            thread,
            delivered_to: None,
        });
    });
    payload
}

/// Whether `thread` panicked and no `join` took the panic; the running
/// thread then takes it (a scope does, as std's).
pub fn take_undelivered_panic(thread: ThreadId) -> bool {
    let undelivered = with(|ex| {
        ex.touch(Place::Panics, false);
        ex.panics
            .iter()
            .any(|p| p.thread == thread && p.delivered_to.is_none())
    });
    if undelivered {
        panic_delivered(thread);
    }
    undelivered
}

/// The running thread's `join` took `thread`'s panic.
pub fn panic_delivered(thread: ThreadId) {
    with(|ex| {
        let joiner = ex.current;
        ex.touch(Place::Panics, true);
        if let Some(p) = ex.panics.iter_mut().find(|p| p.thread == thread) {
            p.delivered_to = Some(joiner);
        }
    });
}

impl Execution {
    /// What suspends `thread`, which runs: [`Suspender::suspend`] it once
    /// the execution is no longer borrowed.
    pub fn suspender(&self, thread: ThreadId) -> Suspender {
        self.threads
            .get(thread)
            .suspender
            .unwrap_or_else(|| unreachable!("invariant: a running thread has its coroutine"))
    }
}

pub use point::end_step;
pub use suspend::Suspender;
