//! What every operation does around its own effect: the scheduling point
//! due before it, the step limit, blocking until it can go on, and the
//! end of its step. When the scheduler keeps the running thread, the
//! point, the count and the effect are one visit to the execution.

use rankcheck_engine::{EventKind, Location as Place, Pending, VarId};

use super::waiters::can_go_on;
use super::Site;
use crate::executor::point::switch_here;
use crate::executor::point::{event, leave};
use crate::executor::threads::Wait;
use crate::executor::{self, end_step, with, Execution, Suspender};
use crate::failure::FailureKind;
use crate::footprint::Place as Touched;
use crate::object::{Handle, ObjectId};
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
    enter_counting::<false, R>(pending, operation, site, effect)
}

/// [`enter_with`]; `CELL`: the operation is an access to a
/// `cell::UnsafeCell`, which counts toward the step limit only where the
/// run makes cell accesses points (`StepLimit::cell_points`).
#[inline(always)]
pub(super) fn enter_counting<const CELL: bool, R>(
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
        None => Ok(count::<CELL>(ex, operation, site).map(|()| {
            begin(ex, &pending);
            effect(ex)
        })),
    })?;
    let done = match entered {
        Ok(done) => done,
        Err((suspender, effect)) => {
            suspender.suspend();
            with(|ex| {
                count::<CELL>(ex, operation, site).map(|()| {
                    begin(ex, &pending);
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
fn count<const CELL: bool>(
    ex: &mut Execution,
    operation: Operation,
    site: Site,
) -> Result<(), Suspender> {
    let counted = !CELL || ex.cell_points();
    ex.operations += u64::from(counted);
    if counted && ex.operations > ex.max_steps() {
        step_limit(ex, site);
        return Err(ex.suspender(ex.current));
    }
    if let Some(trace) = &mut ex.trace {
        trace.operation(ex.current, operation, site);
    }
    Ok(())
}

/// The operation `pending` says begins: the step touches its object
/// (every object, for an async task's: the runtime's own state is shared
/// with no scheduling point of its own), and under weak memory a
/// synchronisation operation releases into it.
#[inline(always)]
fn begin(ex: &mut Execution, pending: &impl Fn() -> Pending) {
    if ex.logs_footprint() {
        ex.mark_operation();
        touch_pending(ex, &pending());
    }
    release(ex, pending);
}

/// The running step does the operation `pending` says.
fn touch_pending(ex: &Execution, pending: &Pending) {
    if ex.threads.get(ex.current).task {
        ex.touch(Touched::Everything, true);
    }
    match (pending.location, pending.var) {
        (Some(Place::Slot(_)), Some(var)) => ex.touch(Touched::Memory(var.0), pending.write),
        (Some(_), Some(var)) => ex.touch(Touched::Object(var.0), pending.write),
        // Operations on threads say what they touch themselves.
        _ => {}
    }
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
        if only_waits(wait) {
            ex.retract();
        } else {
            touch_wait(ex, wait, false);
        }
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
        // Going on is a step of its own, on what the thread waited for
        // (and an operation: one that must wait again is taken back).
        ex.mark_operation();
        touch_wait(ex, wait, true);
        touch_wait(ex, woke_on, true);
        after(ex, woke_on)
    })
}

/// Whether an operation that blocks on `wait` changed nothing shared by
/// trying (a lock held, a thread not finished, a channel empty or full,
/// no park token): not a condition variable's wait (it released its
/// mutex) nor a barrier's (it arrived), nor a timed wait (the thread
/// blocked lets other timeouts fire when no other thread can run).
fn only_waits(wait: Wait) -> bool {
    match wait {
        Wait::Lock(_)
        | Wait::ReadLock(_)
        | Wait::WriteLock(_)
        | Wait::Send(_)
        | Wait::Handoff { .. }
        | Wait::Join(_) => true,
        Wait::Recv { timed, .. } | Wait::Park { timed } => !timed,
        Wait::Condvar { .. } | Wait::Barrier(_) | Wait::Woken => false,
    }
}

/// The running step touches what `wait` waits for, blocking on it or
/// (`going_on`) going on once it came: a condition variable's wait also
/// its mutex, which it releases and takes back; going on from a barrier,
/// a join or a handoff only reads what let it go on.
fn touch_wait(ex: &Execution, wait: Wait, going_on: bool) {
    if !ex.logs_footprint() {
        return;
    }
    let object = |o: ObjectId| Touched::Object(ex.objects[o.index()].var.0);
    match wait {
        Wait::Lock(o)
        | Wait::ReadLock(o)
        | Wait::WriteLock(o)
        | Wait::Send(o)
        | Wait::Recv { channel: o, .. } => ex.touch(object(o), true),
        Wait::Handoff { channel: o, .. } => ex.touch(object(o), false),
        Wait::Barrier(o) => ex.touch(object(o), !going_on),
        Wait::Condvar { condvar, mutex, .. } => {
            ex.touch(object(condvar), true);
            ex.touch(object(mutex), true);
        }
        Wait::Park { .. } => ex.touch(Touched::Token(ex.current), true),
        Wait::Join(thread) => ex.touch(Touched::End(thread), false),
        Wait::Woken => ex.touch(Touched::Everything, true),
    }
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
