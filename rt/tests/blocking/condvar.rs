//! `Condvar` as std's: `notify_one` wakes one of the threads waiting, the
//! scheduler's choice; `wait` may wake spuriously (a scheduling choice,
//! bounded per run, counted, off with `spurious_wakeups(0)`), while
//! `wait_while` never returns spuriously. A failure found through a
//! spurious wake-up replays.

use rankcheck::sync::{Arc, Condvar, Mutex};
use rankcheck::{thread, Builder};
use rankcheck_rt as rankcheck;

use crate::flag_setter;
use crate::support::panic_message;

fn search() -> Builder {
    Builder::new().runs(300).seed(5)
}

/// Two threads wait for a token; main hands out one, and checks that the
/// thread that waited longest took it, which std does not promise.
fn longest_waiter_first() {
    #[derive(Default)]
    struct State {
        waiting: Vec<usize>,
        tokens: usize,
        woken: Vec<usize>,
    }
    let shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
    let waiters: Vec<_> = (0..2)
        .map(|id| {
            let shared = shared.clone();
            thread::spawn(move || {
                let (state, cv) = &*shared;
                let mut s = state.lock().unwrap();
                s.waiting.push(id);
                while s.tokens == 0 {
                    s = cv.wait(s).unwrap();
                }
                s.tokens -= 1;
                s.woken.push(id);
            })
        })
        .collect();
    let (state, cv) = &*shared;
    while state.lock().unwrap().waiting.len() < 2 {
        thread::yield_now();
    }
    state.lock().unwrap().tokens += 1;
    cv.notify_one();
    loop {
        let s = state.lock().unwrap();
        if let Some(&first) = s.woken.first() {
            assert_eq!(first, s.waiting[0], "the longest waiter is woken first");
            break;
        }
        drop(s);
        thread::yield_now();
    }
    state.lock().unwrap().tokens += 1;
    cv.notify_one();
    for w in waiters {
        w.join().unwrap();
    }
}

#[test]
fn notify_one_may_wake_any_waiter() {
    let report = panic_message(|| {
        search().spurious_wakeups(0).check(longest_waiter_first);
    })
    .expect("a run wakes the second waiter");
    assert!(
        report.starts_with(
            "error[panic]: assertion `left == right` failed: the longest waiter is woken first"
        ),
        "{report}"
    );
    let replayed = panic_message(|| rankcheck::replay(longest_waiter_first, replay_of(&report)))
        .expect("the replay wakes the same waiter");
    assert!(
        replayed.starts_with("error[panic]: assertion `left == right` failed: the longest waiter"),
        "{replayed}"
    );
}

/// The replay string a report ends with.
fn replay_of(report: &str) -> &str {
    report
        .split("rankcheck::replay(test, \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the report ends with the replay call")
}

/// Waits for the flag with an `if` where a `while` is needed: correct
/// only if a wait never returns without a notification.
fn if_instead_of_while() {
    let (shared, setter) = flag_setter(false);
    let (flag, cv) = &*shared;
    let mut set = flag.lock().unwrap();
    if !*set {
        set = cv.wait(set).unwrap();
    }
    assert!(*set, "woken before the flag was set");
    drop(set);
    setter.join().unwrap();
}

#[test]
fn a_wait_without_its_loop_is_found_by_a_spurious_wakeup_and_replays() {
    search().spurious_wakeups(0).check(if_instead_of_while);
    let report = panic_message(|| {
        search().check(if_instead_of_while);
    })
    .expect("a spurious wake-up finds it");
    assert!(
        report.starts_with("error[panic]: woken before the flag was set"),
        "{report}"
    );
    assert!(report.contains("wakes spuriously: Condvar@"), "{report}");
    assert!(
        report.contains("the run woke spuriously 1 time"),
        "{report}"
    );
    let replayed = panic_message(|| rankcheck::replay(if_instead_of_while, replay_of(&report)))
        .expect("the replay fails");
    assert!(
        replayed.starts_with("error[panic]: woken before the flag was set"),
        "{replayed}"
    );
    assert!(
        replayed.contains("wakes spuriously: Condvar@"),
        "{replayed}"
    );
}

/// With the loop (`wait_while` has it inside), spurious wake-ups change
/// nothing; the guarantee counts them.
#[test]
fn wait_while_never_returns_spuriously() {
    let guarantee = search().spurious_wakeups(3).check(|| {
        let (shared, setter) = flag_setter(true);
        let (flag, cv) = &*shared;
        let set = cv.wait_while(flag.lock().unwrap(), |set| !*set).unwrap();
        assert!(*set);
        drop(set);
        setter.join().unwrap();
    });
    assert!(guarantee.spurious_wakeups > 0, "{guarantee}");
    assert!(guarantee.spurious_wakeups <= 3 * guarantee.runs);
    assert!(
        guarantee.to_string().contains("the runs woke spuriously"),
        "{guarantee}"
    );
}

#[test]
fn no_spurious_wakeup_when_turned_off() {
    let guarantee = search().spurious_wakeups(0).check(if_instead_of_while);
    assert_eq!(guarantee.spurious_wakeups, 0);
}
