//! loom's `sync::atomic`: rankcheck-rt's atomics, whose `Ordering`s count
//! under the model's weak memory, behind thin wrappers for one method:
//! `compare_and_swap`, which rankcheck-rt deprecates as std does but loom
//! 0.7 does not (its `src/sync/atomic/{int,bool,ptr}.rs`), so that a
//! crate that denies warnings and calls it builds under the facade as
//! under loom. Every other method is rankcheck-rt's, through `Deref`; the
//! wrappers' own are those that must not go through it: `new` (a `const
//! fn`, for statics), `into_inner` (it consumes the atomic) and the traits.
//!
//! ```
//! #![deny(warnings)]
//! use rankcheck_loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
//!
//! rankcheck_loom::model(|| {
//!     let flag = AtomicBool::new(false);
//!     assert!(!flag.compare_and_swap(false, true, SeqCst));
//! });
//! ```
//!
//! rankcheck-rt's own atomics keep std's deprecation:
//!
//! ```compile_fail
//! #![deny(warnings)]
//! use rankcheck_rt::sync::atomic::{AtomicBool, Ordering::SeqCst};
//!
//! let flag = AtomicBool::new(false);
//! flag.compare_and_swap(false, true, SeqCst);
//! ```

use std::fmt;
use std::ops::{Deref, DerefMut};

use rankcheck_rt::sync::atomic as rt;

pub use rankcheck_rt::sync::atomic::{compiler_fence, fence, Ordering};

/// The spin-loop hint std deprecated, as loom's (which keeps it
/// undeprecated): a yield ([`crate::thread::yield_now`]).
#[track_caller]
pub fn spin_loop_hint() {
    crate::hint::spin_loop();
}

/// loom's atomic `$name` of values `$value` over rankcheck-rt's, with
/// `$($generic)*` its type parameter.
macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident $(<$generic:ident>)?, $value:ty) => {
        $(#[$doc])*
        pub struct $name $(<$generic>)? (rt::$name $(<$generic>)?);

        impl $(<$generic>)? $name $(<$generic>)? {
            /// A new atomic: a new variable, known by this call's site.
            #[track_caller]
            pub const fn new(value: $value) -> Self {
                $name(rt::$name::new(value))
            }

            /// As loom's `compare_and_swap`, not deprecated there: stores
            /// `new` if the value is `current`, and returns the value it
            /// found (a read-modify-write, a failed one only a read).
            #[track_caller]
            #[allow(deprecated)]
            pub fn compare_and_swap(&self, current: $value, new: $value, order: Ordering) -> $value {
                self.0.compare_and_swap(current, new, order)
            }

            /// The value, consuming the atomic.
            pub fn into_inner(self) -> $value {
                self.0.into_inner()
            }
        }

        impl $(<$generic>)? Deref for $name $(<$generic>)? {
            type Target = rt::$name $(<$generic>)?;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl $(<$generic>)? DerefMut for $name $(<$generic>)? {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }

        impl $(<$generic>)? Default for $name $(<$generic>)? {
            #[track_caller]
            fn default() -> Self {
                $name(rt::$name::default())
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
                fmt::Debug::fmt(&self.0, f)
            }
        }
    };
}

atomic!(
    /// As loom's `AtomicBool`.
    AtomicBool, bool
);
atomic!(
    /// As loom's `AtomicI8`.
    AtomicI8, i8
);
atomic!(
    /// As loom's `AtomicI16`.
    AtomicI16, i16
);
atomic!(
    /// As loom's `AtomicI32`.
    AtomicI32, i32
);
atomic!(
    /// As loom's `AtomicI64`.
    AtomicI64, i64
);
atomic!(
    /// As loom's `AtomicIsize`.
    AtomicIsize, isize
);
atomic!(
    /// As loom's `AtomicU8`.
    AtomicU8, u8
);
atomic!(
    /// As loom's `AtomicU16`.
    AtomicU16, u16
);
atomic!(
    /// As loom's `AtomicU32`.
    AtomicU32, u32
);
atomic!(
    /// As loom's `AtomicU64`.
    AtomicU64, u64
);
atomic!(
    /// As loom's `AtomicUsize`.
    AtomicUsize, usize
);
atomic!(
    /// As loom's `AtomicPtr`.
    AtomicPtr<T>, *mut T
);

impl<T> fmt::Pointer for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.0, f)
    }
}
