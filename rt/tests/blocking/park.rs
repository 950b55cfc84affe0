//! `thread::park`, `park_timeout` and `Thread::unpark` behave as std's: an
//! unpark that comes first is kept as the thread's token, a park may wake
//! spuriously (a scheduling choice, bounded per run), a park nobody
//! unparks is otherwise a deadlock, and `park_timeout` never waits for
//! good.

use rankcheck::sync::atomic::{AtomicBool, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder};
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

fn search() -> Builder {
    Builder::new().runs(500).seed(11)
}

/// Without spurious wake-ups: a park returns only after an unpark.
fn no_spurious() -> Builder {
    search().spurious_wakeups(0)
}

/// A flag, and a worker that sets it, then unparks the running thread.
fn set_then_unpark() -> (Arc<AtomicBool>, thread::JoinHandle<()>) {
    let flag = Arc::new(AtomicBool::new(false));
    let main = thread::current();
    let set = flag.clone();
    let worker = thread::spawn(move || {
        set.store(true, Ordering::SeqCst);
        main.unpark();
    });
    (flag, worker)
}

/// The worker sets the flag, then unparks main; main parks until it sees
/// the flag. An unpark before the park is not lost, so every run ends.
#[test]
fn an_unpark_before_the_park_is_kept() {
    search().check(|| {
        let (flag, worker) = set_then_unpark();
        while !flag.load(Ordering::SeqCst) {
            thread::park();
        }
        worker.join().unwrap();
    });
}

/// The worker unparks main before setting the flag: main can wake and read
/// it unset. The search finds that order and reports the failed assert.
#[test]
fn an_unpark_before_the_store_is_found() {
    let report = panic_message(|| {
        no_spurious().check(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let main = thread::current();
            let set = flag.clone();
            let worker = thread::spawn(move || {
                main.unpark();
                set.store(true, Ordering::SeqCst);
            });
            thread::park();
            assert!(flag.load(Ordering::SeqCst), "woken before the flag was set");
            worker.join().unwrap();
        });
    })
    .expect("the search finds the early wakeup");
    assert!(
        report.starts_with("error[panic]: woken before the flag was set"),
        "{report}"
    );
    assert!(report.contains("unpark main"), "{report}");
    assert!(report.contains(" park"), "main parks: {report}");
}

#[test]
fn a_park_nobody_unparks_is_a_deadlock() {
    let report = panic_message(|| {
        no_spurious().check(thread::park);
    })
    .expect("main parks for good");
    assert!(report.starts_with("error[deadlock]"), "{report}");
    assert!(report.contains("waits to be unparked"), "{report}");
}

/// A loop that polls with `park_timeout` and is never unparked ends: the
/// timeout may fire, so it is no deadlock.
#[test]
fn park_timeout_never_waits_for_good() {
    search().check(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let set = flag.clone();
        let worker = thread::spawn(move || set.store(true, Ordering::SeqCst));
        while !flag.load(Ordering::SeqCst) {
            thread::park_timeout(std::time::Duration::from_millis(10));
        }
        worker.join().unwrap();
    });
}

/// A park outside a `while` loop, trusting that it returns only after the
/// unpark, is found wrong by a spurious wake-up, even though the unpark
/// comes after the store.
#[test]
fn a_park_without_its_loop_is_found_by_a_spurious_wakeup() {
    let parked = |spurious| {
        panic_message(|| {
            search().spurious_wakeups(spurious).check(|| {
                let (flag, worker) = set_then_unpark();
                thread::park();
                assert!(flag.load(Ordering::SeqCst), "woken before the flag was set");
                worker.join().unwrap();
            });
        })
    };
    assert_eq!(parked(0), None, "correct without spurious wake-ups");
    let report = parked(1).expect("a spurious wake-up finds it");
    assert!(report.contains("wakes spuriously: park"), "{report}");
    assert!(
        report.contains("rankcheck::replay(test, \"rc4:"),
        "{report}"
    );
}

/// A `park_timeout` that times out while the unparking thread could still
/// run is found: the caller that takes its return for an unpark fails.
#[test]
fn a_park_timeout_taken_for_an_unpark_is_found() {
    let report = panic_message(|| {
        search().spurious_wakeups(0).check(|| {
            let (flag, worker) = set_then_unpark();
            thread::park_timeout(std::time::Duration::from_secs(60));
            assert!(
                flag.load(Ordering::SeqCst),
                "timed out before the flag was set"
            );
            worker.join().unwrap();
        });
    })
    .expect("the timeout fires first in some run");
    assert!(report.contains("times out: park"), "{report}");
}
