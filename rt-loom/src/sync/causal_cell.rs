//! loom 0.2's `sync::CausalCell`, the name loom 0.3 changed to
//! `cell::UnsafeCell`: crates still on loom 0.2 (spmc 0.3.0) build by the
//! rename too. The cell is this facade's [`UnsafeCell`], whose `with` and
//! `with_mut` are loom 0.2's: a read or a write of the cell, checked for
//! data races.
//!
//! loom 0.2's deferred and unchecked accesses (`with_deferred`,
//! `with_unchecked`, `CausalCheck`) are left out: a deferred check that
//! ran at once could report a race the crate's later validation discards
//! (a seqlock's read), and an unchecked one would hide races. A crate
//! that calls them does not build, naming the method.

use std::fmt;

use crate::cell::UnsafeCell;

/// As loom 0.2's `CausalCell`.
pub struct CausalCell<T>(UnsafeCell<T>);

impl<T> CausalCell<T> {
    /// A new cell: a new variable, known by this call's site.
    #[track_caller]
    pub fn new(data: T) -> CausalCell<T> {
        CausalCell(UnsafeCell::new(data))
    }

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
}

impl<T> fmt::Debug for CausalCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
