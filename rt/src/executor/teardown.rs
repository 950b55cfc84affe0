//! The end of a run: what is left of its threads is dropped, or leaked
//! where dropping could run user code in a state the user never sees.
//!
//! Unwinding a thread stopped in the middle of its body runs the
//! destructors on its stack in an unwinding context, where a destructor
//! that panics (a `lock().unwrap()` on a mutex the unwinding poisoned, a
//! `debug_assert!` on state the run left half-updated) aborts the whole
//! test process. So, as loom does, a run that ended early (a failure: a
//! panic, a deadlock, the step limit, a replay that does not fit) leaks
//! what its stopped threads hold: their stacks, the bodies of threads that
//! never started, their thread-locals and the run's statics (the data of
//! a `Mutex` or `RwLock` a leaked guard holds is free for the next run:
//! crate::sync's `DataLock`). A failing run
//! is rare (the search stops at the first, the shrinker replays a few),
//! and a leaked stack is its touched pages and two memory mappings. A
//! process that has leaked [`LEAK_BUDGET`] stacks (an exploration that
//! keeps going past thousands of failing schedules) unwinds the threads
//! of later failed runs instead, as before, rather than run out of
//! mappings.
//!
//! A run that ended normally has only async tasks left (its threads all
//! finished), which are dropped as a runtime drops its tasks: a task
//! waiting between two polls has its future dropped in a plain context,
//! a destructor's panic caught and dropped with it (tokio's runtime does
//! the same), and then the rest of its stack, which holds none of the
//! user's values, is unwound. A task stopped in the middle of a poll
//! cannot be dropped without unwinding its poll: it is leaked.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rankcheck_engine::ThreadId;

use super::coroutine::{Job, Worker};
use super::{with, POOL};

/// The most threads' stacks a process leaks (module doc).
pub const LEAK_BUDGET: u64 = 4096;

/// The stacks this process's failed runs leaked.
static LEAKED: AtomicU64 = AtomicU64::new(0);

/// Drop or leak what the run's threads left (module doc); their operations
/// do nothing meanwhile. `workers` is left empty, its idle coroutines back
/// in the pool. Whether the run was leaked (a failure, within the
/// budget): what its statics hold is leaked too.
///
/// Newest first, and bodies that never ran before any: a scoped thread
/// (`thread::scope`) borrows from the frames of the older thread that
/// spawned it, which must still be there when its body and frames drop.
pub fn tear_down(workers: &mut Vec<Option<Worker>>) -> bool {
    let (failed, id) = with(|ex| {
        ex.aborting = true;
        (ex.failure.is_some(), ex.id)
    });
    let leak = failed && LEAKED.load(Relaxed) < LEAK_BUDGET;
    if leak {
        // The locks its leaked guards hold are free for the next run.
        crate::sync::abandon(id);
    }
    // Taken out first, dropped outside the borrow: a body's drop may do an
    // operation (which then only keeps its bookkeeping).
    let unstarted: Vec<Job> = with(|ex| {
        ex.threads
            .all
            .iter_mut()
            .rev()
            .filter_map(|thread| thread.job.take())
            .collect()
    });
    if leak {
        std::mem::forget(unstarted);
    } else {
        caught(|| drop(unstarted));
    }
    let count = workers.len();
    for (index, worker) in workers.drain(..).rev().enumerate() {
        let Some(worker) = worker else { continue };
        let thread = ThreadId((count - 1 - index) as u32);
        if !worker.busy() {
            POOL.with(|pool| pool.borrow_mut().put(worker));
        } else if leak {
            LEAKED.fetch_add(1, Relaxed);
            std::mem::forget(worker);
        } else if failed || cancel_task(thread) {
            worker.unwind();
        } else {
            // A task in the middle of a poll: never the case at a normal
            // end (`Threads::polling`), but leaked, not unwound, if it is.
            LEAKED.fetch_add(1, Relaxed);
            std::mem::forget(worker);
        }
    }
    crate::local::tear_down(leak);
    leak
}

/// Drop `thread`'s future if it is a task waiting between two polls:
/// whether it was dropped (and nothing of the user's is left on its
/// stack).
fn cancel_task(thread: ThreadId) -> bool {
    let future = with(|ex| ex.threads.get_mut(thread).future.take());
    match future {
        Some(future) => {
            let mut cancelled = false;
            caught(|| cancelled = future.cancel());
            cancelled
        }
        None => false,
    }
}

/// Run `f` (a drop) in a plain context: a panic in a destructor is
/// caught and dropped, as a runtime's shutdown does with a task's.
fn caught(f: impl FnOnce()) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
        // The payload's own drop may panic too: leak it.
        std::mem::forget(payload);
    }
}
