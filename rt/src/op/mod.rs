//! The operations of the replacement types, as the executor sees them:
//! each enters a scheduling point when one is due, does its bookkeeping
//! (who holds what, who can run), blocks when it must, and says whether it
//! ended the step (docs/LANGUAGE.md: a tracked access or any
//! synchronisation operation; a blocking one is a point at once).
//!
//! One module per kind of object; `step` is what every operation does
//! around its own effect, `waiters` which blocked threads can go on.

mod barrier;
mod channel;
mod condvar;
mod memory;
mod mutex;
mod rwlock;
mod step;
mod task;
mod thread;
mod waiters;

use std::panic::Location;

use crate::executor::with;
use crate::object::{Handle, ObjectKind, SyncState};

pub use barrier::barrier;
pub use channel::{channel_end, handoff, recv, send, try_send, Receive, Received, Sent};
pub use condvar::{notify, wait};
pub use memory::{access, cell_access, touched};
pub use mutex::{lock, try_lock, unlock};
pub use rwlock::{rw_lock, rw_unlock, try_rw_lock};
pub use task::{async_step, await_wake, wake, wake_here};
pub use thread::{finish, give_way, join, park, spawn, spawn_as, unpark, yield_now};

/// Where in the caller's code an operation is.
pub type Site = &'static Location<'static>;

/// Make an object of kind `kind` for the running thread.
pub fn create(kind: ObjectKind, site: Site, sync: SyncState) -> Handle {
    with(|ex| ex.create(kind, site, sync))
}
