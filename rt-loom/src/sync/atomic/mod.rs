//! loom's `sync::atomic`: rankcheck-rt's atomics, whose `Ordering`s count
//! under the model's weak memory, each behind one word, as loom 0.7's
//! are.
//!
//! # One word, no destructor
//!
//! loom's atomic is an index into its execution's object store (its
//! `rt::Atomic<T>`: an `object::Ref` and a `PhantomData`), so every loom
//! atomic, `AtomicBool` and `AtomicU8` included, is one `usize` with no
//! destructor. Crates rely on both. They assert the size in `const` items
//! (arcstr's `size_of::<ThinInner>() == 2 * size_of::<usize>()`, with a
//! loom `AtomicUsize` inside), and they drop what they take to be an
//! atomic in uninitialised memory (nexosim 1.0.0's `spawn` assigns its
//! task into fresh `alloc` memory, dropping the garbage there first),
//! which under loom frees nothing. Here, too, the atomic is one word
//! naming a slot of its run (module `run_slots`): rankcheck-rt's atomic
//! lives in the run's table, freed after the run, and the word owns
//! nothing. Every use checks the word first, so an atomic (wrongly) kept
//! for a later execution, zeroed memory or garbage is a panic naming the
//! misuse, never a read of freed memory.
//!
//! Everything else is rankcheck-rt's atomic, unchanged: every operation is
//! a scheduling point with its `Ordering` under the model, the atomic is a
//! variable known by the site of its `new` (so reports and replay strings
//! name it as before), and it registers with the execution at its first
//! operation.
//!
//! What differs from rankcheck-rt's, as loom's does:
//!
//! - `new` (and `Default`, `From`) is no `const fn`, and panics outside a
//!   model, naming the misuse, where loom's panics reaching for its
//!   execution. A static atomic in a loom test goes through
//!   [`crate::lazy_static!`], which builds it afresh in every execution.
//! - `into_inner` is loom's: an `unsync_load` of the consumed atomic, so
//!   that under weak memory a store of another thread that does not happen
//!   before it fails the run, as loom's `Causality violation`.
//! - `compare_and_swap` is not deprecated (loom 0.7's
//!   `src/sync/atomic/{int,bool,ptr}.rs`), so that a crate that denies
//!   warnings and calls it builds under the facade as under loom.
//!
//! Every other method is rankcheck-rt's, through `Deref`: `load`, `store`,
//! the read-modify-writes, `with_mut`, `unsync_load`, and std's `get_mut`
//! and `as_ptr` besides.
//!
//! A word of zeros is no atomic: memory zeroed by a crate that takes
//! std's atomics to be plain integers (loom's would read some other
//! object). Each operation on one panics, saying so.
//!
//! ```
//! #![deny(warnings)]
//! use rankcheck_loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
//!
//! const _: () = assert!(std::mem::size_of::<AtomicBool>() == std::mem::size_of::<usize>());
//!
//! rankcheck_loom::model(|| {
//!     let flag = AtomicBool::new(false);
//!     assert!(!flag.compare_and_swap(false, true, SeqCst));
//!     assert_eq!(AtomicUsize::new(7).into_inner(), 7);
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
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use rankcheck_rt::sync::atomic as rt;

mod run_slots;

pub use rankcheck_rt::sync::atomic::{compiler_fence, fence, Ordering};

/// The spin-loop hint std deprecated, as loom's (which keeps it
/// undeprecated): a yield ([`crate::thread::yield_now`]).
#[track_caller]
pub fn spin_loop_hint() {
    crate::hint::spin_loop();
}

/// An atomic was made outside a model: loom's panics there too (its `new`
/// reaches for the execution).
#[cold]
#[track_caller]
fn outside_model(kind: &str) -> ! {
    panic!(
        "loom: {kind}::new was called outside a loom model: loom's atomics belong to one \
         execution; make them inside the closure given to loom::model (a static through \
         loom::lazy_static!)"
    )
}

/// An operation on a word that names no atomic of the run going on.
#[cold]
#[track_caller]
fn unnamed(why: run_slots::Unnamed, kind: &str) -> ! {
    panic!("{}", why.message(kind))
}

/// loom's atomic `$name` of values `$value` over rankcheck-rt's, with
/// `$($generic)*` its type parameter.
macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident $(<$generic:ident>)?, $value:ty) => {
        $(#[$doc])*
        ///
        /// One word with no destructor, as loom's: the slot of
        /// rankcheck-rt's atomic in its run (the module doc says why).
        pub struct $name $(<$generic>)? (usize $(, PhantomData<fn(*mut $generic) -> *mut $generic>)?);

        impl $(<$generic>)? $name $(<$generic>)? {
            /// A new atomic: a new variable, known by this call's site.
            ///
            /// # Panics
            /// Outside a model, as loom's.
            #[track_caller]
            pub fn new(value: $value) -> Self {
                if !rankcheck_rt::in_run() {
                    outside_model(stringify!($name));
                }
                Self::kept(rt::$name::new(value))
            }

            /// As loom's `compare_and_swap`, not deprecated there: stores
            /// `new` if the value is `current`, and returns the value it
            /// found (a read-modify-write, a failed one only a read).
            #[track_caller]
            #[allow(deprecated)]
            pub fn compare_and_swap(&self, current: $value, new: $value, order: Ordering) -> $value {
                self.atomic().compare_and_swap(current, new, order)
            }

            /// An `Acquire` load: crossbeam-utils's `AtomicConsume`, as
            /// it implements it for loom's atomics. Not loom's own API:
            /// crates built with crossbeam's `crossbeam_loom` cfg
            /// (crossbeam-epoch) call `load_consume` on their loom
            /// atomics, and crossbeam-utils, which keeps real loom under a
            /// rename of the crate's own dependency, implements it for
            /// real loom's types only. This method makes that call build
            /// and mean the same here.
            #[track_caller]
            pub fn load_consume(&self) -> $value {
                self.atomic().load(Ordering::Acquire)
            }

            /// The value, consuming the atomic: as loom's, an unsync load
            /// (under weak memory, a store of another thread that does not
            /// happen before it fails the run).
            #[track_caller]
            #[allow(unsafe_code)]
            pub fn into_inner(self) -> $value {
                // SAFETY: the atomic is consumed, so no other thread holds
                // a reference to it: the load races with no store (loom's
                // `into_inner` makes the same call).
                unsafe {
                    self.atomic().unsync_load()
                }
            }

            /// The facade's atomic for `atomic`, kept in its run's slots.
            fn kept(atomic: rt::$name $(<$generic>)?) -> Self {
                $name(run_slots::put(atomic, stringify!($name)) $(, PhantomData::<fn(*mut $generic) -> *mut $generic>)?)
            }

            /// rankcheck-rt's atomic.
            #[track_caller]
            fn atomic(&self) -> &rt::$name $(<$generic>)? {
                run_slots::get(self.0, stringify!($name))
                    .unwrap_or_else(|why| unnamed(why, stringify!($name)))
            }
        }

        impl $(<$generic>)? Deref for $name $(<$generic>)? {
            type Target = rt::$name $(<$generic>)?;

            #[track_caller]
            fn deref(&self) -> &Self::Target {
                self.atomic()
            }
        }

        impl $(<$generic>)? DerefMut for $name $(<$generic>)? {
            #[track_caller]
            fn deref_mut(&mut self) -> &mut Self::Target {
                run_slots::get_mut(self.0, stringify!($name))
                    .unwrap_or_else(|why| unnamed(why, stringify!($name)))
            }
        }

        impl $(<$generic>)? Default for $name $(<$generic>)? {
            /// A new atomic of the default value (null for a pointer).
            ///
            /// # Panics
            /// Outside a model, as loom's.
            #[track_caller]
            fn default() -> Self {
                if !rankcheck_rt::in_run() {
                    outside_model(stringify!($name));
                }
                Self::kept(rt::$name::default())
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
                match run_slots::get::<rt::$name $(<$generic>)?>(self.0, stringify!($name)) {
                    Ok(atomic) => fmt::Debug::fmt(atomic, f),
                    Err(why) => fmt::Display::fmt(&why, f),
                }
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
        match run_slots::get::<rt::AtomicPtr<T>>(self.0, "AtomicPtr") {
            Ok(atomic) => fmt::Pointer::fmt(atomic, f),
            Err(why) => fmt::Display::fmt(&why, f),
        }
    }
}
