//! A loom-shaped facade over rankcheck-rt: a crate whose tests are written
//! against [loom](https://docs.rs/loom/0.7) runs them under rankcheck by a
//! dependency rename, with no change to its code (the user guide,
//! `docs/guide/src/rust/loom.md`):
//!
//! ```toml
//! [dev-dependencies]
//! loom = { package = "rankcheck-loom", path = "../rankcheck/rt-loom" }
//! ```
//!
//! ```
//! use rankcheck_loom as loom;
//! use loom::sync::atomic::{AtomicUsize, Ordering::{Acquire, Release}};
//! use loom::sync::Arc;
//! use loom::thread;
//!
//! loom::model(|| {
//!     let flag = Arc::new(AtomicUsize::new(0));
//!     let setter = {
//!         let flag = flag.clone();
//!         thread::spawn(move || flag.store(1, Release))
//!     };
//!     let seen = flag.load(Acquire);
//!     setter.join().unwrap();
//!     assert!(seen <= 1);
//! });
//! ```
//!
//! [`model()`] runs rankcheck-rt's exhaustive exploration
//! (`rankcheck::explore_memory`) under its C11 weak memory model: every
//! schedule and every store each load may read, as loom's `model`
//! explores them. When the exploration reaches a failure, a seeded
//! rankcheck search finds a failing run and panics with rankcheck's report
//! and its replay string; when it cannot finish within its schedule cap
//! (`max_permutations`, `LOOM_MAX_PERMUTATIONS`), the model falls back to
//! rankcheck's randomized search and prints the guarantee it earned, or
//! fails when asked to be exhaustive (`RANKCHECK_LOOM_EXHAUSTIVE`).
//! `RANKCHECK_LOOM_SEARCH=random` skips the exploration and runs that
//! randomized search at once (`RANKCHECK_SEED` seeds it), so that a loom
//! test measures rankcheck's search unchanged.
//! Never a silent pass: [`model::Builder`] says which of loom's settings
//! act and how.
//!
//! The types are rankcheck-rt's under loom's paths, and besides:
//! [`thread::spawn`] without `Send` bounds (loom's), [`sync::Arc`] whose
//! reference count orders accesses as loom's, [`sync::Notify`],
//! [`cell::UnsafeCell`] with loom's `get`/`get_mut` pointers and its data
//! race checks, [`cell::Cell`], [`future::AtomicWaker`], [`alloc`] and
//! [`hint::unreachable_unchecked`]. loom's leak checks (of `Arc`s, `alloc`
//! and `alloc::Track`) are not done here ([`alloc`] says why).
//!
//! The crate's tests run loom 0.7.3's own suite against the facade
//! (`tests/peer_loom/`, whose header lists what passes and why the rest
//! is ignored).
//!
//! # Features
//!
//! loom's two cargo features are accepted, so that a crate that asks loom
//! for them builds with this facade in its place:
//!
//! - `futures`: in loom, builds its `future` module ([`future::block_on`],
//!   [`future::AtomicWaker`]). Here that module is always built, so the
//!   feature adds nothing.
//! - `checkpoint`: in loom, lets `model::Builder::checkpoint_file`
//!   (`LOOM_CHECKPOINT_FILE`) save the exploration's progress every
//!   `checkpoint_interval` executions and resume from it (serde). Here it
//!   does nothing: rankcheck's exploration cannot resume from a saved
//!   point, and a failure's replay string (`RANKCHECK_REPLAY`) reruns the
//!   failing execution alone, which is what loom's checkpoints are used
//!   for ([`model::Builder`], its field `checkpoint_file`).

pub mod alloc;
pub mod cell;
pub mod future;
pub mod hint;
pub mod lazy_static;
pub mod model;
mod real_loom;
mod run;
pub mod sync;
pub mod thread;

pub use model::model;

/// The most threads a model may run, main included, as loom's
/// (`model::Builder::max_threads` defaults to it).
pub const MAX_THREADS: usize = 5;

/// loom's `explore`: lets loom branch again after [`stop_exploring`].
/// Here every schedule is explored throughout, so it does nothing (the
/// exploration covers what loom's would, and more).
pub fn explore() {}

/// loom's `stop_exploring`: loom stops branching until [`explore`]. Here
/// every schedule is explored throughout, so it does nothing (more
/// schedules, never fewer).
pub fn stop_exploring() {}

/// loom's `skip_branch`: loom branches no more in this execution. Here it
/// does nothing: every schedule is explored (more, never fewer).
pub fn skip_branch() {}

/// A thread-local per thread of the model, as loom's (rankcheck-rt's
/// `thread_local!`: built on the thread's first access, dropped as the
/// thread ends).
#[macro_export]
macro_rules! thread_local {
    ($($body:tt)*) => {
        $crate::__private::rt::thread_local!($($body)*);
    };
}

/// A static built on its first use in each execution, as loom's
/// (rankcheck-rt's `lazy_static!`: racing threads block until the first
/// finishes building it; its value is dropped when the execution ends).
#[macro_export]
macro_rules! lazy_static {
    ($($body:tt)*) => {
        $crate::__private::rt::lazy_static!($($body)*);
    };
}

/// What the macros' expansions name; not API.
#[doc(hidden)]
pub mod __private {
    pub use rankcheck_rt as rt;
}
