//! Ported from awslabs/shuttle 0.9.9, `tests/basic/timeout.rs`
//! (Apache-2.0).
//! Changed: shuttle wraps its scheduler in one that sleeps 10 ms between
//! executions and sets `Config::max_time` to 1 s; rankcheck's schedulers
//! are not pluggable, so the test's closure sleeps (on the OS thread:
//! no scheduling point) and the search has `Builder::time` of 0.5 s.
//! Skipped: none.

use std::time::Duration;

use rankcheck::sync::{Arc, Mutex};
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

#[test]
fn runner_timeout() {
    let guarantee = Builder::new()
        .strategy(Strategy::Random)
        .seed(crate::SEED)
        .runs(100_000)
        .time(Duration::from_millis(500))
        .check(|| {
            std::thread::sleep(Duration::from_millis(10));
            let lock = Arc::new(Mutex::new(0usize));
            let lock_clone = Arc::clone(&lock);
            thread::spawn(move || {
                let mut counter = lock_clone.lock().unwrap();
                *counter += 1;
            });
            let mut counter = lock.lock().unwrap();
            *counter += 1;
        });
    assert!(
        guarantee.runs < 10_000,
        "test must stop well before its runs"
    );
    assert!(guarantee.runs >= 1, "test must run at least once");
}
