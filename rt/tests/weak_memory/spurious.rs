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

#[test]
fn without_spurious_failures_a_lone_retry_loop_has_one_schedule() {
    static MOST_ATTEMPTS: StdAtomicUsize = StdAtomicUsize::new(0);
    let explored = rankcheck::Exploration::new(1_000, 1_000)
        .memory_model(MemoryModel::Weak)
        .spurious_cas_failures(false)
        .run(|| {
            let count = AtomicUsize::new(0);
            MOST_ATTEMPTS.fetch_max(increment(&count), StdRelaxed);
        });
    assert!(
        explored.complete && explored.failures.is_empty(),
        "{explored:?}"
    );
    assert_eq!(explored.schedules, 1, "the attempt that would succeed does");
    assert_eq!(MOST_ATTEMPTS.load(StdRelaxed), 1);
}

/// The main thread increments with a weak compare-exchange, then reads
/// the other thread's flag and the count with `Relaxed`: it fails when it
/// saw the flag yet read its own increment, which the other thread's
/// store had overwritten (a stale read, a choice made after the
/// compare-exchange's).
fn increment_then_read_stale() {
    use rankcheck::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let count = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let other = {
        let (count, done) = (count.clone(), done.clone());
        thread::spawn(move || {
            count.store(5, Relaxed);
            done.store(true, Relaxed);
        })
    };
    increment(&count);
    let saw_done = done.load(Relaxed);
    let seen = count.load(Relaxed);
    other.join().unwrap();
    assert!(
        !(saw_done && seen == 1),
        "read its own increment after the flag"
    );
}

#[test]
fn a_failure_found_without_spurious_failures_replays_with_them_offered() {
    let explored = rankcheck::Exploration::new(10_000, 1_000)
        .memory_model(MemoryModel::Weak)
        .spurious_cas_failures(false)
        .stop_at_first_failure()
        .run(increment_then_read_stale);
    let run = explored
        .first_failing
        .as_ref()
        .expect("the stale read is reached");
    // The compare-exchange's choice, not offered, kept its ordinal: a
    // replay, which offers it, lines the later read choices up the same.
    let replay = run.replay.clone();
    let message =
        std::panic::catch_unwind(|| rankcheck::replay(increment_then_read_stale, &replay))
            .expect_err("a replay panics")
            .downcast::<String>()
            .map(|m| *m)
            .unwrap_or_default();
    assert!(
        message.contains("read its own increment after the flag"),
        "{replay}: {message}"
    );
}
