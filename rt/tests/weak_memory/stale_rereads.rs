//! A stale value does not stay visible forever: a thread that reads again
//! a store it has already read, while a newer one exists, does so at most
//! twice in a row for that atomic. A spin loop that never yields, entered
//! after the store it waits for was made (as saa's wait queue spins once
//! its result is set), therefore ends under the exhaustive exploration,
//! where it would otherwise read the stale value until the step limit.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::Relaxed as StdRelaxed};

use rankcheck::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

/// Every store of `x` is made before `done` is set, and nothing orders
/// them for the waiter: once it sees `done`, it spins on `x` without
/// yielding, and each of its loads may read a stale `x`. The most loads
/// of `x` one run's spin took.
fn spin_after_the_stores(most_loads: &'static StdAtomicUsize) {
    let x = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (x, done) = (x.clone(), done.clone());
        thread::spawn(move || {
            x.store(1, Relaxed);
            x.store(2, Relaxed);
            done.store(1, Relaxed);
        })
    };
    while done.load(Relaxed) == 0 {
        thread::give_way();
    }
    let mut loads = 1;
    while x.load(Relaxed) != 2 {
        loads += 1;
    }
    most_loads.fetch_max(loads, StdRelaxed);
    writer.join().unwrap();
}

#[test]
fn a_spin_loop_that_never_yields_sees_the_latest_store_at_last() {
    static MOST_LOADS: StdAtomicUsize = StdAtomicUsize::new(0);
    let explored = rankcheck::explore_memory(
        || spin_after_the_stores(&MOST_LOADS),
        100_000,
        1_000,
        MemoryModel::Weak,
    );
    assert!(
        explored.complete && explored.failures.is_empty(),
        "{explored:?}"
    );
    // 0 read three times, then 1 three times, then 2.
    assert_eq!(MOST_LOADS.load(StdRelaxed), 7);
}
