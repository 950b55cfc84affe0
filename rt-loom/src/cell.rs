//! loom's `cell`: [`UnsafeCell`], whose data is reached through `with`,
//! `with_mut` or the pointers `get` and `get_mut` hand out, each a read or
//! a write of the cell to the search and checked for data races (loom's
//! `Causality violation`), and [`Cell`] on top of it.

use std::fmt;

pub use rankcheck_rt::cell::{Cell, ConstPtr, MutPtr};

/// loom's `UnsafeCell`: rankcheck-rt's, with loom's `get_mut`.
pub struct UnsafeCell<T: ?Sized>(rankcheck_rt::cell::UnsafeCell<T>);

impl<T> UnsafeCell<T> {
    /// A new cell: a new variable, known by this call's site.
    #[track_caller]
    pub fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell(rankcheck_rt::cell::UnsafeCell::new(data))
    }

    /// The data, consuming the cell.
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Read the data through a const pointer: a read of the cell.
    #[track_caller]
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        self.0.with(f)
    }

    /// Write the data through a mutable pointer: a write of the cell.
    #[track_caller]
    pub fn with_mut<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        self.0.with_mut(f)
    }

    /// A const pointer that holds a read of the cell open until dropped.
    #[track_caller]
    pub fn get(&self) -> ConstPtr<T> {
        self.0.get()
    }

    /// A mutable pointer that holds a write of the cell open until
    /// dropped.
    #[track_caller]
    pub fn get_mut(&self) -> MutPtr<T> {
        self.0.get_mut_ptr()
    }
}

impl<T: Default> Default for UnsafeCell<T> {
    #[track_caller]
    fn default() -> UnsafeCell<T> {
        UnsafeCell::new(T::default())
    }
}

impl<T> From<T> for UnsafeCell<T> {
    #[track_caller]
    fn from(data: T) -> UnsafeCell<T> {
        UnsafeCell::new(data)
    }
}

impl<T: ?Sized> fmt::Debug for UnsafeCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
