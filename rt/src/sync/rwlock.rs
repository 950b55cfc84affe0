//! A drop-in `std::sync::RwLock`: readers share it, a writer has it alone.
//! A read asked for while a writer waits goes ahead or waits behind it,
//! both explored (crate::op's `rwlock`, the platform's policy being std's
//! to leave open). The data sits in a
//! cell that the guards reach while the executor's lock is held (claimed
//! for their run by a [`DataLock`], as a `Mutex`'s): a writer that panics
//! (and the panic is caught) poisons it. Reaching the data through the
//! cell is this module's unsafe code.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, TryLockError, TryLockResult};

use super::data_lock::{DataLock, Poison};
use crate::lazy::{Changed, LazyHandle};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op;

/// As `std::sync::RwLock`, poisoned as std's.
pub struct RwLock<T: ?Sized> {
    handle: LazyHandle,
    /// Whether a write guard ever reached the data mutably (as `Mutex`'s).
    changed: Changed,
    poison: Poison,
    claim: DataLock,
    data: UnsafeCell<T>,
}

// SAFETY: as std's `RwLock`: the data is reached by one writer or by
// readers at a time (the executor's lock within a run, the `DataLock`
// across runs), so sharing the lock shares `&T` and moves `T`.
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
// As std's: poisoning is how a caught panic shows through the lock.
impl<T: ?Sized> std::panic::UnwindSafe for RwLock<T> {}
impl<T: ?Sized> std::panic::RefUnwindSafe for RwLock<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

/// As `std::sync::RwLockReadGuard`.
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    holds: bool,
    site: op::Site,
    marker: PhantomData<std::sync::RwLockReadGuard<'a, T>>,
}

/// As `std::sync::RwLockWriteGuard`.
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    holds: bool,
    /// Whether its thread was panicking when it locked (as `MutexGuard`'s).
    panicking: bool,
    site: op::Site,
    marker: PhantomData<std::sync::RwLockWriteGuard<'a, T>>,
}

impl<T> RwLock<T> {
    /// A new lock: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new(value: T) -> RwLock<T> {
        RwLock {
            changed: Changed::new(),
            handle: LazyHandle::new(
                ObjectKind::RwLock,
                Location::caller(),
                SyncState::RwLock {
                    writer: None,
                    readers: 0,
                },
            ),
            poison: Poison::new(),
            claim: DataLock::new(),
            data: UnsafeCell::new(value),
        }
    }

    /// The data, consuming the lock; `Err` with it when poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        let RwLock { poison, data, .. } = self;
        poison.result(data.into_inner())
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

    /// The guard of a read lock the executor gave the running thread;
    /// `Err` with it when poisoned.
    fn read_guard(&self, site: op::Site) -> LockResult<RwLockReadGuard<'_, T>> {
        self.claim.enter(ObjectKind::RwLock);
        self.poison.result(RwLockReadGuard {
            lock: self,
            holds: true,
            site,
            marker: PhantomData,
        })
    }

    fn write_guard(&self, site: op::Site) -> LockResult<RwLockWriteGuard<'_, T>> {
        self.claim.enter(ObjectKind::RwLock);
        self.poison.result(RwLockWriteGuard {
            lock: self,
            holds: true,
            panicking: std::thread::panicking(),
            site,
            marker: PhantomData,
        })
    }

    /// Whether a thread panicked while holding the write lock, as std's.
    pub fn is_poisoned(&self) -> bool {
        self.poison.get()
    }

    /// Clear the poison, as std's.
    pub fn clear_poison(&self) {
        self.poison.clear();
    }

    /// The data, through exclusive access: no scheduling point; `Err` with
    /// it when poisoned.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.poison.result(self.data.get_mut())
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard holds a read lock: no writer of the run holds
        // the lock meanwhile (the executor's state), and the run's claim
        // keeps every other run out (`DataLock`).
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard holds the write lock alone (the executor's
        // state within the run, the `DataLock` across runs).
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as `deref`, and `&mut self` makes the borrow exclusive
        // among this guard's.
        let data = unsafe { &mut *self.lock.data.get() };
        self.lock.changed.mark(data);
        data
    }
}

impl<T: ?Sized> RwLockReadGuard<'_, T> {
    /// Let go of the data (once), after the unlock's scheduling point.
    fn let_go(&mut self) {
        if std::mem::take(&mut self.holds) {
            self.lock.claim.leave();
        }
    }
}

impl<T: ?Sized> RwLockWriteGuard<'_, T> {
    /// Let go of the data (once), after the unlock's scheduling point:
    /// dropped in a panic that began while it was held, it poisons the
    /// lock, as std's.
    fn let_go(&mut self) {
        if std::mem::take(&mut self.holds) {
            self.lock.poison.let_go(self.panicking);
            self.lock.claim.leave();
        }
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Its object in the running execution; refused when carried over
    /// from an earlier run with changed data (as `Mutex`'s).
    fn handle(&self) -> Handle {
        self.handle
            .resolve_lock(&self.changed, || self.clear_poison())
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        match self.lock.handle.registered() {
            Some(handle) => op::rw_unlock(&handle, false, self.site, || self.let_go()),
            None => self.let_go(),
        }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        // Dropping the data's guard while panicking poisons the lock, as
        // std's does.
        match self.lock.handle.registered() {
            Some(handle) => op::rw_unlock(&handle, true, self.site, || self.let_go()),
            None => self.let_go(),
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
