//! `thread::scope`: scoped threads borrow from the caller's stack, are all
//! joined at the scope's end, and a run that fails while they hold borrows
//! tears them down before the frames they borrow from.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::SeqCst as StdSeqCst};

use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::Mutex;
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

#[test]
fn scoped_threads_borrow_the_callers_locals_and_are_all_joined() {
    rankcheck::Builder::new().runs(300).seed(3).check(|| {
        let counter = Mutex::new(0);
        let items = String::from("abc");
        let total = thread::scope(|s| {
            let handle = s.spawn(|| items.len());
            s.spawn(|| *counter.lock().unwrap() += 1);
            s.spawn(|| *counter.lock().unwrap() += 1);
            handle.join().unwrap()
        });
        // Every scoped thread finished: also the two never joined.
        assert_eq!(*counter.lock().unwrap(), 2);
        assert_eq!(total, 3);
    });
}

#[test]
fn a_race_between_scoped_threads_is_found() {
    // A lost update: both load 0 before either stores. Random choices at
    // the two loads and stores find it within a few runs.
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(1000).seed(5).check(|| {
            let hits = AtomicUsize::new(0);
            thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        let seen = hits.load(SeqCst);
                        hits.store(seen + 1, SeqCst);
                    });
                }
            });
            assert_eq!(hits.load(SeqCst), 2, "lost update");
        });
    })
    .expect("the lost update is found");
    assert!(message.contains("lost update"), "{message}");
}

#[test]
fn handles_say_whether_their_thread_finished_and_carry_names() {
    rankcheck::Builder::new().runs(100).seed(1).check(|| {
        let data = [5u8; 4];
        thread::scope(|s| {
            let named = thread::Builder::new()
                .name("worker".into())
                .spawn_scoped(s, || data.len())
                .unwrap();
            assert!(named.thread().name().unwrap().starts_with("worker"));
            while !named.is_finished() {
                thread::yield_now();
            }
            assert_eq!(named.join().unwrap(), 4);
        });
    });
}

/// Set when a scoped thread's destructor ran after the frame it borrows
/// from was gone.
static USE_AFTER_FREE: StdAtomicUsize = StdAtomicUsize::new(0);

/// A value on the scope owner's stack that knows whether it was dropped.
struct Canary {
    alive: std::sync::atomic::AtomicBool,
}

impl Drop for Canary {
    fn drop(&mut self) {
        self.alive.store(false, StdSeqCst);
    }
}

/// Held by a scoped thread: checks, as it drops, that the canary it
/// borrows is still alive.
struct Borrower<'a>(&'a Canary);

impl Drop for Borrower<'_> {
    fn drop(&mut self) {
        if !self.0.alive.load(StdSeqCst) {
            USE_AFTER_FREE.fetch_add(1, StdSeqCst);
        }
    }
}

#[test]
fn a_failed_run_never_drops_a_scoped_thread_after_the_frames_it_borrows() {
    // A scoped thread holds a borrow of the owner's canary while it waits
    // for a lock the owner holds; then the owner, or another scoped thread,
    // panics, and the scope waits for the borrower: the run fails. The
    // teardown leaks the borrower's stack (crate::executor's teardown), so
    // its borrow is never dropped after the owner's frames (and the
    // canary) go.
    for scoped_thread_panics in [false, true] {
        let message = panic_message(|| {
            rankcheck::Builder::new().runs(20).seed(9).check(move || {
                let canary = Canary {
                    alive: std::sync::atomic::AtomicBool::new(true),
                };
                let gate = Mutex::new(());
                let waiting = AtomicUsize::new(0);
                let held = gate.lock().unwrap();
                let wait_for_borrower = || {
                    while waiting.load(SeqCst) == 0 {
                        thread::yield_now();
                    }
                };
                thread::scope(|s| {
                    s.spawn(|| {
                        let _borrow = Borrower(&canary);
                        waiting.fetch_add(1, SeqCst);
                        let _g = gate.lock().unwrap();
                    });
                    if scoped_thread_panics {
                        s.spawn(|| {
                            wait_for_borrower();
                            panic!("a scoped thread fails");
                        });
                    } else {
                        wait_for_borrower();
                        panic!("the owner fails mid-scope");
                    }
                });
                drop(held);
            });
        })
        .expect("the run fails");
        // A deadlock, or the scoped thread's panic that nothing took.
        assert!(
            message.contains("deadlock") || message.contains("a scoped thread fails"),
            "{message}"
        );
    }
    assert_eq!(USE_AFTER_FREE.load(StdSeqCst), 0);
}

#[test]
fn a_scoped_threads_panic_is_its_joins_err_or_else_the_scopes() {
    rankcheck::Builder::new().runs(50).seed(2).check(|| {
        // Taken from join: the scope returns.
        let taken = thread::scope(|s| s.spawn(|| panic!("scoped")).join().is_err());
        assert!(taken);
        // Not joined: the scope panics once all are joined, as std's.
        let scope_panicked = std::panic::catch_unwind(|| {
            thread::scope(|s| {
                s.spawn(|| panic!("unjoined"));
            })
        });
        let payload = scope_panicked.expect_err("the scope panics");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"a scoped thread panicked")
        );
    });
}

#[test]
fn a_panic_in_the_scopes_closure_waits_for_its_threads() {
    // The closure panics while a scoped thread still works on a local: the
    // scope joins it before the panic goes on, as std's.
    rankcheck::Builder::new().runs(100).seed(6).check(|| {
        let done = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            thread::scope(|s| {
                s.spawn(|| {
                    thread::yield_now();
                    done.fetch_add(1, SeqCst);
                });
                panic!("closure fails");
            })
        }));
        assert!(caught.is_err());
        assert_eq!(done.load(SeqCst), 1);
    });
}
