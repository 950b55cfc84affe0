//! A drop-in `std::sync::Mutex`: the lock is the executor's (who holds it,
//! who waits), and the executor hands it to one thread at a time, so the
//! data sits in a cell that the guard of that thread reaches (claimed for
//! its run by a [`DataLock`], which a failed run's leaked guards do not
//! keep: a real lock would stay held by them). A holder that panics (and
//! the panic is caught) poisons it, as std's. Reaching the data through
//! the cell is this module's unsafe code.
//!
//! `new` is a `const fn`, so a mutex can be `static`: its lock state and
//! poison are fresh in every run (crate::lazy). Its data cannot be rebuilt
//! (the value given to `new` is gone): a static mutex whose data a run
//! changed is refused in the next run, with a message pointing at
//! `LazyLock`, whose value is built anew in every run.

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

/// As `std::sync::Mutex`, poisoned as std's.
pub struct Mutex<T: ?Sized> {
    handle: LazyHandle,
    /// Whether a guard ever reached the data mutably: a mutex carried
    /// over to the next run with changed data would leak it there.
    changed: Changed,
    poison: Poison,
    claim: DataLock,
    data: UnsafeCell<T>,
}

// SAFETY: as std's `Mutex`: the data is reached by one guard at a time
// (the executor's lock within a run, the `DataLock` across runs), so
// sharing the mutex only moves `T` between threads.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}
// As std's: poisoning is how a caught panic shows through the lock.
impl<T: ?Sized> std::panic::UnwindSafe for Mutex<T> {}
impl<T: ?Sized> std::panic::RefUnwindSafe for Mutex<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

/// As `std::sync::MutexGuard`: unlocks when dropped.
pub struct MutexGuard<'a, T: ?Sized> {
    mutex: &'a Mutex<T>,
    /// Whether it still reaches the data (a condition variable's wait lets
    /// go of it first).
    holds: bool,
    /// Whether its thread was panicking when it locked: a guard dropped
    /// in a panic that began while it was held poisons the mutex.
    panicking: bool,
    /// Where it was locked: a drop has no caller location of its own, so
    /// the unlock is reported there.
    site: op::Site,
    /// Neither `Send` nor `Sync` but as std's guard.
    marker: PhantomData<std::sync::MutexGuard<'a, T>>,
}

impl<T> Mutex<T> {
    /// A new mutex: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new(value: T) -> Mutex<T> {
        Mutex {
            handle: LazyHandle::new(
                ObjectKind::Mutex,
                Location::caller(),
                SyncState::Mutex { owner: None },
            ),
            changed: Changed::new(),
            poison: Poison::new(),
            claim: DataLock::new(),
            data: UnsafeCell::new(value),
        }
    }

    /// The data, consuming the mutex; `Err` with it when poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        let Mutex { poison, data, .. } = self;
        poison.result(data.into_inner())
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

    /// The guard of a lock the executor gave the running thread; `Err`
    /// with it when poisoned.
    pub(crate) fn guard(&self, site: op::Site) -> LockResult<MutexGuard<'_, T>> {
        self.claim.enter(ObjectKind::Mutex);
        let guard = MutexGuard {
            mutex: self,
            holds: true,
            panicking: std::thread::panicking(),
            site,
            marker: PhantomData,
        };
        self.poison.result(guard)
    }

    /// Whether a thread panicked while holding it, as std's.
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

    /// Its object in the running execution (a mutex carried over from an
    /// earlier run unpoisoned); refused when carried over with changed
    /// data.
    pub(crate) fn handle(&self) -> Handle {
        self.handle
            .resolve_lock(&self.changed, || self.clear_poison())
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// Release the data without the executor's unlock (a condition
    /// variable's wait does that itself); the mutex it came from.
    pub(crate) fn release(mut self) -> &'a Mutex<T> {
        self.let_go();
        let mutex = self.mutex;
        std::mem::forget(self);
        mutex
    }
}

impl<T: ?Sized> MutexGuard<'_, T> {
    /// Let go of the data (once), after the unlock's scheduling point and
    /// before the next holder can run: dropped in a panic that began while
    /// it was held, it poisons the mutex, as std's.
    fn let_go(&mut self) {
        if std::mem::take(&mut self.holds) {
            self.mutex.poison.let_go(self.panicking);
            self.mutex.claim.leave();
        }
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        debug_assert!(self.holds, "invariant: a live guard holds the data");
        // SAFETY: this guard holds the lock: the executor gives it to one
        // thread of the run at a time, and the run's claim keeps every
        // other run out (`DataLock`); the borrow ends with the guard's.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        debug_assert!(self.holds, "invariant: a live guard holds the data");
        // SAFETY: as `deref`, and `&mut self` makes the borrow exclusive
        // among this guard's.
        let data = unsafe { &mut *self.mutex.data.get() };
        self.mutex.changed.mark(data);
        data
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        match self.mutex.handle.registered() {
            Some(handle) => op::unlock(&handle, self.site, || self.let_go()),
            None => self.let_go(),
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
