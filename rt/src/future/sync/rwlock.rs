//! An async readers-writer lock, as `tokio::sync::RwLock`: fair (a
//! waiting writer holds up the readers that come after it), a write lock
//! being every one of the semaphore's read permits, as tokio's. Readers
//! share the value through an `Arc`; a writer owns it while it holds the
//! lock (no reader is left then).

use std::fmt;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex};

use super::mutex::TryLockError;
use super::permits::{Acquire, Acquired, Permits};
use crate::future::lock;
use crate::object::{ObjectKind, SyncState};
use crate::op::Site;
use crate::trace::Operation;

/// How many readers at once: the permits a writer takes.
const MAX_READS: usize = 1 << 24;

/// As `tokio::sync::RwLock`: a variable, its `read` and `write`
/// scheduling points.
pub struct RwLock<T> {
    permits: Permits,
    /// The value while no writer holds it.
    value: StdMutex<Option<Arc<T>>>,
}

/// As `tokio::sync::RwLockReadGuard`.
pub struct RwLockReadGuard<'a, T> {
    lock: &'a RwLock<T>,
    value: Option<Arc<T>>,
    site: Site,
}

/// As `tokio::sync::RwLockWriteGuard`.
pub struct RwLockWriteGuard<'a, T> {
    lock: &'a RwLock<T>,
    value: Option<T>,
    site: Site,
}

impl<T> RwLock<T> {
    /// A new lock: a new variable, known by this call's site.
    #[track_caller]
    pub fn new(value: T) -> RwLock<T> {
        let handle = crate::future::create(
            ObjectKind::AsyncRwLock,
            Location::caller(),
            SyncState::Memory,
        );
        RwLock {
            permits: Permits::new(handle, MAX_READS, false),
            value: StdMutex::new(Some(Arc::new(value))),
        }
    }

    /// Lock it for reading, waiting while a writer holds it or waits.
    #[track_caller]
    pub fn read(&self) -> impl Future<Output = RwLockReadGuard<'_, T>> + '_ {
        let site = Location::caller();
        let acquire = self.acquire(1, site);
        async move {
            acquire.await;
            self.read_guard(site)
        }
    }

    /// Lock it for writing, waiting while anyone holds it or waits first.
    #[track_caller]
    pub fn write(&self) -> impl Future<Output = RwLockWriteGuard<'_, T>> + '_ {
        let site = Location::caller();
        let acquire = self.acquire(MAX_READS, site);
        async move {
            acquire.await;
            self.write_guard(site)
        }
    }

    /// Lock it for reading if no writer holds it or waits; never waits.
    #[track_caller]
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        let site = Location::caller();
        match self.try_acquire(1, site) {
            true => Ok(self.read_guard(site)),
            false => Err(TryLockError::would_block()),
        }
    }

    /// Lock it for writing if nobody holds it or waits; never waits.
    #[track_caller]
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        let site = Location::caller();
        match self.try_acquire(MAX_READS, site) {
            true => Ok(self.write_guard(site)),
            false => Err(TryLockError::would_block()),
        }
    }

    /// The value, through exclusive access: no scheduling point.
    pub fn get_mut(&mut self) -> &mut T {
        let value = self
            .value
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_mut()
            .unwrap_or_else(|| unreachable!("invariant: an unlocked RwLock holds its value"));
        Arc::get_mut(value).unwrap_or_else(|| unreachable!("invariant: no reader outlives &mut"))
    }

    /// The value, consuming the lock.
    pub fn into_inner(self) -> T {
        let value = self
            .value
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .unwrap_or_else(|| unreachable!("invariant: an unlocked RwLock holds its value"));
        Arc::into_inner(value)
            .unwrap_or_else(|| unreachable!("invariant: no reader outlives the lock"))
    }

    /// Wait in line for `wanted` permits (all of them: to write).
    fn acquire(&self, wanted: usize, site: Site) -> Acquire<'_> {
        let write = wanted > 1;
        let operation = Operation::RwLock(self.permits.handle().object, write);
        let what = if write {
            "to write-lock"
        } else {
            "to read-lock"
        };
        self.permits.acquire(wanted, operation, what, site)
    }

    fn try_acquire(&self, wanted: usize, site: Site) -> bool {
        let operation = Operation::RwLock(self.permits.handle().object, wanted > 1);
        self.permits.try_acquire(wanted, operation, site) == Acquired::Yes
    }

    fn read_guard(&self, site: Site) -> RwLockReadGuard<'_, T> {
        let value = lock(&self.value).clone();
        RwLockReadGuard {
            lock: self,
            value: Some(value.unwrap_or_else(|| unreachable!("invariant: readers find the value"))),
            site,
        }
    }

    fn write_guard(&self, site: Site) -> RwLockWriteGuard<'_, T> {
        let shared = lock(&self.value)
            .take()
            .unwrap_or_else(|| unreachable!("invariant: a writer finds the value"));
        let value = Arc::into_inner(shared)
            .unwrap_or_else(|| unreachable!("invariant: no reader holds the value under a writer"));
        RwLockWriteGuard {
            lock: self,
            value: Some(value),
            site,
        }
    }
}

impl<T> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
            .as_deref()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the value"))
    }
}

impl<T> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        // The share goes before the unlock: a writer served next owns it.
        self.value = None;
        let permits = &self.lock.permits;
        permits.release(1, Operation::Unlock(permits.handle().object), self.site);
    }
}

impl<T> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value
            .as_ref()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the value"))
    }
}

impl<T> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
            .as_mut()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the value"))
    }
}

impl<T> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        *lock(&self.lock.value) = self.value.take().map(Arc::new);
        let permits = &self.lock.permits;
        permits.release(
            MAX_READS,
            Operation::Unlock(permits.handle().object),
            self.site,
        );
    }
}

impl<T> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RwLock").finish_non_exhaustive()
    }
}
