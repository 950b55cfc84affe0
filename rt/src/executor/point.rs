//! Scheduling points: asking the scheduler, and switching to its choice.

use rankcheck_engine::{Event, EventKind, Pending, Point, ThreadId};

use super::foreign_wakes;
use super::threads::Status;
use super::{Execution, Suspender};
use crate::failure::{Blocked, FailureKind};

/// The first point, before any thread ran: the scheduler picks among the
/// initial threads (the main thread). `None` if the scheduler's choice
/// does not fit (a replay string of another test).
pub fn start(ex: &mut Execution, _main: ThreadId) -> Option<ThreadId> {
    ex.step_end = None;
    choose(ex, None, Event::START)
}

/// The running thread is about to do an operation whose effect `pending`
/// gives (asked only when the scheduler wants it): if its last operation
/// ended a step, this is a scheduling point, and another thread may run
/// before it goes on. When another was chosen, what suspends the running
/// thread (once the execution's borrow ends).
pub fn switch_here(ex: &mut Execution, pending: impl FnOnce() -> Pending) -> Option<Suspender> {
    let event = ex.step_end.take()?;
    let running = ex.current;
    if ex.wants_pending {
        ex.pending[running.index()] = pending();
    }
    (choose(ex, Some(running), event) != Some(running)).then(|| ex.suspender(running))
}

/// The running thread's operation ended its step with `event`; the next
/// operation it reaches is a scheduling point.
pub fn end_step(ex: &mut Execution, event: Event) {
    ex.tracked_steps += u64::from(event.tracked);
    ex.step_end = Some(event);
}

/// The running thread cannot go on (blocked or finished): a scheduling
/// point at once, among the others. Returns whether the thread must
/// suspend (it always must, unless the execution is over for it).
#[inline(always)]
pub fn leave(ex: &mut Execution, event: Event) {
    ex.step_end = None;
    let running = ex.current;
    choose(ex, Some(running), event);
}

/// The thread the executor resumes next, or `None` when the execution is
/// over.
pub fn next_to_run(ex: &mut Execution) -> Option<ThreadId> {
    ex.next
}

/// Ask the scheduler at a point after `last`'s step ended with `event`;
/// the choice becomes the running thread. `None` when no thread can run
/// (the end, or a deadlock, recorded as the failure), or when the choice
/// cannot run (a replay that does not fit). Inlined into every point,
/// as are the thread table's small methods: the calls cost about a tenth
/// of an execution (mutex-counter, 25,496 to 23,342 instructions).
#[inline(always)]
fn choose(ex: &mut Execution, last: Option<ThreadId>, event: Event) -> Option<ThreadId> {
    // The test's threads all finished: the tasks left are dropped, as a
    // runtime's are when `block_on` returns. Or no thread can run: a timed
    // wait's timeout fires.
    if ex.foreign.posted() {
        take_foreign_wakes(ex);
    }
    if ex.threads.live == 0
        || (ex.threads.enabled.is_empty()
            && !crate::wake::force_timeouts(ex)
            && !await_foreign_wake(ex))
    {
        return over(ex);
    }
    let mut hidden = super::give_way::hide(&mut ex.threads);
    if let Some(running) = last {
        let cooperative = ex.tasks.flavor == crate::future::Flavor::CurrentThread;
        if cooperative && event.kind != EventKind::Yield && ex.threads.is_enabled(running) {
            super::give_way::hide_others(&mut ex.threads, running, &mut hidden);
        }
    }
    // Borrowed field by field: the scheduler, and the threads it sees.
    let Some(scheduler) = ex.scheduler.as_deref_mut() else {
        unreachable!("invariant: the scheduler is here between points")
    };
    let threads = &ex.threads;
    let mut point = Point::new(
        last,
        event,
        &threads.enabled,
        &threads.newly_enabled,
        &threads.position,
    );
    point.step = ex.points;
    point.threads = threads.all.len();
    if ex.wants_pending {
        point.pending = &ex.pending;
    }
    let chosen = scheduler.choose(&point);
    ex.threads.newly_enabled.clear();
    ex.points += 1;
    ex.schedule.push(chosen);
    if !hidden.is_empty() {
        let chose_hidden = hidden.contains(chosen);
        super::give_way::restore(&mut ex.threads, hidden);
        if chose_hidden {
            return diverged(ex, chosen);
        }
    }
    super::give_way::stepped(&mut ex.threads, chosen);
    if chosen.index() >= ex.threads.all.len() || !ex.threads.is_enabled(chosen) {
        return diverged(ex, chosen);
    }
    if let Some(trace) = &mut ex.trace {
        trace.chosen(chosen, last, last.is_some_and(|t| ex.threads.is_enabled(t)));
    }
    ex.current = chosen;
    ex.next = Some(chosen);
    Some(chosen)
}

/// Apply the wakes posted from other OS threads (module foreign_wakes).
#[cold]
fn take_foreign_wakes(ex: &mut Execution) {
    for thread in ex.foreign.take(ex.id) {
        crate::op::wake_here(ex, thread);
    }
}

/// No thread can run, and one awaits a wake: wait for one posted from
/// another OS thread, unless the session's waits have proved fruitless.
/// Whether a thread can run.
#[cold]
fn await_foreign_wake(ex: &mut Execution) -> bool {
    let awaits_wake = ex.threads.all.iter().any(|thread| {
        matches!(
            thread.status,
            Status::Blocked {
                wait: super::threads::Wait::Woken,
                ..
            }
        )
    });
    if !awaits_wake || !ex.foreign_waiting.waits() {
        return false;
    }
    let until = std::time::Instant::now() + foreign_wakes::GRACE;
    let wakes = ex.foreign.wait(ex.id, until);
    ex.foreign_waiting = ex.foreign_waiting.after(wakes.len());
    for thread in wakes {
        crate::op::wake_here(ex, thread);
    }
    !ex.threads.enabled.is_empty()
}

/// No thread can run: the end, or a failure (a panic no `join` took, or a
/// deadlock). Never a thread to run.
#[cold]
fn over(ex: &mut Execution) -> Option<ThreadId> {
    // A panic no `join` took fails the run, also when others wait for
    // the thread that panicked: the panic is the cause.
    if let Some(panic) = ex.undelivered_panic() {
        ex.failure.get_or_insert(panic);
    } else if ex.threads.live > 0 {
        deadlock(ex);
    }
    ex.next = None;
    None
}

/// The scheduler chose `chosen`, which cannot run: a replay string of
/// another test (or of another version of it). The run fails as diverged.
#[cold]
fn diverged(ex: &mut Execution, chosen: ThreadId) -> Option<ThreadId> {
    // Named as the trace names threads, where the thread exists.
    let which = if chosen.index() < ex.threads.all.len() {
        format!("{}, which cannot run there", ex.threads.name(chosen))
    } else {
        format!(
            "a thread the test never started (it has {} so far)",
            ex.threads.all.len()
        )
    };
    ex.fail(
        FailureKind::Diverged,
        format!(
            "the replay string does not fit this test: at scheduling point {} it runs {which}",
            ex.points
        ),
        None,
    );
    ex.next = None;
    None
}

/// No thread can run and some have not finished: a deadlock, with what
/// each blocked thread waits on.
fn deadlock(ex: &mut Execution) {
    let mut blocked = Vec::new();
    for (i, thread) in ex.threads.all.iter().enumerate() {
        if let Status::Blocked { wait, at } = thread.status {
            blocked.push(Blocked {
                thread: ex.threads.name(ThreadId(i as u32)),
                waits_for: crate::failure::describe_wait(wait, ThreadId(i as u32), ex),
                at: at.into(),
                id: ThreadId(i as u32),
            });
        }
    }
    let first = blocked.first().map(|b| b.id).unwrap_or(ex.current);
    ex.current = first;
    let at = match ex.threads.get(first).status {
        Status::Blocked { at, .. } => Some(at.into()),
        _ => None,
    };
    let message = format!(
        "deadlock: {} thread{} blocked, none can run",
        blocked.len(),
        if blocked.len() == 1 { "" } else { "s" }
    );
    ex.fail(FailureKind::Deadlock, message, at);
    if let Some(failure) = &mut ex.failure {
        failure.blocked = blocked;
    }
}

/// An event of kind `kind`, about `var` when it touches one.
pub fn event(kind: EventKind, var: Option<rankcheck_engine::VarId>, tracked: bool) -> Event {
    Event {
        kind,
        site: None,
        var,
        tracked,
        loc: None,
    }
}
