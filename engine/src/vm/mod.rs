//! The virtual machine: runs an [`Executable`] deterministically under a
//! [`Scheduler`].
//!
//! Threads are plain data (a register file and a frame stack), never OS
//! threads: a context switch is the interpreter returning to the scheduling
//! loop, and an execution is a pure function of the program and the
//! sequence of choices, so the recorded choices replay it exactly. Steps,
//! scheduling points and which threads can run follow docs/LANGUAGE.md, "How a
//! program runs".
//!
//! The set of threads that can run is kept up to date as threads block,
//! wake and end (blocked lockers per mutex, joiners per thread, threads in
//! `await`), so that no scheduling point rescans every thread
//! (`enabled.rs`). Blocked `await` conditions are evaluated again at writes
//! to awaited variables (`awaits.rs`), and every access of a step is
//! logged on request ([`Vm::log_accesses`]).
//!
//! The interpreter is inlined into the scheduling loop. Every thread's
//! registers and frames (`stack.rs`) are held out of the machine for the
//! run, and the interpreter finds the running thread's by index, so a
//! switch between threads moves nothing. Under a scheduler silent when a
//! single thread can run ([`Scheduler::silent_when_alone`]: `random`), a
//! point where only the running thread can go on is passed inside the
//! interpreter, and at its other points the scheduler is asked from there
//! (`pass_in_place`: the same checks, question, schedule, steps and budget
//! as the loop). The thread goes on in place when chosen again, the
//! interpreter switches in place to another runnable thread chosen
//! (`running`), and the loop resumes a choice that must first leave a
//! blocked state without asking again (`chosen_ahead`).
//!
//! What the hot loop carries nothing for: the words of a failure
//! (`wording.rs`, once the fault has left the interpreter) and each
//! enabled thread's next operation, worked out only for a scheduler that
//! asks (`pending.rs`).

mod awaits;
mod enabled;
mod interpret;
mod pending;
mod stack;
mod wording;

use std::collections::{BTreeMap, VecDeque};

use crate::executable::{Executable, InstanceKey};
use crate::heap::Heap;
use crate::id::{CondId, FuncId, MutexId, Reg, SiteId, ThreadId, VarId};
use crate::outcome::{BlockedThread, Bug, BugKind, Outcome, WaitsOn};
use crate::scheduler::{Access, Event, EventKind, Loc, Pending, Point, Scheduler};
use crate::span::Span;
use crate::value::Value;

use self::enabled::EnabledSet;
use self::stack::Stack;

/// Bounds that turn a runaway execution into a report instead of a hang.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Steps one execution may take, where a step is a scheduling point, a
    /// loop iteration or a call. Exceeding it is a [`BugKind::StepLimit`].
    pub max_steps: u64,
    /// Nested calls one thread may have.
    pub max_call_depth: usize,
    /// Threads one execution may create, initial ones included.
    pub max_threads: usize,
    /// Heap slots (record fields and array elements) one execution may
    /// allocate.
    pub max_heap_slots: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 1_000_000,
            max_call_depth: 10_000,
            max_threads: 10_000,
            max_heap_slots: 1 << 24,
        }
    }
}

/// One line of `print` output, recorded when printing is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintLine {
    /// The printing thread.
    pub thread: ThreadId,
    /// Scheduling points passed before it printed.
    pub step: u64,
    /// The text, arguments separated by spaces.
    pub text: String,
}

/// What a thread is doing, as far as scheduling cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Can run.
    Runnable,
    /// Waits to acquire a mutex (after a `lock`, or to relock after `wait`
    /// when `woken`); listed in the mutex's lockers.
    Locking { mutex: MutexId, woken: bool },
    /// Waits for a signal on a condition variable.
    Waiting { cond: CondId, mutex: MutexId },
    /// Waits for a thread to finish; listed in its joiners.
    Joining { thread: ThreadId },
    /// Blocked in `await`, its frame back at the `AwaitBegin`; `ready`
    /// when its condition is now true (or fails), so that it can run.
    /// Listed in `awaiters`.
    Awaiting { ready: bool },
    /// Done.
    Finished,
}

/// A call frame.
#[derive(Clone, Copy, Debug)]
struct Frame {
    func: FuncId,
    /// The next instruction to run.
    pc: u32,
    /// The frame's first register in the thread's register file.
    base: u32,
    /// Where the caller wants the result.
    ret: Reg,
}

/// Where a thread came from, for its name.
#[derive(Clone, Copy, Debug)]
enum Origin {
    Initial(usize),
    Spawned(FuncId),
}

/// One thread's state, apart from its registers and frames (its
/// [`Stack`]).
#[derive(Clone, Debug)]
struct Thread {
    /// Nesting depth of `atomic` blocks and `await` conditions.
    atomic_depth: u32,
    /// The first tracked variable touched inside the current atomic region,
    /// which makes its end a scheduling point where priorities may change.
    atomic_touched: Option<(VarId, SiteId)>,
    /// Whether the current atomic region synchronised or let a thread
    /// blocked in `await` run, which makes its end a scheduling point.
    atomic_synced: bool,
    /// Threads blocked in `join` of this one.
    joiners: Vec<ThreadId>,
    /// Where the blocking operation is, for deadlock reports.
    blocked_at: Loc,
    origin: Origin,
}

impl Thread {
    fn new() -> Thread {
        Thread {
            atomic_depth: 0,
            atomic_touched: None,
            atomic_synced: false,
            joiners: Vec::new(),
            blocked_at: Loc {
                func: FuncId(0),
                pc: 0,
            },
            origin: Origin::Initial(0),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct MutexState {
    var: VarId,
    owner: Option<ThreadId>,
    /// Whether operations on it are tracked accesses (see `Heap` objects).
    tracked: bool,
}

#[derive(Clone, Debug)]
struct CondState {
    var: VarId,
    /// Whether operations on it are tracked accesses.
    tracked: bool,
    /// Waiting threads, longest waiting first: `signal` wakes the first.
    waiters: VecDeque<ThreadId>,
}

/// A failure inside the interpreter, before it is dressed as a [`Bug`].
struct Fault {
    kind: BugKind,
    message: String,
    loc: Loc,
}

/// The virtual machine. Keep one per worker and call [`Vm::run`] for every
/// execution: its buffers are reused, so a run allocates nothing once they
/// have grown.
pub struct Vm<'e> {
    exe: &'e Executable,
    limits: Limits,
    threads: Vec<Thread>,
    /// `stacks[t]`: thread `t`'s registers and frames (out of the machine
    /// while [`Vm::run`] runs, which hands them down).
    stacks: Vec<Stack>,
    /// `status[t]` of every thread of the current execution, apart from the
    /// rest of its state.
    status: Vec<Status>,
    /// Threads of the current execution: `threads[..n_threads]`.
    n_threads: usize,
    /// How many of them have finished.
    n_finished: usize,
    globals: Vec<Value>,
    heap: Heap,
    mutexes: Vec<MutexState>,
    /// `lockers[m]`: threads blocked to acquire mutex `m` (it is free
    /// exactly when they can run). Reused across executions: entries past
    /// `mutexes.len()` are stale.
    lockers: Vec<Vec<ThreadId>>,
    conds: Vec<CondState>,
    enabled: EnabledSet,
    /// Threads blocked in `await`, in the order they blocked.
    awaiters: Vec<ThreadId>,
    /// Whether an `await` condition is being evaluated only to see whether
    /// its thread can run (see `awaits.rs`).
    speculating: bool,
    /// Whether a thread is being run ahead only to see its next visible
    /// operation (see `pending.rs`); the operation found.
    peeking: bool,
    peeked: Option<Pending>,
    /// `pending[t]`: thread `t`'s next visible operation, when the
    /// scheduler wants them; `pending_fresh[t]` while it is still right
    /// (a runnable thread's next operation changes only when it runs).
    pending: Vec<Pending>,
    pending_fresh: Vec<bool>,
    /// The choices of the current execution, one per scheduling point,
    /// when `records_schedule`.
    schedule: Vec<ThreadId>,
    /// Whether executions record their schedule ([`Vm::record_schedule`]).
    records_schedule: bool,
    /// Whether a step's record has more than its count: the schedule or
    /// the access log (one test at every point instead of two).
    records_steps: bool,
    /// Steps left before the step limit.
    budget: u64,
    prints: Option<Vec<PrintLine>>,
    /// The accesses of the current step, when logging them.
    accesses: Option<Vec<Access>>,
    step: u64,
    scratch: Vec<Value>,
    /// When the last execution failed at a scheduling point (a deadlock, or
    /// the step limit there), what ended the last thread's step: the
    /// scheduler was not asked again, so only this tells a trace.
    final_event: Option<Event>,
    /// What ended the last step of the current execution: kept here rather
    /// than in a local of the scheduling loop, so that the interpreter's
    /// stop writes it in place and a scheduler that never reads
    /// [`Point::event`] never makes the loop load it.
    step_event: Event,
    /// The thread the scheduler chose at the point that ended the last
    /// step, when the interpreter asked it in place and it chose another
    /// thread: the scheduling loop resumes that one without asking again.
    chosen_ahead: Option<ThreadId>,
    /// The thread whose step runs: the one the scheduling loop resumed, or
    /// the one the interpreter switched to in place since.
    running: ThreadId,
    /// Objects made so far in this execution per allocation site and call
    /// stack: the next instance's index.
    instance_counts: BTreeMap<(VarId, u64), u32>,
    /// The instances this execution made, when recording them.
    instances_seen: Option<Vec<InstanceKey>>,
}

/// The memory a [`Vm`] has grown, without the executable it ran: moved from
/// one `Vm` to the next when the executable changes between executions (as
/// under variable bounding), so that no execution allocates afresh.
#[derive(Default)]
pub struct VmBuffers {
    threads: Vec<Thread>,
    stacks: Vec<Stack>,
    status: Vec<Status>,
    globals: Vec<Value>,
    heap: Heap,
    mutexes: Vec<MutexState>,
    lockers: Vec<Vec<ThreadId>>,
    conds: Vec<CondState>,
    enabled: EnabledSet,
    awaiters: Vec<ThreadId>,
    schedule: Vec<ThreadId>,
    prints: Option<Vec<PrintLine>>,
    accesses: Option<Vec<Access>>,
    scratch: Vec<Value>,
}

impl<'e> Vm<'e> {
    /// A machine for `exe`.
    pub fn new(exe: &'e Executable, limits: Limits) -> Vm<'e> {
        Vm::with_buffers(exe, limits, VmBuffers::default())
    }

    /// A machine for `exe` that reuses the memory another one grew.
    /// Inlined, like [`Vm::into_buffers`]: the search hands the buffers
    /// on whenever the executable changes (at most runs under variable
    /// bounding), and a call there costs a copy of the machine more.
    #[inline(always)]
    pub fn with_buffers(exe: &'e Executable, limits: Limits, buffers: VmBuffers) -> Vm<'e> {
        let VmBuffers {
            threads,
            stacks,
            status,
            globals,
            heap,
            mutexes,
            lockers,
            conds,
            enabled,
            awaiters,
            schedule,
            prints,
            accesses,
            scratch,
        } = buffers;
        Vm {
            exe,
            limits,
            threads,
            stacks,
            status,
            n_threads: 0,
            n_finished: 0,
            globals,
            heap,
            mutexes,
            lockers,
            conds,
            enabled,
            awaiters,
            speculating: false,
            peeking: false,
            peeked: None,
            pending: Vec::new(),
            pending_fresh: Vec::new(),
            schedule,
            records_schedule: true,
            records_steps: true,
            budget: 0,
            prints,
            accesses,
            step: 0,
            scratch,
            final_event: None,
            step_event: Event::START,
            chosen_ahead: None,
            running: ThreadId(0),
            instance_counts: BTreeMap::new(),
            instances_seen: None,
        }
    }

    /// Give up the executable, keeping the memory for the next machine.
    #[inline(always)]
    pub fn into_buffers(self) -> VmBuffers {
        VmBuffers {
            threads: self.threads,
            stacks: self.stacks,
            status: self.status,
            globals: self.globals,
            heap: self.heap,
            mutexes: self.mutexes,
            lockers: self.lockers,
            conds: self.conds,
            enabled: self.enabled,
            awaiters: self.awaiters,
            schedule: self.schedule,
            prints: self.prints,
            accesses: self.accesses,
            scratch: self.scratch,
        }
    }

    /// Record `print` output from now on (replays and traces want it; the
    /// search does not).
    pub fn record_prints(&mut self) {
        self.prints = Some(Vec::new());
    }

    /// The `print` output of the last execution, if recording.
    pub fn prints(&self) -> &[PrintLine] {
        self.prints.as_deref().unwrap_or(&[])
    }

    /// Log every access each step makes from now on, for the scheduler to
    /// read in [`Point::accesses`]. Only observed sites are seen: give the
    /// machine an executable that observes every site (see
    /// [`crate::Instrumentation::observing_all`]) to see them all.
    pub fn log_accesses(&mut self) {
        self.accesses = Some(Vec::new());
        self.records_steps = true;
    }

    /// Record the heap instances each execution makes from now on (the
    /// preparatory runs list them for exhaustive search).
    pub fn record_instances(&mut self) {
        self.instances_seen = Some(Vec::new());
    }

    /// The heap instances the last execution made, if recording.
    pub fn instances(&self) -> &[InstanceKey] {
        self.instances_seen.as_deref().unwrap_or(&[])
    }

    /// What ended the last thread's step when the last execution failed at
    /// a scheduling point rather than inside a step (see [`Outcome::Bug`]).
    pub fn final_event(&self) -> Option<Event> {
        self.final_event
    }

    /// The accesses of the step a failure cut short, when logging.
    pub fn last_accesses(&self) -> &[Access] {
        self.accesses.as_deref().unwrap_or(&[])
    }

    /// Whether executions from now on record their schedule (they do
    /// unless told otherwise). A search that can redo any run exactly
    /// (the same scheduler on the same executable) runs without, which
    /// saves a store at every scheduling point, and redoes a failing run
    /// with it to report its schedule.
    pub fn record_schedule(&mut self, on: bool) {
        self.records_schedule = on;
        self.records_steps = on || self.accesses.is_some();
    }

    /// The choices the last execution made: its schedule (empty when it
    /// did not record it, see [`Vm::record_schedule`]).
    pub fn schedule(&self) -> &[ThreadId] {
        &self.schedule
    }

    /// How many threads the last execution created.
    pub fn n_threads(&self) -> usize {
        self.n_threads
    }

    /// The name of thread `thread` of the last execution: `main`, the
    /// thread item's name (`worker[1]` for a copy), or for a spawned thread
    /// its function and id (`push#3`).
    pub fn thread_name(&self, thread: ThreadId) -> String {
        let program = self.exe.program();
        match self.threads.get(thread.index()).map(|t| t.origin) {
            Some(Origin::Initial(i)) => program.threads[i].name.clone(),
            Some(Origin::Spawned(func)) => {
                format!("{}#{}", program.functions[func.index()].name, thread.0)
            }
            None => format!("#{}", thread.0),
        }
    }

    /// Run one execution from the initial state, asking `scheduler` at every
    /// scheduling point.
    pub fn run<S: Scheduler>(&mut self, scheduler: &mut S) -> Outcome {
        let mut stacks = std::mem::take(&mut self.stacks);
        let outcome = match self.reset(&mut stacks) {
            Ok(()) => {
                self.final_event = None;
                let wants_pending = scheduler.wants_pending();
                assert!(
                    !wants_pending || self.exe.observes_all,
                    "invariant: schedulers that look at pending operations run an executable observing every site"
                );
                self.steps(scheduler, wants_pending, &mut stacks)
            }
            Err(fault) => Outcome::Bug(self.bug(ThreadId(0), fault)),
        };
        self.stacks = stacks;
        outcome
    }

    /// The scheduling loop of [`Vm::run`], from the initial state to the
    /// end, on the threads' `stacks`.
    #[inline(always)]
    fn steps<S: Scheduler>(
        &mut self,
        scheduler: &mut S,
        wants_pending: bool,
        stacks: &mut Vec<Stack>,
    ) -> Outcome {
        // Read once: the interpreter's tables then stay in registers or
        // known places across steps instead of being looked up at each.
        let exe = self.exe;
        let in_place = scheduler.silent_when_alone() && !wants_pending;
        let mut last: Option<ThreadId> = None;
        self.step_event = Event::START;
        self.chosen_ahead = None;
        loop {
            if let Some(chosen) = self.chosen_ahead.take() {
                // Asked in place, at the same point with the same question.
                match self.take_step(exe, stacks, chosen, Some(&mut *scheduler)) {
                    Ok(ran) => last = Some(ran),
                    Err(stop) => return stop,
                }
                continue;
            }
            if self.enabled.is_empty() {
                return if self.n_finished == self.n_threads {
                    Outcome::Pass { steps: self.step }
                } else {
                    self.final_event = Some(self.step_event);
                    Outcome::Bug(self.deadlock())
                };
            }
            if self.budget == 0 {
                self.final_event = Some(self.step_event);
                let thread = last.unwrap_or(ThreadId(0));
                let loc = self.step_event.loc.unwrap_or(Loc {
                    func: FuncId(0),
                    pc: 0,
                });
                return Outcome::Bug(self.step_limit(thread, loc));
            }
            self.budget -= 1;
            if wants_pending {
                self.refresh_pending(stacks);
            }
            let point = self.point(last, self.step_event, wants_pending);
            let chosen = scheduler.choose(&point);
            let in_place = if in_place {
                Some(&mut *scheduler)
            } else {
                None
            };
            match self.take_step(exe, stacks, chosen, in_place) {
                Ok(ran) => last = Some(ran),
                Err(stop) => return stop,
            }
        }
    }

    /// What a scheduler is shown at the point the last step ended with
    /// `event`, `last` having taken it.
    #[inline(always)]
    fn point(&self, last: Option<ThreadId>, event: Event, wants_pending: bool) -> Point<'_> {
        Point {
            step: self.step,
            last,
            event,
            enabled: self.enabled.as_slice(),
            newly_enabled: self.enabled.newly(),
            accesses: self.accesses.as_deref().unwrap_or(&[]),
            threads: self.n_threads,
            position: self.enabled.positions(),
            pending: if wants_pending { &self.pending } else { &[] },
        }
    }

    /// Let `chosen`, the scheduler's choice, take the next step, and say
    /// which thread took the last one (another when the interpreter
    /// switched in place); the end of the execution when it cannot (not
    /// enabled, or failing).
    #[inline(always)]
    fn take_step<S: Scheduler>(
        &mut self,
        exe: &'e Executable,
        stacks: &mut Vec<Stack>,
        chosen: ThreadId,
        in_place: Option<&mut S>,
    ) -> Result<ThreadId, Outcome> {
        if !self.enabled.contains(chosen) {
            return Err(Outcome::Diverged {
                step: self.step,
                wanted: chosen,
                enabled: self.enabled.as_slice().to_vec(),
            });
        }
        self.record_choice(chosen);
        self.running = chosen;
        match self.resume(exe, stacks, chosen, in_place) {
            Ok(next) => {
                self.step_event = next;
                Ok(self.running)
            }
            Err(fault) => Err(Outcome::Bug(self.bug(self.running, fault))),
        }
    }

    /// Note that `chosen` takes the next step.
    #[inline(always)]
    fn record_choice(&mut self, chosen: ThreadId) {
        self.record_step(chosen);
        if let Some(fresh) = self.pending_fresh.get_mut(chosen.index()) {
            *fresh = false;
        }
    }

    /// [`Vm::record_choice`] under a scheduler that looks at no pending
    /// operation, whose `pending_fresh` is empty.
    #[inline(always)]
    fn record_step(&mut self, chosen: ThreadId) {
        self.enabled.clear_newly();
        if self.records_steps {
            if let Some(log) = &mut self.accesses {
                log.clear();
            }
            if self.records_schedule {
                self.schedule.push(chosen);
            }
        }
        self.step += 1;
    }

    /// At the scheduling point ending `thread`'s step with `event`, under a
    /// scheduler silent when it has no choice and looking at no pending
    /// operation: do what the scheduling loop does there (the same checks,
    /// budget, question and record) and say which thread goes on in place.
    /// A lone `thread` goes on without asking; so does another runnable
    /// thread the scheduler chooses (the interpreter switches to it). A
    /// choice that must first leave a blocked state (relock a mutex, end a
    /// join or an `await`) is resumed by the loop (`chosen_ahead`).
    #[inline(always)]
    fn pass_in_place<S: Scheduler>(
        &mut self,
        thread: ThreadId,
        event: Event,
        scheduler: &mut S,
    ) -> Option<ThreadId> {
        if self.enabled.is_empty() || self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let mut next = thread;
        if self.enabled.as_slice() != [thread] {
            next = scheduler.choose(&self.point(Some(thread), event, false));
            if next != thread && self.status[next.index()] != Status::Runnable {
                self.chosen_ahead = Some(next);
                return None;
            }
        }
        self.record_step(next);
        Some(next)
    }

    /// Put the machine in the program's initial state. Fails only when the
    /// program starts more threads than the limit allows.
    fn reset(&mut self, stacks: &mut Vec<Stack>) -> Result<(), Fault> {
        let exe = self.exe;
        let program = exe.program();
        let exe_tracked = &exe.tracked;
        self.instance_counts.clear();
        if let Some(seen) = &mut self.instances_seen {
            seen.clear();
        }
        self.globals.clear();
        self.globals.extend(program.globals.iter().map(|g| g.init));
        self.heap.clear();
        for array in &program.arrays {
            // Global arrays were checked against the heap limit when lowered
            // and are allocated first, so they get ObjId(0..).
            let allocated = self.heap.new_array(
                array.var,
                array.len,
                array.init,
                usize::MAX,
                exe_tracked[array.var.index()],
            );
            debug_assert!(allocated.is_ok(), "global arrays fit the heap");
        }
        self.mutexes.clear();
        for &var in &program.mutexes {
            self.push_mutex(var, exe_tracked[var.index()]);
        }
        self.conds.clear();
        self.conds
            .extend(program.conds.iter().map(|&var| CondState {
                tracked: exe_tracked[var.index()],
                var,
                waiters: VecDeque::new(),
            }));
        self.n_threads = 0;
        self.n_finished = 0;
        self.status.clear();
        self.enabled.clear();
        self.awaiters.clear();
        self.speculating = false;
        self.pending_fresh.clear();
        if program.threads.len() > self.limits.max_threads {
            return Err(Fault {
                kind: BugKind::Error,
                message: format!(
                    "too many threads: the program starts {}, more than the limit of {}",
                    program.threads.len(),
                    self.limits.max_threads
                ),
                loc: Loc {
                    func: program.threads[0].func,
                    pc: 0,
                },
            });
        }
        for (index, spec) in program.threads.iter().enumerate() {
            let thread = self.add_thread(spec.func, Origin::Initial(index), stacks);
            let regs = &mut stacks[thread.index()].regs;
            regs[..spec.args.len()].copy_from_slice(&spec.args);
        }
        self.schedule.clear();
        self.budget = self.limits.max_steps;
        self.step = 0;
        if let Some(prints) = &mut self.prints {
            prints.clear();
        }
        if let Some(log) = &mut self.accesses {
            log.clear();
        }
        Ok(())
    }

    /// Add a mutex of variable `var`, free, with no thread blocked on it.
    fn push_mutex(&mut self, var: VarId, tracked: bool) -> MutexId {
        let id = MutexId(self.mutexes.len() as u32);
        self.mutexes.push(MutexState {
            var,
            owner: None,
            tracked,
        });
        match self.lockers.get_mut(id.index()) {
            Some(lockers) => lockers.clear(),
            None => self.lockers.push(Vec::new()),
        }
        id
    }

    /// Create a runnable thread at the start of `func`, with its registers
    /// (in `stacks`) cleared; the caller fills in the arguments.
    fn add_thread(&mut self, func: FuncId, origin: Origin, stacks: &mut Vec<Stack>) -> ThreadId {
        let id = ThreadId(self.n_threads as u32);
        if self.n_threads == self.threads.len() {
            self.threads.push(Thread::new());
        }
        if self.n_threads == stacks.len() {
            stacks.push(Stack::default());
        }
        let registers = self.exe.program().functions[func.index()].registers as usize;
        self.status.push(Status::Runnable);
        self.enabled.add_thread();
        self.enabled.insert(id);
        stacks[self.n_threads].start(func, registers);
        let thread = &mut self.threads[self.n_threads];
        thread.atomic_depth = 0;
        thread.atomic_touched = None;
        thread.atomic_synced = false;
        thread.joiners.clear();
        thread.origin = origin;
        self.n_threads += 1;
        id
    }

    /// Log an access of the current step, when logging.
    #[inline(always)]
    fn log(&mut self, var: Option<VarId>, write: bool) {
        if let Some(log) = &mut self.accesses {
            log.push(Access { var, write });
        }
    }

    /// `thread`, blocked on mutex `mutex` (free), takes it: it leaves the
    /// lockers, and the others can no longer run.
    #[inline(always)]
    fn acquire(&mut self, mutex: MutexId, thread: ThreadId) {
        // A blocked thread is among the lockers once; the others keep
        // their order, which is the order a release enables them in.
        let lockers = &mut self.lockers[mutex.index()];
        if let Some(at) = lockers.iter().position(|&t| t == thread) {
            lockers.remove(at);
        }
        self.take_mutex(mutex, thread);
    }

    /// `thread`, not among its lockers, takes mutex `mutex` (free): the
    /// threads blocked on it can no longer run. (A lock that did not block
    /// needs no search of the lockers.)
    #[inline(always)]
    fn take_mutex(&mut self, mutex: MutexId, thread: ThreadId) {
        self.mutexes[mutex.index()].owner = Some(thread);
        for &locker in &self.lockers[mutex.index()] {
            self.enabled.remove(locker);
        }
        self.log(Some(self.mutexes[mutex.index()].var), true);
    }

    /// Mutex `mutex` becomes free: the threads blocked on it can run.
    #[inline(always)]
    fn release(&mut self, mutex: MutexId) {
        self.mutexes[mutex.index()].owner = None;
        for &locker in &self.lockers[mutex.index()] {
            self.enabled.insert(locker);
        }
        self.log(Some(self.mutexes[mutex.index()].var), true);
    }

    /// Block `thread` until it can take mutex `mutex` (`woken`: to relock
    /// after `wait`).
    #[inline(always)]
    fn block_on_mutex(&mut self, thread: ThreadId, mutex: MutexId, woken: bool) {
        self.status[thread.index()] = Status::Locking { mutex, woken };
        self.lockers[mutex.index()].push(thread);
        if self.mutexes[mutex.index()].owner.is_some() {
            self.enabled.remove(thread);
        } else {
            self.enabled.insert(thread);
        }
    }

    /// `thread`'s function returned: it ends, and its joiners can run.
    #[inline(always)]
    fn finish(&mut self, thread: ThreadId) {
        self.status[thread.index()] = Status::Finished;
        self.n_finished += 1;
        self.enabled.remove(thread);
        for &joiner in &self.threads[thread.index()].joiners {
            self.enabled.insert(joiner);
        }
        self.log(None, true);
    }

    /// Let `thread` (enabled) take its next step.
    #[inline(always)]
    fn resume<S: Scheduler>(
        &mut self,
        exe: &'e Executable,
        stacks: &mut Vec<Stack>,
        thread: ThreadId,
        in_place: Option<&mut S>,
    ) -> Result<Event, Fault> {
        match self.status[thread.index()] {
            Status::Runnable => self.execute(exe, stacks, thread, in_place),
            Status::Awaiting { .. } => {
                // The frame's pc points back at the AwaitBegin: evaluate
                // again, now true.
                self.awaiters.retain(|&t| t != thread);
                self.status[thread.index()] = Status::Runnable;
                self.execute(exe, stacks, thread, in_place)
            }
            Status::Locking { mutex, woken } => {
                self.status[thread.index()] = Status::Runnable;
                self.acquire(mutex, thread);
                let loc = self.threads[thread.index()].blocked_at;
                let kind = if woken {
                    EventKind::Woken
                } else {
                    EventKind::Lock
                };
                let site = self.exe.program().functions[loc.func.index()].code[loc.pc as usize]
                    .sync_site();
                let state = &self.mutexes[mutex.index()];
                Ok(Event {
                    kind,
                    site,
                    var: Some(state.var),
                    tracked: state.tracked,
                    loc: Some(loc),
                })
            }
            Status::Joining { .. } => {
                self.status[thread.index()] = Status::Runnable;
                self.log(None, false);
                let loc = self.threads[thread.index()].blocked_at;
                Ok(Event {
                    kind: EventKind::Join,
                    site: None,
                    var: None,
                    tracked: false,
                    loc: Some(loc),
                })
            }
            Status::Waiting { .. } | Status::Finished => {
                unreachable!("invariant: only enabled threads are resumed")
            }
        }
    }

    /// Run `thread` until its next scheduling point.
    #[inline(always)]
    fn execute<S: Scheduler>(
        &mut self,
        exe: &'e Executable,
        stacks: &mut Vec<Stack>,
        thread: ThreadId,
        in_place: Option<&mut S>,
    ) -> Result<Event, Fault> {
        let result = self.interpret::<S, false>(exe, thread, stacks, in_place);
        if let Ok(event) = &result {
            if event.kind == EventKind::Finished {
                self.finish(self.running);
            }
        }
        result
    }

    /// Whether an object allocation site `var` makes now is tracked: its
    /// site is tracked and, when the site is split by instance, this
    /// instance is one of the tracked ones. The instance (call stack and
    /// index) is worked out only when needed.
    fn allocation_tracked(
        &mut self,
        exe: &Executable,
        var: VarId,
        frames: &[Frame],
        func: FuncId,
    ) -> bool {
        self.log(Some(var), true);
        let split = exe.split[var.index()];
        if !split && self.instances_seen.is_none() {
            return exe.tracked[var.index()];
        }
        // The call stack: every caller's function and return point, and the
        // allocating function.
        let mut context: u64 = 0xcbf2_9ce4_8422_2325;
        let callers = frames.len().saturating_sub(1);
        for frame in frames[..callers].iter() {
            context = (context ^ (u64::from(frame.func.0) << 32 | u64::from(frame.pc)))
                .wrapping_mul(0x0100_0000_01b3);
        }
        context = (context ^ u64::from(func.0)).wrapping_mul(0x0100_0000_01b3);
        let count = self.instance_counts.entry((var, context)).or_insert(0);
        let key = InstanceKey {
            var,
            context,
            index: *count,
        };
        *count += 1;
        if let Some(seen) = &mut self.instances_seen {
            seen.push(key);
        }
        if split {
            exe.instances.contains(&key)
        } else {
            exe.tracked[var.index()]
        }
    }

    /// Move a waiter on a condition variable to relocking its mutex.
    fn wake(&mut self, thread: ThreadId) {
        if let Status::Waiting { mutex, .. } = self.status[thread.index()] {
            self.block_on_mutex(thread, mutex, true);
        }
    }

    /// A value as `print` shows it.
    fn display(&self, value: Value) -> String {
        match value {
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Ref(o) => format!(
                "<{} #{}>",
                self.exe.program().vars[self.heap.var(o).index()].name,
                o.0
            ),
            Value::Mutex(m) => format!(
                "<mutex {}>",
                self.exe.program().vars[self.mutexes[m.index()].var.index()].name
            ),
            Value::Cond(c) => format!(
                "<cond {}>",
                self.exe.program().vars[self.conds[c.index()].var.index()].name
            ),
            Value::Thread(t) => format!("<thread {}>", self.thread_name(t)),
        }
    }

    fn step_limit_message(&self) -> String {
        format!(
            "the execution exceeded {} steps (scheduling points, loop iterations and calls): possible non-termination",
            self.limits.max_steps
        )
    }

    fn step_limit(&self, thread: ThreadId, loc: Loc) -> Bug {
        self.bug(
            thread,
            Fault {
                kind: BugKind::StepLimit,
                message: self.step_limit_message(),
                loc,
            },
        )
    }

    fn span(&self, loc: Loc) -> Span {
        self.exe.program().span_at(loc.func, loc.pc as usize)
    }

    fn bug(&self, thread: ThreadId, fault: Fault) -> Bug {
        Bug {
            kind: fault.kind,
            message: self.in_words(&fault),
            span: self.span(fault.loc),
            thread,
            thread_name: self.thread_name(thread),
            blocked: Vec::new(),
            steps: self.step,
        }
    }

    /// The report for a state where no thread can run but some have not
    /// finished.
    fn deadlock(&self) -> Bug {
        let program = self.exe.program();
        let var_name = |var: VarId| program.vars[var.index()].name.clone();
        let mut blocked = Vec::new();
        for (index, (state, &status)) in self.threads.iter().zip(&self.status).enumerate() {
            let thread = ThreadId(index as u32);
            let waits_on = match status {
                Status::Finished | Status::Runnable => continue,
                Status::Locking { mutex, .. } => {
                    let m = self.mutexes[mutex.index()];
                    WaitsOn::Mutex {
                        var: m.var,
                        name: var_name(m.var),
                        holder: m.owner.map(|owner| {
                            let name = if owner == thread {
                                "itself".to_string()
                            } else {
                                self.thread_name(owner)
                            };
                            (owner, name)
                        }),
                    }
                }
                Status::Waiting { cond, .. } => {
                    let var = self.conds[cond.index()].var;
                    WaitsOn::Cond {
                        var,
                        name: var_name(var),
                    }
                }
                Status::Joining { thread: target } => WaitsOn::Join {
                    thread: target,
                    name: self.thread_name(target),
                },
                Status::Awaiting { .. } => WaitsOn::Await,
            };
            blocked.push(BlockedThread {
                thread,
                name: self.thread_name(thread),
                waits_on,
                span: self.span(state.blocked_at),
            });
        }
        let Some(first) = blocked.first() else {
            unreachable!("invariant: a deadlock has a blocked thread")
        };
        let summary = blocked
            .iter()
            .map(|b| format!("{} waits for {}", b.name, b.waits_on))
            .collect::<Vec<_>>()
            .join("; ");
        Bug {
            kind: BugKind::Deadlock,
            message: format!("deadlock: {summary}"),
            span: first.span,
            thread: first.thread,
            thread_name: first.name.clone(),
            blocked,
            steps: self.step,
        }
    }
}
