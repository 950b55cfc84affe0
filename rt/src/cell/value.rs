//! A `Cell` for the test's threads, as loom's `cell::Cell`: std's `Cell`
//! API over an [`UnsafeCell`], so that each call is an access of the cell
//! (a scheduling point when tracked; checked for data races under weak
//! memory, as the cell's are). Like std's it is not `Sync`: it is shared
//! between threads only by code that is itself unsound, which the race
//! check then reports.
//!
//! Reaching the data dereferences the cell's raw pointers: the lint is
//! lifted for this module alone.
#![allow(unsafe_code)]

use super::UnsafeCell;

/// A `Cell` whose every call is an access of an [`UnsafeCell`] (a read
/// for `get`, a write for the rest), as loom's `cell::Cell`.
#[derive(Debug)]
pub struct Cell<T>(UnsafeCell<T>);

impl<T> Cell<T> {
    /// A new cell holding `value`.
    #[track_caller]
    pub fn new(value: T) -> Cell<T> {
        Cell(UnsafeCell::new(value))
    }

    /// Store `value`, dropping the old one.
    #[track_caller]
    pub fn set(&self, value: T) {
        drop(self.replace(value));
    }

    /// Swap the values of two cells.
    #[track_caller]
    pub fn swap(&self, other: &Cell<T>) {
        if std::ptr::eq(self, other) {
            return;
        }
        self.0.with_mut(|mine| {
            // SAFETY: two distinct cells, not `Sync`: only this thread
            // reaches their data, and no other code runs meanwhile.
            other
                .0
                .with_mut(|theirs| unsafe { std::ptr::swap(mine, theirs) })
        });
    }

    /// Store `value`, returning the old one.
    #[track_caller]
    pub fn replace(&self, value: T) -> T {
        // SAFETY: the cell is not `Sync`: only this thread reaches its data,
        // and no other code runs while the pointer is used.
        self.0
            .with_mut(|data| unsafe { std::mem::replace(&mut *data, value) })
    }

    /// The value, a copy.
    #[track_caller]
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        // SAFETY: as in `replace`.
        self.0.with(|data| unsafe { *data })
    }

    /// Take the value, leaving the default.
    #[track_caller]
    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }

    /// The value, consuming the cell.
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: Default> Default for Cell<T> {
    #[track_caller]
    fn default() -> Cell<T> {
        Cell::new(T::default())
    }
}

impl<T> From<T> for Cell<T> {
    #[track_caller]
    fn from(value: T) -> Cell<T> {
        Cell::new(value)
    }
}

/// The comparisons and `Clone` read the cells (`get`), as loom's and
/// std's.
impl<T: Copy> Clone for Cell<T> {
    #[track_caller]
    fn clone(&self) -> Cell<T> {
        Cell::new(self.get())
    }
}

impl<T: PartialEq + Copy> PartialEq for Cell<T> {
    #[track_caller]
    fn eq(&self, other: &Cell<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq + Copy> Eq for Cell<T> {}

impl<T: PartialOrd + Copy> PartialOrd for Cell<T> {
    #[track_caller]
    fn partial_cmp(&self, other: &Cell<T>) -> Option<std::cmp::Ordering> {
        self.get().partial_cmp(&other.get())
    }
}

impl<T: Ord + Copy> Ord for Cell<T> {
    #[track_caller]
    fn cmp(&self, other: &Cell<T>) -> std::cmp::Ordering {
        self.get().cmp(&other.get())
    }
}
