//! Condition variables: waiting (with its mutex), notifying one or all.

use rankcheck_engine::{EventKind, ThreadId};

use super::step::{enter, pending_on, sleep, sync_done};
use super::waiters::refresh_waiters;
use super::Site;
use crate::executor::threads::{Status, Wait};
use crate::executor::{with, Execution};
use crate::object::{Handle, ObjectId, SyncState};
use crate::trace::Operation;
use crate::wake::Woken;

/// Release `mutex` and wait on `condvar` (`timed`: with a timeout) until
/// notified, woken spuriously or timed out, then take `mutex` back: how
/// the wait ended. An early end is decided as the wait begins ([`crate::wake`]):
/// the thread then waits for the mutex alone.
pub fn wait(condvar: &Handle, mutex: &Handle, timed: bool, site: Site) -> Woken {
    if !enter(
        || pending_on(condvar, true, true),
        Operation::Wait(condvar.object),
        site,
    ) {
        return Woken::Event;
    }
    let (wait, early) = with(|ex| {
        ex.check(condvar);
        ex.check(mutex);
        let running = ex.current;
        if let SyncState::Mutex { owner } = &mut ex.objects[mutex.object.index()].sync {
            *owner = None;
        }
        ex.memory.release_into(running, mutex.object.index());
        refresh_waiters(ex, mutex.object);
        let early = ex.wakes.decide(timed);
        if early != Woken::Event {
            return (Wait::Lock(mutex.object), early);
        }
        let SyncState::Condvar {
            waiters,
            generation,
            ..
        } = &mut ex.objects[condvar.object.index()].sync
        else {
            unreachable!("invariant: a condvar's object is a condvar")
        };
        waiters.push(running);
        let wait = Wait::Condvar {
            condvar: condvar.object,
            mutex: mutex.object,
            since: *generation,
            timed,
        };
        (wait, early)
    });
    let woke_on = sleep(wait, EventKind::Wait, site, Some(condvar.var));
    // Chosen when the mutex was free: take it back.
    with(|ex| {
        let running = ex.current;
        let woken = match early {
            Woken::Event => take_notification(ex, condvar.object, woke_on),
            early => early,
        };
        if let SyncState::Mutex { owner } = &mut ex.objects[mutex.object.index()].sync {
            *owner = Some(running);
        }
        refresh_waiters(ex, mutex.object);
        if let Some(trace) = &mut ex.trace {
            let operation = match woken {
                Woken::Event => Operation::Woken(condvar.object),
                _ => Operation::early(Some(condvar.object), woken),
            };
            trace.operation(running, operation, site);
        }
        sync_done(ex, EventKind::Woken, mutex);
        woken
    })
}

/// The running thread, which waited on `condvar` and woke waiting for
/// `woke_on`, leaves the waiters: taking the oldest `notify_one` it may
/// take (a `notify_all` woke it already). Woken with none, its timeout
/// fired while no other thread could run.
fn take_notification(ex: &mut Execution, condvar: ObjectId, woke_on: Wait) -> Woken {
    let running = ex.current;
    let SyncState::Condvar {
        waiters, pending, ..
    } = &mut ex.objects[condvar.index()].sync
    else {
        unreachable!("invariant: a condvar's object is a condvar")
    };
    waiters.retain(|&t| t != running);
    let Wait::Condvar { since, .. } = woke_on else {
        return Woken::Event;
    };
    match pending.iter().position(|&g| g > since) {
        Some(i) => {
            pending.remove(i);
            refresh_waiters(ex, condvar);
            Woken::Event
        }
        None => ex.wakes.forced(),
    }
}

/// Notify `condvar`: `notify_all` wakes every waiter; `notify_one` leaves
/// a notification that one of the threads waiting now takes, the one the
/// scheduler runs first.
pub fn notify(condvar: &Handle, all: bool, site: Site) {
    if !enter(
        || pending_on(condvar, true, true),
        Operation::Notify(condvar.object, all),
        site,
    ) {
        return;
    }
    with(|ex| {
        ex.check(condvar);
        let SyncState::Condvar {
            waiters,
            generation,
            pending,
        } = &mut ex.objects[condvar.object.index()].sync
        else {
            unreachable!("invariant: a condvar's object is a condvar")
        };
        *generation += 1;
        if all {
            pending.clear();
            for thread in std::mem::take(waiters) {
                wake_to_lock(ex, thread);
            }
        } else if !waiters.is_empty() {
            pending.push(*generation);
            refresh_waiters(ex, condvar.object);
        }
        let kind = if all {
            EventKind::Broadcast
        } else {
            EventKind::Signal
        };
        sync_done(ex, kind, condvar);
    });
}

/// `thread`, waiting on a condition variable, is notified: it now waits
/// for the mutex alone.
fn wake_to_lock(ex: &mut Execution, thread: ThreadId) {
    if let Status::Blocked {
        wait: Wait::Condvar { mutex, .. },
        ..
    } = ex.threads.get(thread).status
    {
        ex.threads.wait_instead(thread, Wait::Lock(mutex));
        let free = ex.objects[mutex.index()].sync.mutex_free();
        ex.threads.set_enabled(thread, free);
    }
}
