//! awslabs/shuttle 0.9.9's own test suite (`tests/basic`, Apache-2.0),
//! ported to rankcheck-rt as a user would port it: one module per shuttle
//! file, each with a header saying what changed and which tests were
//! skipped as shuttle-internal. Shuttle's entry points map to rankcheck's
//! (the helpers below): `check_dfs` to [`rankcheck::explore`], every
//! schedule; `check_random(f, n)` to the `Random` strategy for `n` runs;
//! `check_pct(f, n, d)` (and `Runner::new(PctScheduler::new(d, n))`) to
//! `Pct` at depth `d`; shuttle's `check` (round robin) to the default
//! portfolio. Every search has a fixed seed, and iteration counts are
//! shuttle's or smaller where shuttle used thousands, each test keeping
//! its power to find its bug at that seed.
//!
//! Ported: `basic/{atomic, barrier, condvar, lazy_static, mpsc, mutex,
//! once, panic, pct, rwlock, thread, timeout}.rs` and
//! `demo/{bounded_buffer, surw}.rs` (their async tests wait for the
//! future port). Skipped as shuttle-internal: `basic/{tracing,
//! labels, tag, annotation, metrics, clocks, resource_signatures}.rs` and
//! `execution_state_global_subscriber.rs` (its tracing subscriber, labels,
//! tags, annotations, metrics, vector clocks, resource signatures),
//! `basic/{dfs, config, shrink, portfolio}.rs` (they count its DFS's
//! executions or drive its scheduler API), `data/random.rs` (its
//! scheduler-controlled `rand`, which rankcheck has not), `basic/task.rs`
//! (its task signatures, read through its tracing events),
//! `basic/uncontrolled_nondeterminism.rs` (its checking scheduler, which
//! runs every schedule twice, and its `rand`), `ui/` (its compile-fail
//! tests). Not yet ported: `basic/{execution, replay, teardown}.rs`,
//! `advanced/`,
//! and (waiting for `rankcheck::future`) `future/` and
//! `demo/async_match_deadlock.rs`.

use rankcheck::{Builder, Strategy};
use rankcheck_rt as rankcheck;

mod atomic;
mod barrier;
mod bounded_buffer;
mod condvar;
mod lazy_static;
mod mpsc;
mod mutex;
mod once;
mod panic;
mod pct;
mod rwlock;
mod surw;
mod thread;
mod timeout;

#[path = "../support/mod.rs"]
mod support;

/// The seed of every sampled search here.
const SEED: u64 = 3;

/// Shuttle's `check_dfs(f, None)`: every schedule; a failure panics with
/// its kind and message, as shuttle's does.
pub fn check_dfs<F>(f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    let explored = rankcheck::explore(f, 200_000, 10_000);
    if let Some(reached) = explored.failures.first() {
        panic!("{}: {}", reached.kind, reached.message);
    }
    assert!(explored.complete, "the schedules outnumber the bound");
}

/// Shuttle's `check_random(f, runs)`.
pub fn check_random<F>(f: F, runs: u64)
where
    F: Fn() + Send + Sync + 'static,
{
    Builder::new()
        .strategy(Strategy::Random)
        .seed(SEED)
        .runs(runs)
        .check(f);
}

/// Shuttle's `check_pct(f, runs, depth)`.
pub fn check_pct<F>(f: F, runs: u64, depth: u32)
where
    F: Fn() + Send + Sync + 'static,
{
    Builder::new()
        .strategy(Strategy::Pct)
        .depth(depth)
        .seed(SEED)
        .runs(runs)
        .check(f);
}

/// Shuttle's `check` (one round-robin run): the default search, seeded.
pub fn check<F>(f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    Builder::new().seed(SEED).runs(100).check(f);
}

/// A set of outcomes the test's runs record from inside the search (a std
/// mutex: recording is no scheduling point), read after it.
pub type Observed<T> = std::sync::Arc<std::sync::Mutex<std::collections::HashSet<T>>>;

/// An empty [`Observed`].
pub fn observed<T>() -> Observed<T> {
    Default::default()
}

/// The outcomes recorded.
pub fn outcomes<T: Clone + Eq + std::hash::Hash>(
    observed: &Observed<T>,
) -> std::collections::HashSet<T> {
    observed.lock().unwrap().clone()
}
