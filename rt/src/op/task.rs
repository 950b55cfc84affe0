//! The async runtime's operations (crate::future): a task's operation on
//! one of the async types, a future returning `Pending`, and a waker
//! woken.

use rankcheck_engine::{EventKind, Pending, ThreadId};

use super::step::{enter, pending_on, sleep, sync_done};
use super::Site;
use crate::executor::point::event;
use crate::executor::threads::{Status, Wait};
use crate::executor::{self, end_step, with, Execution};
use crate::footprint::Place;
use crate::future::Flavor;
use crate::object::Handle;
use crate::trace::Operation;
use crate::wake::Woken;

/// An operation of the async runtime on `handle`'s object (`None`: on a
/// task): a scheduling point before it, its step ended with `kind`.
/// `false` when the execution is over: do only the local effect. On an
/// object made outside any run (`Handle::detached`), used outside any
/// run, `true` and nothing else: the operation is its own effect, as
/// tokio's sync types work outside a runtime; used in a run, it fails it.
pub fn async_step(
    handle: Option<&Handle>,
    kind: EventKind,
    operation: Operation,
    site: Site,
) -> bool {
    if let Some(handle) = handle.filter(|h| h.is_detached()) {
        // Unwinding (a drop after the failure below), it does its effect.
        if executor::present() && !std::thread::panicking() {
            with(|ex| ex.check(handle));
        }
        return true;
    }
    let pending = || handle.map_or(Pending::LOCAL, |h| pending_on(h, true, true));
    if !enter(pending, operation, site) {
        return false;
    }
    with(|ex| match handle {
        Some(handle) => {
            ex.check(handle);
            sync_done(ex, kind, handle);
        }
        None => {
            ex.touch(Place::Everything, true);
            end_step(ex, event(kind, None, false));
        }
    });
    true
}

/// The running thread's future returned `Pending` (polled at `site`): it
/// goes on at once when its waker was woken meanwhile, else blocks until
/// it is, or, with a timer armed, until no other thread can run (time
/// passes: its timers fire). How it woke. What the future awaited is
/// forgotten then: the next poll registers it again.
pub fn await_wake(site: Site) -> Woken {
    if !enter(|| Pending::LOCAL, Operation::Pending, site) {
        return Woken::Event;
    }
    let blocked_at = with(|ex| {
        let running = ex.current;
        ex.touch(Place::Everything, true);
        if ex.tasks.take_woken(running) {
            ex.memory.park(running);
            ex.tasks.polled(running);
            end_step(ex, event(EventKind::Yield, None, false));
            return None;
        }
        // Reported where the future last awaited one of the runtime's
        // types, when it did.
        let at = ex.tasks.polled_at(running).unwrap_or(site);
        if let Some(trace) = &mut ex.trace {
            trace.operation(running, Operation::Pending, at);
        }
        Some(at)
    });
    let Some(at) = blocked_at else {
        // On a current-thread runtime a `Pending` hands the thread to the
        // other tasks before this one goes on (its next operation would be
        // too late: what it reads in between, a std atomic say, would
        // never see their steps): a point here, at once.
        if with(|ex| ex.tasks.flavor) == Flavor::CurrentThread {
            enter(|| Pending::LOCAL, Operation::Yield, site);
        }
        return Woken::Event;
    };
    sleep(Wait::Woken, EventKind::Blocked, at, None);
    // Timers that fired while no thread could run wake their wakers
    // first: this thread's own among them makes it go on woken.
    crate::future::clock::wake_due();
    with(|ex| {
        let running = ex.current;
        let (woken, operation) = if ex.tasks.take_woken(running) {
            ex.memory.park(running);
            (Woken::Event, Operation::Pending)
        } else {
            ex.tasks.time_passes(running);
            (ex.wakes.forced(), Operation::TimerFires)
        };
        ex.tasks.polled(running);
        if let Some(trace) = &mut ex.trace {
            trace.operation(running, operation, at);
        }
        end_step(ex, event(EventKind::Woken, None, false));
        woken
    })
}

/// Wake `thread`'s waker (made in execution `execution`): bookkeeping, no
/// scheduling point, so that a waker may be woken anywhere (in a drop, by
/// a waker kept past its run, which does nothing). Under weak memory the
/// wake releases what the waking thread did, and the woken task acquires
/// it as it is polled again (as an executor's queue synchronises them):
/// the same token as an unpark's. Whether the wake reached its execution
/// (or was one to ignore); `false` on an OS thread that runs no such
/// execution, where the caller posts it (crate::executor::foreign_wakes).
pub fn wake(execution: u64, thread: ThreadId) -> bool {
    executor::try_with(|ex| {
        if ex.aborting && ex.id == execution {
            return true;
        }
        if ex.id != execution {
            return false;
        }
        ex.memory.unpark(ex.current, thread);
        wake_here(ex, thread);
        true
    })
    .unwrap_or(false)
}

/// Wake `thread` of the execution `ex`: it is enabled if it waits for a
/// wake, which is kept otherwise.
pub fn wake_here(ex: &mut Execution, thread: ThreadId) {
    ex.touch(Place::Everything, true);
    ex.tasks.wake(thread);
    if matches!(
        ex.threads.get(thread).status,
        Status::Blocked {
            wait: Wait::Woken,
            ..
        }
    ) {
        ex.threads.enable(thread);
    }
}
