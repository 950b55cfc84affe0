//! A drop-in `std::sync::RwLock`: readers share it, a writer has it alone.
//! A waiting writer does not keep new readers out. The data sits in a std
//! `RwLock` taken exactly while the executor's lock is held, so std's own
//! poison flag is the lock's: a writer that panics (and the panic is
//! caught) poisons it.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use crate::lazy::{Changed, LazyHandle};
use crate::object::{Handle, SyncState};
use crate::op;

/// As `std::sync::RwLock`, poisoned as std's.
pub struct RwLock<T: ?Sized> {
    handle: LazyHandle,
    /// Whether a write guard ever reached the data mutably (as `Mutex`'s).
    changed: Changed,
    data: std::sync::RwLock<T>,
}

/// As `std::sync::RwLockReadGuard`.
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    inner: Option<std::sync::RwLockReadGuard<'a, T>>,
    site: op::Site,
}

/// As `std::sync::RwLockWriteGuard`.
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    inner: Option<std::sync::RwLockWriteGuard<'a, T>>,
    site: op::Site,
}

impl<T> RwLock<T> {
    /// A new lock: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new(value: T) -> RwLock<T> {
        RwLock {
            changed: Changed::new(),
            handle: LazyHandle::new(
                "RwLock",
                Location::caller(),
                SyncState::RwLock {
                    writer: None,
                    readers: 0,
                },
            ),
            data: std::sync::RwLock::new(value),
        }
    }

    /// The data, consuming the lock; `Err` with it when poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        self.data.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Take a read lock, blocking while a writer holds it; `Err` with the
    /// guard when poisoned.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let site = Location::caller();
        op::rw_lock(&self.handle(), false, site);
        self.read_guard(site)
    }

    /// Take the write lock, blocking while anyone holds it; `Err` with the
    /// guard when poisoned.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let site = Location::caller();
        op::rw_lock(&self.handle(), true, site);
        self.write_guard(site)
    }

    /// A read lock if no writer holds it at this operation's scheduling
    /// point; never blocks.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let site = Location::caller();
        if !op::try_rw_lock(&self.handle(), false, site) {
            return Err(TryLockError::WouldBlock);
        }
        Ok(self.read_guard(site)?)
    }

    /// The write lock if nobody holds it at this operation's scheduling
    /// point; never blocks.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let site = Location::caller();
        if !op::try_rw_lock(&self.handle(), true, site) {
            return Err(TryLockError::WouldBlock);
        }
        Ok(self.write_guard(site)?)
    }

    /// The guard of a read lock the executor gave: the data's own lock is
    /// free then, and its poison flag is the lock's.
    fn read_guard(&self, site: op::Site) -> LockResult<RwLockReadGuard<'_, T>> {
        let guard = |inner| RwLockReadGuard {
            lock: self,
            inner: Some(inner),
            site,
        };
        self.data
            .read()
            .map(guard)
            .map_err(|poisoned| PoisonError::new(guard(poisoned.into_inner())))
    }

    fn write_guard(&self, site: op::Site) -> LockResult<RwLockWriteGuard<'_, T>> {
        let guard = |inner| RwLockWriteGuard {
            lock: self,
            inner: Some(inner),
            site,
        };
        self.data
            .write()
            .map(guard)
            .map_err(|poisoned| PoisonError::new(guard(poisoned.into_inner())))
    }

    /// Whether a thread panicked while holding the write lock, as std's.
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
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner
            .as_deref()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the data"))
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner
            .as_deref()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the data"))
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        let data = self
            .inner
            .as_deref_mut()
            .unwrap_or_else(|| unreachable!("invariant: a live guard holds the data"));
        self.lock.changed.mark(data);
        data
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Its object in the running execution; refused when carried over
    /// from an earlier run with changed data (as `Mutex`'s).
    fn handle(&self) -> Handle {
        self.handle
            .resolve_lock(&self.changed, || self.data.clear_poison())
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        match self.lock.handle.registered() {
            Some(handle) => op::rw_unlock(&handle, false, self.site, || self.inner = None),
            None => self.inner = None,
        }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        // Dropping the data's guard while panicking poisons the lock, as
        // std's does.
        match self.lock.handle.registered() {
            Some(handle) => op::rw_unlock(&handle, true, self.site, || self.inner = None),
            None => self.inner = None,
        }
    }
}

impl<T: ?Sized> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RwLock").finish_non_exhaustive()
    }
}

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    /// A new unlocked lock holding `value`, as std's (and loom's).
    #[track_caller]
    fn from(value: T) -> RwLock<T> {
        RwLock::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
