//! Panics as std has them: a panic caught with `catch_unwind` poisons the
//! lock its thread held and does not fail the run; a spawned thread's
//! panic is its `join`'s `Err`; only a panic nothing takes fails the run.

use std::panic::{self, AssertUnwindSafe};

use rankcheck::sync::{Arc, Mutex, PoisonError, RwLock, TryLockError};
use rankcheck::{thread, Builder};
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

fn search() -> Builder {
    Builder::new().seed(7).runs(100)
}

/// Panic while holding `lock`'s guard (made by `guard`), and catch it.
fn panic_holding<G>(guard: impl FnOnce() -> G) {
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        let _held = guard();
        panic!("dropped while panicking");
    }));
    assert!(caught.is_err());
}

/// The program, as written: no `AssertUnwindSafe` needed.
#[test]
fn a_lock_held_through_a_caught_panic_is_poisoned() {
    search().check(|| {
        let m = Mutex::new(0);
        let caught = panic::catch_unwind(|| {
            let _g = m.lock();
            panic!("while holding it")
        });
        assert!(caught.is_err());
        assert!(m.lock().is_err());
    });
}

#[test]
fn a_caught_panic_poisons_the_mutex_it_held() {
    search().check(|| {
        let m = Mutex::new(5);
        panic_holding(|| m.lock().unwrap());
        assert!(m.is_poisoned());
        let err = m.lock().expect_err("poisoned");
        assert_eq!(*err.into_inner(), 5, "the data is still there");
        assert!(matches!(m.try_lock(), Err(TryLockError::Poisoned(_))));
        m.clear_poison();
        assert!(!m.is_poisoned());
        *m.lock().unwrap() += 1;
        panic_holding(|| m.lock().unwrap());
        let mut m = m;
        assert_eq!(*m.get_mut().unwrap_err().into_inner(), 6);
        assert_eq!(m.into_inner().unwrap_err().into_inner(), 6);
    });
}

#[test]
fn a_caught_panic_poisons_a_rwlock_only_when_writing() {
    search().check(|| {
        let lock = RwLock::new(1);
        panic_holding(|| lock.read().unwrap());
        assert!(!lock.is_poisoned(), "a reader's panic does not poison");
        panic_holding(|| lock.write().unwrap());
        assert!(lock.is_poisoned());
        assert_eq!(*lock.read().unwrap_err().into_inner(), 1);
        assert!(lock.write().is_err());
        assert!(matches!(lock.try_read(), Err(TryLockError::Poisoned(_))));
        lock.clear_poison();
        assert!(lock.write().is_ok());
        panic_holding(|| lock.write().unwrap());
        assert_eq!(lock.into_inner().unwrap_err().into_inner(), 1);
    });
}

/// Another thread sees the poison: a worker panics while holding the
/// mutex, catches it, and main then finds the mutex poisoned; a second
/// mutex main held throughout is not.
#[test]
fn a_poisoned_mutex_is_poisoned_for_every_thread() {
    search().check(|| {
        let poisoned = Arc::new(Mutex::new(()));
        let clean = Arc::new(Mutex::new(()));
        let held = clean.lock().unwrap();
        let inner = poisoned.clone();
        thread::spawn(move || panic_holding(|| inner.lock().unwrap()))
            .join()
            .unwrap();
        assert!(matches!(poisoned.lock(), Err(PoisonError { .. })));
        drop(held);
        assert!(clean.lock().is_ok());
    });
}

/// A spawned thread's panic is `join`'s `Err`, carrying the payload, and
/// the run goes on (std's `join`), here with the mutex it held poisoned.
#[test]
fn join_returns_the_panic_of_the_thread() {
    search().check(|| {
        let m = Arc::new(Mutex::new(0));
        let inner = m.clone();
        let worker = thread::spawn(move || {
            let _held = inner.lock().unwrap();
            panic!("worker gives up");
        });
        let payload = worker.join().expect_err("the worker panicked");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"worker gives up"));
        assert!(m.is_poisoned());
    });
}

/// `join().unwrap()` on a thread that panicked fails the run, and the
/// report names the thread's panic (the cause) first.
#[test]
fn unwrapping_a_panicked_join_reports_the_threads_panic() {
    let report = panic_message(|| {
        search().check(|| {
            thread::Builder::new()
                .name("worker".into())
                .spawn(|| panic!("worker gives up"))
                .unwrap()
                .join()
                .unwrap();
        });
    })
    .expect("the run fails");
    assert!(
        report.starts_with(
            "error[panic]: worker gives up (then main, which took it from join, panicked at "
        ),
        "{report}"
    );
    assert!(report.contains("thread worker#1 fails here"), "{report}");
}

/// A panic in a thread nobody joins fails the run: nothing caught it.
#[test]
fn a_panic_nobody_joins_fails_the_run() {
    let report = panic_message(|| {
        search().check(|| {
            drop(thread::spawn(|| panic!("lost in a detached thread")));
        });
    })
    .expect("the run fails");
    assert!(
        report.starts_with("error[panic]: lost in a detached thread"),
        "{report}"
    );
}

/// A panic the test catches itself does not fail the run.
#[test]
fn a_caught_panic_does_not_fail_the_run() {
    let guarantee = search().check(|| {
        let caught = panic::catch_unwind(|| panic!("caught"));
        assert!(caught.is_err());
    });
    assert_eq!(guarantee.runs, 100);
}

/// A thread panics while holding a mutex and nobody joins it; main's
/// `lock().unwrap()` then fails on the poison, and the report says which
/// panic came first.
#[test]
fn a_failure_after_an_untaken_panic_names_it() {
    let report = panic_message(|| {
        search().check(|| {
            let m = Arc::new(Mutex::new(()));
            let inner = m.clone();
            let worker = thread::spawn(move || {
                let _held = inner.lock().unwrap();
                panic!("worker gives up");
            });
            while !worker.is_finished() {
                thread::yield_now();
            }
            drop(m.lock().unwrap());
        });
    })
    .expect("the run fails");
    assert!(
        report.starts_with("error[panic]: called `Result::unwrap()`"),
        "{report}"
    );
    assert!(report.contains("(after thread thread@"), "{report}");
    assert!(report.contains("panicked at "), "{report}");
    assert!(report.contains(": worker gives up)"), "{report}");
}
