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

mod coroutine;
pub mod point;
mod suspend;
pub mod threads;

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicU64, Ordering};

use rankcheck_engine::{Event, Pending, Scheduler, ThreadId, VarId};

use crate::failure::{Failure, FailureKind, SourceLocation};
use crate::object::{Handle, Object, ObjectId, SyncState};
use crate::panic_capture;
use crate::trace::TraceLog;
use crate::var::{Registry, MAIN_IDENTITY};
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

/// How one execution is run.
pub struct RunConfig {
    /// What is tracked.
    pub tracking: Tracking,
    /// The most operations before the run counts as a step-limit failure.
    pub max_steps: u64,
    /// Whether to keep the trace (the failing run's rerun).
    pub trace: bool,
    /// Where the run's spurious wake-ups and early timeouts come from.
    pub wakes: WakeChoices,
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
    max_steps: u64,
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
    /// The choices so far.
    pub schedule: Vec<ThreadId>,
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
    /// The async side of each thread (crate::future): woken or not, what
    /// it awaits, its timers.
    pub tasks: crate::future::Tasks,
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

/// Run `f` on the execution of this OS thread, if one is installed and
/// not borrowed (a waker woken anywhere).
pub fn try_with(f: impl FnOnce(&mut Execution)) {
    EXECUTION.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            if let Some(execution) = slot.as_deref_mut() {
                f(execution);
            }
        }
    });
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

/// A test's session on this OS thread: it owns the registry between runs,
/// and the memory the last execution grew, so that a run allocates little.
pub struct Session {
    registry: Option<Registry>,
    spare: Spare,
}

/// The buffers of a finished execution, emptied, for the next one: a run
/// of a small test then costs a few allocations instead of dozens.
#[derive(Default)]
struct Spare {
    threads: Threads,
    objects: Vec<Object>,
    pending: Vec<Pending>,
    tracked: Vec<bool>,
    workers: Vec<Option<Worker>>,
    /// The longest schedule so far: the next one's capacity.
    schedule_len: usize,
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
            registry: Some(Registry::new()),
            spare: Spare::default(),
        }
    }

    /// The variables seen so far.
    pub fn registry(&self) -> &Registry {
        self.registry
            .as_ref()
            .unwrap_or_else(|| unreachable!("invariant: the registry is back after each run"))
    }

    /// Run `test` once under `scheduler`; the scheduler comes back with the
    /// result.
    pub fn run<S: Scheduler + 'static>(
        &mut self,
        test: &Test,
        scheduler: S,
        config: RunConfig,
    ) -> (RunResult, S) {
        let registry = self.registry.take().unwrap_or_default();
        let mut spare = std::mem::take(&mut self.spare);
        let mut workers = std::mem::take(&mut spare.workers);
        let execution = Execution::new(registry, Box::new(scheduler), config, spare);
        let id = execution.id;
        EXECUTION.with(|cell| *cell.borrow_mut() = Some(Box::new(execution)));
        crate::lazy::started(id);
        let test = test.clone();
        drive(Box::new(move || test()), &mut workers);
        crate::lazy::ended(id);
        let execution = EXECUTION
            .with(|cell| cell.borrow_mut().take())
            .unwrap_or_else(|| unreachable!("invariant: the execution is still installed"));
        let (result, registry, scheduler, mut spare) = execution.finish();
        spare.workers = workers;
        spare.schedule_len = spare.schedule_len.max(self.spare.schedule_len);
        self.registry = Some(registry);
        self.spare = spare;
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
    fn new(
        registry: Registry,
        scheduler: Box<dyn RunScheduler>,
        config: RunConfig,
        spare: Spare,
    ) -> Execution {
        let wants_pending = scheduler.wants_pending();
        let mut tracked = spare.tracked;
        if let Tracking::Vars(vars) = &config.tracking {
            for v in vars {
                if tracked.len() <= v.index() {
                    tracked.resize(v.index() + 1, false);
                }
                tracked[v.index()] = true;
            }
        }
        Execution {
            id: NEXT_EXECUTION.fetch_add(1, Ordering::Relaxed),
            registry,
            threads: spare.threads,
            objects: spare.objects,
            current: ThreadId(0),
            next: None,
            step_end: None,
            points: 0,
            operations: 0,
            max_steps: config.max_steps,
            tracking: config.tracking,
            tracked,
            tracked_objects: Vec::new(),
            first_used: Vec::new(),
            scheduler: Some(scheduler),
            wants_pending,
            pending: spare.pending,
            schedule: Vec::with_capacity(spare.schedule_len),
            failure: None,
            aborting: false,
            trace: config.trace.then(TraceLog::default),
            panics: Vec::new(),
            wakes: WakeState::new(config.wakes),
            tasks: crate::future::Tasks::default(),
        }
    }

    fn finish(mut self) -> (RunResult, Registry, Box<dyn RunScheduler>, Spare) {
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
        let result = RunResult {
            failure: self.failure,
            schedule: self.schedule,
            trace: self.trace,
            threads: self.threads.all.len(),
            tracked_objects: self.tracked_objects,
            objects,
            thread_names,
            wakes: self.wakes.made,
            early: self.wakes.early,
        };
        self.threads.clear();
        self.objects.clear();
        self.pending.clear();
        self.tracked.clear();
        let spare = Spare {
            threads: self.threads,
            objects: self.objects,
            pending: self.pending,
            tracked: self.tracked,
            workers: Vec::new(),
            schedule_len: result.schedule.len(),
        };
        (result, self.registry, scheduler, spare)
    }

    /// The most operations a run may take.
    pub fn max_steps(&self) -> u64 {
        self.max_steps
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
        kind: &'static str,
        site: &'static Location<'static>,
        sync: SyncState,
    ) -> Handle {
        let thread = self.threads.get_mut(self.current);
        let index = match thread.created.iter_mut().find(|(s, _)| *s == site) {
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
        kind: &'static str,
        site: &'static Location<'static>,
        sync: SyncState,
    ) -> Handle {
        let index = match self.first_used.iter_mut().find(|(s, _)| *s == site) {
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
        self.add_object(var, sync)
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

    /// Check that `handle` belongs to this execution.
    ///
    /// # Panics
    /// When it does not: an object kept from another run.
    pub fn check(&self, handle: &Handle) {
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
/// thread runs `main`, then whichever thread the scheduler picks.
fn drive(main: Job, workers: &mut Vec<Option<Worker>>) {
    let first = with(|ex| {
        let main_thread = ex.add_thread(main, None, None, false, Location::caller());
        point::start(ex, main_thread)
    });
    let mut next = first;
    while let Some(thread) = next {
        let mut worker = take_worker(workers, thread);
        let yielded = worker.resume();
        match yielded {
            Yield::Switched => workers[thread.index()] = Some(worker),
            Yield::JobDone(_) => POOL.with(|pool| pool.borrow_mut().put(worker)),
        }
        next = with(|ex| {
            if ex.failure.is_some() {
                None
            } else {
                point::next_to_run(ex)
            }
        });
    }
    tear_down(workers);
}

/// The worker of `thread`: its own, or a pooled one started on its job.
fn take_worker(workers: &mut Vec<Option<Worker>>, thread: ThreadId) -> Worker {
    if workers.len() <= thread.index() {
        workers.resize_with(thread.index() + 1, || None);
    }
    if let Some(worker) = workers[thread.index()].take() {
        return worker;
    }
    let job = with(|ex| ex.threads.get_mut(thread).job.take())
        .unwrap_or_else(|| unreachable!("invariant: a thread without a coroutine has its job"));
    let worker = POOL.with(|pool| pool.borrow_mut().take(thread, job));
    let suspender = worker.suspender();
    with(|ex| ex.threads.get_mut(thread).suspender = Some(suspender));
    worker
}

/// What a coroutine runs for `thread`: its job, a panic caught as the
/// execution's failure, then the thread's end.
fn run_thread(thread: ThreadId, job: Job) {
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
        if let Some(p) = ex.panics.iter_mut().find(|p| p.thread == thread) {
            p.delivered_to = Some(joiner);
        }
    });
}

/// Unwind the threads stopped in the middle of their bodies, so that what
/// they hold is dropped; their operations do nothing meanwhile. `workers`
/// is left empty.
///
/// Newest first, and bodies that never ran before any: a scoped thread
/// (`thread::scope`) borrows from the frames of the older thread that
/// spawned it, which must still be there when its body and frames drop.
fn tear_down(workers: &mut Vec<Option<Worker>>) {
    with(|ex| ex.aborting = true);
    // Taken out first, dropped outside the borrow: a body's drop may do an
    // operation (which then only keeps its bookkeeping).
    let unstarted: Vec<Job> = with(|ex| {
        ex.threads
            .all
            .iter_mut()
            .rev()
            .filter_map(|thread| thread.job.take())
            .collect()
    });
    drop(unstarted);
    for worker in workers.drain(..).rev().flatten() {
        if worker.busy() {
            worker.unwind();
        } else {
            POOL.with(|pool| pool.borrow_mut().put(worker));
        }
    }
    crate::local::tear_down();
}

/// Give control back to the executor until `thread`, the thread running
/// on this coroutine, is chosen again.
pub fn suspend(thread: ThreadId) {
    let suspender = with(|ex| ex.threads.get(thread).suspender);
    match suspender {
        Some(s) => s.suspend(),
        None => unreachable!("invariant: a running thread has its coroutine"),
    }
}

pub use point::{end_step, schedule_here};
