//! Async Rust under the same search: tasks, `block_on`, and tokio-shaped
//! synchronisation ([`sync`]) and time ([`time`]), and a run's virtual
//! clock ([`clock`]) for a runtime that keeps time.
//!
//! Each task is a thread to the strategies: its body polls its future
//! and, on `Pending`, waits to be woken; a wake that came while it was
//! polled is kept. Wakers are `std::task::Waker`s, so hand-written
//! futures work as under any executor. A thread waiting to be woken that
//! nothing wakes is a deadlock, reported with where its future was last
//! polled. A test is `rankcheck::check(|| rankcheck::future::block_on(async
//! { ... }))`.
//!
//! The synchronisation types keep their state in themselves, under std
//! mutexes that are never held across a scheduling point or a wake (a
//! switch there would find them locked on the same OS thread); each of
//! their operations is a scheduling point on the instance's object, so
//! each instance is a variable, as the thread types' are. Waking a task is
//! bookkeeping, never a switch: a waker may be woken anywhere, even in a
//! drop during a run's teardown. An instance made outside any run is
//! detached: its operations are only their own effect, as tokio's outside
//! a runtime. `sync/permits.rs` is the fair semaphore under the async locks
//! and the bounded channel.
//!
//! The parts: `task.rs` (a task and `block_on`), `tasks.rs` (each
//! thread's async state in the execution: woken, what it awaits, its armed
//! timers), [`sync`], [`time`] (timeouts as wake choices) and [`clock`]
//! (the tokio facade's virtual clock, moved to the earliest timer when no
//! thread can run, `wake::force_timeouts`). Under [`Flavor::CurrentThread`]
//! the others give way to the running thread at every point but a yield
//! (`executor::give_way::hide_others`). A run is over once the test's
//! non-task threads finished (`Threads::live`) and the tasks whose future
//! completed took their last step (`exiting`), which is cheaper than
//! unwinding them. [`choose`] is a choice among `n` for combinators, from
//! the run's wake bits, kept in the replay string with the early waits.

pub mod clock;
pub mod sync;
mod task;
mod tasks;
pub mod time;

pub use task::{block_on, spawn, yield_now, AbortHandle, JoinError, JoinHandle};

pub(crate) use tasks::{describe_wait, Tasks};

use crate::executor::{self, with};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op::Site;
use tasks::Awaited;

/// How a run's runtime shares its thread among tasks, as tokio's runtime
/// flavors do: a test runs under the multi-thread flavor unless it says
/// otherwise ([`set_flavor`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavor {
    /// Any thread may run between any two operations, as tasks of a
    /// multi-thread runtime (and threads) do.
    #[default]
    MultiThread,
    /// One task at a time, as on a current-thread runtime (tokio's
    /// `#[tokio::test]` default): the running thread is switched away from
    /// only where it returns `Pending` (it blocks, or yields having woken
    /// itself) or ends, and the search chooses which task runs next. Every
    /// thread of the run shares that one thread, `spawn_blocking`'s and
    /// `rankcheck::thread`'s included.
    CurrentThread,
}

/// Run the rest of the run under `flavor`: what a facade's runtime sets
/// before it polls its first task (the tokio facade's `#[tokio::test]`, by
/// its `flavor` option).
///
/// # Panics
/// Outside a test run.
pub fn set_flavor(flavor: Flavor) {
    with(|ex| ex.tasks.flavor = flavor);
}

/// One of `n` alternatives (`0..n`), chosen by the search as a runtime
/// chooses at random: which ready branch a `select!` takes first, say.
/// Drawn from the run's seed and kept in the replay string, so a replay
/// makes the same choice; always 0 under `rankcheck::explore`, which
/// draws nothing. Not a scheduling point.
///
/// # Panics
/// When `n` is 0, or outside a test run.
pub fn choose(n: usize) -> usize {
    assert!(n > 0, "rankcheck: choose among no alternatives");
    if n == 1 {
        return 0;
    }
    let bits = usize::BITS - (n - 1).leading_zeros();
    let drawn = with(|ex| (0..bits).fold(0, |value, _| value << 1 | usize::from(ex.wakes.bit())));
    drawn % n
}

/// Make an async object of kind `kind` at `site`: in a run, an object of
/// the running thread, a variable; outside any run, a detached one, whose
/// operations are their own effect only (`op::async_step`), as tokio's
/// sync types work outside a runtime (a plain `#[test]` that makes a
/// channel and closes it, say).
pub(crate) fn create(kind: ObjectKind, site: Site, sync: SyncState) -> Handle {
    executor::with_present(|ex| ex.create(kind, site, sync)).unwrap_or_else(Handle::detached)
}

/// The running thread, or (outside any run, for a detached object's
/// bookkeeping) the main thread's id.
pub(crate) fn running_thread() -> rankcheck_engine::ThreadId {
    executor::with_present(|ex| ex.current).unwrap_or(rankcheck_engine::ThreadId(0))
}

/// A std mutex of the async runtime's, never poisoned: nothing panics
/// while holding one.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The running thread's future awaits `what` of `handle`'s object (for a
/// deadlock's report), polled at `site`.
pub(crate) fn awaits(handle: &Handle, what: &'static str, site: Site) {
    if !executor::active() {
        return;
    }
    with(|ex| {
        let running = ex.current;
        ex.touch(crate::footprint::Place::Everything, true);
        ex.tasks
            .awaits(running, Awaited::Object(handle.object, what), site);
    });
}
