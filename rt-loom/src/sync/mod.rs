//! loom's `sync`: rankcheck-rt's locks, condition variable, barrier,
//! channels and atomics, and a [`Notify`]. `Arc` is std's, as in
//! rankcheck-rt: a reference count is no variable (so loom's leak check
//! and `Arc::from_std` are not here).

pub mod atomic;
mod notify;

pub use notify::Notify;
pub use rankcheck_rt::sync::{
    Arc, Barrier, BarrierWaitResult, Condvar, LockResult, Mutex, MutexGuard, RwLock,
    RwLockReadGuard, RwLockWriteGuard, TryLockResult, WaitTimeoutResult, Weak,
};

/// loom's `sync::mpsc`: rankcheck-rt's channels (`sync_channel` too).
pub mod mpsc {
    pub use rankcheck_rt::sync::mpsc::*;
}
