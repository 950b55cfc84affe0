//! A drop-in `std::sync::Mutex`: the lock is the executor's (who holds it,
//! who waits), the data sits in a std mutex that is never contended, since
//! the executor hands the lock to one thread at a time. That std mutex's
//! poison flag is the lock's: a holder that panics (and the panic is
//! caught) poisons it, as std's.
//!
//! `new` is a `const fn`, so a mutex can be `static`: its lock state and
//! poison are fresh in every run (crate::lazy). Its data cannot be rebuilt
//! (the value given to `new` is gone): a static mutex whose data a run
//! changed is refused in the next run, with a message pointing at
//! `LazyLock`, whose value is built anew in every run.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use crate::lazy::{Changed, LazyHandle};
use crate::object::{Handle, SyncState};
use crate::op;

/// As `std::sync::Mutex`, poisoned as std's.
pub struct Mutex<T: ?Sized> {
    handle: LazyHandle,
    /// Whether a guard ever reached the data mutably: a mutex carried
    /// over to the next run with changed data would leak it there.
    changed: Changed,
    data: std::sync::Mutex<T>,
}

/// As `std::sync::MutexGuard`: unlocks when dropped.
pub struct MutexGuard<'a, T: ?Sized> {
    mutex: &'a Mutex<T>,
    inner: Option<std::sync::MutexGuard<'a, T>>,
    /// Where it was locked: a drop has no caller location of its own, so
    /// the unlock is reported there.
    site: op::Site,
}

impl<T> Mutex<T> {
    /// A new mutex: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new(value: T) -> Mutex<T> {
        Mutex {
            handle: LazyHandle::new(
                "Mutex",
                Location::caller(),
                SyncState::Mutex { owner: None },
            ),
            changed: Changed::new(),
            data: std::sync::Mutex::new(value),
        }
    }

    /// The data, consuming the mutex; `Err` with it when poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        self.data.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Lock it, blocking while another thread holds it: a synchronisation
    /// operation. Locking a mutex the thread holds blocks forever (a
    /// deadlock report says the thread waits for itself). `Err` with the
    /// guard when poisoned.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        op::lock(&self.handle(), Location::caller());
        self.guard(Location::caller())
    }

    /// Lock it if it is free at this operation's scheduling point; never
    /// blocks.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        if op::try_lock(&self.handle(), Location::caller()) {
            Ok(self.guard(Location::caller())?)
        } else {
            Err(TryLockError::WouldBlock)
        }
    }

    /// The guard of a lock the executor gave: the data's own mutex is free
    /// then, and its poison flag is the lock's.
    pub(crate) fn guard(&self, site: op::Site) -> LockResult<MutexGuard<'_, T>> {
        let guard = |inner| MutexGuard {
            mutex: self,
            inner: Some(inner),
            site,
        };
        self.data
            .lock()
            .map(guard)
            .map_err(|poisoned| PoisonError::new(guard(poisoned.into_inner())))
    }

    /// Whether a thread panicked while holding it, as std's.
    pub fn is_poisoned(&self) -> bool {
        self.data.is_poisoned()
    }

    /// Clear the poison, as std's.
    pub fn clear_poison(&self) {
        self.data.clear_poison();
    }

    /// The data, through exclusive access: no scheduling point; `Err` with
    /// it when poisoned.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.data.get_mut()
    }

    /// Its object in the running execution (a mutex carried over from an
    /// earlier run unpoisoned); refused when carried over with changed
    /// data.
    pub(crate) fn handle(&self) -> Handle {
        self.handle
            .resolve_lock(&self.changed, || self.data.clear_poison())
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// Release the data without the executor's unlock (a condition
    /// variable's wait does that itself); the mutex it came from.
    pub(crate) fn release(mut self) -> &'a Mutex<T> {
        self.inner = None;
        let mutex = self.mutex;
        std::mem::forget(self);
        mutex
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner
            .as_deref()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the data"))
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        let data = self
            .inner
            .as_deref_mut()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the data"));
        self.mutex.changed.mark(data);
        data
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        // The data goes after the unlock's scheduling point, before the
        // next holder can run; dropping it while panicking poisons the
        // mutex, as std's.
        match self.mutex.handle.registered() {
            Some(handle) => op::unlock(&handle, self.site, || self.inner = None),
            None => self.inner = None,
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized> fmt::Debug for Mutex<T> {
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

impl<T> From<T> for Mutex<T> {
    /// A new unlocked mutex holding `value`, as std's (and loom's).
    #[track_caller]
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}
