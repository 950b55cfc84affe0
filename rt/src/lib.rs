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
//! by its type, its creation site, the thread that created it and its
//! place among that thread's creations there.

mod builder;
pub mod cell;
mod executor;
mod failure;
mod object;
mod op;
mod panic_capture;
mod plan;
mod replay_string;
mod report;
mod search;
mod shrink;
pub mod sync;
pub mod thread;
mod trace;
mod var;

pub use builder::{Builder, Priorities, Strategy, Vars};
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

/// Rerun the failing run that `replay` (the string a failure report ends
/// with) describes: panics with its report. Panics with an explanation
/// when the string is corrupt or the run does not fail (the test changed).
pub fn replay<F>(test: F, replay: &str)
where
    F: Fn() + Send + Sync + 'static,
{
    search::replay(
        std::sync::Arc::new(test),
        replay,
        builder::DEFAULT_MAX_STEPS,
    )
}
