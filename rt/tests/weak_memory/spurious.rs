//! `compare_exchange_weak` fails spuriously under weak memory, at most
//! once in a row per thread and atomic: a retry loop's schedules are
//! finite, so the exhaustive exploration ends without a step-limit
//! failure, and still sees the spurious failure.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::Relaxed as StdRelaxed};

use rankcheck::sync::atomic::{AtomicUsize, Ordering::AcqRel, Ordering::Acquire};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

/// Increment `count` with a weak compare-exchange retry loop; the number
/// of attempts it took.
fn increment(count: &AtomicUsize) -> usize {
    let mut seen = count.load(Acquire);
    let mut attempts = 1;
    while let Err(now) = count.compare_exchange_weak(seen, seen + 1, AcqRel, Acquire) {
        seen = now;
        attempts += 1;
    }
    attempts
}

#[test]
fn a_lone_retry_loop_explores_one_spurious_failure_then_success() {
    static MOST_ATTEMPTS: StdAtomicUsize = StdAtomicUsize::new(0);
    let explored = rankcheck::explore_memory(
        || {
            let count = AtomicUsize::new(0);
            MOST_ATTEMPTS.fetch_max(increment(&count), StdRelaxed);
        },
        1_000,
        1_000,
        MemoryModel::Weak,
    );
    assert!(
        explored.complete && explored.failures.is_empty(),
        "{explored:?}"
    );
    assert_eq!(
        explored.schedules, 2,
        "success at once, or one spurious failure first"
    );
    assert_eq!(MOST_ATTEMPTS.load(StdRelaxed), 2);
}

#[test]
fn two_threads_retry_loops_are_explored_to_the_end() {
    let explored = rankcheck::explore_memory(
        || {
            let count = Arc::new(AtomicUsize::new(0));
            let other = {
                let count = count.clone();
                thread::spawn(move || increment(&count))
            };
            increment(&count);
            other.join().unwrap();
            assert_eq!(count.load(Acquire), 2);
        },
        100_000,
        1_000,
        MemoryModel::Weak,
    );
    assert!(explored.complete, "{explored:?}");
    assert!(explored.failures.is_empty(), "{:?}", explored.failures);
}
