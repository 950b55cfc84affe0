//! Readers-writer locks: read and write locks, tried or blocking.

use rankcheck_engine::EventKind;

use super::mutex::release;
use super::step::{enter, pending_on, sync_done, until};
use super::waiters::refresh_waiters;
use super::Site;
use crate::executor::threads::Wait;
use crate::executor::{self, with, Execution};
use crate::object::{Handle, SyncState};
use crate::trace::Operation;

/// Take a read (`write == false`) or write lock of a `RwLock`.
pub fn rw_lock(handle: &Handle, write: bool, site: Site) {
    let operation = Operation::RwLock(handle.object, write);
    let wait = if write {
        Wait::WriteLock(handle.object)
    } else {
        Wait::ReadLock(handle.object)
    };
    until(handle, write, wait, operation, site, |ex| {
        if !take_rw(ex, handle, write) {
            return None;
        }
        sync_done(ex, EventKind::Lock, handle);
        Some(())
    });
}

/// Give the running thread `handle`'s `RwLock` (`write`: to write) if it is
/// free for it now: whether it did.
fn take_rw(ex: &mut Execution, handle: &Handle, write: bool) -> bool {
    let running = ex.current;
    let SyncState::RwLock { writer, readers } = &mut ex.objects[handle.object.index()].sync else {
        unreachable!("invariant: a RwLock's object is a RwLock")
    };
    let free = writer.is_none() && (!write || *readers == 0);
    if free {
        if write {
            *writer = Some(running);
        } else {
            *readers += 1;
        }
        refresh_waiters(ex, handle.object);
    }
    free
}

/// Take a read (`write == false`) or write lock of a `RwLock` if it can
/// be had now, deciding at the operation's own scheduling point: whether
/// it was taken. Never blocks; while unwinding, as [`try_lock`].
pub fn try_rw_lock(handle: &Handle, write: bool, site: Site) -> bool {
    let operation = Operation::RwLock(handle.object, write);
    let live = enter(|| pending_on(handle, write, true), operation, site);
    if !live && !executor::active() {
        return true;
    }
    with(|ex| {
        ex.check(handle);
        let taken = take_rw(ex, handle, write);
        let kind = if taken {
            EventKind::Lock
        } else {
            EventKind::Read
        };
        sync_done(ex, kind, handle);
        taken
    })
}

/// Release a read or write lock of a `RwLock`; `data` lets go of the data
/// after the unlock's scheduling point.
pub fn rw_unlock(handle: &Handle, write: bool, site: Site, data: impl FnOnce()) {
    release(handle, write, site, data, |sync| {
        if let SyncState::RwLock { writer, readers } = sync {
            if write {
                *writer = None;
            } else {
                *readers = readers.saturating_sub(1);
            }
        }
    });
}
