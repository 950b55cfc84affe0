//! Drop-in replacements for `std::sync`. `Arc` and `Weak` are std's own:
//! reference counts are no variable (see the user guide,
//! `docs/guide/src/rust/intercepted.md`).

pub mod atomic;
mod barrier;
mod condvar;
mod data_lock;
mod lazy_lock;
mod lazy_static;
pub mod mpsc;
mod mutex;
mod once;
mod once_lock;
mod rwlock;

pub use std::sync::{Arc, LockResult, PoisonError, TryLockError, TryLockResult, Weak};

pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};
pub(crate) use data_lock::abandon;
pub use lazy_lock::LazyLock;
pub use lazy_static::LazyStatic;
pub use mutex::{Mutex, MutexGuard};
pub use once::{Once, OnceState};
pub use once_lock::OnceLock;
pub(crate) use once_lock::{drop_run_values, leak_run_values};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
