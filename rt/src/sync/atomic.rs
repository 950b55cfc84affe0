//! Drop-in replacements for `std::sync::atomic`: every atomic is a
//! variable, each load a read and each store or read-modify-write a write.
//! Under the default `MemoryModel::Sc` memory is sequentially consistent:
//! whatever `Ordering` is asked, every operation behaves as `SeqCst`.
//! Under `MemoryModel::Weak` the `Ordering`s count: each operation also
//! goes to the C11 model (crate::memory), which may have a load read an
//! older store, and fences order.
//!
//! `new` is a `const fn`, so atomics can be `static`: a static's value is
//! back to what `new` was given at its first operation in every run
//! (crate::lazy says how values are registered per run). A read-modify-
//! write with a closure (`fetch_update`, `update`, `try_update`) is one
//! write, the whole update atomic: the closure must not touch shared state.
//! `as_ptr` reaches the value behind the scheduler's back, as std's does
//! behind the other threads'; `from_ptr` is not provided (an atomic here
//! is more than its value).

use std::fmt;
use std::panic::Location;

pub use std::sync::atomic::Ordering;

use crate::lazy::{LazyHandle, Registration};
use crate::memory;
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op;

/// A fence: under weak memory it orders as C11's; sequentially consistent
/// memory needs none.
pub fn fence(order: Ordering) {
    memory::fence(order);
}

/// The strongest failure ordering `order` allows (`compare_and_swap`'s).
fn failure_of(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        other => other,
    }
}

/// A compiler fence: nothing to do.
pub fn compiler_fence(_order: Ordering) {}

const SEQ: Ordering = Ordering::SeqCst;

/// What every atomic has: `$name` wraps std's `$std` of values `$value`
/// (a type whose values are `Copy`), `$($generic)*` its type parameter.
macro_rules! atomic_common {
    ($name:ident $(<$generic:ident>)?, $std:ty, $value:ty) => {
        impl $(<$generic>)? $name $(<$generic>)? {
            /// A new atomic: a new variable, known by this call's site.
            #[track_caller]
            pub const fn new(value: $value) -> Self {
                $name {
                    handle: LazyHandle::new(
                        ObjectKind::$name,
                        Location::caller(),
                        SyncState::Memory,
                    ),
                    init: value,
                    value: <$std>::new(value),
                }
            }

            /// The access to the value (`write`: a write) at the caller's
            /// site, after a value carried over from an earlier run is
            /// reset.
            #[track_caller]
            fn access(&self, write: bool) -> (&$std, Handle) {
                let (handle, registration) = self.handle.resolve();
                if registration == Registration::CarriedOver {
                    self.value.store(self.init, SEQ);
                }
                op::access(&handle, write, Location::caller());
                (&self.value, handle)
            }

            /// As `std`'s `load`: a read (under weak memory, of a store
            /// its `order` allows).
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $value {
                let (value, handle) = self.access(false);
                let latest = value.load(SEQ);
                memory::load(&handle, order, latest, Location::caller()).unwrap_or(latest)
            }

            /// As `std`'s `store`: a write.
            #[track_caller]
            pub fn store(&self, value: $value, order: Ordering) {
                let (cell, handle) = self.access(true);
                memory::store(&handle, order, cell.load(SEQ), value, Location::caller());
                cell.store(value, SEQ)
            }

            /// As `std`'s `swap`: a write.
            #[track_caller]
            pub fn swap(&self, value: $value, order: Ordering) -> $value {
                let (cell, handle) = self.access(true);
                let before = cell.swap(value, SEQ);
                memory::read_modify_write(&handle, order, before, Some(value), Location::caller());
                before
            }

            /// As `std`'s `compare_exchange`: a write.
            #[track_caller]
            pub fn compare_exchange(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                let (cell, handle) = self.access(true);
                Self::exchange(cell, &handle, current, new, (success, failure))
            }

            /// As `std`'s `compare_exchange_weak`: a write. Under weak
            /// memory it may fail spuriously (a choice).
            #[track_caller]
            pub fn compare_exchange_weak(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                let (cell, handle) = self.access(true);
                let now = cell.load(SEQ);
                if now == current
                    && memory::fails_spuriously(&handle, failure, now, Location::caller())
                {
                    return Err(now);
                }
                Self::exchange(cell, &handle, current, new, (success, failure))
            }

            /// The compare-exchange of `cell`, told to the memory model
            /// with its `(success, failure)` orderings.
            #[track_caller]
            fn exchange(
                cell: &$std,
                handle: &Handle,
                current: $value,
                new: $value,
                (success, failure): (Ordering, Ordering),
            ) -> Result<$value, $value> {
                let result = cell.compare_exchange(current, new, SEQ, SEQ);
                let (order, before, after) = match result {
                    Ok(before) => (success, before, Some(new)),
                    Err(before) => (failure, before, None),
                };
                memory::read_modify_write(handle, order, before, after, Location::caller());
                result
            }

            /// As `std`'s deprecated `compare_and_swap`: a write.
            #[deprecated(note = "as std's: use `compare_exchange` or `compare_exchange_weak`")]
            #[track_caller]
            pub fn compare_and_swap(
                &self,
                current: $value,
                new: $value,
                order: Ordering,
            ) -> $value {
                match self.compare_exchange(current, new, order, failure_of(order)) {
                    Ok(previous) | Err(previous) => previous,
                }
            }

            /// As `std`'s `fetch_update`: one write.
            #[track_caller]
            pub fn fetch_update<F>(
                &self,
                set_order: Ordering,
                fetch_order: Ordering,
                f: F,
            ) -> Result<$value, $value>
            where
                F: FnMut($value) -> Option<$value>,
            {
                let (cell, handle) = self.access(true);
                let result = cell.fetch_update(SEQ, SEQ, f);
                // `f` may have done operations: the write is the step's
                // now running.
                op::touched(&handle, true);
                let (order, before, after) = match result {
                    Ok(before) => (set_order, before, Some(cell.load(SEQ))),
                    Err(before) => (fetch_order, before, None),
                };
                memory::read_modify_write(&handle, order, before, after, Location::caller());
                result
            }

            /// As `std`'s `try_update` (`fetch_update` renamed): one write.
            #[track_caller]
            pub fn try_update(
                &self,
                set_order: Ordering,
                fetch_order: Ordering,
                f: impl FnMut($value) -> Option<$value>,
            ) -> Result<$value, $value> {
                self.fetch_update(set_order, fetch_order, f)
            }

            /// As `std`'s `update`: the previous value; one write.
            #[track_caller]
            pub fn update(
                &self,
                set_order: Ordering,
                fetch_order: Ordering,
                mut f: impl FnMut($value) -> $value,
            ) -> $value {
                match self.fetch_update(set_order, fetch_order, |v| Some(f(v))) {
                    Ok(previous) | Err(previous) => previous,
                }
            }

            /// A pointer to the value, as std's: accesses through it are
            /// not seen by the scheduler.
            pub const fn as_ptr(&self) -> *mut $value {
                self.value.as_ptr()
            }

            /// The value, through exclusive access: no other thread can
            /// see it, so no scheduling point.
            pub fn get_mut(&mut self) -> &mut $value {
                self.value.get_mut()
            }

            /// Load the value without synchronisation, as loom's
            /// `unsync_load`: no scheduling point; under weak memory a
            /// store of another thread that does not happen before it, or
            /// after it, fails the run (crate::memory::unsync).
            ///
            /// # Safety
            /// As loom's: no store may race with it (a plain read of a
            /// value another thread writes is undefined behaviour).
            #[track_caller]
            #[allow(unsafe_code)]
            pub unsafe fn unsync_load(&self) -> $value {
                let (handle, registration) = self.handle.resolve();
                if registration == Registration::CarriedOver {
                    self.value.store(self.init, SEQ);
                }
                let value = self.value.load(SEQ);
                memory::unsync::load(&handle, value, Location::caller());
                value
            }

            /// Run `f` on the value through exclusive access, as loom's
            /// `with_mut`: no scheduling point.
            pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $value) -> R) -> R {
                f(self.get_mut())
            }

            /// The value, consuming the atomic.
            pub fn into_inner(self) -> $value {
                self.value.into_inner()
            }
        }

        impl $(<$generic>)? From<$value> for $name $(<$generic>)? {
            #[track_caller]
            fn from(value: $value) -> Self {
                $name::new(value)
            }
        }

        impl $(<$generic>)? fmt::Debug for $name $(<$generic>)? {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // Printing is not an access a test makes on purpose: read
                // the value without a scheduling point.
                fmt::Debug::fmt(&self.value.load(SEQ), f)
            }
        }
    };
}

/// A read-modify-write `$op` of std's, as a write.
macro_rules! atomic_rmw {
    ($value:ty: $($op:ident),*) => {
        $(
            #[doc = concat!("As `std`'s `", stringify!($op), "`: a write.")]
            #[track_caller]
            pub fn $op(&self, value: $value, order: Ordering) -> $value {
                let (cell, handle) = self.access(true);
                let before = cell.$op(value, SEQ);
                let after = Some(cell.load(SEQ));
                memory::read_modify_write(&handle, order, before, after, Location::caller());
                before
            }
        )*
    };
}

macro_rules! atomic_int {
    ($(#[$doc:meta])* $name:ident, $std:ident, $int:ty) => {
        $(#[$doc])*
        pub struct $name {
            handle: LazyHandle,
            /// What `new` was given: the value every run starts from.
            init: $int,
            value: std::sync::atomic::$std,
        }

        atomic_common!($name, std::sync::atomic::$std, $int);

        impl $name {
            atomic_rmw!($int: fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or,
                fetch_xor, fetch_max, fetch_min);
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new(Default::default())
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
    handle: LazyHandle,
    /// What `new` was given: the value every run starts from.
    init: bool,
    value: std::sync::atomic::AtomicBool,
}

atomic_common!(AtomicBool, std::sync::atomic::AtomicBool, bool);

impl AtomicBool {
    atomic_rmw!(bool: fetch_and, fetch_nand, fetch_or, fetch_xor);

    /// As `std`'s `fetch_not`: a write.
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}

impl Default for AtomicBool {
    #[track_caller]
    fn default() -> AtomicBool {
        AtomicBool::new(false)
    }
}

/// As `std::sync::atomic::AtomicPtr`.
pub struct AtomicPtr<T> {
    handle: LazyHandle,
    /// What `new` was given: the pointer every run starts from.
    init: *mut T,
    value: std::sync::atomic::AtomicPtr<T>,
}

// SAFETY: the raw pointer `init` is never dereferenced, only copied back
// into the std atomic, which is `Send` and `Sync` for every `T`; so is
// std's `AtomicPtr`.
#[allow(unsafe_code)]
unsafe impl<T> Send for AtomicPtr<T> {}
// SAFETY: as for `Send`.
#[allow(unsafe_code)]
unsafe impl<T> Sync for AtomicPtr<T> {}

atomic_common!(AtomicPtr<T>, std::sync::atomic::AtomicPtr<T>, *mut T);

impl<T> AtomicPtr<T> {
    /// One write replacing the pointer by `change(pointer)`: the previous
    /// pointer.
    #[track_caller]
    fn rmw(&self, order: Ordering, change: impl Fn(*mut T) -> *mut T) -> *mut T {
        match self.fetch_update(order, failure_of(order), |p| Some(change(p))) {
            Ok(previous) | Err(previous) => previous,
        }
    }

    /// As `std`'s `fetch_ptr_add` (in units of `T`, wrapping): a write.
    #[track_caller]
    pub fn fetch_ptr_add(&self, count: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.wrapping_add(count))
    }

    /// As `std`'s `fetch_ptr_sub` (in units of `T`, wrapping): a write.
    #[track_caller]
    pub fn fetch_ptr_sub(&self, count: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.wrapping_sub(count))
    }

    /// As `std`'s `fetch_byte_add` (wrapping): a write.
    #[track_caller]
    pub fn fetch_byte_add(&self, bytes: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.wrapping_byte_add(bytes))
    }

    /// As `std`'s `fetch_byte_sub` (wrapping): a write.
    #[track_caller]
    pub fn fetch_byte_sub(&self, bytes: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.wrapping_byte_sub(bytes))
    }

    /// As `std`'s `fetch_and` on the address (provenance kept): a write.
    #[track_caller]
    pub fn fetch_and(&self, bits: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.map_addr(|a| a & bits))
    }

    /// As `std`'s `fetch_or` on the address (provenance kept): a write.
    #[track_caller]
    pub fn fetch_or(&self, bits: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.map_addr(|a| a | bits))
    }

    /// As `std`'s `fetch_xor` on the address (provenance kept): a write.
    #[track_caller]
    pub fn fetch_xor(&self, bits: usize, order: Ordering) -> *mut T {
        self.rmw(order, |p| p.map_addr(|a| a ^ bits))
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> fmt::Pointer for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.value.load(SEQ), f)
    }
}
