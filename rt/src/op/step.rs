//! What every operation does around its own effect: the scheduling point
//! due before it, the step limit, blocking until it can go on, and the
//! end of its step.

use rankcheck_engine::{EventKind, Location as Place, Pending, VarId};

use super::waiters::can_go_on;
use super::Site;
use crate::executor::point::switch_here;
use crate::executor::point::{event, leave};
use crate::executor::threads::Wait;
use crate::executor::{self, end_step, with, Execution, Suspender};
use crate::failure::FailureKind;
use crate::object::Handle;
use crate::trace::Operation;

/// The pending operation on `handle`'s object, as POS sees it.
pub(super) fn pending_on(handle: &Handle, write: bool, sync: bool) -> Pending {
    let index = handle.object.0;
    Pending {
        location: Some(if sync {
            Place::Mutex(index)
        } else {
            Place::Slot(index)
        }),
        var: Some(handle.var),
        write,
    }
}

/// Start an operation: the point due before it, then the step limit.
/// Returns `false` when the execution is over (or the thread unwinds from
/// a panic) and the operation must do nothing but its own local effect.
pub(super) fn enter(pending: impl Fn() -> Pending, operation: Operation, site: Site) -> bool {
    enter_with(pending, operation, site, |_| ()).is_some()
}

/// [`enter`], then `effect` on the execution: its result, or `None` when
/// the operation must do nothing but its local effect. When the point
/// keeps the running thread, all of it is one visit to the execution.
pub(super) fn enter_with<R>(
    pending: impl Fn() -> Pending,
    operation: Operation,
    site: Site,
    effect: impl FnOnce(&mut Execution) -> R,
) -> Option<R> {
    // A thread unwinding from a panic (the execution fails with it) keeps
    // its bookkeeping and never switches.
    if std::thread::panicking() {
        return None;
    }
    let entered = executor::with_active(|ex| match switch_here(ex, &pending) {
        Some(suspender) => Err((suspender, effect)),
        None => Ok(count(ex, operation, site).map(|()| {
            release(ex, &pending);
            effect(ex)
        })),
    })?;
    let done = match entered {
        Ok(done) => done,
        Err((suspender, effect)) => {
            suspender.suspend();
            with(|ex| {
                count(ex, operation, site).map(|()| {
                    release(ex, &pending);
                    effect(ex)
                })
            })
        }
    };
    match done {
        Ok(result) => Some(result),
        // The executor never resumes a thread of a failed execution: this
        // waits for the teardown to unwind it.
        Err(suspender) => {
            suspender.suspend();
            unreachable!("invariant: a thread past the step limit is only unwound")
        }
    }
}

/// Count the running thread's operation against the step limit (past it,
/// the run fails, and what suspends the thread for good comes back) and
/// trace it.
#[inline(always)]
fn count(ex: &mut Execution, operation: Operation, site: Site) -> Result<(), Suspender> {
    ex.operations += 1;
    if ex.operations > ex.max_steps() {
        step_limit(ex, site);
        return Err(ex.suspender(ex.current));
    }
    if let Some(trace) = &mut ex.trace {
        trace.operation(ex.current, operation, site);
    }
    Ok(())
}

/// Under weak memory, a synchronisation operation releases the running
/// thread's history into its object as it begins (crate::memory); it
/// acquires at its end ([`sync_done`]).
#[inline(always)]
fn release(ex: &mut Execution, pending: &impl Fn() -> Pending) {
    if !ex.memory.is_engaged() {
        return;
    }
    if let Some(Place::Mutex(object)) = pending().location {
        ex.memory.release_into(ex.current, object as usize);
    }
}

#[cold]
fn step_limit(ex: &mut Execution, site: Site) {
    let limit = ex.max_steps();
    ex.fail(
        FailureKind::StepLimit,
        format!("the run took more than {limit} operations: possible non-termination"),
        Some(site.into()),
    );
}

/// The running thread blocks on `wait`: a point at once; returns once it
/// is chosen again, which it is only when it can go on.
pub(super) fn block(wait: Wait, operation: Operation, site: Site, var: Option<VarId>) {
    block_then(wait, operation, site, var, |_| ());
}

/// [`block`], then `after` on the execution, in the same visit to it as
/// the wake-up.
pub(super) fn block_then<R>(
    wait: Wait,
    operation: Operation,
    site: Site,
    var: Option<VarId>,
    after: impl FnOnce(&mut Execution) -> R,
) -> R {
    sleep_then(wait, EventKind::Blocked, site, var, |ex, _| {
        // Chosen again: completing the operation is this step's.
        if let Some(trace) = &mut ex.trace {
            trace.operation(ex.current, operation, site);
        }
        after(ex)
    })
}

/// The running thread blocks on `wait`, its step ending with `kind`: a
/// point at once (it can run at once if what it waits for is there).
/// Returns once it is chosen again, with what it was waiting for then (a
/// `notify_all` turns a condition variable's wait into its mutex's).
pub(super) fn sleep(wait: Wait, kind: EventKind, site: Site, var: Option<VarId>) -> Wait {
    sleep_then(wait, kind, site, var, |_, woke_on| woke_on)
}

/// [`sleep`], then `after` on the execution and what the thread waited
/// for, in the same visit to it as the wake-up.
#[inline(always)]
fn sleep_then<R>(
    wait: Wait,
    kind: EventKind,
    site: Site,
    var: Option<VarId>,
    after: impl FnOnce(&mut Execution, Wait) -> R,
) -> R {
    let suspender = with(|ex| {
        let running = ex.current;
        ex.threads.block(running, wait, site);
        let can = can_go_on(ex, running, wait);
        ex.threads.set_enabled(running, can);
        if let Some(trace) = &mut ex.trace {
            trace.blocked(running);
        }
        leave(ex, event(kind, var, false));
        ex.suspender(running)
    });
    suspender.suspend();
    with(|ex| {
        let running = ex.current;
        let woke_on = ex.threads.unblock(running);
        after(ex, woke_on)
    })
}

/// Start an operation on `handle`'s object (as [`enter`], the pending
/// operation a write when `write`) and complete it by `attempt`, which
/// does it and returns its result, or returns `None` when it must wait:
/// the running thread then blocks on `wait` and tries again once it can
/// go on. `None` when the operation must do nothing (as `enter`'s `false`).
pub(super) fn until<T>(
    handle: &Handle,
    write: bool,
    wait: Wait,
    operation: Operation,
    site: Site,
    mut attempt: impl FnMut(&mut Execution) -> Option<T>,
) -> Option<T> {
    let mut try_now = |ex: &mut Execution| {
        ex.check(handle);
        attempt(ex)
    };
    let pending = || pending_on(handle, write, true);
    let mut done = enter_with(pending, operation, site, &mut try_now)?;
    loop {
        if let Some(done) = done {
            return Some(done);
        }
        done = block_then(wait, operation, site, Some(handle.var), &mut try_now);
    }
}

/// End a synchronisation operation on `handle`'s object: always a point,
/// a change point only when the object is tracked.
pub(super) fn sync_done(ex: &mut Execution, kind: EventKind, handle: &Handle) {
    ex.memory.acquire_from(ex.current, handle.object.index());
    let tracked = ex.is_tracked(handle.object);
    end_step(ex, event(kind, Some(handle.var), tracked));
}
