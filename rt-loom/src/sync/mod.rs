//! loom's `sync`: rankcheck-rt's locks, condition variable, barrier,
//! channels and atomics, a [`Notify`], and an [`Arc`] whose reference
//! count is a rankcheck-rt atomic, so that it orders accesses as loom's
//! (module `arc`). loom has no `Weak`, and neither has this facade.
//! loom 0.2's `CausalCell` is here too, for crates still on loom 0.2.

pub(crate) mod arc;
pub mod atomic;
mod causal_cell;
mod notify;

pub use arc::Arc;
pub use causal_cell::CausalCell;
pub use notify::Notify;
pub use rankcheck_rt::sync::{
    Barrier, BarrierWaitResult, Condvar, LockResult, Mutex, MutexGuard, RwLock, RwLockReadGuard,
    RwLockWriteGuard, TryLockResult, WaitTimeoutResult,
};

/// loom's `sync::mpsc`: rankcheck-rt's channels (`sync_channel` too).
pub mod mpsc {
    pub use rankcheck_rt::sync::mpsc::*;
}
