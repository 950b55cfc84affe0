//! Ported from awslabs/shuttle 0.9.9, `tests/basic/once.rs` (Apache-2.0).
//! Changed: shuttle's types to rankcheck's (the counters shuttle keeps in
//! std atomics, invisible to its scheduler, are rankcheck's); runners to
//! the helpers in `main.rs`; `shared_static` runs `rankcheck::explore` on
//! three OS threads at once (shuttle: `DfsScheduler` runners) 10 times, not
//! 50.
//! `basic_static_*` give each test its own static (shuttle's share one,
//! which rankcheck refuses while both tests run at once); `shared_static`
//! is ignored for that reason.
//! Skipped: none.

use std::collections::HashSet;
use std::panic;

use rankcheck::sync::atomic::{AtomicUsize, Ordering};
use rankcheck::sync::{Arc, Once};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::{check_dfs, check_pct};

fn basic<F>(num_threads: usize, checker: F)
where
    F: FnOnce(Box<dyn Fn() + Send + Sync + 'static>),
{
    let initializer = Arc::new(std::sync::Mutex::new(HashSet::new()));
    let initializer_clone = Arc::clone(&initializer);

    checker(Box::new(move || {
        let once = Arc::new(Once::new());
        let counter = Arc::new(AtomicUsize::new(0));

        assert!(!once.is_completed());

        let threads = (0..num_threads)
            .map(|_| {
                let once = Arc::clone(&once);
                let counter = Arc::clone(&counter);
                let initializer = Arc::clone(&initializer);
                thread::spawn(move || {
                    once.call_once(|| {
                        counter.fetch_add(1, Ordering::SeqCst);
                        initializer.lock().unwrap().insert(thread::current().id());
                    });

                    assert!(once.is_completed());
                    assert_eq!(counter.load(Ordering::SeqCst), 1);
                })
            })
            .collect::<Vec<_>>();

        for thread in threads {
            thread.join().unwrap();
        }

        assert!(once.is_completed());
        assert_eq!(counter.load(Ordering::SeqCst), 1);
    }));

    assert_eq!(initializer_clone.lock().unwrap().len(), num_threads);
}

#[test]
fn basic_dfs() {
    basic(2, check_dfs);
}

#[test]
fn basic_pct() {
    basic(10, |f| check_pct(f, 1000, 3));
}

// Same as `basic`, but with a static Once. Static synchronization primitives should be reset across
// executions, so this test should work exactly the same way.
//
// Shuttle's two tests share one static `O`; rankcheck refuses a static in
// use by two tests running at once on different OS threads (cargo test's
// default), so each test here has its own.
fn basic_static<F>(o: &'static Once, num_threads: usize, checker: F)
where
    F: FnOnce(Box<dyn Fn() + Send + Sync + 'static>),
{
    let initializer = Arc::new(std::sync::Mutex::new(HashSet::new()));
    let initializer_clone = Arc::clone(&initializer);

    checker(Box::new(move || {
        let counter = Arc::new(AtomicUsize::new(0));

        assert!(!o.is_completed());

        let threads = (0..num_threads)
            .map(|_| {
                let counter = Arc::clone(&counter);
                let initializer = Arc::clone(&initializer);
                thread::spawn(move || {
                    o.call_once(|| {
                        counter.fetch_add(1, Ordering::SeqCst);
                        initializer.lock().unwrap().insert(thread::current().id());
                    });

                    assert!(o.is_completed());
                    assert_eq!(counter.load(Ordering::SeqCst), 1);
                })
            })
            .collect::<Vec<_>>();

        for thread in threads {
            thread.join().unwrap();
        }

        assert!(o.is_completed());
        assert_eq!(counter.load(Ordering::SeqCst), 1);
    }));

    assert_eq!(initializer_clone.lock().unwrap().len(), num_threads);
}

#[test]
fn basic_static_dfs() {
    static O: Once = Once::new();
    basic_static(&O, 2, check_dfs);
}

#[test]
fn basic_static_pct() {
    static O: Once = Once::new();
    basic_static(&O, 10, |f| check_pct(f, 1000, 3));
}

// Test that multiple Once cells race for initialization independently
#[test]
fn multiple() {
    static O1: Once = Once::new();
    static O2: Once = Once::new();

    let initializer = Arc::new(std::sync::Mutex::new(HashSet::new()));
    let initializer_clone = Arc::clone(&initializer);

    check_dfs(move || {
        let counter = Arc::new(AtomicUsize::new(0));

        let thd = {
            let counter = Arc::clone(&counter);
            thread::spawn(move || {
                O1.call_once(|| {
                    counter.fetch_add(1, Ordering::SeqCst);
                });
                O2.call_once(|| {
                    counter.fetch_add(4, Ordering::SeqCst);
                });
            })
        };

        O1.call_once(|| {
            counter.fetch_add(2, Ordering::SeqCst);
        });
        O2.call_once(|| {
            counter.fetch_add(8, Ordering::SeqCst);
        });

        thd.join().unwrap();

        let counter = counter.load(Ordering::SeqCst);
        // lower two bits for C1, upper two bits for C2
        assert!(
            counter & (1 + 2) == 1 || counter & (1 + 2) == 2,
            "exactly one of the O1 calls should have run"
        );
        assert!(
            counter & (4 + 8) == 4 || counter & (4 + 8) == 8,
            "exactly one of the O2 calls should have run"
        );
        initializer.lock().unwrap().insert(counter);
    });

    let initializer = Arc::try_unwrap(initializer_clone)
        .unwrap()
        .into_inner()
        .unwrap();
    assert_eq!(initializer.len(), 4);
    assert!(initializer.contains(&5));
    assert!(initializer.contains(&6));
    assert!(initializer.contains(&9));
    assert!(initializer.contains(&10));
}

// Shuttle runs `DfsScheduler` runners, here `rankcheck::explore`, each
// returning the executions it ran.
// Ensure that concurrent Shuttle tests see an isolated version of a static Once cell. This test is
// best effort, as it spawns OS threads and hopes they race.
#[test]
#[ignore = "rankcheck refuses a static in use by tests running at once on other OS threads (a replacement value keeps its state inline, shared by every OS thread), where shuttle gives each test its own"]
fn shared_static() {
    static O: Once = Once::new();

    let counter = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut total_executions = 0;

    // Try a bunch of times to provoke the race
    for _ in 0..10 {
        #[allow(clippy::needless_collect)] // https://github.com/rust-lang/rust-clippy/issues/7207
        let threads = (0..3)
            .map(|_| {
                let counter = Arc::clone(&counter);
                std::thread::spawn(move || {
                    let explored = rankcheck::explore(
                        move || {
                            let thds = (0..2)
                                .map(|_| {
                                    let counter = Arc::clone(&counter);
                                    thread::spawn(move || {
                                        O.call_once(|| {
                                            counter.fetch_add(1, Ordering::SeqCst);
                                        });
                                    })
                                })
                                .collect::<Vec<_>>();

                            for thd in thds {
                                thd.join().unwrap();
                            }
                        },
                        1_000,
                        1_000,
                    );
                    assert!(explored.failures.is_empty() && explored.complete);
                    explored.schedules as usize
                })
            })
            .collect::<Vec<_>>();

        total_executions += threads
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .sum::<usize>();
    }

    // The Once cell should be initialized exactly once per test execution, otherwise the tests are
    // incorrectly sharing the Once cell
    assert_eq!(total_executions, counter.load(Ordering::SeqCst));
}

#[test]
fn poison() {
    static O: Once = Once::new();

    check_dfs(|| {
        let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
            O.call_once(|| {
                panic!("expected panic");
            })
        }));
        assert!(result.is_err(), "`call_once` should panic");

        let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
            O.call_once(|| {
                // no-op
            });
        }));
        assert!(result.is_err(), "cell should be poisoned");

        let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
            O.call_once_force(|state| {
                assert!(state.is_poisoned());
            });
        }));
        assert!(result.is_ok(), "`call_once_force` ignores poison");

        let result = panic::catch_unwind(panic::AssertUnwindSafe(|| {
            O.call_once(|| unreachable!("previous call should have initialized the cell"));
        }));
        assert!(result.is_ok(), "cell should no longer be poisoned");
    });
}

// Tests that `Once` state is preserved even if the `Once` is moved.
fn moved<F>(checker: F)
where
    F: FnOnce(Box<dyn Fn() + Send + Sync + 'static>),
{
    checker(Box::new(move || {
        let once = Box::new(Once::new());
        assert!(!once.is_completed());
        once.call_once(|| {});
        assert!(once.is_completed());

        // The `Once` is still completed, even if its moved to another address.
        let once = Box::new(*once);
        assert!(once.is_completed());

        // Other `Once`s are not completed.
        let different_once = Once::new();
        assert!(!different_once.is_completed());
    }));
}

#[test]
fn moved_dfs() {
    moved(check_dfs);
}
