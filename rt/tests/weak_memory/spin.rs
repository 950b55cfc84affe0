//! A thread that re-reads one value of an atomic without yielding gives
//! way after a few loads (as saa 5.6's wait queue spins under loom): a
//! schedule that stops the writer between its two stores does not keep
//! the spinner running to the step limit.

use rankcheck::cell::UnsafeCell;
use rankcheck::sync::atomic::{
    AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

/// The writer stores 1, then 2; the main thread waits for 1 giving way,
/// then for 2 spinning without a yield.
fn wait_for_the_second_store() {
    let state = Arc::new(AtomicUsize::new(0));
    let writer = {
        let state = state.clone();
        thread::spawn(move || {
            state.store(1, Release);
            state.store(2, Release);
        })
    };
    loop {
        match state.load(Acquire) {
            0 => thread::give_way(),
            1 => {}
            _ => break,
        }
    }
    writer.join().unwrap();
}

#[test]
fn a_spin_without_a_yield_gives_way_to_the_writer_it_waits_for() {
    let explored =
        rankcheck::explore_memory(wait_for_the_second_store, 100_000, 1_000, MemoryModel::Weak);
    assert!(
        explored.complete && explored.failures.is_empty(),
        "{explored:?}"
    );
}

/// The spawned thread polls `flag` four times (a bounded retry that gives
/// way once it spun) and then stores 2; the main thread first writes a
/// cell of its own, then reads `flag`.
fn poll_then_store() {
    let flag = Arc::new(AtomicUsize::new(0));
    let poller = {
        let flag = flag.clone();
        thread::spawn(move || {
            for _ in 0..4 {
                if flag.load(Relaxed) == 2 {
                    break;
                }
            }
            flag.store(2, Release);
        })
    };
    let own = UnsafeCell::new(0);
    own.with_mut(std::hint::black_box);
    let seen = flag.load(Acquire);
    poller.join().unwrap();
    panic!("read {seen}");
}

#[test]
fn a_spin_that_gives_way_wakes_the_threads_the_exploration_put_to_sleep() {
    // The main thread's load sleeps while the poller's loads (which
    // commute with it) run; giving way after the fourth must wake it,
    // else the schedules where it reads the store are never run.
    let messages = |explored: rankcheck::Explored| -> Vec<String> {
        assert!(explored.complete, "{explored:?}");
        explored.failures.into_iter().map(|f| f.message).collect()
    };
    let reduced = rankcheck::explore_memory(poll_then_store, 10_000, 1_000, MemoryModel::Weak);
    let full =
        rankcheck::__private::explore_unreduced(poll_then_store, 10_000, 1_000, MemoryModel::Weak);
    assert_eq!(messages(reduced), messages(full));
}
