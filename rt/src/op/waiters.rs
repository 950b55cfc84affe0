//! Which blocked threads can go on: looked at again whenever an object
//! they wait on changes.

use rankcheck_engine::ThreadId;

use crate::executor::threads::{Status, Wait};
use crate::executor::Execution;
use crate::object::{ObjectId, SyncState};

/// After `object` changed: every thread blocked on it can run exactly when
/// its operation could complete now.
#[inline]
pub(super) fn refresh_waiters(ex: &mut Execution, object: ObjectId) {
    if ex.threads.waiting_on(object) {
        refresh_blocked(ex, object);
    }
}

/// [`refresh_waiters`] when some thread waits on `object`: its waiters,
/// in the order of their ids.
#[inline(always)]
fn refresh_blocked(ex: &mut Execution, object: ObjectId) {
    let mut k = 0;
    while let Some((thread, wait)) = ex.threads.waiter(object, k) {
        k += 1;
        let can = can_go_on(ex, thread, wait);
        ex.threads.set_enabled(thread, can);
    }
}

/// Whether `thread`, blocked on `wait`, can go on now: what it waits for
/// came. Threads waiting to join or
/// at a barrier are woken by the thread's end and the last arrival.
#[inline(always)]
pub(super) fn can_go_on(ex: &Execution, thread: ThreadId, wait: Wait) -> bool {
    let sync = |o: ObjectId| &ex.objects[o.index()].sync;
    match wait {
        Wait::Lock(o) => sync(o).mutex_free(),
        Wait::ReadLock(o) => matches!(sync(o), SyncState::RwLock { writer: None, .. }),
        Wait::WriteLock(o) => matches!(
            sync(o),
            SyncState::RwLock {
                writer: None,
                readers: 0
            }
        ),
        Wait::Recv { channel, .. } => {
            matches!(
                sync(channel),
                SyncState::Channel { queued, senders, .. } if *queued > 0 || *senders == 0
            )
        }
        Wait::Send(o) => matches!(
            sync(o),
            SyncState::Channel { queued, capacity, receiver, .. }
                if !*receiver || capacity.is_none_or(|c| *queued < c.max(1))
        ),
        Wait::Handoff { channel, ticket } => matches!(
            sync(channel),
            SyncState::Channel { taken, receiver, .. } if !*receiver || *taken >= ticket
        ),
        Wait::Condvar {
            condvar,
            mutex,
            since,
            ..
        } => sync(mutex).mutex_free() && sync(condvar).notified_since(since),
        Wait::Park { .. } => ex.threads.get(thread).unparked,
        Wait::Join(t) => ex.threads.get(t).status == Status::Finished,
        Wait::Barrier(_) => false,
        Wait::Woken => ex.tasks.woken(thread),
    }
}
