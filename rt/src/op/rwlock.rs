//! Readers-writer locks: read and write locks, tried or blocking.
//!
//! std leaves the policy to the platform: a read asked for while a writer
//! waits may go ahead (reader-preferring) or wait behind the writer (as
//! on Linux). Both are explored, as a scheduling choice: such a reader
//! blocks, and can run while no writer holds the lock; chosen, it takes
//! the read lock ahead of the waiting writer, and left waiting, it waits
//! behind it. When only such readers could run, the run is a deadlock
//! under a writer-preferring lock, and fails as one. `try_read` succeeds
//! whenever no writer holds the lock.

use rankcheck_engine::EventKind;

use super::mutex::release;
use super::step::{enter, pending_on, sync_done, until};
use super::waiters::refresh_waiters;
use super::Site;
use crate::executor::threads::{Status, Wait};
use crate::executor::{self, with, Execution};
use crate::failure::FailureKind;
use crate::object::{Handle, ObjectId, SyncState};
use crate::trace::Operation;

/// Take a read (`write == false`) or write lock of a `RwLock`.
pub fn rw_lock(handle: &Handle, write: bool, site: Site) {
    let operation = Operation::RwLock(handle.object, write);
    let wait = if write {
        Wait::WriteLock(handle.object)
    } else {
        Wait::ReadLock(handle.object)
    };
    // A reader that blocked behind a waiting writer and is then chosen
    // takes the lock ahead of it (module doc).
    let mut first = true;
    until(handle, write, wait, operation, site, |ex| {
        let ahead_of_writer = !std::mem::replace(&mut first, false);
        if ahead_of_writer && !write && writer_waits(ex, handle.object) && only_readers_can_run(ex)
        {
            deadlock_behind_writer(ex, handle, site);
            return None;
        }
        if !take_rw(ex, handle, write, ahead_of_writer) {
            return None;
        }
        sync_done(ex, EventKind::Lock, handle);
        Some(())
    });
}

/// Whether a thread waits to write the `RwLock` `object`.
fn writer_waits(ex: &Execution, object: ObjectId) -> bool {
    let mut k = 0;
    while let Some((_, wait)) = ex.threads.waiter(object, k) {
        if wait == Wait::WriteLock(object) {
            return true;
        }
        k += 1;
    }
    false
}

/// Whether every thread that can run (the running one included) is a
/// reader blocked behind a writer that waits: under a writer-preferring
/// lock, none of them could.
fn only_readers_can_run(ex: &Execution) -> bool {
    let running = ex.current;
    ex.threads.enabled.iter().all(|&thread| {
        if thread == running {
            return true;
        }
        match ex.threads.get(thread).status {
            Status::Blocked {
                wait: Wait::ReadLock(object),
                ..
            } => writer_waits(ex, object),
            _ => false,
        }
    })
}

#[cold]
fn deadlock_behind_writer(ex: &mut Execution, handle: &Handle, site: Site) {
    let name = ex.registry.name_of(handle.var).to_owned();
    let thread = ex.threads.name(ex.current);
    ex.fail(
        FailureKind::Deadlock,
        format!(
            "deadlock where a RwLock prefers writers: {thread} asks to read {name} while a \
             writer waits for the readers that hold it, and no other thread can run (std's \
             RwLock may make a reader wait behind a waiting writer, as Linux's does)"
        ),
        Some(site.into()),
    );
}

/// Give the running thread `handle`'s `RwLock` (`write`: to write) if it is
/// free for it now: whether it did. A read waits behind a waiting writer
/// unless `ahead_of_writer` (module doc).
fn take_rw(ex: &mut Execution, handle: &Handle, write: bool, ahead_of_writer: bool) -> bool {
    let behind_writer = !write && !ahead_of_writer && writer_waits(ex, handle.object);
    let running = ex.current;
    let SyncState::RwLock { writer, readers } = &mut ex.objects[handle.object.index()].sync else {
        unreachable!("invariant: a RwLock's object is a RwLock")
    };
    let free = writer.is_none() && (!write || *readers == 0) && !behind_writer;
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
        let taken = take_rw(ex, handle, write, true);
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
