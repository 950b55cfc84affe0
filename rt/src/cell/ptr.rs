//! Accesses to a cell's data as spans, loom's `ConstPtr` and `MutPtr`: a
//! guard that holds a read or a write of the cell open until it is
//! dropped, so that an access held across scheduling points is one access
//! (under weak memory, checked for data races as it begins and as it ends,
//! crate::memory::race).
//!
//! `deref` is `unsafe`, as dereferencing the raw pointer it stands for is:
//! the lint is lifted for this module alone.
#![allow(unsafe_code)]

use std::fmt;

use crate::memory::race::Access;
use crate::memory::{cell_begin, cell_end};
use crate::object::Handle;
use crate::op;

/// An open access to a cell's data: begun at its scheduling point, ended
/// when dropped.
pub(crate) struct Span {
    handle: Handle,
    access: Access,
    /// Where the access began: the place of a race it makes.
    site: op::Site,
}

impl Span {
    /// Begin an access of kind `access` at `site`: its scheduling point
    /// (a read or a write of the cell's variable), then the race check.
    ///
    /// # Panics
    /// With loom's `Causality violation` message when it races, at the
    /// access's place in the test (the cell's methods track their caller
    /// too), which the report then shows as where the run failed.
    #[track_caller]
    pub(crate) fn begin(handle: Handle, access: Access, site: op::Site) -> Span {
        op::cell_access(&handle, access == Access::Write, site);
        if let Some(race) = cell_begin(&handle, access, site) {
            panic!("{race}");
        }
        Span {
            handle,
            access,
            site,
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(race) = cell_end(&self.handle, self.access) {
            crate::panic_capture::panic_at(self.site, &race);
        }
    }
}

/// A const pointer to a cell's data that holds a read of it open, as
/// loom's `ConstPtr`: made by `UnsafeCell::get`.
pub struct ConstPtr<T: ?Sized> {
    pub(crate) _span: Span,
    pub(crate) ptr: *const T,
}

impl<T: ?Sized> ConstPtr<T> {
    /// The data, as `&*ptr`.
    ///
    /// # Safety
    /// As dereferencing the raw pointer: no `&mut` to the data may live
    /// while the reference does.
    pub unsafe fn deref(&self) -> &T {
        &*self.ptr
    }

    /// Run `f` on the raw pointer.
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        f(self.ptr)
    }
}

/// A mutable pointer to a cell's data that holds a write of it open, as
/// loom's `MutPtr`: made by `UnsafeCell::get_mut_ptr`.
pub struct MutPtr<T: ?Sized> {
    pub(crate) _span: Span,
    pub(crate) ptr: *mut T,
}

impl<T: ?Sized> MutPtr<T> {
    /// The data, as `&mut *ptr`.
    ///
    /// # Safety
    /// As dereferencing the raw pointer: no other reference to the data
    /// may live while this one does.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn deref(&self) -> &mut T {
        &mut *self.ptr
    }

    /// Run `f` on the raw pointer.
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> fmt::Debug for ConstPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConstPtr").finish_non_exhaustive()
    }
}

impl<T: ?Sized> fmt::Debug for MutPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutPtr").finish_non_exhaustive()
    }
}
