//! The end of a run never runs a user's destructor where it could abort
//! the test process: a failed run leaks what its stopped threads hold (as
//! loom does), and a run that ended normally drops its waiting tasks'
//! futures in a plain context, as a runtime's shutdown does.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::Relaxed};

use rankcheck::sync::atomic::{AtomicBool, Ordering::SeqCst};
use rankcheck::sync::{Arc, Mutex};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

/// concurrent-queue's `Receiver`: its drop takes the queue's lock and
/// unwraps it, which panics on a poisoned lock.
struct Receiver(Arc<Mutex<Vec<u32>>>);

impl Drop for Receiver {
    fn drop(&mut self) {
        self.0.lock().unwrap().clear();
    }
}

/// Waits, yielding, until `flag` is set.
fn wait_for(flag: &AtomicBool) {
    while !flag.load(SeqCst) {
        thread::yield_now();
    }
}

#[test]
fn a_failure_while_another_thread_holds_a_lock_and_a_receiver_is_reported_not_aborted() {
    // Unwinding the stopped thread would drop its guard first (poisoning
    // the lock, as the unwinding is a panic) and then its receiver, whose
    // `lock().unwrap()` panics inside the unwinding: an abort.
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(50).seed(1).check(|| {
            let queue = Arc::new(Mutex::new(Vec::new()));
            let holding = Arc::new(AtomicBool::new(false));
            let receiver = Receiver(queue.clone());
            let _holder = {
                let holding = holding.clone();
                thread::spawn(move || {
                    let _receiver = receiver;
                    let mut items = queue.lock().unwrap();
                    items.push(1);
                    holding.store(true, SeqCst);
                    loop {
                        thread::yield_now();
                    }
                })
            };
            wait_for(&holding);
            panic!("the main thread's own bug");
        });
    })
    .expect("the run's panic fails the search");
    assert!(message.contains("the main thread's own bug"), "{message}");
}

/// A value whose drop checks that its owner finished with it, as
/// tokio's debug assertions in destructors do.
struct HalfDone {
    done: bool,
}

impl Drop for HalfDone {
    fn drop(&mut self) {
        assert!(self.done, "dropped half-done");
    }
}

#[test]
fn a_destructor_asserting_its_state_never_runs_on_a_thread_the_failure_stopped() {
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(50).seed(2).check(|| {
            let started = Arc::new(AtomicBool::new(false));
            let finish = Arc::new(AtomicBool::new(false));
            let _worker = {
                let started = started.clone();
                let finish = finish.clone();
                thread::spawn(move || {
                    let mut half = HalfDone { done: false };
                    started.store(true, SeqCst);
                    // Never set: the main thread fails first.
                    wait_for(&finish);
                    half.done = true;
                })
            };
            wait_for(&started);
            panic!("found it");
        });
    })
    .expect("the run's panic fails the search");
    assert!(message.contains("found it"), "{message}");
    assert!(!message.contains("half-done"), "{message}");
}

/// Counts the futures that hold it, as they are made and dropped.
static MADE: StdAtomicUsize = StdAtomicUsize::new(0);
static DROPPED: StdAtomicUsize = StdAtomicUsize::new(0);

struct CountsDrop;

impl CountsDrop {
    fn new() -> CountsDrop {
        MADE.fetch_add(1, Relaxed);
        CountsDrop
    }
}

impl Drop for CountsDrop {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Relaxed);
    }
}

#[test]
fn a_task_left_waiting_when_the_threads_finish_is_dropped_as_a_runtime_drops_it() {
    rankcheck::Builder::new().runs(40).seed(3).check(|| {
        let counted = CountsDrop::new();
        rankcheck::future::spawn(async move {
            let _counted = counted;
            std::future::pending::<()>().await;
        });
        rankcheck::future::spawn(async {
            let _half = HalfDone { done: false };
            // Its drop panics: caught, as tokio's shutdown catches it.
            std::future::pending::<()>().await;
        });
    });
    // Every run polled the first task (its future then waits) or never
    // started it; either way its future, which owns the counter from the
    // start, was dropped at the run's end.
    let made = MADE.load(Relaxed);
    assert!(made >= 40);
    assert_eq!(DROPPED.load(Relaxed), made);
}
