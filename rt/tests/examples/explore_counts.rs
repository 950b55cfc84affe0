//! How many schedules `rankcheck::explore` runs on small shapes, and that
//! its reduction reaches what the full search does: the same failures,
//! and (each shape failing with its outcome) the same outcomes.
//!
//! A search runs a schedule where a race of an earlier one asks for the
//! other order of two steps that touch a common place (and one writes
//! it), plus schedules cut short: those whose every thread that can run
//! is asleep (it would only reorder steps of a schedule already run),
//! which finish without adding to the search.

use std::collections::BTreeSet;

use rankcheck::{MemoryModel, Reached};
use rankcheck_rt as rankcheck;

use super::shapes;

const MAX_STEPS: u64 = 1_000;

fn explore(test: fn()) -> rankcheck::Explored {
    let explored = rankcheck::explore(test, 1_000_000, MAX_STEPS);
    assert!(explored.complete);
    explored
}

/// The failures of the reduced and of the full search of `test`, which
/// must both complete within `budget` schedules.
fn both(test: fn(), model: MemoryModel, budget: u64) -> (BTreeSet<Reached>, BTreeSet<Reached>) {
    let reduced = rankcheck::explore_memory(test, budget, MAX_STEPS, model);
    let full = rankcheck::__private::explore_unreduced(test, budget, MAX_STEPS, model);
    assert!(
        reduced.complete && full.complete,
        "{} {}",
        reduced.schedules,
        full.schedules
    );
    assert!(reduced.schedules <= full.schedules);
    (reduced.failures, full.failures)
}

fn assert_same(name: &str, test: fn(), model: MemoryModel, budget: u64) {
    let (reduced, full) = both(test, model, budget);
    assert!(!full.is_empty(), "{name}: the full search reaches nothing");
    assert_eq!(reduced, full, "{name}");
}

#[test]
fn steps_on_different_atomics_and_mutexes_commute() {
    // Main's write and the new thread's commute: no race, so the one
    // schedule is all (sleep sets alone ran the other order too, cut
    // short: 2 and 3).
    assert_eq!(explore(shapes::different_atomics).schedules, 1);
    assert_eq!(explore(shapes::different_mutexes).schedules, 1);
}

#[test]
fn spawn_and_join_of_independent_threads() {
    // A join that must wait changed nothing: the only schedule of one
    // independent thread. With more, each thread's end races with main's
    // join of it (it finds it ended, or waits): 2^(k-1) (sleep sets
    // alone: 1, 8, 59).
    assert_eq!(explore(|| shapes::independent_threads(1)).schedules, 1);
    assert_eq!(explore(|| shapes::independent_threads(2)).schedules, 2);
    assert_eq!(explore(|| shapes::independent_threads(3)).schedules, 4);
}

#[test]
fn barriers_channels_and_condvars_finish_in_few_schedules() {
    // n threads wait at a barrier, then each writes one shared atomic.
    // (Sleep sets alone: 16, 371, 8 and 97.)
    assert_eq!(explore(|| shapes::barrier(2, false)).schedules, 8);
    assert_eq!(explore(|| shapes::barrier(3, false)).schedules, 144);
    assert_eq!(explore(|| shapes::ping_pong(3, false)).schedules, 5);
    assert_eq!(
        explore(|| shapes::producer_consumer(3, false)).schedules,
        71
    );
}

#[test]
fn the_reduction_reaches_every_outcome_of_the_full_search() {
    assert_same(
        "barrier",
        || shapes::barrier(2, true),
        MemoryModel::Sc,
        10_000,
    );
    assert_same(
        "ping-pong",
        || shapes::ping_pong(2, true),
        MemoryModel::Sc,
        10_000,
    );
    assert_same(
        "producer/consumer",
        || shapes::producer_consumer(2, true),
        MemoryModel::Sc,
        10_000,
    );
    assert_same(
        "spawn tree",
        || shapes::spawn_tree(1, 2, true),
        MemoryModel::Sc,
        10_000,
    );
}

#[test]
fn under_a_preemption_bound_the_reduction_reaches_every_failure_of_the_bounded_search() {
    use shapes::buggy;
    let cases: [(&str, fn()); 6] = [
        ("lock order", buggy::lock_order),
        ("try_lock", buggy::try_lock_counter),
        ("notify_one of two", buggy::notify_one_of_two),
        ("lost notification", buggy::lost_notification),
        ("channels", buggy::channels),
        ("two barriers", buggy::barrier_twice),
    ];
    for (name, test) in cases {
        for bound in 0..=2 {
            let bounded = rankcheck::Exploration::new(200_000, MAX_STEPS).preemption_bound(bound);
            let reduced = bounded.clone().run(test);
            let full = bounded.unreduced().run(test);
            assert!(reduced.complete && full.complete, "{name}, bound {bound}");
            assert!(reduced.schedules <= full.schedules, "{name}, bound {bound}");
            assert_eq!(reduced.failures, full.failures, "{name}, bound {bound}");
        }
    }
}

#[test]
fn the_reduction_reaches_every_failure_of_the_full_search() {
    use shapes::buggy;
    let cases: [(&str, fn()); 11] = [
        ("lock order", buggy::lock_order),
        ("try_lock", buggy::try_lock_counter),
        ("notify_one of two", buggy::notify_one_of_two),
        ("bounded senders", buggy::bounded_senders),
        ("nested spawn", buggy::nested_spawn),
        ("lost notification", buggy::lost_notification),
        ("channels", buggy::channels),
        ("park and unpark", buggy::park_unpark),
        ("rwlock and once", buggy::rwlock_once),
        ("panics", buggy::panics),
        ("two barriers", buggy::barrier_twice),
    ];
    for (name, test) in cases {
        assert_same(name, test, MemoryModel::Sc, 200_000);
    }
}

#[test]
fn under_weak_memory_the_reduction_reaches_every_outcome() {
    let (reduced, full) = both(shapes::store_buffering, MemoryModel::Weak, 200_000);
    assert_eq!(reduced, full);
    let outcomes: Vec<&str> = full.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        outcomes,
        ["outcome 0 0", "outcome 0 1", "outcome 1 0", "outcome 1 1"]
    );
}

/// A time limit stops the search at its next check: four threads adding
/// twice to one counter have 2,520.
#[test]
fn a_time_limit_stops_the_exploration_and_says_so() {
    let explored = rankcheck::Exploration::new(u64::MAX, 1_000)
        .time_limit(std::time::Duration::ZERO)
        .run(four_threads_add_twice);
    assert!(explored.timed_out && !explored.complete, "{explored:?}");
    assert!(explored.schedules < 2_520, "{explored:?}");
}

/// Four threads add twice to one counter: 2,520 schedules.
fn four_threads_add_twice() {
    use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let count = rankcheck::sync::Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let count = count.clone();
            rankcheck::thread::spawn(move || {
                count.fetch_add(1, SeqCst);
                count.fetch_add(1, SeqCst);
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

/// Where runs are slow the time limit is checked after every run that
/// ends 100 ms past the last check, not only every 256 runs: runs of 10 ms
/// stop within a few runs of a 200 ms limit (of 2,520 schedules).
#[test]
fn a_time_limit_is_not_overshot_by_slow_runs() {
    let explored = rankcheck::Exploration::new(u64::MAX, 1_000)
        .time_limit(std::time::Duration::from_millis(200))
        .run(|| {
            four_threads_add_twice();
            // Real time, outside the runtime: a slow test body.
            std::thread::sleep(std::time::Duration::from_millis(10));
        });
    assert!(explored.timed_out && !explored.complete, "{explored:?}");
    assert!(explored.schedules < 100, "{explored:?}");
}
