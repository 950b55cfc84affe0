//! Barriers: every party waits for the last.

use rankcheck_engine::EventKind;

use super::step::{block, enter, pending_on, sync_done};
use super::Site;
use crate::executor::threads::Wait;
use crate::executor::with;
use crate::object::{Handle, SyncState};
use crate::trace::Operation;

/// Wait at a barrier: whether the running thread was the last to arrive
/// (std's leader).
pub fn barrier(handle: &Handle, site: Site) -> bool {
    if !enter(
        || pending_on(handle, true, true),
        Operation::Barrier(handle.object),
        site,
    ) {
        return false;
    }
    let leader = with(|ex| {
        ex.check(handle);
        let running = ex.current;
        let SyncState::Barrier { parties, arrived } = &mut ex.objects[handle.object.index()].sync
        else {
            unreachable!("invariant: a barrier's object is a barrier")
        };
        if arrived.len() + 1 < *parties {
            arrived.push(running);
            return false;
        }
        // The released threads stay blocked until chosen: `sleep` wakes
        // them then.
        let released = std::mem::take(arrived);
        for thread in released {
            ex.threads.enable(thread);
        }
        sync_done(ex, EventKind::Broadcast, handle);
        true
    });
    if !leader {
        block(
            Wait::Barrier(handle.object),
            Operation::Barrier(handle.object),
            site,
            Some(handle.var),
        );
        with(|ex| sync_done(ex, EventKind::Woken, handle));
    }
    leader
}
