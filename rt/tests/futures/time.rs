//! Time as scheduling choices: a timeout's both outcomes are explored,
//! sleeps are yields, and a timeout nothing else ends fires.

use std::sync::atomic::{AtomicBool as StdAtomicBool, Ordering::Relaxed};
use std::time::Duration;

use rankcheck::future::sync::oneshot;
use rankcheck::future::time::{interval, sleep, timeout};
use rankcheck::future::{self, block_on};
use rankcheck_rt as rankcheck;

#[test]
fn a_timeout_explores_both_outcomes() {
    static IN_TIME: StdAtomicBool = StdAtomicBool::new(false);
    static TIMED_OUT: StdAtomicBool = StdAtomicBool::new(false);
    let guarantee = rankcheck::Builder::new().runs(300).seed(1).check(|| {
        block_on(async {
            let (tx, rx) = oneshot::channel();
            let sender = future::spawn(async move {
                sleep(Duration::from_millis(5)).await;
                let _ = tx.send(1);
            });
            match timeout(Duration::from_millis(10), rx).await {
                Ok(value) => {
                    assert_eq!(value, Ok(1));
                    IN_TIME.store(true, Relaxed);
                }
                Err(_) => TIMED_OUT.store(true, Relaxed),
            }
            sender.await.unwrap();
        });
    });
    assert!(IN_TIME.load(Relaxed) && TIMED_OUT.load(Relaxed));
    assert!(guarantee.timeouts > 0, "{guarantee:?}");
}

#[test]
fn a_timeout_nothing_else_ends_fires_instead_of_a_deadlock() {
    rankcheck::Builder::new()
        .runs(100)
        .seed(2)
        .timeouts(0)
        .check(|| {
            block_on(async {
                let (_tx, rx) = oneshot::channel::<()>();
                assert!(timeout(Duration::from_secs(1), rx).await.is_err());
            });
        });
}

#[test]
fn intervals_tick_at_their_periods() {
    rankcheck::Builder::new().runs(20).seed(3).check(|| {
        block_on(async {
            let mut ticks = interval(Duration::from_millis(10));
            let first = ticks.tick().await;
            let third = {
                ticks.tick().await;
                ticks.tick().await
            };
            assert_eq!(third.duration_since(first), Duration::from_millis(20));
        });
    });
}
