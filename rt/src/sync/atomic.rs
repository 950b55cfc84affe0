//! Drop-in replacements for `std::sync::atomic`: every atomic is a
//! variable, each load a read and each store or read-modify-write a write.
//! Memory is sequentially consistent: whatever `Ordering` is asked, every
//! operation behaves as `SeqCst` (weak memory is not explored).

use std::fmt;
use std::panic::Location;

pub use std::sync::atomic::Ordering;

use crate::object::{Handle, SyncState};
use crate::op;

/// A fence: sequentially consistent memory needs none.
pub fn fence(_order: Ordering) {}

/// A compiler fence: nothing to do.
pub fn compiler_fence(_order: Ordering) {}

const SEQ: Ordering = Ordering::SeqCst;

macro_rules! atomic_int {
    ($(#[$doc:meta])* $name:ident, $std:ident, $int:ty) => {
        $(#[$doc])*
        pub struct $name {
            handle: Handle,
            value: std::sync::atomic::$std,
        }

        impl $name {
            /// A new atomic: a new variable, known by this call's site.
            #[track_caller]
            pub fn new(value: $int) -> $name {
                $name {
                    handle: op::create(stringify!($name), Location::caller(), SyncState::Memory),
                    value: std::sync::atomic::$std::new(value),
                }
            }

            #[track_caller]
            fn read(&self) {
                op::access(&self.handle, false, Location::caller());
            }

            #[track_caller]
            fn write(&self) {
                op::access(&self.handle, true, Location::caller());
            }

            /// As `std`'s `load`: a read.
            #[track_caller]
            pub fn load(&self, _order: Ordering) -> $int {
                self.read();
                self.value.load(SEQ)
            }

            /// As `std`'s `store`: a write.
            #[track_caller]
            pub fn store(&self, value: $int, _order: Ordering) {
                self.write();
                self.value.store(value, SEQ)
            }

            /// As `std`'s `swap`: a write.
            #[track_caller]
            pub fn swap(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.swap(value, SEQ)
            }

            /// As `std`'s `compare_exchange`: a write.
            #[track_caller]
            pub fn compare_exchange(
                &self,
                current: $int,
                new: $int,
                _success: Ordering,
                _failure: Ordering,
            ) -> Result<$int, $int> {
                self.write();
                self.value.compare_exchange(current, new, SEQ, SEQ)
            }

            /// As `std`'s `compare_exchange_weak`, which here never fails
            /// spuriously: a write.
            #[track_caller]
            pub fn compare_exchange_weak(
                &self,
                current: $int,
                new: $int,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$int, $int> {
                self.compare_exchange(current, new, success, failure)
            }

            /// As `std`'s `fetch_add` (wrapping): a write.
            #[track_caller]
            pub fn fetch_add(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_add(value, SEQ)
            }

            /// As `std`'s `fetch_sub` (wrapping): a write.
            #[track_caller]
            pub fn fetch_sub(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_sub(value, SEQ)
            }

            /// As `std`'s `fetch_and`: a write.
            #[track_caller]
            pub fn fetch_and(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_and(value, SEQ)
            }

            /// As `std`'s `fetch_nand`: a write.
            #[track_caller]
            pub fn fetch_nand(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_nand(value, SEQ)
            }

            /// As `std`'s `fetch_or`: a write.
            #[track_caller]
            pub fn fetch_or(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_or(value, SEQ)
            }

            /// As `std`'s `fetch_xor`: a write.
            #[track_caller]
            pub fn fetch_xor(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_xor(value, SEQ)
            }

            /// As `std`'s `fetch_max`: a write.
            #[track_caller]
            pub fn fetch_max(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_max(value, SEQ)
            }

            /// As `std`'s `fetch_min`: a write.
            #[track_caller]
            pub fn fetch_min(&self, value: $int, _order: Ordering) -> $int {
                self.write();
                self.value.fetch_min(value, SEQ)
            }

            /// As `std`'s `fetch_update`: one write, the whole update
            /// atomic (`f` must not touch shared state).
            #[track_caller]
            pub fn fetch_update<F>(
                &self,
                _set_order: Ordering,
                _fetch_order: Ordering,
                f: F,
            ) -> Result<$int, $int>
            where
                F: FnMut($int) -> Option<$int>,
            {
                self.write();
                self.value.fetch_update(SEQ, SEQ, f)
            }

            /// The value, through exclusive access: no other thread can
            /// see it, so no scheduling point.
            pub fn get_mut(&mut self) -> &mut $int {
                self.value.get_mut()
            }

            /// The value, consuming the atomic.
            pub fn into_inner(self) -> $int {
                self.value.into_inner()
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new(Default::default())
            }
        }

        impl From<$int> for $name {
            #[track_caller]
            fn from(value: $int) -> $name {
                $name::new(value)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // Printing is not an access a test makes on purpose: read
                // the value without a scheduling point.
                fmt::Debug::fmt(&self.value.load(SEQ), f)
            }
        }
    };
}

atomic_int!(
    /// As `std::sync::atomic::AtomicI8`.
    AtomicI8, AtomicI8, i8
);
atomic_int!(
    /// As `std::sync::atomic::AtomicI16`.
    AtomicI16, AtomicI16, i16
);
atomic_int!(
    /// As `std::sync::atomic::AtomicI32`.
    AtomicI32, AtomicI32, i32
);
atomic_int!(
    /// As `std::sync::atomic::AtomicI64`.
    AtomicI64, AtomicI64, i64
);
atomic_int!(
    /// As `std::sync::atomic::AtomicIsize`.
    AtomicIsize, AtomicIsize, isize
);
atomic_int!(
    /// As `std::sync::atomic::AtomicU8`.
    AtomicU8, AtomicU8, u8
);
atomic_int!(
    /// As `std::sync::atomic::AtomicU16`.
    AtomicU16, AtomicU16, u16
);
atomic_int!(
    /// As `std::sync::atomic::AtomicU32`.
    AtomicU32, AtomicU32, u32
);
atomic_int!(
    /// As `std::sync::atomic::AtomicU64`.
    AtomicU64, AtomicU64, u64
);
atomic_int!(
    /// As `std::sync::atomic::AtomicUsize`.
    AtomicUsize, AtomicUsize, usize
);

/// As `std::sync::atomic::AtomicBool`.
pub struct AtomicBool {
    handle: Handle,
    value: std::sync::atomic::AtomicBool,
}

impl AtomicBool {
    /// A new atomic: a new variable, known by this call's site.
    #[track_caller]
    pub fn new(value: bool) -> AtomicBool {
        AtomicBool {
            handle: op::create("AtomicBool", Location::caller(), SyncState::Memory),
            value: std::sync::atomic::AtomicBool::new(value),
        }
    }

    /// As `std`'s `load`: a read.
    #[track_caller]
    pub fn load(&self, _order: Ordering) -> bool {
        op::access(&self.handle, false, Location::caller());
        self.value.load(SEQ)
    }

    /// As `std`'s `store`: a write.
    #[track_caller]
    pub fn store(&self, value: bool, _order: Ordering) {
        op::access(&self.handle, true, Location::caller());
        self.value.store(value, SEQ)
    }

    /// As `std`'s `swap`: a write.
    #[track_caller]
    pub fn swap(&self, value: bool, _order: Ordering) -> bool {
        op::access(&self.handle, true, Location::caller());
        self.value.swap(value, SEQ)
    }

    /// As `std`'s `compare_exchange`: a write.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        _success: Ordering,
        _failure: Ordering,
    ) -> Result<bool, bool> {
        op::access(&self.handle, true, Location::caller());
        self.value.compare_exchange(current, new, SEQ, SEQ)
    }

    /// As `std`'s `compare_exchange_weak`, never failing spuriously.
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        self.compare_exchange(current, new, success, failure)
    }

    /// As `std`'s `fetch_and`: a write.
    #[track_caller]
    pub fn fetch_and(&self, value: bool, _order: Ordering) -> bool {
        op::access(&self.handle, true, Location::caller());
        self.value.fetch_and(value, SEQ)
    }

    /// As `std`'s `fetch_or`: a write.
    #[track_caller]
    pub fn fetch_or(&self, value: bool, _order: Ordering) -> bool {
        op::access(&self.handle, true, Location::caller());
        self.value.fetch_or(value, SEQ)
    }

    /// As `std`'s `fetch_xor`: a write.
    #[track_caller]
    pub fn fetch_xor(&self, value: bool, _order: Ordering) -> bool {
        op::access(&self.handle, true, Location::caller());
        self.value.fetch_xor(value, SEQ)
    }

    /// The value, through exclusive access.
    pub fn get_mut(&mut self) -> &mut bool {
        self.value.get_mut()
    }

    /// The value, consuming the atomic.
    pub fn into_inner(self) -> bool {
        self.value.into_inner()
    }
}

impl Default for AtomicBool {
    #[track_caller]
    fn default() -> AtomicBool {
        AtomicBool::new(false)
    }
}

impl fmt::Debug for AtomicBool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.value.load(SEQ), f)
    }
}

/// As `std::sync::atomic::AtomicPtr`.
pub struct AtomicPtr<T> {
    handle: Handle,
    value: std::sync::atomic::AtomicPtr<T>,
}

impl<T> AtomicPtr<T> {
    /// A new atomic pointer: a new variable.
    #[track_caller]
    pub fn new(value: *mut T) -> AtomicPtr<T> {
        AtomicPtr {
            handle: op::create("AtomicPtr", Location::caller(), SyncState::Memory),
            value: std::sync::atomic::AtomicPtr::new(value),
        }
    }

    /// As `std`'s `load`: a read.
    #[track_caller]
    pub fn load(&self, _order: Ordering) -> *mut T {
        op::access(&self.handle, false, Location::caller());
        self.value.load(SEQ)
    }

    /// As `std`'s `store`: a write.
    #[track_caller]
    pub fn store(&self, value: *mut T, _order: Ordering) {
        op::access(&self.handle, true, Location::caller());
        self.value.store(value, SEQ)
    }

    /// As `std`'s `swap`: a write.
    #[track_caller]
    pub fn swap(&self, value: *mut T, _order: Ordering) -> *mut T {
        op::access(&self.handle, true, Location::caller());
        self.value.swap(value, SEQ)
    }

    /// As `std`'s `compare_exchange`: a write.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        _success: Ordering,
        _failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        op::access(&self.handle, true, Location::caller());
        self.value.compare_exchange(current, new, SEQ, SEQ)
    }

    /// As `std`'s `compare_exchange_weak`, never failing spuriously.
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.compare_exchange(current, new, success, failure)
    }

    /// The pointer, through exclusive access.
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.value.get_mut()
    }

    /// The pointer, consuming the atomic.
    pub fn into_inner(self) -> *mut T {
        self.value.into_inner()
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.value.load(SEQ), f)
    }
}
