//! rankcheck's search on real Rust code.
//!
//! Write the test with this crate's `thread` and `sync` in place of std's
//! (the usual `cfg` import swap), and run it under [`check`]:
//!
//! ```
//! use rankcheck_rt as rankcheck;
//! use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
//! use rankcheck::sync::Arc;
//! use rankcheck::thread;
//!
//! let guarantee = rankcheck::Builder::new().runs(200).seed(1).check(|| {
//!     let hits = Arc::new(AtomicUsize::new(0));
//!     let other = {
//!         let hits = hits.clone();
//!         thread::spawn(move || hits.fetch_add(1, SeqCst))
//!     };
//!     hits.fetch_add(1, SeqCst);
//!     other.join().unwrap();
//!     assert_eq!(hits.load(SeqCst), 2);
//! });
//! assert_eq!(guarantee.runs, 200);
//! ```
//!
//! Every run executes the closure once, its threads as coroutines on the
//! calling OS thread, under one of the engine's schedulers (the same PCT,
//! PCTVB, thread-bounded priorities, POS, URW, SURW and portfolio as the
//! `rankcheck` command). A failing run (a panic in any thread, a deadlock,
//! the step limit) panics with the report the command prints, ending with a
//! string that [`replay`] reruns exactly; a clean search returns the
//! [`Guarantee`] it earned. Both are the command's own report, rendered by
//! the same crate (`rankcheck-report`), and [`Builder::json`] writes the
//! JSON document the command's `--format json` prints.
//!
//! Every instance of a replacement type is a variable, known across runs
//! by its type, its creation site and its place among that site's values
//! the run has used so far (a channel, cell or async type: among its
//! creating thread's). Values register with the run
//! on their first use, so `Mutex`, `RwLock`, `Condvar`, `Once`,
//! `OnceLock`, `LazyLock` and the atomics have `const fn new` and can be
//! `static`: a static starts every run afresh (its lock state, an atomic's
//! initial value, an empty `OnceLock`) and stays the same variable; a
//! static lock whose data a run changed is refused in the next
//! (`docs/guide/src/rust/intercepted.md`, Statics).
//!
//! Beyond threads and locks: [`thread::scope`] (scoped threads, which
//! never outlive the frames they borrow, also when a run fails),
//! [`thread_local!`] (a value per test thread, dropped as it ends),
//! `Once`/`OnceLock`/`LazyLock` and [`lazy_static!`] (one initialisation
//! per run), and the test attribute:
//!
//! ```
//! use rankcheck_rt as rankcheck;
//!
//! #[rankcheck::test(runs = 1000, seed = 7, strategy = "pctvb", depth = 2, vars = 1)]
//! fn counter_is_exact() {
//!     // The check's closure: threads, locks, assertions.
//! }
//! ```
//!
//! What loom's tests need beyond std's API is here too (the
//! `rankcheck-loom` facade is built on it): [`thread::spawn_local`] (no
//! `Send` bounds), [`thread::give_way`] (loom's yield, with which a spin
//! loop ends under [`explore`]), [`cell::Cell`] and the access-holding
//! pointers [`cell::UnsafeCell::get`] and [`cell::UnsafeCell::get_mut_ptr`];
//! under weak memory, an access to an `UnsafeCell`'s data that races with
//! another thread's fails the run with loom's `Causality violation`.
//!
//! Async code runs under the same search ([`future`]): tasks are threads
//! to the strategies, polled again only once their waker is woken, with
//! tokio-shaped synchronisation and time; a test is
//! `rankcheck::check(|| rankcheck::future::block_on(async { ... }))`.
//!
//! Every check reads `RANKCHECK_SEED`, `RANKCHECK_RUNS`, `RANKCHECK_TIME`
//! and `RANKCHECK_REPLAY` from the environment, over the test's own
//! settings, and `RANKCHECK_FIRST_RUN` and `RANKCHECK_RECORDS`, with which
//! `rankcheck nightly` runs it as a chunk of a campaign
//! (`docs/guide/src/nightly/rust-tests.md`); and a failing run that its replay does not repeat is reported
//! as uncontrolled nondeterminism, with the scheduling point where they
//! parted.
//!
//! The types behave as std documents them
//! (`docs/guide/src/rust/intercepted.md`):
//! `try_lock`, `try_read`, `try_write` and `try_send` decide at their own
//! scheduling point and never block; a panic caught with `catch_unwind`
//! poisons the locks its thread held, and a spawned thread's panic is its
//! `join`'s `Err` (the run fails only with a panic nothing takes);
//! `notify_one` wakes a waiter of the scheduler's choosing; `Condvar::wait`
//! and `thread::park` may wake spuriously and timed waits may time out,
//! each a choice drawn per wait within the run's budgets
//! ([`Builder::spurious_wakeups`], [`Builder::timeouts`]) and recorded in
//! the replay string, never the clock's; under the priority strategies a
//! yield gives way at once.
//!
//! # How it is built
//!
//! The engine's strategies decide; this crate runs the test under them.
//! The drop-in types (`thread`, `sync`, `cell`, `future`, with `scope.rs`,
//! `local.rs` and `lazy_static!`) send every operation through `op/`,
//! which asks for the scheduling point due, keeps the executor's
//! bookkeeping and ends the step when it must. `executor/` runs one
//! execution, its threads as coroutines; `object.rs` is each instance's
//! synchronisation state, `var.rs` the variables' and threads' identities
//! across runs, `lazy.rs` a value's registration on its first use.
//! `search.rs` is a search phase by phase as the command's (the options
//! in the engine's planning terms: `plan.rs`; a long search's line:
//! `progress.rs`), `shrink.rs` the engine's shrinking on the executor,
//! `trace.rs` the failing run's interleaving, `divergence.rs` where its
//! replay parts from it, `report/` the shared report's models, and
//! `replay_string.rs` the string a failure ends with. `memory/` is weak
//! memory and data races, `wake.rs` the waits that end early,
//! `panic_capture.rs` a panic as a failure, `explore/` every schedule
//! (with `footprint.rs`), and `environment.rs` and `campaign.rs` the
//! `RANKCHECK_*` settings and a campaign's records.

mod builder;
mod campaign;
pub mod cell;
mod divergence;
mod environment;
mod executor;
mod explore;
mod failure;
mod footprint;
pub mod future;
mod lazy;
mod local;
mod memory;
mod object;
mod op;
mod panic_capture;
mod plan;
mod progress;
mod replay_string;
mod report;
mod scope;
mod search;
mod shrink;
mod source_name;
pub mod sync;
pub mod thread;
mod trace;
mod var;
mod wake;

pub use builder::{
    Builder, Priorities, Strategy, UnknownStrategy, Vars, DEFAULT_MAX_RUNS, DEFAULT_MAX_TIME,
};
pub use explore::{
    explore, explore_memory, Exploration, Explored, FailingRun, Nondeterminism, Reached,
};
pub use memory::MemoryModel;
pub use rankcheck_rt_macros::test;

/// What the test attribute's expansion and the crate's own tests call;
/// not API.
#[doc(hidden)]
pub mod __private {
    pub use crate::builder::attribute_strategy as strategy;
    pub use crate::environment::duration;
    pub use crate::executor::foreign_wakes::never_wait_in_this_test;
    pub use crate::explore::explore_unreduced;
    pub use crate::object::ObjectKind;
    pub use crate::plan::plan_search;
}
pub use report::{Guarantee, SettingGuarantee};

/// Search `test` with the command line's defaults (the portfolio, runs
/// until every setting's guarantee reaches 0.99, a fresh seed): panics with
/// the report of the first failing run, else returns the guarantee.
#[track_caller]
pub fn check<F>(test: F) -> Guarantee
where
    F: Fn() + Send + Sync + 'static,
{
    Builder::new().check(test)
}

/// Whether a run is going on on this OS thread: the caller is inside the
/// closure given to [`check`], [`replay`] or an exploration, in one of its
/// threads or its teardown. This crate's types work anywhere (their `new`
/// is `const`); a facade whose types belong to one run, as loom's do,
/// asks it before making one.
pub fn in_run() -> bool {
    lazy::running_execution() != 0
}

/// The run going on on this OS thread, as a number no other run of the
/// process has; `None` outside a run (where [`in_run`] is false). A facade
/// whose objects belong to one run, as loom's do, keys them by it.
pub fn run_id() -> Option<std::num::NonZeroU64> {
    std::num::NonZeroU64::new(lazy::running_execution())
}

/// Rerun the failing run that `replay` (the string a failure report ends
/// with) describes: panics with its report. Panics with an explanation
/// when the string is corrupt or the run does not fail (the test changed).
/// Every panic points at the caller.
#[track_caller]
pub fn replay<F>(test: F, replay: &str)
where
    F: Fn() + Send + Sync + 'static,
{
    search::replay(
        std::sync::Arc::new(test),
        replay,
        executor::StepLimit::operations(builder::DEFAULT_MAX_STEPS),
    )
}
