//! Async synchronisation, as `tokio::sync`: each instance a variable
//! (known by its type and creation site, as the thread types'), each
//! operation a scheduling point on it, every wait a task's `Pending`.

pub mod mpsc;
mod mutex;
mod notify;
pub mod oneshot;
mod permits;
mod rwlock;
mod semaphore;
pub mod watch;

pub use mutex::{Mutex, MutexGuard, OwnedMutexGuard, TryLockError};
pub use notify::{Notified, Notify};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use semaphore::{
    AcquireError, OwnedSemaphorePermit, Semaphore, SemaphorePermit, TryAcquireError,
};
