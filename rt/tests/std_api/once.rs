//! `Once`, `OnceLock`, `LazyLock` and `lazy_static!`: one initialisation
//! per run, a racing thread blocks until it is done, and statics start
//! every run uninitialised.

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::{LazyLock, Mutex, Once, OnceLock};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

static INIT: Once = Once::new();
static INITIALISED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn call_once_runs_once_per_run_and_racers_wait_for_it() {
    rankcheck::Builder::new().runs(300).seed(5).check(|| {
        let init = || {
            INIT.call_once(|| {
                thread::yield_now();
                INITIALISED.fetch_add(1, SeqCst);
            });
            // Whoever returns from call_once sees the initialisation done.
            assert_eq!(INITIALISED.load(SeqCst), 1);
            assert!(INIT.is_completed());
        };
        let other = thread::spawn(init);
        init();
        other.join().unwrap();
    });
}

static CHOSEN: OnceLock<u32> = OnceLock::new();

#[test]
fn a_static_once_lock_is_empty_at_every_runs_start_and_either_racer_may_win() {
    let winners = std::sync::Arc::new(StdMutex::new(BTreeSet::new()));
    let seen = winners.clone();
    rankcheck::Builder::new().runs(200).seed(8).check(move || {
        assert_eq!(CHOSEN.get(), None);
        let other = thread::spawn(|| *CHOSEN.get_or_init(|| 2));
        let mine = CHOSEN.get_or_init(|| 1);
        let theirs = other.join().unwrap();
        assert_eq!(*mine, theirs);
        assert_eq!(CHOSEN.set(3), Err(3));
        seen.lock().unwrap().insert(theirs);
    });
    // Both orders ran: p = 1/2 per run that either wins first.
    assert_eq!(*winners.lock().unwrap(), BTreeSet::from([1, 2]));
}

static BUILT: AtomicUsize = AtomicUsize::new(0);
static TABLE: LazyLock<Mutex<Vec<u32>>> = LazyLock::new(|| {
    BUILT.fetch_add(1, SeqCst);
    Mutex::new(vec![0])
});

rankcheck::lazy_static! {
    /// A doc comment, as lazy_static takes.
    static ref NAMES: Vec<&'static str> = vec!["a", "b"];
}

#[test]
fn lazy_statics_are_built_once_in_every_run() {
    rankcheck::Builder::new().runs(200).seed(2).check(|| {
        let other = thread::spawn(|| TABLE.lock().unwrap().push(1));
        TABLE.lock().unwrap().push(2);
        other.join().unwrap();
        // Built anew in this run, from the initialiser, exactly once.
        assert_eq!(TABLE.lock().unwrap().len(), 3);
        assert_eq!(BUILT.load(SeqCst), 1);
        assert_eq!(NAMES.len(), 2);
    });
}

static REENTERED: Once = Once::new();

#[test]
fn an_initialiser_that_reaches_its_own_once_deadlocks() {
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(10).seed(1).check(|| {
            REENTERED.call_once(|| REENTERED.call_once(|| {}));
        });
    })
    .expect("a deadlock");
    assert!(message.contains("deadlock"), "{message}");
    assert!(
        message.contains("REENTERED"),
        "named by its static: {message}"
    );
}

/// Values of `FAREWELL` dropped, counted outside rankcheck's view.
static FAREWELLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts its drops.
struct Farewell;

impl Drop for Farewell {
    fn drop(&mut self) {
        FAREWELLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

static FAREWELL: LazyLock<Farewell> = LazyLock::new(|| Farewell);

#[test]
fn a_static_value_is_dropped_at_the_end_of_its_run() {
    let guarantee = rankcheck::Builder::new()
        .runs(30)
        .profile_runs(5)
        .seed(1)
        .check(|| {
            let _ = &*FAREWELL;
        });
    // One value per run, the 5 preparatory runs included, each dropped.
    assert_eq!(guarantee.runs, 30);
    assert_eq!(FAREWELLS.load(std::sync::atomic::Ordering::SeqCst), 35);
}

#[test]
fn an_initialiser_that_panics_poisons_the_once_as_std_does() {
    rankcheck::Builder::new().runs(20).seed(1).check(|| {
        let once = Once::new();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            once.call_once(|| panic!("initialiser fails"));
        }));
        assert!(caught.is_err());
        assert!(!once.is_completed());
        let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            once.call_once(|| {});
        }));
        assert!(again.is_err(), "a poisoned Once refuses call_once");
        let mut saw_poison = false;
        once.call_once_force(|state| saw_poison = state.is_poisoned());
        assert!(saw_poison && once.is_completed());
        // A OnceLock whose initialiser panicked stays empty, as std's.
        let cell = OnceLock::new();
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cell.get_or_init(|| -> u32 { panic!("no value") });
        }));
        assert!(failed.is_err());
        assert_eq!(cell.get_or_init(|| 4), &4);
    });
}
