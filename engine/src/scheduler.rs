//! The `Scheduler` trait: what the VM asks at every scheduling point.

use crate::id::{FuncId, SiteId, ThreadId, VarId};

/// Why the running thread stopped and the scheduler is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The execution starts: no thread has run yet.
    Start,
    /// A tracked read of shared memory.
    Read,
    /// A tracked write of shared memory.
    Write,
    /// A mutex was acquired.
    Lock,
    /// A mutex was released.
    Unlock,
    /// The thread released the mutex and now waits on the condition variable.
    Wait,
    /// A waiting thread was woken and has reacquired its mutex.
    Woken,
    /// A condition variable was signalled.
    Signal,
    /// A condition variable was broadcast.
    Broadcast,
    /// A thread was spawned.
    Spawn,
    /// A joined thread had finished; the join returned.
    Join,
    /// `yield;`
    Yield,
    /// An `await` found its condition true and went on.
    Await,
    /// An `await` found its condition false; the thread now waits for
    /// another thread to make progress.
    AwaitBlocked,
    /// An `atomic` block that touched a tracked variable ended.
    Atomic,
    /// The thread tried to lock a mutex that is held, or to join a thread
    /// that has not finished, and now waits.
    Blocked,
    /// The thread finished.
    Finished,
}

impl EventKind {
    /// Whether the event changes nothing another thread could observe, so
    /// that a thread waiting in `await` need not look again.
    pub fn is_progress(self) -> bool {
        !matches!(self, EventKind::AwaitBlocked)
    }
}

/// A place in the code: instruction `pc` of `func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The function.
    pub func: FuncId,
    /// The instruction index.
    pub pc: u32,
}

/// What the thread that just ran did last, as the scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The access site, for accesses and mutex/condition operations.
    pub site: Option<SiteId>,
    /// The variable touched, when the event is an access to one.
    pub var: Option<VarId>,
    /// Whether that variable is tracked: only then may a scheduler preempt
    /// the thread here or place a priority change point (PAPER.md, PCTVB).
    pub tracked: bool,
    /// Where in the code it happened (`None` at the start).
    pub loc: Option<Loc>,
}

impl Event {
    /// The event that opens every execution.
    pub const START: Event = Event {
        kind: EventKind::Start,
        site: None,
        var: None,
        tracked: false,
        loc: None,
    };
}

/// A scheduling point: the state the scheduler chooses from.
#[derive(Clone, Copy, Debug)]
pub struct Point<'a> {
    /// How many scheduling points this execution passed before this one.
    pub step: u64,
    /// The thread that ran up to here (`None` at the start).
    pub last: Option<ThreadId>,
    /// What it did last.
    pub event: Event,
    /// The threads that can run, in id order; never empty.
    pub enabled: &'a [ThreadId],
}

impl Point<'_> {
    /// Whether the thread that ran up to here could go on: only then is
    /// choosing another thread a preemption.
    pub fn last_enabled(&self) -> bool {
        self.last.is_some_and(|t| self.enabled.contains(&t))
    }
}

/// Picks the next thread to run at each scheduling point.
///
/// The VM calls it only at scheduling points: after a tracked access, after
/// every synchronisation operation, and when a thread blocks or finishes
/// (LANGUAGE.md, Shared memory and scheduling points). A scheduler must
/// return one of `point.enabled`; the VM treats anything else as a schedule
/// that does not fit this program (see [`crate::Outcome::Diverged`]).
pub trait Scheduler {
    /// The thread to run next.
    fn choose(&mut self, point: &Point<'_>) -> ThreadId;
}

impl<S: Scheduler + ?Sized> Scheduler for &mut S {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        (**self).choose(point)
    }
}
