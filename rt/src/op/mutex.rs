//! Mutexes: lock, try_lock, unlock (and the release a `RwLock` shares).

use rankcheck_engine::EventKind;

use super::step::{enter, enter_with, pending_on, sync_done, until};
use super::waiters::refresh_waiters;
use super::Site;
use crate::executor::threads::Wait;
use crate::executor::{self, with, Execution};
use crate::object::{Handle, SyncState};
use crate::trace::Operation;

/// Lock a mutex; returns once the running thread holds it.
pub fn lock(handle: &Handle, site: Site) {
    let operation = Operation::Lock(handle.object);
    until(
        handle,
        true,
        Wait::Lock(handle.object),
        operation,
        site,
        |ex| {
            let running = ex.current;
            let SyncState::Mutex { owner } = &mut ex.objects[handle.object.index()].sync else {
                unreachable!("invariant: a mutex's object is a mutex")
            };
            if owner.is_some() {
                return None;
            }
            *owner = Some(running);
            refresh_waiters(ex, handle.object);
            sync_done(ex, EventKind::Lock, handle);
            Some(())
        },
    );
}

/// Try to lock a mutex without blocking: whether it was taken. While the
/// thread unwinds from a panic (which the test may catch) it still decides
/// on the lock, with no scheduling point.
pub fn try_lock(handle: &Handle, site: Site) -> bool {
    let live = enter(
        || pending_on(handle, true, true),
        Operation::Lock(handle.object),
        site,
    );
    if !live && !executor::active() {
        return true;
    }
    with(|ex| {
        ex.check(handle);
        let running = ex.current;
        let SyncState::Mutex { owner } = &mut ex.objects[handle.object.index()].sync else {
            unreachable!("invariant: a mutex's object is a mutex")
        };
        let taken = owner.is_none();
        if taken {
            *owner = Some(running);
            refresh_waiters(ex, handle.object);
        }
        sync_done(
            ex,
            if taken {
                EventKind::Lock
            } else {
                EventKind::Read
            },
            handle,
        );
        taken
    })
}

/// Unlock a mutex the running thread holds; `data` lets go of the data
/// (the guard's own lock), after the unlock's scheduling point.
pub fn unlock(handle: &Handle, site: Site, data: impl FnOnce()) {
    release(handle, true, site, data, |sync| {
        if let SyncState::Mutex { owner } = sync {
            *owner = None;
        }
    });
}

/// Release a lock `handle` names (`write`: as a writer), with `clear`
/// undoing the holder's share of its state: the scheduler sees an
/// unlock, and the threads waiting for the lock look again. The holder
/// keeps the data (`data` lets it go) until its scheduling point is
/// passed: another thread chosen there finds the lock still held.
pub(super) fn release(
    handle: &Handle,
    write: bool,
    site: Site,
    data: impl FnOnce(),
    clear: impl FnOnce(&mut SyncState),
) {
    let operation = Operation::Unlock(handle.object);
    let mut parts = Some((data, clear));
    // Live, it is all one visit to the execution (the data's drop touches
    // no rankcheck object).
    let pending = || pending_on(handle, write, true);
    let live = enter_with(pending, operation, site, |ex| {
        if let Some((data, clear)) = parts.take() {
            data();
            let_go(ex, handle, clear, true);
        }
    });
    if let (None, Some((data, clear))) = (live, parts) {
        release_unwinding(handle, data, clear);
    }
}

/// The lock's side of a release: `clear` the holder's share, and the
/// waiters look again; a point after it when `live`. Nothing for an object
/// of another execution (one unwinding after its end).
fn let_go(ex: &mut Execution, handle: &Handle, clear: impl FnOnce(&mut SyncState), live: bool) {
    if ex.id != handle.execution {
        return;
    }
    clear(&mut ex.objects[handle.object.index()].sync);
    refresh_waiters(ex, handle.object);
    if live {
        sync_done(ex, EventKind::Unlock, handle);
    }
}

/// A release while the thread unwinds or the execution is over: the data
/// goes, and the lock too while the execution is still there.
#[cold]
fn release_unwinding(handle: &Handle, data: impl FnOnce(), clear: impl FnOnce(&mut SyncState)) {
    data();
    executor::with_present(|ex| let_go(ex, handle, clear, false));
}
