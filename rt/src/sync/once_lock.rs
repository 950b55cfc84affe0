//! A drop-in `std::sync::OnceLock`: a [`Once`] and the value it
//! initialised, per run.
//!
//! A value built in a run belongs to the run: it lives in its own
//! allocation, which the run adopts and drops when it ends (newest first,
//! as awslabs/shuttle drops its lazy statics at each execution's end); a
//! `static` cell then starts the next run empty. A cell dropped or emptied
//! within the run drops its value then, as std's. A value given outside any
//! run (`From`) belongs to the cell. A reference to a run's value kept past
//! the run's end (in a std static or thread-local, which the scheduler does
//! not see) dangles: keep such values in rankcheck's types. Reaching the
//! value through a raw pointer is this module's unsafe code.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};

use super::once::Once;
use crate::op;

/// As `std::sync::OnceLock`.
pub struct OnceLock<T> {
    once: Once,
    /// The value, or null. Set once per run, under the `Once`.
    value: AtomicPtr<T>,
    /// The execution whose arena owns the value; 0: the cell owns it.
    owner: AtomicU64,
    /// Owns a `T`; `Send` and `Sync` as std's (below).
    marker: PhantomData<*const T>,
}

// SAFETY: as std's `OnceLock`: sharing it shares `&T` (so `T: Sync`) and
// lets any thread initialise it with a `T` it made (so `T: Send`).
unsafe impl<T: Sync + Send> Sync for OnceLock<T> {}
// SAFETY: moving it moves the `T` it owns.
unsafe impl<T: Send> Send for OnceLock<T> {}

/// A run's value, type-erased, with what drops it (`drop_box::<T>`).
type Adopted = (*mut (), unsafe fn(*mut ()));

/// The values the runs of this OS thread built.
#[derive(Default)]
struct Arena {
    execution: u64,
    values: Vec<Adopted>,
}

thread_local! {
    static ARENA: RefCell<Arena> = RefCell::new(Arena::default());
    /// The execution whose values are being dropped (0: none): a value's
    /// destructor that reaches a cell whose value is already gone finds
    /// it empty.
    static DROPPING: Cell<u64> = const { Cell::new(0) };
}

/// Drop the `Box<T>` behind `value`.
///
/// # Safety
/// `value` is a `Box<T>` made into a raw pointer and owned by the caller.
pub(super) unsafe fn drop_box<T>(value: *mut ()) {
    // SAFETY: as the function's contract says.
    drop(unsafe { Box::from_raw(value.cast::<T>()) });
}

/// The run `execution` adopts `value`, to drop it with `dropper`.
pub(super) fn adopt(execution: u64, value: *mut (), dropper: unsafe fn(*mut ())) {
    ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        if arena.execution != execution {
            *arena = Arena {
                execution,
                values: Vec::new(),
            };
        }
        arena.values.push((value, dropper));
    });
}

/// Take `value` back from the arena of `execution`: whether it was still
/// there (the caller then owns it).
fn release(execution: u64, value: *mut ()) -> bool {
    ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        if arena.execution != execution {
            return false;
        }
        let found = arena.values.iter().rposition(|(v, _)| *v == value);
        found.map(|at| arena.values.remove(at)).is_some()
    })
}

/// Whether the arena of `execution` still holds `value`.
fn alive(execution: u64, value: *mut ()) -> bool {
    ARENA.with(|arena| {
        let arena = arena.borrow();
        arena.execution == execution && arena.values.iter().any(|(v, _)| *v == value)
    })
}

/// Whether the values of run `execution` are being dropped (its end).
pub(super) fn dropping(execution: u64) -> bool {
    DROPPING.with(Cell::get) == execution
}

/// Forget the values run `execution` built, dropping none: the end of a
/// failed run, whose state they may see half-updated.
pub(crate) fn leak_run_values(execution: u64) {
    ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        if arena.execution == execution {
            arena.values.clear();
        }
    });
}

/// Drop the values run `execution` built, newest first: its end.
pub(crate) fn drop_run_values(execution: u64) {
    DROPPING.with(|dropping| dropping.set(execution));
    loop {
        let next = ARENA.with(|arena| {
            let mut arena = arena.borrow_mut();
            (arena.execution == execution)
                .then(|| arena.values.pop())
                .flatten()
        });
        match next {
            // SAFETY: the arena owned it, and no longer holds it.
            Some((value, dropper)) => unsafe { dropper(value) },
            None => break,
        }
    }
    DROPPING.with(|dropping| dropping.set(0));
}

impl<T> OnceLock<T> {
    /// An empty cell: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new() -> OnceLock<T> {
        OnceLock {
            once: Once::new(),
            value: AtomicPtr::new(std::ptr::null_mut()),
            owner: AtomicU64::new(0),
            marker: PhantomData,
        }
    }

    /// An empty cell known by `site` (a lazy static's declaration).
    pub(crate) const fn new_at(site: &'static Location<'static>) -> OnceLock<T> {
        OnceLock {
            once: Once::new_at(site),
            value: AtomicPtr::new(std::ptr::null_mut()),
            owner: AtomicU64::new(0),
            marker: PhantomData,
        }
    }

    /// The value if it is still there: the cell's own, or one its run's
    /// arena still holds.
    fn live(&self) -> Option<*mut T> {
        let value = self.value.load(Relaxed);
        let owner = self.owner.load(Relaxed);
        (!value.is_null() && (owner == 0 || alive(owner, value.cast()))).then_some(value)
    }

    /// Its object, and the value of this run: `None` before its
    /// initialisation.
    fn current(&self) -> (crate::object::Handle, Option<&T>) {
        let (handle, carried_over) = self.once.begin();
        if carried_over {
            // An earlier run's value, dropped at that run's end.
            self.value.store(std::ptr::null_mut(), Relaxed);
        }
        let mut value = self.value.load(Relaxed);
        if !value.is_null() && DROPPING.with(Cell::get) != 0 {
            value = self.live().unwrap_or(std::ptr::null_mut());
        }
        // SAFETY: a non-null pointer is a `Box` made by `initialise`, alive
        // until its run ends (the arena drops it then; this run's borrows
        // are over by then) or the cell is dropped or emptied through
        // exclusive access; while the run's values drop, those gone are
        // filtered out above.
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
        // SAFETY: `live` gives only a value still owned by the cell or its
        // run, and `&mut self` makes the access exclusive.
        self.live().map(|value| unsafe { &mut *value })
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
            let (execution, _) = crate::executor::running();
            self.owner.store(execution, Relaxed);
            self.value.store(value, Relaxed);
            adopt(execution, value.cast(), drop_box::<T>);
        });
    }

    /// Take the value out, leaving the cell empty.
    pub fn take(&mut self) -> Option<T> {
        let value = std::mem::replace(self.value.get_mut(), std::ptr::null_mut());
        let owner = std::mem::take(self.owner.get_mut());
        self.once.reset();
        let owned = !value.is_null() && (owner == 0 || release(owner, value.cast()));
        // SAFETY: a `Box` of `initialise` or `From`, which the cell owned or
        // just took back from its run's arena.
        owned.then(|| *unsafe { Box::from_raw(value) })
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
            owner: AtomicU64::new(0),
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
        // SAFETY: as in `get_mut`; printing shares it, as `get` would.
        let value = self.live().map(|value| unsafe { &*value });
        let mut d = f.debug_tuple("OnceLock");
        match value {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}
