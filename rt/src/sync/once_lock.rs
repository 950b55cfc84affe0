//! A drop-in `std::sync::OnceLock`: a [`Once`] and the value it
//! initialised, per run.
//!
//! The value lives in its own allocation, so that a `static` `OnceLock`
//! can start every run empty without moving or dropping the value an
//! earlier run built: a reference to it may have been kept where the
//! scheduler cannot see (a std thread-local), and must stay valid. Such a
//! value is left allocated, as a static's value is never dropped under
//! std. Reaching the value through a raw pointer is this module's unsafe
//! code.
#![allow(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};

use super::once::Once;
use crate::op;

/// As `std::sync::OnceLock`.
pub struct OnceLock<T> {
    once: Once,
    /// The value of this run, or null. Set once per run, under the
    /// `Once`; never freed while the cell is shared.
    value: AtomicPtr<T>,
    /// Owns a `T`; `Send` and `Sync` as std's (below).
    marker: PhantomData<*const T>,
}

// SAFETY: as std's `OnceLock`: sharing it shares `&T` (so `T: Sync`) and
// lets any thread initialise it with a `T` it made (so `T: Send`).
unsafe impl<T: Sync + Send> Sync for OnceLock<T> {}
// SAFETY: moving it moves the `T` it owns.
unsafe impl<T: Send> Send for OnceLock<T> {}

impl<T> OnceLock<T> {
    /// An empty cell: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new() -> OnceLock<T> {
        OnceLock {
            once: Once::new(),
            value: AtomicPtr::new(std::ptr::null_mut()),
            marker: PhantomData,
        }
    }

    /// Its object, and the value of this run: `None` before its
    /// initialisation.
    fn current(&self) -> (crate::object::Handle, Option<&T>) {
        let (handle, carried_over) = self.once.begin();
        if carried_over {
            // An earlier run's value: left allocated (see the module doc).
            self.value.store(std::ptr::null_mut(), Relaxed);
        }
        let value = self.value.load(Relaxed);
        // SAFETY: a non-null pointer is a `Box` made by `initialise`, never
        // freed while `&self` lives (only `take`, `into_inner` and `drop`
        // free it, through exclusive access), and never written after.
        (handle, (!value.is_null()).then(|| unsafe { &*value }))
    }

    /// The value, if initialised in this run: a read.
    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        let (handle, _) = self.current();
        op::access(&handle, false, Location::caller());
        // Read after the point: another thread may have initialised it.
        self.current().1
    }

    /// The value, through exclusive access: no scheduling point.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        let value = *self.value.get_mut();
        // SAFETY: as in `current`, and `&mut self` makes it exclusive.
        (!value.is_null()).then(|| unsafe { &mut *value })
    }

    /// The value, initialised by `f` if no one did in this run, as std's:
    /// a thread that races an initialisation blocks until it is done.
    #[track_caller]
    pub fn get_or_init<F: FnOnce() -> T>(&self, f: F) -> &T {
        self.initialise(Location::caller(), f);
        self.current()
            .1
            .unwrap_or_else(|| unreachable!("invariant: initialised above"))
    }

    /// Initialise with `value` unless already initialised in this run, as
    /// std's: `Err(value)` then.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let mut value = Some(value);
        self.initialise(Location::caller(), || {
            value
                .take()
                .unwrap_or_else(|| unreachable!("invariant: the initialiser runs once"))
        });
        match value {
            None => Ok(()),
            Some(value) => Err(value),
        }
    }

    /// Block until initialised in this run, as std's.
    #[track_caller]
    pub fn wait(&self) -> &T {
        self.once.wait_force();
        self.current()
            .1
            .unwrap_or_else(|| unreachable!("invariant: the Once completed"))
    }

    fn initialise(&self, site: op::Site, f: impl FnOnce() -> T) {
        self.current();
        self.once.run(true, site, |_| {
            let value = Box::into_raw(Box::new(f()));
            self.value.store(value, Relaxed);
        });
    }

    /// Take the value out, leaving the cell empty.
    pub fn take(&mut self) -> Option<T> {
        let value = std::mem::replace(self.value.get_mut(), std::ptr::null_mut());
        self.once.reset();
        // SAFETY: a non-null pointer is a `Box` of `initialise`, owned by
        // the cell, now taken out of it.
        (!value.is_null()).then(|| *unsafe { Box::from_raw(value) })
    }

    /// The value, consuming the cell.
    pub fn into_inner(mut self) -> Option<T> {
        self.take()
    }
}

impl<T> Drop for OnceLock<T> {
    fn drop(&mut self) {
        drop(self.take());
    }
}

impl<T> Default for OnceLock<T> {
    #[track_caller]
    fn default() -> OnceLock<T> {
        OnceLock::new()
    }
}

impl<T> From<T> for OnceLock<T> {
    #[track_caller]
    fn from(value: T) -> OnceLock<T> {
        OnceLock {
            once: Once::done(),
            value: AtomicPtr::new(Box::into_raw(Box::new(value))),
            marker: PhantomData,
        }
    }
}

impl<T: Clone> Clone for OnceLock<T> {
    /// A cell holding a clone of this run's value, if any: a read.
    #[track_caller]
    fn clone(&self) -> OnceLock<T> {
        match self.get() {
            Some(value) => OnceLock::from(value.clone()),
            None => OnceLock::new(),
        }
    }
}

impl<T: PartialEq> PartialEq for OnceLock<T> {
    /// Whether both hold equal values, or both none: two reads.
    #[track_caller]
    fn eq(&self, other: &OnceLock<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceLock<T> {}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = self.value.load(Relaxed);
        // SAFETY: as in `current`.
        let value = (!value.is_null()).then(|| unsafe { &*value });
        let mut d = f.debug_tuple("OnceLock");
        match value {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}
