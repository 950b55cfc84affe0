//! A drop-in `std::sync::RwLock`: readers share it, a writer has it alone.
//! A waiting writer does not keep new readers out.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use crate::lazy::{Changed, LazyHandle};
use crate::object::{Handle, SyncState};
use crate::op;

/// As `std::sync::RwLock`. Never poisoned: a panic fails the run.
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

    /// The data, consuming the lock.
    pub fn into_inner(self) -> LockResult<T> {
        Ok(self
            .data
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner))
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Take a read lock, blocking while a writer holds it.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let site = Location::caller();
        op::rw_lock(&self.handle(), false, site);
        Ok(self.read_guard(site))
    }

    /// Take the write lock, blocking while anyone holds it.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let site = Location::caller();
        op::rw_lock(&self.handle(), true, site);
        Ok(self.write_guard(site))
    }

    /// A read lock if one can be had now (the data's own lock is held
    /// exactly while the lock is, so it tells).
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        if self.data.try_read().is_err() {
            return Err(TryLockError::WouldBlock);
        }
        self.read().map_err(|_| TryLockError::WouldBlock)
    }

    /// The write lock if it is free now.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        if self.data.try_write().is_err() {
            return Err(TryLockError::WouldBlock);
        }
        self.write().map_err(|_| TryLockError::WouldBlock)
    }

    fn read_guard(&self, site: op::Site) -> RwLockReadGuard<'_, T> {
        RwLockReadGuard {
            lock: self,
            inner: Some(self.data.read().unwrap_or_else(PoisonError::into_inner)),
            site,
        }
    }

    fn write_guard(&self, site: op::Site) -> RwLockWriteGuard<'_, T> {
        RwLockWriteGuard {
            lock: self,
            inner: Some(self.data.write().unwrap_or_else(PoisonError::into_inner)),
            site,
        }
    }

    /// Always `false`.
    pub fn is_poisoned(&self) -> bool {
        false
    }

    /// The data, through exclusive access.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        Ok(self.data.get_mut().unwrap_or_else(PoisonError::into_inner))
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
        self.handle.resolve_lock(&self.changed)
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.inner = None;
        if let Some(handle) = self.lock.handle.registered() {
            op::rw_unlock(&handle, false, self.site);
        }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.inner = None;
        if let Some(handle) = self.lock.handle.registered() {
            op::rw_unlock(&handle, true, self.site);
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
