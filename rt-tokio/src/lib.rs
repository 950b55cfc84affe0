//! A tokio-shaped facade over rankcheck-rt's async runtime: a crate
//! written against tokio switches to rankcheck's search by a dependency
//! rename under a feature, and its `#[tokio::test]`s then run under the
//! search (the user guide, `docs/guide/src/rust/tokio.md`).
//!
//! ```
//! use rankcheck_tokio as tokio;
//! use tokio::sync::Mutex;
//! use std::sync::Arc;
//!
//! #[tokio::test(runs = 100, seed = 1)]
//! async fn two_tasks_count_to_two() {
//!     let count = Arc::new(Mutex::new(0));
//!     let other = tokio::spawn({
//!         let count = count.clone();
//!         async move { *count.lock().await += 1 }
//!     });
//!     *count.lock().await += 1;
//!     other.await.unwrap();
//!     assert_eq!(*count.lock().await, 2);
//! }
//! ```
//!
//! What is here is rankcheck-rt's `future` module under tokio's paths
//! (tasks and `JoinSet`, `sync`), `time` on the run's virtual clock, the
//! `runtime` shapes with their flavor, and the macros `select!`, `join!`,
//! `try_join!`, `pin!` and `#[test]`; what tokio has beyond that (I/O,
//! networking, `fs`, `process`, `signal`, `broadcast`, `#[tokio::main]`,
//! ...) is not, under any of the Cargo features, which are tokio's names
//! and enable nothing.
//!
//! The macros are `macro_rules!` wrappers that pass this crate's path
//! (`$crate`) to the procedural macros of `rt-tokio/macros/`
//! (`rankcheck-tokio-macros`): `select!` (each poll starting at the branch
//! `future::choose` picks), `join!` and `try_join!`, and `#[tokio::test]`
//! (which sets the run's flavor, pauses time for `start_paused` and passes
//! the rest to `#[rankcheck::test]` around `block_on`).
//! `examples/async-service/` is a crate written against real tokio whose
//! tests switch to this facade with `--features rankcheck`.

pub mod runtime;
pub mod sync;
pub mod task;
pub mod time;

pub use rankcheck_rt::future::spawn;
pub use rankcheck_tokio_macros::test;

/// Wait on several futures and run the handler of the first that
/// completes with an output matching its pattern, as `tokio::select!`:
/// `pattern = future, if condition => handler`, then an optional
/// `else => handler` for when every branch is disabled. Each poll starts
/// at a branch the search chooses (tokio starts at a random one), so when
/// several are ready every outcome is explored, and a failing run's
/// replay string repeats the choices; `biased;` first polls in source
/// order.
#[macro_export]
macro_rules! select {
    ($($input:tt)*) => {
        $crate::__private::select_inner!({ $crate } $($input)*)
    };
}

/// Poll futures concurrently within the task until all complete, as
/// `tokio::join!`: the tuple of their outputs. Each poll starts at a
/// future the search chooses (`biased;`: source order).
#[macro_export]
macro_rules! join {
    ($($input:tt)*) => {
        $crate::__private::join_inner!({ $crate } $($input)*)
    };
}

/// Poll futures of `Result`s concurrently until all are `Ok` (the tuple of
/// the values) or one is `Err` (that error, the others dropped), as
/// `tokio::try_join!`. Each poll starts at a future the search chooses.
#[macro_export]
macro_rules! try_join {
    ($($input:tt)*) => {
        $crate::__private::try_join_inner!({ $crate } $($input)*)
    };
}

/// Pin values on the stack, as `tokio::pin!`: each variable named is
/// shadowed by a `Pin<&mut _>` of its value (`pin!(a, b)`), or each
/// `let` binding is made and pinned (`pin! { let a = f(); }`).
#[macro_export]
macro_rules! pin {
    ($($x:ident),* $(,)?) => {
        $(
            #[allow(unused_mut)]
            let mut $x = ::core::pin::pin!($x);
        )*
    };
    ($(let $x:ident = $init:expr;)*) => {
        $(
            let $x = $init;
            $crate::pin!($x);
        )*
    };
}

/// What the macros' expansions name; not API.
#[doc(hidden)]
pub mod __private {
    pub use rankcheck_rt as rt;
    pub use rankcheck_rt::future::choose;
    pub use rankcheck_tokio_macros::{join_inner, select_inner, try_join_inner};
}
