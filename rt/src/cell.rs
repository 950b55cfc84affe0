//! A cell for data shared through unsafe code, on loom's model: reaching
//! the data goes through [`UnsafeCell::with`] (a read) or
//! [`UnsafeCell::with_mut`] (a write), so that each access is an access to
//! the cell's variable, a scheduling point when it is tracked. The raw
//! pointers are std's `UnsafeCell::get`; dereferencing them is the
//! caller's unsafe code, as with std's cell. Under weak memory an access
//! that races with another thread's (neither happens before the other, one
//! writes) fails the run with loom's `Causality violation` (crate::memory::
//! race); [`UnsafeCell::get`] and [`UnsafeCell::get_mut_ptr`] hold an
//! access open across scheduling points, as loom's `ConstPtr`/`MutPtr`.

use std::fmt;
use std::panic::Location;

use crate::memory::race::Access;
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op;

mod ptr;
mod value;

use ptr::Span;
pub use ptr::{ConstPtr, MutPtr};
pub use value::Cell;

/// As loom's `UnsafeCell`.
pub struct UnsafeCell<T: ?Sized> {
    handle: Handle,
    data: std::cell::UnsafeCell<T>,
}

impl<T> UnsafeCell<T> {
    /// A new cell: a new variable, known by this call's site.
    #[track_caller]
    pub fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell {
            handle: op::create(
                ObjectKind::UnsafeCell,
                Location::caller(),
                SyncState::Memory,
            ),
            data: std::cell::UnsafeCell::new(data),
        }
    }

    /// The data, consuming the cell.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Read through a const pointer to the data: a read of the cell.
    #[track_caller]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        let _read = Span::begin(self.handle, Access::Read, Location::caller());
        f(self.data.get())
    }

    /// Write through a mutable pointer to the data: a write of the cell.
    #[track_caller]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        let _write = Span::begin(self.handle, Access::Write, Location::caller());
        f(self.data.get())
    }

    /// A const pointer to the data that holds a read of the cell open
    /// until it is dropped, as loom's `UnsafeCell::get`.
    #[track_caller]
    pub fn get(&self) -> ConstPtr<T> {
        ConstPtr {
            _span: Span::begin(self.handle, Access::Read, Location::caller()),
            ptr: self.data.get(),
        }
    }

    /// A mutable pointer to the data that holds a write of the cell open
    /// until it is dropped, as loom's `UnsafeCell::get_mut` (which takes
    /// `&self`; this crate's `get_mut` is std's).
    #[track_caller]
    pub fn get_mut_ptr(&self) -> MutPtr<T> {
        MutPtr {
            _span: Span::begin(self.handle, Access::Write, Location::caller()),
            ptr: self.data.get(),
        }
    }

    /// The data, through exclusive access: no scheduling point.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: Default> Default for UnsafeCell<T> {
    #[track_caller]
    fn default() -> UnsafeCell<T> {
        UnsafeCell::new(T::default())
    }
}

impl<T: ?Sized> fmt::Debug for UnsafeCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnsafeCell").finish_non_exhaustive()
    }
}
