//! The `Scheduler` trait: what the VM asks at every scheduling point.

use crate::id::{FuncId, SiteId, ThreadId, VarId};
use crate::priority::PriorityScheduler;

/// Why the running thread stopped and the scheduler is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The execution starts: no thread has run yet.
    Start,
    /// A tracked read of shared memory.
    Read,
    /// A write of shared memory that was tracked, or that let a thread
    /// blocked in `await` run (then `tracked` is false).
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
    /// An `await` found its condition false; the thread now waits until
    /// it is true.
    AwaitBlocked,
    /// An `atomic` block ended that touched a tracked variable,
    /// synchronised, or let a thread blocked in `await` run.
    Atomic,
    /// The thread tried to lock a mutex that is held, or to join a thread
    /// that has not finished, and now waits.
    Blocked,
    /// The thread finished.
    Finished,
}

impl EventKind {
    /// Whether an event of this kind on a variable changes what others
    /// see of it: a write, or any mutex or condition operation.
    pub fn modifies(self) -> bool {
        matches!(
            self,
            EventKind::Write
                | EventKind::Lock
                | EventKind::Unlock
                | EventKind::Wait
                | EventKind::Woken
                | EventKind::Signal
                | EventKind::Broadcast
        )
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
    /// Whether the step ended with a tracked access after which the thread
    /// can go on: only then may a scheduler place a priority change point
    /// here (docs/LANGUAGE.md, Priorities, change points and preemptions). False
    /// for blocking operations, `spawn`, `join`, `yield` and a thread's end.
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

/// One access a step made, as the VM logs it when asked (see
/// [`crate::Vm::log_accesses`]): exhaustive search builds its
/// happens-before signature from these, and traces show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The variable touched; `None` for the thread table, which `spawn`,
    /// `join` and a thread's end read or write.
    pub var: Option<VarId>,
    /// Whether the access may change what others see: a write, a mutex or
    /// condition operation, an allocation, a spawn or a thread's end.
    pub write: bool,
}

/// A shared location, as precise as the VM knows it: what two operations
/// must share to race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A global scalar, by index.
    Global(u32),
    /// A heap slot (a record field or an array element, global arrays
    /// included), by index in the execution's heap.
    Slot(u32),
    /// A mutex of the execution.
    Mutex(u32),
    /// A condition variable of the execution.
    Cond(u32),
}

/// A thread's next visible operation, seen before it runs (only for
/// schedulers that ask, see [`Scheduler::wants_pending`]): what partial
/// order sampling and SURW decide by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The location it touches, if any: `None` for `spawn`, `join`,
    /// `yield`, `await`, a thread's end, or an operation that will fail.
    pub location: Option<Location>,
    /// The variable of that location.
    pub var: Option<VarId>,
    /// Whether it may change what others see: a write, or any mutex or
    /// condition operation.
    pub write: bool,
}

impl Pending {
    /// An operation that races with nothing.
    pub const LOCAL: Pending = Pending {
        location: None,
        var: None,
        write: false,
    };

    /// Whether `self` and `other` race: the same location, and at least
    /// one of them writes (POS, Yuan, Yang and Gu, CAV 2018).
    pub fn races_with(&self, other: &Pending) -> bool {
        self.location.is_some() && self.location == other.location && (self.write || other.write)
    }
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
    /// The threads that can run; never empty. The order is the VM's own
    /// (deterministic, not by id).
    pub enabled: &'a [ThreadId],
    /// Threads that became able to run during the last step (at the start:
    /// every initial thread). A thread may be listed although it can no
    /// longer run, or twice; one that can run and is not listed could run
    /// at the previous point too.
    pub newly_enabled: &'a [ThreadId],
    /// What the last step accessed, in order, when the VM logs accesses;
    /// empty otherwise.
    pub accesses: &'a [Access],
    /// How many threads the execution has created so far.
    pub threads: usize,
    /// `position[t]`: where thread `t` is in `enabled`, or `u32::MAX`.
    pub(crate) position: &'a [u32],
    /// `pending[t]`: the next visible operation of each enabled thread
    /// `t`, when the scheduler asked for them; empty otherwise.
    pub pending: &'a [Pending],
}

impl Point<'_> {
    /// Whether `thread` can run now.
    #[inline]
    pub fn is_enabled(&self, thread: ThreadId) -> bool {
        self.position
            .get(thread.index())
            .is_some_and(|&p| p != u32::MAX)
    }

    /// The next visible operation of enabled thread `thread`, when the
    /// scheduler asked for pending operations.
    #[inline]
    pub fn pending(&self, thread: ThreadId) -> Option<&Pending> {
        self.pending.get(thread.index())
    }

    /// Whether the thread that ran up to here could go on: only then is
    /// choosing another thread a switch away from it.
    #[inline]
    pub fn last_enabled(&self) -> bool {
        self.last.is_some_and(|t| self.is_enabled(t))
    }
}

/// The positions of a hand-made enabled set, for building a [`Point`]
/// outside the VM (tests of schedulers): `position[t]` is `t`'s index in
/// `enabled`.
pub fn positions(enabled: &[ThreadId], threads: usize) -> Vec<u32> {
    let mut position = vec![u32::MAX; threads];
    for (i, t) in enabled.iter().enumerate() {
        position[t.index()] = i as u32;
    }
    position
}

impl<'a> Point<'a> {
    /// A point over a hand-made state (`position` from [`positions`]), for
    /// tests of schedulers.
    pub fn new(
        last: Option<ThreadId>,
        event: Event,
        enabled: &'a [ThreadId],
        newly_enabled: &'a [ThreadId],
        position: &'a [u32],
    ) -> Point<'a> {
        Point {
            step: 0,
            last,
            event,
            enabled,
            newly_enabled,
            accesses: &[],
            threads: position.len(),
            position,
            pending: &[],
        }
    }
}

/// Picks the next thread to run at each scheduling point.
///
/// The VM calls it only at scheduling points: after a tracked access, after
/// every synchronisation operation, after a write that lets a thread blocked
/// in `await` run, and when a thread blocks or finishes (docs/LANGUAGE.md, Steps
/// and scheduling points). A scheduler must
/// return one of `point.enabled`; the VM treats anything else as a schedule
/// that does not fit this program (see [`crate::Outcome::Diverged`]).
pub trait Scheduler {
    /// The thread to run next.
    fn choose(&mut self, point: &Point<'_>) -> ThreadId;

    /// Whether this scheduler needs [`Point::pending`]: the VM then works
    /// out each enabled thread's next operation before asking, at a cost.
    fn wants_pending(&self) -> bool {
        false
    }

    /// Whether asking this scheduler when a single thread can run tells it
    /// nothing and changes nothing in it (it must return that thread). The
    /// VM then passes such points without asking, and without leaving the
    /// running thread: [`Point`]s it does see may follow a step of the same
    /// thread it was not shown. Such a scheduler is also asked at its other
    /// points from inside the running thread's step (the very [`Point`] the
    /// loop would show), so that a thread chosen again goes on in place.
    /// Schedulers that count points or change
    /// priorities at them must keep the default.
    fn silent_when_alone(&self) -> bool {
        false
    }

    /// The priority scheduler deciding this run, if one does: the front
    /// ends read the change points it fired, and rt's weak memory turns
    /// them into stale reads. Only priority schedulers (and those that
    /// hand a run to one) answer.
    fn priority_mut(&mut self) -> Option<&mut PriorityScheduler> {
        None
    }
}

/// Forwards every method, so that a scheduler behind a reference or a box
/// is the scheduler itself.
macro_rules! forward_scheduler {
    ($($pointer:ty),*) => {$(
        impl<S: Scheduler + ?Sized> Scheduler for $pointer {
            fn choose(&mut self, point: &Point<'_>) -> ThreadId {
                (**self).choose(point)
            }

            fn wants_pending(&self) -> bool {
                (**self).wants_pending()
            }

            fn silent_when_alone(&self) -> bool {
                (**self).silent_when_alone()
            }

            fn priority_mut(&mut self) -> Option<&mut PriorityScheduler> {
                (**self).priority_mut()
            }
        }
    )*};
}

forward_scheduler!(&mut S, Box<S>);
