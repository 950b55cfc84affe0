//! Plain memory (atomics, cells): an access is a step of its own only
//! when its variable is tracked.

use rankcheck_engine::EventKind;

use super::step::{enter_counting, pending_on};
use super::Site;
use crate::executor::end_step;
use crate::executor::point::event;
use crate::footprint::Place;
use crate::object::{Handle, SyncState};
use crate::trace::Operation;

/// The running step touches `handle`'s memory again, with no operation
/// of its own (a `fetch_update` writes after its closure, which may have
/// done operations): for [`crate::explore`]'s footprints.
pub fn touched(handle: &Handle, write: bool) {
    crate::executor::try_with(|ex| {
        if ex.is_live_for(handle) {
            ex.touch(Place::Memory(handle.var.0), write);
        }
    });
}

/// An access to plain memory (an atomic, a `OnceLock`'s value): a point
/// after it only when its variable is tracked.
pub fn access(handle: &Handle, write: bool, site: Site) {
    access_as::<false>(handle, write, site);
}

/// An access to a `cell::UnsafeCell`'s data, as [`access`]; a point and
/// an operation of the step limit only where the run makes cell accesses
/// points (`StepLimit::cell_points`).
pub fn cell_access(handle: &Handle, write: bool, site: Site) {
    access_as::<true>(handle, write, site);
}

#[inline(always)]
fn access_as<const CELL: bool>(handle: &Handle, write: bool, site: Site) {
    let pending = || pending_on(handle, write, false);
    enter_counting::<CELL, ()>(pending, Operation::access(handle, write), site, |ex| {
        ex.check(handle);
        if !matches!(ex.objects[handle.object.index()].sync, SyncState::Memory) {
            // A synchronisation object read as memory (a `Once` found
            // complete, a `OnceLock` read): it acquires what its
            // initialiser released (crate::memory).
            ex.memory.acquire_from(ex.current, handle.object.index());
        }
        if ex.is_tracked(handle.object) && (!CELL || ex.cell_points()) {
            let kind = if write {
                EventKind::Write
            } else {
                EventKind::Read
            };
            end_step(ex, event(kind, Some(handle.var), true));
        }
    });
}
