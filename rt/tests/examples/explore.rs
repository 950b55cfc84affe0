//! `rankcheck::explore`: every schedule of a small test, with the failures
//! each reaches, located.

use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::{Arc, Mutex};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

const MAX_STEPS: u64 = 10_000;

/// Two threads increment with a load and a store: one update can be lost.
fn lost_update() {
    let a = Arc::new(AtomicUsize::new(0));
    let other = {
        let a = a.clone();
        thread::spawn(move || {
            let v = a.load(SeqCst);
            a.store(v + 1, SeqCst);
        })
    };
    let v = a.load(SeqCst);
    a.store(v + 1, SeqCst);
    other.join().unwrap();
    assert_eq!(a.load(SeqCst), 2, "an update was lost");
}

#[test]
fn a_lost_update_is_the_one_failure_reached() {
    let explored = rankcheck::explore(lost_update, 10_000, MAX_STEPS);
    assert!(explored.complete);
    let failures: Vec<_> = explored.failures.iter().collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].kind, "panic");
    assert!(failures[0].message.contains("an update was lost"));
    assert!(failures[0].file.as_deref().unwrap().ends_with("explore.rs"));
    assert_eq!(failures[0].line, Some(24));
}

#[test]
fn a_correct_test_reaches_no_failure() {
    let explored = rankcheck::explore(
        || {
            let a = Arc::new(AtomicUsize::new(0));
            let other = {
                let a = a.clone();
                thread::spawn(move || a.fetch_add(1, SeqCst))
            };
            a.fetch_add(1, SeqCst);
            other.join().unwrap();
            assert_eq!(a.load(SeqCst), 2);
        },
        10_000,
        MAX_STEPS,
    );
    assert!(explored.complete);
    assert!(explored.failures.is_empty(), "{:?}", explored.failures);
}

#[test]
fn a_lock_order_inversion_deadlocks_with_both_threads_blocked() {
    let explored = rankcheck::explore(
        || {
            let locks = Arc::new((Mutex::new(()), Mutex::new(())));
            let other = {
                let locks = locks.clone();
                thread::spawn(move || {
                    let _b = locks.1.lock().unwrap();
                    let _a = locks.0.lock().unwrap();
                })
            };
            let _a = locks.0.lock().unwrap();
            let _b = locks.1.lock().unwrap();
            drop((_a, _b));
            other.join().unwrap();
        },
        10_000,
        MAX_STEPS,
    );
    assert!(explored.complete);
    let deadlock = explored
        .failures
        .iter()
        .find(|f| f.kind == "deadlock")
        .expect("the inversion deadlocks");
    let lines: Vec<u32> = deadlock.blocked.iter().map(|(_, line)| *line).collect();
    // The spawned thread's second lock, and main's.
    assert_eq!(lines, vec![68, 72]);
}

/// Accesses to different atomics commute: the search runs far fewer
/// schedules than the interleavings of the two threads' steps.
#[test]
fn independent_accesses_are_not_reordered() {
    let explored = rankcheck::explore(
        || {
            let (a, b) = (Arc::new(AtomicUsize::new(0)), AtomicUsize::new(0));
            let other = {
                let a = a.clone();
                thread::spawn(move || (0..4).for_each(|k| a.store(k, SeqCst)))
            };
            (0..4).for_each(|k| b.store(k, SeqCst));
            other.join().unwrap();
        },
        10_000,
        MAX_STEPS,
    );
    assert!(explored.complete);
    // The 8 stores of two threads alone interleave in C(8, 4) = 70 ways;
    // only where the new thread starts, and the ends, are orders to try.
    assert!(explored.schedules < 35, "{} schedules", explored.schedules);
}

#[test]
fn the_schedule_budget_stops_the_search() {
    let explored = rankcheck::explore(lost_update, 2, MAX_STEPS);
    assert!(!explored.complete);
    assert_eq!(explored.schedules, 2);
}

/// A thread stores to an atomic while main loads it; every other run of
/// the process (`runs` counts them, outside rankcheck's control) main
/// first takes four more steps on an atomic of its own, so the test is
/// not a function of its schedule.
fn every_other_run_longer(runs: &'static std::sync::atomic::AtomicUsize) {
    if runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 2 == 1 {
        let own = AtomicUsize::new(0);
        for _ in 0..4 {
            own.load(SeqCst);
        }
    }
    let a = Arc::new(AtomicUsize::new(0));
    let other = {
        let a = a.clone();
        thread::spawn(move || a.store(1, SeqCst))
    };
    a.load(SeqCst);
    other.join().unwrap();
}

#[test]
fn a_test_not_a_function_of_its_schedule_stops_the_search_without_a_panic() {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let explored = rankcheck::explore(|| every_other_run_longer(&RUNS), 10_000, MAX_STEPS);
    // The first run replays nothing; the second replays its first choices
    // and finds the spawned thread not started yet.
    let found = explored
        .nondeterminism
        .clone()
        .expect("the nondeterminism is found");
    assert_eq!(found.schedule, 2, "{explored:?}");
    assert!(
        !explored.complete && explored.failures.is_empty(),
        "{explored:?}"
    );
    let said = found.to_string();
    assert!(
        said.starts_with("the test took other decisions on the same schedule (run 2"),
        "{said}"
    );
    // A test that is a function of its schedule has none.
    assert_eq!(
        rankcheck::explore(lost_update, 10_000, MAX_STEPS).nondeterminism,
        None
    );
}

#[test]
fn a_preemption_bound_covers_exactly_the_schedules_within_it() {
    // The lost update needs a preemption between one thread's load and
    // its store: a bound of 0 covers no such schedule, a bound of 1 does.
    let none = rankcheck::Exploration::new(10_000, MAX_STEPS)
        .preemption_bound(0)
        .run(lost_update);
    assert!(none.complete && none.failures.is_empty(), "{none:?}");
    let one = rankcheck::Exploration::new(10_000, MAX_STEPS)
        .preemption_bound(1)
        .run(lost_update);
    assert!(one.complete, "{one:?}");
    assert_eq!(one.failures.len(), 1, "{one:?}");
    let unbounded = rankcheck::explore(lost_update, 10_000, MAX_STEPS);
    assert!(none.schedules < one.schedules && one.schedules <= unbounded.schedules);
}
