//! An async mutex, as `tokio::sync::Mutex`: fair (first come, first
//! served), its guard held across `.await`s. The value moves into the
//! guard while it is held (so the guard is `Send` without `unsafe`) and
//! back before the unlock.

use std::fmt;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex};

use super::permits::{Acquire, Acquired, Permits};
use crate::future::lock;
use crate::object::{ObjectKind, SyncState};
use crate::op::Site;
use crate::trace::Operation;

/// As `tokio::sync::Mutex`: a variable, its `lock` a scheduling point.
pub struct Mutex<T> {
    permits: Permits,
    /// The value while nobody holds the lock.
    value: StdMutex<Option<T>>,
}

/// As `tokio::sync::MutexGuard`: holds the lock until dropped.
pub struct MutexGuard<'a, T>(Held<&'a Mutex<T>, T>);

/// As `tokio::sync::OwnedMutexGuard`: holds the lock (and an `Arc` of the
/// mutex) until dropped.
pub struct OwnedMutexGuard<T>(Held<Arc<Mutex<T>>, T>);

/// A held lock of the mutex `M` reaches, with its value.
struct Held<M: Deref<Target = Mutex<T>>, T> {
    mutex: M,
    value: Option<T>,
    /// Where it was locked: the unlock is reported there.
    site: Site,
}

/// As `tokio::sync::TryLockError`: the lock is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryLockError(());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation would block")
    }
}

impl std::error::Error for TryLockError {}

impl TryLockError {
    pub(crate) fn would_block() -> TryLockError {
        TryLockError(())
    }
}

impl<T> Mutex<T> {
    /// A new mutex: a new variable, known by this call's site.
    #[track_caller]
    pub fn new(value: T) -> Mutex<T> {
        let sync = SyncState::Mutex { owner: None };
        let handle = crate::future::create(ObjectKind::AsyncMutex, Location::caller(), sync);
        Mutex {
            permits: Permits::new(handle, 1, true),
            value: StdMutex::new(Some(value)),
        }
    }

    /// Lock it, waiting (as a task waits: its future `Pending`) while
    /// another holds it; waiters get it in the order they came.
    #[track_caller]
    pub fn lock(&self) -> impl Future<Output = MutexGuard<'_, T>> + '_ {
        let site = Location::caller();
        let acquire = self.acquire(site);
        async move {
            acquire.await;
            MutexGuard(Held::new(self, site))
        }
    }

    /// Lock it through an `Arc`, as `lock`: the guard owns the `Arc`.
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> impl Future<Output = OwnedMutexGuard<T>> {
        let site = Location::caller();
        async move {
            self.acquire(site).await;
            OwnedMutexGuard(Held::new(self, site))
        }
    }

    /// Wait in line for the lock.
    fn acquire(&self, site: Site) -> Acquire<'_> {
        let operation = Operation::Lock(self.permits.handle().object);
        self.permits.acquire(1, operation, "to lock", site)
    }

    /// Lock it if it is free and nobody waits, at this operation's
    /// scheduling point; never waits.
    #[track_caller]
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        let site = Location::caller();
        let operation = Operation::Lock(self.permits.handle().object);
        match self.permits.try_acquire(1, operation, site) {
            Acquired::Yes => Ok(MutexGuard(Held::new(self, site))),
            Acquired::No | Acquired::Closed => Err(TryLockError::would_block()),
        }
    }

    /// The value, through exclusive access: no scheduling point.
    pub fn get_mut(&mut self) -> &mut T {
        self.value
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_mut()
            .unwrap_or_else(|| unreachable!("invariant: an unlocked mutex holds its value"))
    }

    /// The value, consuming the mutex.
    pub fn into_inner(self) -> T {
        self.value
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .unwrap_or_else(|| unreachable!("invariant: an unlocked mutex holds its value"))
    }
}

impl<M: Deref<Target = Mutex<T>>, T> Held<M, T> {
    /// The lock was just taken: the value moves into the guard.
    fn new(mutex: M, site: Site) -> Held<M, T> {
        let value = lock(&mutex.value).take();
        assert!(
            value.is_some(),
            "invariant: the lock's holder takes the value"
        );
        Held { mutex, value, site }
    }

    fn value(&self) -> &T {
        self.value
            .as_ref()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the value"))
    }

    fn value_mut(&mut self) -> &mut T {
        self.value
            .as_mut()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the value"))
    }
}

impl<M: Deref<Target = Mutex<T>>, T> Drop for Held<M, T> {
    fn drop(&mut self) {
        // The value goes back before the unlock's scheduling point.
        *lock(&self.mutex.value) = self.value.take();
        let permits = &self.mutex.permits;
        permits.release(1, Operation::Unlock(permits.handle().object), self.site);
    }
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0.value()
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.value_mut()
    }
}

impl<T> Deref for OwnedMutexGuard<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0.value()
    }
}

impl<T> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.value_mut()
    }
}

impl<T: fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: fmt::Debug> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mutex").finish_non_exhaustive()
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}
