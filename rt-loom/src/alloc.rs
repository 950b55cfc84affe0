//! loom's `alloc`: allocation through std's global allocator, and
//! [`Track`], a value loom watches for leaks.
//!
//! loom records every allocation made here and every [`Track`], and fails
//! an execution that ends with one still live (its leak check). This
//! facade checks no leaks: rankcheck-rt has no hook at the end of an
//! execution, after every thread has finished, where such a check could
//! fail it. So [`alloc`], [`alloc_zeroed`] and [`dealloc`] are std's, and a
//! [`Track`] only holds its value. Everything else a test checks runs as
//! under loom; a leak goes unreported.

pub use std::alloc::Layout;

/// Allocate memory for `layout` with the global allocator, as loom's (and
/// std's `alloc`). loom tracks it for leaks; not checked here (module
/// doc).
///
/// # Safety
/// As std's `GlobalAlloc::alloc`: `layout` has a non-zero size.
#[allow(unsafe_code)]
pub unsafe fn alloc(layout: Layout) -> *mut u8 {
    // SAFETY: the caller's, which is std's `alloc`'s.
    unsafe { std::alloc::alloc(layout) }
}

/// Allocate zeroed memory for `layout` with the global allocator, as
/// loom's (and std's `alloc_zeroed`). loom tracks it for leaks; not
/// checked here (module doc).
///
/// # Safety
/// As std's `GlobalAlloc::alloc_zeroed`: `layout` has a non-zero size.
#[allow(unsafe_code)]
pub unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
    // SAFETY: the caller's, which is std's `alloc_zeroed`'s.
    unsafe { std::alloc::alloc_zeroed(layout) }
}

/// Free memory [`alloc`] or [`alloc_zeroed`] gave, as loom's (and std's
/// `dealloc`).
///
/// # Safety
/// As std's `GlobalAlloc::dealloc`: `ptr` came from this allocator with
/// this `layout`, and is freed once.
#[allow(unsafe_code)]
pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    // SAFETY: the caller's, which is std's `dealloc`'s.
    unsafe { std::alloc::dealloc(ptr, layout) }
}

/// A value loom watches for leaks, as loom's `Track`: here it only holds
/// the value (no leak check, module doc).
#[derive(Debug)]
pub struct Track<T> {
    value: T,
}

impl<T> Track<T> {
    /// Track `value`.
    pub fn new(value: T) -> Track<T> {
        Track { value }
    }

    /// The value.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// The value, no longer tracked.
    pub fn into_inner(self) -> T {
        self.value
    }
}
