//! Replaying a recorded schedule, and recording a trace while doing so.

use crate::id::ThreadId;
use crate::scheduler::{Access, Event, Point, Scheduler};

/// Makes exactly the recorded choices. Past the end of the schedule it asks
/// for a thread that does not exist, which the VM reports as
/// [`crate::Outcome::Diverged`].
#[derive(Clone, Debug)]
pub struct ReplayScheduler<'s> {
    choices: &'s [ThreadId],
    next: usize,
}

impl<'s> ReplayScheduler<'s> {
    /// A scheduler that replays `choices`.
    pub fn new(choices: &'s [ThreadId]) -> ReplayScheduler<'s> {
        ReplayScheduler { choices, next: 0 }
    }
}

impl Scheduler for ReplayScheduler<'_> {
    fn choose(&mut self, _point: &Point<'_>) -> ThreadId {
        let choice = self
            .choices
            .get(self.next)
            .copied()
            .unwrap_or(ThreadId(u32::MAX));
        self.next += 1;
        choice
    }
}

/// One step of a trace: a thread ran from one scheduling point to the next
/// and ended with `event`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// The thread that ran.
    pub thread: ThreadId,
    /// What ended its step.
    pub event: Event,
    /// Every access the step made, in order, when the VM logged them (see
    /// [`crate::Vm::log_accesses`]).
    pub accesses: Vec<Access>,
    /// Whether the scheduler chose this thread away from one that could
    /// have gone on. Under priorities that is a preemption only when a
    /// change point lowered the other thread; it may also be a thread that
    /// just became able to run and outranks it.
    pub switched: bool,
}

/// Wraps a scheduler and records what each chosen thread did: the
/// interleaving a bug report shows.
#[derive(Clone, Debug)]
pub struct Tracer<S> {
    inner: S,
    pending: Option<(ThreadId, bool)>,
    /// The steps so far; the last one is completed at the next point.
    pub steps: Vec<TraceStep>,
}

impl<S: Scheduler> Tracer<S> {
    /// Record the choices `inner` makes.
    pub fn new(inner: S) -> Tracer<S> {
        Tracer {
            inner,
            pending: None,
            steps: Vec::new(),
        }
    }

    /// The recorded steps. A step that a failure cut short (the failing
    /// thread's last one) is not in the list: the report shows the failure
    /// itself.
    pub fn into_steps(self) -> Vec<TraceStep> {
        self.steps
    }

    /// The wrapped scheduler, given back.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// The wrapped scheduler, to ask what it decided.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The thread chosen last and whether it was a switch away from another
    /// that could have gone on, if its step has not ended at a scheduling
    /// point (it failed, or the run ended).
    pub fn unfinished(&self) -> Option<(ThreadId, bool)> {
        self.pending
    }
}

impl<S: Scheduler> Scheduler for Tracer<S> {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some((thread, switched)) = self.pending.take() {
            self.steps.push(TraceStep {
                thread,
                event: point.event,
                accesses: point.accesses.to_vec(),
                switched,
            });
        }
        let chosen = self.inner.choose(point);
        let switched = point.last_enabled() && point.last != Some(chosen);
        self.pending = Some((chosen, switched));
        chosen
    }

    fn wants_pending(&self) -> bool {
        self.inner.wants_pending()
    }
}
