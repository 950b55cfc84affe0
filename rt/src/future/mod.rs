//! Async Rust under the same search: tasks, `block_on`, and tokio-shaped
//! synchronisation ([`sync`]) and time ([`time`]).
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
//! each instance is a variable, as the thread types' are.

pub mod sync;
mod task;
mod tasks;
pub mod time;

pub use task::{block_on, spawn, yield_now, JoinError, JoinHandle};
pub(crate) use tasks::{describe_wait, Tasks};

use crate::executor::{self, with};
use crate::object::Handle;
use crate::op::Site;
use tasks::Awaited;

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
        ex.tasks
            .awaits(running, Awaited::Object(handle.object, what), site);
    });
}

/// A choice among `alternatives` (at least 1) that the search makes, for
/// combinators that poll their futures in an order of their choosing (the
/// tokio facade's `select!` starts at the branch this chooses): uniform,
/// drawn from the run's seed, and kept in the replay string, so a failing
/// run replays with the same choices. Not a scheduling point. Outside a
/// check, the first (0).
pub fn choose(alternatives: usize) -> usize {
    if alternatives <= 1 || !executor::active() {
        return 0;
    }
    with(|ex| ex.wakes.choose(alternatives))
}
