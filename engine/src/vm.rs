//! The virtual machine: runs an [`Executable`] deterministically under a
//! [`Scheduler`].
//!
//! Threads are plain data (a register file and a frame stack), never OS
//! threads: a context switch is the interpreter returning to the scheduling
//! loop, and an execution is a pure function of the program and the
//! sequence of choices, so the recorded choices replay it exactly.

use std::collections::BTreeMap;

use crate::executable::{Executable, InstanceKey, NO_SLOT};
use crate::heap::Heap;
use crate::id::{CondId, FuncId, MutexId, ObjId, Reg, SiteId, ThreadId, VarId};
use crate::ir::{Op, PrintArg};
use crate::outcome::{BlockedThread, Bug, BugKind, Outcome, WaitsOn};
use crate::scheduler::{Event, EventKind, Loc, Point, Scheduler};
use crate::span::Span;
use crate::value::Value;

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
    /// when `woken`).
    Locking { mutex: MutexId, woken: bool },
    /// Waits for a signal on a condition variable.
    Waiting { cond: CondId, mutex: MutexId },
    /// Waits for a thread to finish.
    Joining { thread: ThreadId },
    /// Found its `await` condition false when the machine's progress counter
    /// was `since`; looks again once it has moved on.
    Awaiting { since: u64 },
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

/// One thread's state.
#[derive(Clone, Debug)]
struct Thread {
    frames: Vec<Frame>,
    regs: Vec<Value>,
    /// Nesting depth of `atomic` blocks and `await` conditions.
    atomic_depth: u32,
    /// The first tracked variable touched inside the current atomic region,
    /// which makes its end a scheduling point.
    atomic_touched: Option<(VarId, SiteId)>,
    /// Where the blocking operation is, for deadlock reports.
    blocked_at: Loc,
    origin: Origin,
}

impl Thread {
    fn new() -> Thread {
        Thread {
            frames: Vec::new(),
            regs: Vec::new(),
            atomic_depth: 0,
            atomic_touched: None,
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
    /// Whether operations on it may be preempted (see `Heap` objects).
    tracked: bool,
}

#[derive(Clone, Debug)]
struct CondState {
    var: VarId,
    /// Whether operations on it may be preempted.
    tracked: bool,
    /// Waiting threads, longest waiting first: `signal` wakes the first.
    waiters: Vec<ThreadId>,
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
    /// `status[t]` of every thread of the current execution, apart from the
    /// rest of its state so that finding the enabled threads reads one
    /// small array.
    status: Vec<Status>,
    /// Threads of the current execution: `threads[..n_threads]`.
    n_threads: usize,
    globals: Vec<Value>,
    heap: Heap,
    mutexes: Vec<MutexState>,
    conds: Vec<CondState>,
    enabled: Vec<ThreadId>,
    /// Whether `enabled` may be stale: set by everything that can change
    /// which threads can run (a status, a mutex's owner, a new thread). A
    /// plain read or write leaves it clear, which spares most recomputations.
    enabled_stale: bool,
    /// Threads in `Status::Awaiting`, whose enabledness changes with
    /// `progress` alone.
    awaiting: usize,
    /// The choices of the current execution, one per scheduling point.
    schedule: Vec<ThreadId>,
    /// Steps left before the step limit.
    budget: u64,
    /// Counts scheduling points at which some thread may have changed
    /// shared state; an `await` looks at its condition again only after it
    /// has moved.
    progress: u64,
    prints: Option<Vec<PrintLine>>,
    step: u64,
    scratch: Vec<Value>,
    /// When the last execution failed at a scheduling point (a deadlock, or
    /// the step limit there), what ended the last thread's step: the
    /// scheduler was not asked again, so only this tells a trace.
    final_event: Option<Event>,
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
    status: Vec<Status>,
    globals: Vec<Value>,
    heap: Heap,
    mutexes: Vec<MutexState>,
    conds: Vec<CondState>,
    enabled: Vec<ThreadId>,
    schedule: Vec<ThreadId>,
    prints: Option<Vec<PrintLine>>,
    scratch: Vec<Value>,
}

impl<'e> Vm<'e> {
    /// A machine for `exe`.
    pub fn new(exe: &'e Executable, limits: Limits) -> Vm<'e> {
        Vm::with_buffers(exe, limits, VmBuffers::default())
    }

    /// A machine for `exe` that reuses the memory another one grew.
    pub fn with_buffers(exe: &'e Executable, limits: Limits, buffers: VmBuffers) -> Vm<'e> {
        let VmBuffers {
            threads,
            status,
            globals,
            heap,
            mutexes,
            conds,
            enabled,
            schedule,
            prints,
            scratch,
        } = buffers;
        Vm {
            exe,
            limits,
            threads,
            status,
            n_threads: 0,
            globals,
            heap,
            mutexes,
            conds,
            enabled,
            enabled_stale: true,
            awaiting: 0,
            schedule,
            budget: 0,
            progress: 0,
            prints,
            step: 0,
            scratch,
            final_event: None,
            instance_counts: BTreeMap::new(),
            instances_seen: None,
        }
    }

    /// Give up the executable, keeping the memory for the next machine.
    pub fn into_buffers(self) -> VmBuffers {
        VmBuffers {
            threads: self.threads,
            status: self.status,
            globals: self.globals,
            heap: self.heap,
            mutexes: self.mutexes,
            conds: self.conds,
            enabled: self.enabled,
            schedule: self.schedule,
            prints: self.prints,
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

    /// The choices the last execution made: its schedule.
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
        self.reset();
        self.final_event = None;
        let mut last: Option<ThreadId> = None;
        let mut event = Event::START;
        loop {
            if event.kind.is_progress() {
                self.progress += 1;
            }
            if self.enabled_stale || self.awaiting > 0 {
                self.compute_enabled();
            }
            if self.enabled.is_empty() {
                return if self.status.iter().all(|&s| s == Status::Finished) {
                    Outcome::Pass { steps: self.step }
                } else {
                    self.final_event = Some(event);
                    Outcome::Bug(self.deadlock())
                };
            }
            if self.budget == 0 {
                self.final_event = Some(event);
                let thread = last.unwrap_or(ThreadId(0));
                let loc = event.loc.unwrap_or(Loc {
                    func: FuncId(0),
                    pc: 0,
                });
                return Outcome::Bug(self.step_limit(thread, loc));
            }
            self.budget -= 1;
            let point = Point {
                step: self.step,
                last,
                event,
                enabled: &self.enabled,
            };
            let chosen = scheduler.choose(&point);
            if !self.enabled.contains(&chosen) {
                return Outcome::Diverged {
                    step: self.step,
                    wanted: chosen,
                    enabled: self.enabled.clone(),
                };
            }
            self.schedule.push(chosen);
            self.step += 1;
            match self.resume(chosen) {
                Ok(next) => {
                    event = next;
                    last = Some(chosen);
                }
                Err(fault) => return Outcome::Bug(self.bug(chosen, fault)),
            }
        }
    }

    /// Put the machine in the program's initial state.
    fn reset(&mut self) {
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
        self.mutexes
            .extend(program.mutexes.iter().map(|&var| MutexState {
                var,
                owner: None,
                tracked: exe_tracked[var.index()],
            }));
        self.conds.clear();
        self.conds
            .extend(program.conds.iter().map(|&var| CondState {
                tracked: exe_tracked[var.index()],
                var,
                waiters: Vec::new(),
            }));
        self.n_threads = 0;
        self.status.clear();
        for (index, spec) in program.threads.iter().enumerate() {
            let thread = self.add_thread(spec.func, Origin::Initial(index));
            let regs = &mut self.threads[thread.index()].regs;
            regs[..spec.args.len()].copy_from_slice(&spec.args);
        }
        self.schedule.clear();
        self.enabled_stale = true;
        self.awaiting = 0;
        self.budget = self.limits.max_steps;
        self.progress = 0;
        self.step = 0;
        if let Some(prints) = &mut self.prints {
            prints.clear();
        }
    }

    /// Create a runnable thread at the start of `func`, with its registers
    /// cleared; the caller fills in the arguments.
    fn add_thread(&mut self, func: FuncId, origin: Origin) -> ThreadId {
        let id = ThreadId(self.n_threads as u32);
        if self.n_threads == self.threads.len() {
            self.threads.push(Thread::new());
        }
        let registers = self.exe.program().functions[func.index()].registers as usize;
        self.status.push(Status::Runnable);
        self.enabled_stale = true;
        let thread = &mut self.threads[self.n_threads];
        thread.frames.clear();
        thread.frames.push(Frame {
            func,
            pc: 0,
            base: 0,
            ret: Reg(0),
        });
        thread.regs.clear();
        thread.regs.resize(registers, Value::Null);
        thread.atomic_depth = 0;
        thread.atomic_touched = None;
        thread.origin = origin;
        self.n_threads += 1;
        id
    }

    /// Fill `self.enabled` with the threads that can run now.
    fn compute_enabled(&mut self) {
        self.enabled_stale = false;
        self.enabled.clear();
        for (index, status) in self.status.iter().enumerate() {
            let can_run = match *status {
                Status::Runnable => true,
                Status::Locking { mutex, .. } => self.mutexes[mutex.index()].owner.is_none(),
                Status::Joining { thread } => self.status[thread.index()] == Status::Finished,
                Status::Awaiting { since } => self.progress > since,
                Status::Waiting { .. } | Status::Finished => false,
            };
            if can_run {
                self.enabled.push(ThreadId(index as u32));
            }
        }
    }

    /// Let `thread` (enabled) take its next step.
    #[inline]
    fn resume(&mut self, thread: ThreadId) -> Result<Event, Fault> {
        let status = &mut self.status[thread.index()];
        if *status != Status::Runnable {
            self.enabled_stale = true;
        }
        match *status {
            Status::Runnable => self.execute(thread),
            Status::Awaiting { .. } => {
                self.awaiting -= 1;
                // The frame's pc points back at the AwaitBegin: evaluate again.
                *status = Status::Runnable;
                self.execute(thread)
            }
            Status::Locking { mutex, woken } => {
                *status = Status::Runnable;
                let loc = self.threads[thread.index()].blocked_at;
                self.mutexes[mutex.index()].owner = Some(thread);
                let kind = if woken {
                    EventKind::Woken
                } else {
                    EventKind::Lock
                };
                let site = self.exe.program().functions[loc.func.index()].code[loc.pc as usize]
                    .sync_site();
                Ok(self.sync_event(kind, mutex, site, loc))
            }
            Status::Joining { .. } => {
                *status = Status::Runnable;
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

    fn sync_event(&self, kind: EventKind, mutex: MutexId, site: Option<SiteId>, loc: Loc) -> Event {
        let state = &self.mutexes[mutex.index()];
        Event {
            kind,
            site,
            var: Some(state.var),
            tracked: state.tracked,
            loc: Some(loc),
        }
    }

    /// Run `thread` until its next scheduling point.
    #[inline]
    fn execute(&mut self, thread: ThreadId) -> Result<Event, Fault> {
        let exe = self.exe;
        let state = &mut self.threads[thread.index()];
        let mut regs = std::mem::take(&mut state.regs);
        let mut frames = std::mem::take(&mut state.frames);
        let result = self.interpret(exe, thread, &mut regs, &mut frames);
        let state = &mut self.threads[thread.index()];
        state.regs = regs;
        state.frames = frames;
        if let Ok(event) = &result {
            if event.kind == EventKind::Finished {
                self.status[thread.index()] = Status::Finished;
                self.enabled_stale = true;
            }
        }
        result
    }

    /// The interpreter loop proper. `regs` and `frames` are the running
    /// thread's, taken out of its state for the duration.
    #[allow(clippy::too_many_lines)]
    fn interpret(
        &mut self,
        exe: &'e Executable,
        thread: ThreadId,
        regs: &mut Vec<Value>,
        frames: &mut Vec<Frame>,
    ) -> Result<Event, Fault> {
        let program = exe.program();
        let n_fields = program.fields.len();
        let Some(top) = frames.last() else {
            unreachable!("invariant: a runnable thread has a frame")
        };
        let mut func = top.func;
        let mut code: &[Op] = &exe.code[func.index()];
        let mut pc = top.pc as usize;
        let mut base = top.base as usize;

        // Leave the loop at a scheduling point: save the pc and report.
        macro_rules! stop {
            ($kind:expr, $site:expr, $var:expr, $tracked:expr) => {{
                let loc = Loc {
                    func,
                    pc: (pc - 1) as u32,
                };
                if let Some(frame) = frames.last_mut() {
                    frame.pc = pc as u32;
                }
                return Ok(Event {
                    kind: $kind,
                    site: $site,
                    var: $var,
                    tracked: $tracked,
                    loc: Some(loc),
                });
            }};
        }
        macro_rules! fault {
            ($kind:expr, $($msg:tt)*) => {{
                if let Some(frame) = frames.last_mut() {
                    frame.pc = pc as u32;
                }
                return Err(Fault { kind: $kind, message: format!($($msg)*), loc: Loc { func, pc: (pc - 1) as u32 } });
            }};
        }
        macro_rules! error {
            ($($msg:tt)*) => { fault!(BugKind::Error, $($msg)*) };
        }
        macro_rules! reg {
            ($r:expr) => {
                regs[base + $r.0 as usize]
            };
        }
        macro_rules! int {
            ($r:expr, $what:expr) => {
                match reg!($r) {
                    Value::Int(i) => i,
                    other => error!("{} needs an int, found {}", $what, other.type_name()),
                }
            };
        }
        macro_rules! arith {
            ($dst:expr, $lhs:expr, $rhs:expr, $method:ident, $sym:expr) => {{
                let a = int!($lhs, concat!("`", $sym, "`"));
                let b = int!($rhs, concat!("`", $sym, "`"));
                match a.$method(b) {
                    Some(v) => reg!($dst) = Value::Int(v),
                    None => error!("integer overflow in `{} {} {}`", a, $sym, b),
                }
            }};
        }
        macro_rules! compare {
            ($dst:expr, $lhs:expr, $rhs:expr, $op:tt, $sym:expr) => {{
                let a = int!($lhs, concat!("`", $sym, "`"));
                let b = int!($rhs, concat!("`", $sym, "`"));
                reg!($dst) = Value::Bool(a $op b);
            }};
        }
        macro_rules! boolean {
            ($r:expr, $what:expr) => {
                match reg!($r) {
                    Value::Bool(b) => b,
                    other => error!("{} must be a bool, found {}", $what, other.type_name()),
                }
            };
        }
        // The end of an observed access: a scheduling point when the
        // location's variable is tracked, unless inside `atomic`.
        macro_rules! observe {
            ($kind:expr, $var:expr, $tracked:expr, $site:expr) => {{
                let var: VarId = $var;
                if $tracked {
                    let state = &mut self.threads[thread.index()];
                    if state.atomic_depth == 0 {
                        stop!($kind, Some($site), Some(var), true);
                    } else if state.atomic_touched.is_none() {
                        state.atomic_touched = Some((var, $site));
                    }
                }
            }};
        }
        macro_rules! object {
            ($r:expr, $what:expr) => {
                match reg!($r) {
                    Value::Ref(obj) => obj,
                    Value::Null => error!("null dereference: {} of null", $what),
                    other => error!("{} needs a reference, found {}", $what, other.type_name()),
                }
            };
        }
        macro_rules! field_index {
            ($obj:expr, $field:expr) => {{
                let obj: ObjId = $obj;
                let Some(shape) = self.heap.shape(obj) else {
                    error!("field `{}` of an array", program.fields[$field.index()])
                };
                let slot = exe.field_slots[shape.index() * n_fields + $field.index()];
                if slot == NO_SLOT {
                    error!(
                        "the record has no field `{}`",
                        program.fields[$field.index()]
                    )
                }
                self.heap.slot_index(obj, slot)
            }};
        }
        macro_rules! element_index {
            ($array:expr, $index:expr) => {{
                let obj = object!($array, "indexing");
                let Some(len) = self.heap.array_len(obj) else {
                    error!("indexing needs an array, found a record")
                };
                let i = int!($index, "an array index");
                if i < 0 || i >= len as i64 {
                    error!("index {} out of bounds for an array of length {}", i, len)
                }
                (obj, self.heap.slot_index(obj, i as u32))
            }};
        }
        macro_rules! mutex {
            ($r:expr, $what:expr) => {
                match reg!($r) {
                    Value::Mutex(m) => m,
                    other => error!("{} needs a mutex, found {}", $what, other.type_name()),
                }
            };
        }
        macro_rules! cond {
            ($r:expr, $what:expr) => {
                match reg!($r) {
                    Value::Cond(c) => c,
                    other => error!("{} needs a cond, found {}", $what, other.type_name()),
                }
            };
        }
        macro_rules! in_atomic {
            () => {
                self.threads[thread.index()].atomic_depth > 0
            };
        }
        // Block the thread at the current instruction and switch.
        macro_rules! block {
            ($status:expr, $var:expr) => {{
                self.status[thread.index()] = $status;
                self.enabled_stale = true;
                self.threads[thread.index()].blocked_at = Loc {
                    func,
                    pc: (pc - 1) as u32,
                };
                stop!(EventKind::Blocked, None, $var, false);
            }};
        }

        loop {
            let op = code[pc];
            pc += 1;
            match op {
                Op::Const { dst, value } => reg!(dst) = program.consts[value.index()],
                Op::Move { dst, src } => reg!(dst) = reg!(src),
                Op::Neg { dst, src } => {
                    let a = int!(src, "unary `-`");
                    match a.checked_neg() {
                        Some(v) => reg!(dst) = Value::Int(v),
                        None => error!("integer overflow in `-({})`", a),
                    }
                }
                Op::Not { dst, src } => {
                    let b = boolean!(src, "the operand of `!`");
                    reg!(dst) = Value::Bool(!b);
                }
                Op::Add { dst, lhs, rhs } => arith!(dst, lhs, rhs, checked_add, "+"),
                Op::Sub { dst, lhs, rhs } => arith!(dst, lhs, rhs, checked_sub, "-"),
                Op::Mul { dst, lhs, rhs } => arith!(dst, lhs, rhs, checked_mul, "*"),
                Op::Div { dst, lhs, rhs } => {
                    if reg!(rhs) == Value::Int(0) {
                        error!("division by zero")
                    }
                    arith!(dst, lhs, rhs, checked_div, "/")
                }
                Op::Rem { dst, lhs, rhs } => {
                    if reg!(rhs) == Value::Int(0) {
                        error!("remainder by zero")
                    }
                    arith!(dst, lhs, rhs, checked_rem, "%")
                }
                Op::Lt { dst, lhs, rhs } => compare!(dst, lhs, rhs, <, "<"),
                Op::Le { dst, lhs, rhs } => compare!(dst, lhs, rhs, <=, "<="),
                Op::Gt { dst, lhs, rhs } => compare!(dst, lhs, rhs, >, ">"),
                Op::Ge { dst, lhs, rhs } => compare!(dst, lhs, rhs, >=, ">="),
                Op::Eq { dst, lhs, rhs } => reg!(dst) = Value::Bool(reg!(lhs) == reg!(rhs)),
                Op::Ne { dst, lhs, rhs } => reg!(dst) = Value::Bool(reg!(lhs) != reg!(rhs)),
                Op::Jump { target } => pc = target as usize,
                Op::Loop { target } => {
                    if self.budget == 0 {
                        fault!(BugKind::StepLimit, "{}", self.step_limit_message());
                    }
                    self.budget -= 1;
                    pc = target as usize;
                }
                Op::ForStep {
                    counter,
                    bound,
                    target,
                } => {
                    // The entry test made both ints and the counter below
                    // the bound, and the loop body cannot assign them.
                    let (Value::Int(i), Value::Int(end)) = (reg!(counter), reg!(bound)) else {
                        unreachable!("invariant: for-loop registers hold ints")
                    };
                    if i + 1 < end {
                        if self.budget == 0 {
                            fault!(BugKind::StepLimit, "{}", self.step_limit_message());
                        }
                        self.budget -= 1;
                        reg!(counter) = Value::Int(i + 1);
                        pc = target as usize;
                    }
                }
                Op::JumpIfFalse { cond, target } => {
                    if !boolean!(cond, "a condition") {
                        pc = target as usize;
                    }
                }
                Op::JumpIfTrue { cond, target } => {
                    if boolean!(cond, "a condition") {
                        pc = target as usize;
                    }
                }
                Op::Call {
                    dst,
                    func: callee,
                    args,
                    argc,
                } => {
                    if self.budget == 0 {
                        fault!(BugKind::StepLimit, "{}", self.step_limit_message());
                    }
                    self.budget -= 1;
                    if frames.len() >= self.limits.max_call_depth {
                        error!(
                            "call stack overflow: more than {} nested calls",
                            self.limits.max_call_depth
                        )
                    }
                    let callee_fn = &program.functions[callee.index()];
                    let new_base = regs.len();
                    regs.resize(new_base + callee_fn.registers as usize, Value::Null);
                    let first = base + args.0 as usize;
                    regs.copy_within(first..first + argc as usize, new_base);
                    if let Some(frame) = frames.last_mut() {
                        frame.pc = pc as u32;
                    }
                    frames.push(Frame {
                        func: callee,
                        pc: 0,
                        base: new_base as u32,
                        ret: dst,
                    });
                    func = callee;
                    code = &exe.code[func.index()];
                    pc = 0;
                    base = new_base;
                }
                Op::Return { src } => {
                    let value = reg!(src);
                    let Some(done) = frames.pop() else {
                        unreachable!("invariant: a running thread has a frame")
                    };
                    regs.truncate(base);
                    match frames.last() {
                        Some(caller) => {
                            func = caller.func;
                            code = &exe.code[func.index()];
                            pc = caller.pc as usize;
                            base = caller.base as usize;
                            reg!(done.ret) = value;
                        }
                        None => {
                            // The thread's function returned: the thread ends.
                            frames.push(done);
                            if in_atomic!() {
                                error!("the thread ended inside an atomic block")
                            }
                            frames.clear();
                            return Ok(Event {
                                kind: EventKind::Finished,
                                site: None,
                                var: None,
                                tracked: false,
                                loc: Some(Loc {
                                    func,
                                    pc: (pc - 1) as u32,
                                }),
                            });
                        }
                    }
                }

                Op::GetGlobal { dst, global, .. } => reg!(dst) = self.globals[global.index()],
                Op::GetGlobalObserved { dst, global, site } => {
                    reg!(dst) = self.globals[global.index()];
                    observe!(
                        EventKind::Read,
                        program.globals[global.index()].var,
                        exe.tracked[program.globals[global.index()].var.index()],
                        site
                    );
                }
                Op::SetGlobal { global, src, .. } => self.globals[global.index()] = reg!(src),
                Op::SetGlobalObserved { global, src, site } => {
                    self.globals[global.index()] = reg!(src);
                    observe!(
                        EventKind::Write,
                        program.globals[global.index()].var,
                        exe.tracked[program.globals[global.index()].var.index()],
                        site
                    );
                }
                Op::GetField {
                    dst, obj, field, ..
                } => {
                    let o = object!(
                        obj,
                        format!("reading field `{}`", program.fields[field.index()])
                    );
                    let i = field_index!(o, field);
                    reg!(dst) = self.heap.get(i);
                }
                Op::GetFieldObserved {
                    dst,
                    obj,
                    field,
                    site,
                } => {
                    let o = object!(
                        obj,
                        format!("reading field `{}`", program.fields[field.index()])
                    );
                    let i = field_index!(o, field);
                    reg!(dst) = self.heap.get(i);
                    observe!(
                        EventKind::Read,
                        self.heap.var(o),
                        self.heap.tracked(o),
                        site
                    );
                }
                Op::SetField {
                    obj, field, src, ..
                } => {
                    let o = object!(
                        obj,
                        format!("writing field `{}`", program.fields[field.index()])
                    );
                    let i = field_index!(o, field);
                    self.heap.set(i, reg!(src));
                }
                Op::SetFieldObserved {
                    obj,
                    field,
                    src,
                    site,
                } => {
                    let o = object!(
                        obj,
                        format!("writing field `{}`", program.fields[field.index()])
                    );
                    let i = field_index!(o, field);
                    self.heap.set(i, reg!(src));
                    observe!(
                        EventKind::Write,
                        self.heap.var(o),
                        self.heap.tracked(o),
                        site
                    );
                }
                Op::GetIndex {
                    dst, array, index, ..
                } => {
                    let (_, i) = element_index!(array, index);
                    reg!(dst) = self.heap.get(i);
                }
                Op::GetIndexObserved {
                    dst,
                    array,
                    index,
                    site,
                } => {
                    let (o, i) = element_index!(array, index);
                    reg!(dst) = self.heap.get(i);
                    observe!(
                        EventKind::Read,
                        self.heap.var(o),
                        self.heap.tracked(o),
                        site
                    );
                }
                Op::SetIndex {
                    array, index, src, ..
                } => {
                    let (_, i) = element_index!(array, index);
                    self.heap.set(i, reg!(src));
                }
                Op::SetIndexObserved {
                    array,
                    index,
                    src,
                    site,
                } => {
                    let (o, i) = element_index!(array, index);
                    self.heap.set(i, reg!(src));
                    observe!(
                        EventKind::Write,
                        self.heap.var(o),
                        self.heap.tracked(o),
                        site
                    );
                }
                Op::Len { dst, array } => {
                    let o = object!(array, "`len`");
                    let Some(len) = self.heap.array_len(o) else {
                        error!("`len` needs an array, found a record")
                    };
                    reg!(dst) = Value::Int(i64::from(len));
                }

                Op::NewRecord {
                    dst,
                    shape,
                    args,
                    var,
                } => {
                    let n = program.shapes[shape.index()].fields.len();
                    let first = base + args.0 as usize;
                    let limit = self.limits.max_heap_slots;
                    let tracked = self.allocation_tracked(exe, var, frames, func);
                    match self
                        .heap
                        .new_record(var, shape, &regs[first..first + n], limit, tracked)
                    {
                        Ok(obj) => reg!(dst) = Value::Ref(obj),
                        Err(_) => error!("heap exhausted: more than {} slots allocated", limit),
                    }
                }
                Op::NewArray {
                    dst,
                    len,
                    init,
                    var,
                } => {
                    let n = int!(len, "an array length");
                    if n < 0 {
                        error!("negative array length {}", n)
                    }
                    let limit = self.limits.max_heap_slots;
                    let Ok(n) = u32::try_from(n) else {
                        error!("heap exhausted: an array of {} elements", n)
                    };
                    let tracked = self.allocation_tracked(exe, var, frames, func);
                    match self.heap.new_array(var, n, reg!(init), limit, tracked) {
                        Ok(obj) => reg!(dst) = Value::Ref(obj),
                        Err(_) => error!("heap exhausted: more than {} slots allocated", limit),
                    }
                }
                Op::NewMutex { dst, var } => {
                    let id = MutexId(self.mutexes.len() as u32);
                    let tracked = self.allocation_tracked(exe, var, frames, func);
                    self.mutexes.push(MutexState {
                        var,
                        owner: None,
                        tracked,
                    });
                    reg!(dst) = Value::Mutex(id);
                }
                Op::NewCond { dst, var } => {
                    let id = CondId(self.conds.len() as u32);
                    let tracked = self.allocation_tracked(exe, var, frames, func);
                    self.conds.push(CondState {
                        tracked,
                        var,
                        waiters: Vec::new(),
                    });
                    reg!(dst) = Value::Cond(id);
                }

                Op::Lock { mutex, site } => {
                    let m = mutex!(mutex, "`lock`");
                    let state = &self.mutexes[m.index()];
                    let (var, tracked) = (state.var, state.tracked);
                    if state.owner.is_none() {
                        self.mutexes[m.index()].owner = Some(thread);
                        self.enabled_stale = true;
                        if !in_atomic!() {
                            stop!(EventKind::Lock, Some(site), Some(var), tracked);
                        }
                    } else if in_atomic!() {
                        error!(
                            "`lock` of `{}` would block inside an atomic block",
                            program.vars[var.index()].name
                        )
                    } else {
                        block!(
                            Status::Locking {
                                mutex: m,
                                woken: false
                            },
                            Some(var)
                        );
                    }
                }
                Op::Unlock { mutex, site } => {
                    let m = mutex!(mutex, "`unlock`");
                    let state = self.mutexes[m.index()];
                    if state.owner != Some(thread) {
                        let name = &program.vars[state.var.index()].name;
                        match state.owner {
                            None => error!("unlock of mutex `{}`, which is not locked", name),
                            Some(_) => {
                                error!("unlock of mutex `{}`, which another thread holds", name)
                            }
                        }
                    }
                    self.mutexes[m.index()].owner = None;
                    self.enabled_stale = true;
                    if !in_atomic!() {
                        stop!(
                            EventKind::Unlock,
                            Some(site),
                            Some(state.var),
                            state.tracked
                        );
                    }
                }
                Op::Wait {
                    cond: c,
                    mutex,
                    site,
                } => {
                    let cv = cond!(c, "`wait`");
                    let m = mutex!(mutex, "`wait`");
                    let state = self.mutexes[m.index()];
                    if state.owner != Some(thread) {
                        error!(
                            "wait with mutex `{}`, which this thread does not hold",
                            program.vars[state.var.index()].name
                        )
                    }
                    if in_atomic!() {
                        error!("`wait` would block inside an atomic block")
                    }
                    self.mutexes[m.index()].owner = None;
                    self.enabled_stale = true;
                    self.conds[cv.index()].waiters.push(thread);
                    let (var, tracked) =
                        (self.conds[cv.index()].var, self.conds[cv.index()].tracked);
                    self.status[thread.index()] = Status::Waiting { cond: cv, mutex: m };
                    self.threads[thread.index()].blocked_at = Loc {
                        func,
                        pc: (pc - 1) as u32,
                    };
                    stop!(EventKind::Wait, Some(site), Some(var), tracked);
                }
                Op::Signal { cond: c, site } => {
                    let cv = cond!(c, "`signal`");
                    if !self.conds[cv.index()].waiters.is_empty() {
                        let woken = self.conds[cv.index()].waiters.remove(0);
                        self.wake(woken);
                    }
                    let (var, tracked) =
                        (self.conds[cv.index()].var, self.conds[cv.index()].tracked);
                    if !in_atomic!() {
                        stop!(EventKind::Signal, Some(site), Some(var), tracked);
                    }
                }
                Op::Broadcast { cond: c, site } => {
                    let cv = cond!(c, "`broadcast`");
                    let waiters = std::mem::take(&mut self.conds[cv.index()].waiters);
                    for &woken in &waiters {
                        self.wake(woken);
                    }
                    let mut waiters = waiters;
                    waiters.clear();
                    self.conds[cv.index()].waiters = waiters;
                    let (var, tracked) =
                        (self.conds[cv.index()].var, self.conds[cv.index()].tracked);
                    if !in_atomic!() {
                        stop!(EventKind::Broadcast, Some(site), Some(var), tracked);
                    }
                }
                Op::Spawn {
                    dst,
                    func: callee,
                    args,
                    argc,
                } => {
                    if self.n_threads >= self.limits.max_threads {
                        error!("too many threads: more than {}", self.limits.max_threads)
                    }
                    let first = base + args.0 as usize;
                    self.scratch.clear();
                    self.scratch
                        .extend_from_slice(&regs[first..first + argc as usize]);
                    let child = self.add_thread(callee, Origin::Spawned(callee));
                    let child_regs = &mut self.threads[child.index()].regs;
                    child_regs[..argc as usize].copy_from_slice(&self.scratch);
                    reg!(dst) = Value::Thread(child);
                    if !in_atomic!() {
                        stop!(EventKind::Spawn, None, None, false);
                    }
                }
                Op::Join { thread: handle } => {
                    let target = match reg!(handle) {
                        Value::Thread(t) => t,
                        other => {
                            error!("`join` needs a thread handle, found {}", other.type_name())
                        }
                    };
                    if self.status[target.index()] == Status::Finished {
                        if !in_atomic!() {
                            stop!(EventKind::Join, None, None, false);
                        }
                    } else if in_atomic!() {
                        error!("`join` would block inside an atomic block")
                    } else {
                        block!(Status::Joining { thread: target }, None);
                    }
                }
                Op::Yield => {
                    if !in_atomic!() {
                        stop!(EventKind::Yield, None, None, false);
                    }
                }
                Op::AwaitBegin | Op::AtomicBegin => {
                    self.threads[thread.index()].atomic_depth += 1;
                }
                Op::AwaitCheck { cond, retry } => {
                    let ready = boolean!(cond, "an `await` condition");
                    let state = &mut self.threads[thread.index()];
                    state.atomic_depth -= 1;
                    let touched = if state.atomic_depth == 0 {
                        state.atomic_touched.take()
                    } else {
                        None
                    };
                    if state.atomic_depth > 0 {
                        if !ready {
                            error!("`await` would block inside an atomic block")
                        }
                    } else if ready {
                        let (var, site) = touched.unzip();
                        stop!(EventKind::Await, site, var, var.is_some());
                    } else {
                        // Go back to the AwaitBegin: the condition is
                        // evaluated afresh once another thread has moved.
                        let since = self.progress;
                        self.status[thread.index()] = Status::Awaiting { since };
                        self.enabled_stale = true;
                        self.awaiting += 1;
                        let state = &mut self.threads[thread.index()];
                        state.blocked_at = Loc {
                            func,
                            pc: (pc - 1) as u32,
                        };
                        let loc = Loc {
                            func,
                            pc: (pc - 1) as u32,
                        };
                        if let Some(frame) = frames.last_mut() {
                            frame.pc = retry;
                        }
                        return Ok(Event {
                            kind: EventKind::AwaitBlocked,
                            site: None,
                            var: None,
                            tracked: false,
                            loc: Some(loc),
                        });
                    }
                }
                Op::AtomicEnd => {
                    let state = &mut self.threads[thread.index()];
                    state.atomic_depth -= 1;
                    if state.atomic_depth == 0 {
                        if let Some((var, site)) = state.atomic_touched.take() {
                            stop!(EventKind::Atomic, Some(site), Some(var), true);
                        }
                    }
                }

                Op::Assert { cond, message } => {
                    if !boolean!(cond, "an assertion") {
                        match message {
                            Some(m) => fault!(BugKind::Assert, "{}", program.strings[m.index()]),
                            None => fault!(BugKind::Assert, "assertion failed"),
                        }
                    }
                }
                Op::Print { print } => {
                    if self.prints.is_some() {
                        let text = program.prints[print.index()]
                            .iter()
                            .map(|arg| match *arg {
                                PrintArg::Str(s) => program.strings[s.index()].clone(),
                                PrintArg::Reg(r) => self.display(reg!(r)),
                            })
                            .collect::<Vec<_>>()
                            .join(" ");
                        let line = PrintLine {
                            thread,
                            step: self.step,
                            text,
                        };
                        if let Some(prints) = &mut self.prints {
                            prints.push(line);
                        }
                    }
                }
                Op::SelfId { dst } => reg!(dst) = Value::Int(i64::from(thread.0)),
            }
        }
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
        let status = &mut self.status[thread.index()];
        if let Status::Waiting { mutex, .. } = *status {
            *status = Status::Locking { mutex, woken: true };
            self.enabled_stale = true;
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
            message: fault.message,
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
