//! A thread that re-reads one value of an atomic without yielding gives
//! way after a few loads (as saa 5.6's wait queue spins under loom): a
//! schedule that stops the writer between its two stores does not keep
//! the spinner running to the step limit.

use rankcheck::sync::atomic::{AtomicUsize, Ordering::Acquire, Ordering::Release};
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
