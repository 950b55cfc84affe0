//! What every operation does around its own effect: the scheduling point
//! due before it, the step limit, blocking until it can go on, and the
//! end of its step.

use rankcheck_engine::{EventKind, Location as Place, Pending, VarId};

use super::waiters::can_go_on;
use super::Site;
use crate::executor::point::{event, leave};
use crate::executor::threads::{Status, Wait};
use crate::executor::{self, end_step, schedule_here, suspend, with, Execution};
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

/// Whether the running thread is unwinding: from a panic (the execution
/// fails with it) or because the execution is over. Its operations then
/// keep their bookkeeping and never switch.
pub(super) fn unwinding() -> bool {
    std::thread::panicking() || !executor::active()
}

/// Start an operation: the point due before it, then the step limit.
/// Returns `false` when the execution is over and the operation must do
/// nothing but its own local effect.
pub(super) fn enter(pending: Pending, operation: Operation, site: Site) -> bool {
    if unwinding() {
        return false;
    }
    schedule_here(pending);
    let (running, over) = with(|ex| {
        ex.operations += 1;
        if ex.operations > ex.max_steps() {
            let limit = ex.max_steps();
            ex.fail(
                FailureKind::StepLimit,
                format!("the run took more than {limit} operations: possible non-termination"),
                Some(site.into()),
            );
            return (ex.current, true);
        }
        if let Some(trace) = &mut ex.trace {
            trace.operation(ex.current, operation, site);
        }
        (ex.current, false)
    });
    if over {
        // The executor never resumes a thread of a failed execution: this
        // waits for the teardown to unwind it.
        suspend(running);
    }
    true
}

/// The running thread blocks on `wait`: a point at once; returns once it
/// is chosen again, which it is only when it can go on.
pub(super) fn block(wait: Wait, operation: Operation, site: Site, var: Option<VarId>) {
    sleep(wait, EventKind::Blocked, site, var);
    with(|ex| {
        // Chosen again: completing the operation is this step's.
        if let Some(trace) = &mut ex.trace {
            trace.operation(ex.current, operation, site);
        }
    });
}

/// The running thread blocks on `wait`, its step ending with `kind`: a
/// point at once (it can run at once if what it waits for is there).
/// Returns once it is chosen again, with what it was waiting for then (a
/// `notify_all` turns a condition variable's wait into its mutex's).
pub(super) fn sleep(wait: Wait, kind: EventKind, site: Site, var: Option<VarId>) -> Wait {
    let running = with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).status = Status::Blocked { wait, at: site };
        let can = can_go_on(ex, running, wait);
        ex.threads.set_enabled(running, can);
        if let Some(trace) = &mut ex.trace {
            trace.blocked(running);
        }
        leave(ex, event(kind, var, false));
        running
    });
    suspend(running);
    with(|ex| {
        let running = ex.current;
        let thread = ex.threads.get_mut(running);
        let Status::Blocked { wait, .. } = thread.status else {
            unreachable!("invariant: a blocked thread wakes blocked")
        };
        thread.status = Status::Runnable;
        wait
    })
}

/// Complete an operation on `handle`'s object by `attempt`, which does it
/// and returns its result, or returns `None` when it must wait: the running
/// thread then blocks on `wait` and tries again once it can go on.
pub(super) fn until<T>(
    handle: &Handle,
    wait: Wait,
    operation: Operation,
    site: Site,
    mut attempt: impl FnMut(&mut Execution) -> Option<T>,
) -> T {
    loop {
        let done = with(|ex| {
            ex.check(handle);
            attempt(ex)
        });
        if let Some(done) = done {
            return done;
        }
        block(wait, operation, site, Some(handle.var));
    }
}

/// End a synchronisation operation on `handle`'s object: always a point,
/// a change point only when the object is tracked.
pub(super) fn sync_done(ex: &mut Execution, kind: EventKind, handle: &Handle) {
    let tracked = ex.is_tracked(handle.object);
    end_step(ex, event(kind, Some(handle.var), tracked));
}
