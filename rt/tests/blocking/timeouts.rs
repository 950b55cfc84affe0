//! Timeouts as scheduling choices, never the clock's: `wait_timeout`,
//! `wait_timeout_while`, `park_timeout` (tests/blocking/park.rs) and
//! `recv_timeout` may time out while another thread could run (bounded
//! per run by `Builder::timeouts`), and always do when none can, so code
//! whose timeout path is wrong is found, and a wait nobody ends is no
//! deadlock.

use std::time::Duration;

use rankcheck::sync::mpsc::{channel, RecvTimeoutError};
use rankcheck::sync::{Condvar, Mutex};
use rankcheck::{thread, Builder};
use rankcheck_rt as rankcheck;

use crate::flag_setter;
use crate::support::panic_message;

const LONG: Duration = Duration::from_secs(3600);

fn search() -> Builder {
    Builder::new().runs(300).seed(6).spurious_wakeups(0)
}

/// Waits for a flag another thread sets, giving up at the first timeout,
/// then asserts the flag: wrong once the timeout can fire first.
fn gives_up_at_the_timeout() {
    let (shared, setter) = flag_setter(false);
    let (flag, cv) = &*shared;
    let mut set = flag.lock().unwrap();
    while !*set {
        let (guard, result) = cv.wait_timeout(set, LONG).unwrap();
        set = guard;
        if result.timed_out() {
            break;
        }
    }
    assert!(*set, "gave up waiting");
    drop(set);
    setter.join().unwrap();
}

#[test]
fn a_wrong_timeout_path_is_found() {
    search().timeouts(0).check(gives_up_at_the_timeout);
    let report = panic_message(|| {
        search().check(gives_up_at_the_timeout);
    })
    .expect("a timeout fires before the flag is set");
    assert!(
        report.starts_with("error[panic]: gave up waiting"),
        "{report}"
    );
    assert!(report.contains("times out: Condvar@"), "{report}");
    assert!(report.contains("timed out 1 time"), "{report}");
}

/// Nobody notifies: the timeout fires (no other thread can run), whatever
/// the budget, and the wait says so.
#[test]
fn a_wait_nobody_ends_times_out() {
    search().timeouts(0).check(|| {
        let (m, cv) = (Mutex::new(()), Condvar::new());
        let (_guard, result) = cv.wait_timeout(m.lock().unwrap(), LONG).unwrap();
        assert!(result.timed_out());
    });
}

/// `wait_timeout_while` returns timed out exactly when the condition
/// still holds; both ends happen.
#[test]
fn wait_timeout_while_times_out_only_while_the_condition_holds() {
    let guarantee = search().timeouts(2).check(|| {
        let (shared, setter) = flag_setter(true);
        let (flag, cv) = &*shared;
        let (set, result) = cv
            .wait_timeout_while(flag.lock().unwrap(), LONG, |set| !*set)
            .unwrap();
        assert_eq!(result.timed_out(), !*set);
        drop(set);
        setter.join().unwrap();
    });
    assert!(guarantee.timeouts > 0, "{guarantee}");
}

#[test]
fn recv_timeout_may_time_out_before_the_message() {
    let expects_the_message = || {
        let (tx, rx) = channel();
        let sender = thread::spawn(move || tx.send(1).unwrap());
        match rx.recv_timeout(LONG) {
            Ok(v) => assert_eq!(v, 1),
            Err(RecvTimeoutError::Timeout) => panic!("timed out before the message"),
            Err(RecvTimeoutError::Disconnected) => panic!("the sender is gone"),
        }
        sender.join().unwrap();
    };
    search().timeouts(0).check(expects_the_message);
    let report = panic_message(|| {
        search().check(expects_the_message);
    })
    .expect("the timeout fires first in some run");
    assert!(
        report.starts_with("error[panic]: timed out before the message"),
        "{report}"
    );
    assert!(report.contains("times out: channel@"), "{report}");
}

#[test]
fn recv_timeout_tells_a_timeout_from_a_disconnection() {
    search().timeouts(0).check(|| {
        let (tx, rx) = channel::<u32>();
        assert_eq!(rx.recv_timeout(LONG), Err(RecvTimeoutError::Timeout));
        drop(tx);
        assert_eq!(rx.recv_timeout(LONG), Err(RecvTimeoutError::Disconnected));
    });
}
