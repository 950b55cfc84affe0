//! Time on the run's virtual clock, as tokio's paused clock: sleeps
//! complete at their deadlines exactly (to the millisecond), in deadline
//! order, without waiting; `advance` fires the timers it reaches and
//! wakes whatever waker polled them last; a reset sleep keeps its waker;
//! intervals tick a period apart; `Instant::now` reads the real clock
//! outside a run.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{Context, Poll, Wake, Waker};

use super::tokio;
use super::{search, support::panic_message};
use tokio::time::{self, Duration, Instant, MissedTickBehavior};

/// A waker that only records that it was woken, as a test's mock task's.
#[derive(Default)]
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, SeqCst);
    }
}

#[test]
fn a_sleep_takes_its_duration_exactly_rounded_up_to_a_millisecond() {
    search(20, || {
        rankcheck_rt::future::block_on(async {
            let start = Instant::now();
            time::sleep(Duration::from_secs(3)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(3));
            time::sleep(Duration::from_micros(1500)).await;
            assert_eq!(start.elapsed(), Duration::from_millis(3002));
            time::sleep(Duration::ZERO).await;
            assert_eq!(start.elapsed(), Duration::from_millis(3002));
        })
    });
}

/// In every run the shorter sleep ends first, whatever the scheduler does:
/// time moves only when no task can run, to the earliest deadline.
#[test]
fn tasks_wake_in_the_order_of_their_deadlines() {
    search(200, || {
        rankcheck_rt::future::block_on(async {
            let order = Arc::new(StdMutex::new(Vec::new()));
            let sleeper = |ms: u64| {
                let order = order.clone();
                tokio::spawn(async move {
                    time::sleep(Duration::from_millis(ms)).await;
                    order.lock().unwrap().push(ms);
                })
            };
            let (slow, fast) = (sleeper(20), sleeper(10));
            slow.await.unwrap();
            fast.await.unwrap();
            assert_eq!(*order.lock().unwrap(), [10, 20]);
        })
    });
}

/// A timeout fires only once the future it bounds has had every chance:
/// here the answer comes after a sleep shorter than the timeout.
#[test]
fn a_timeout_fires_only_at_its_deadline() {
    search(200, || {
        rankcheck_rt::future::block_on(async {
            let (tx, rx) = tokio::sync::oneshot::channel();
            tokio::spawn(async move {
                time::sleep(Duration::from_millis(999)).await;
                let _ = tx.send(7);
            });
            let answer = time::timeout(Duration::from_secs(1), rx).await;
            assert_eq!(answer.expect("in time").unwrap(), 7);
            let late = time::timeout(Duration::from_secs(1), std::future::pending::<()>());
            let start = Instant::now();
            assert!(late.await.is_err());
            assert_eq!(start.elapsed(), Duration::from_secs(1));
        })
    });
}

/// `advance` fires the timers it reaches and wakes the waker that polled
/// them, here a mock one (as tokio-test's task), not the task's.
#[test]
fn advance_wakes_the_waker_of_the_last_poll() {
    search(20, || {
        rankcheck_rt::future::block_on(async {
            time::pause();
            let flag = Arc::new(Flag::default());
            let waker = Waker::from(flag.clone());
            let mut sleep = Box::pin(time::sleep(Duration::from_millis(100)));
            let mut cx = Context::from_waker(&waker);
            assert!(sleep.as_mut().poll(&mut cx).is_pending());
            time::advance(Duration::from_millis(99)).await;
            assert!(!flag.0.load(SeqCst));
            assert!(!sleep.is_elapsed());
            time::advance(Duration::from_millis(1)).await;
            assert!(flag.0.load(SeqCst));
            assert!(sleep.is_elapsed());
            assert!(sleep.as_mut().poll(&mut cx).is_ready());
        })
    });
}

/// A future polling a sleep under a waker of its own (as
/// `FuturesUnordered` does) is woken through that waker when the clock
/// moves on its own: the wake is delivered as the task goes on.
#[test]
fn a_timer_fired_when_idle_wakes_a_foreign_waker() {
    struct Wrapped {
        inner: Pin<Box<time::Sleep>>,
        woken: Arc<Flag>,
        outer: Option<Waker>,
    }
    struct Forward(Arc<Flag>, Waker);
    impl Wake for Forward {
        fn wake(self: Arc<Self>) {
            self.0 .0.store(true, SeqCst);
            self.1.wake_by_ref();
        }
    }
    impl Future for Wrapped {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.outer = Some(cx.waker().clone());
            let waker = Waker::from(Arc::new(Forward(self.woken.clone(), cx.waker().clone())));
            self.inner.as_mut().poll(&mut Context::from_waker(&waker))
        }
    }
    search(20, || {
        rankcheck_rt::future::block_on(async {
            let woken = Arc::new(Flag::default());
            Wrapped {
                inner: Box::pin(time::sleep(Duration::from_secs(1))),
                woken: woken.clone(),
                outer: None,
            }
            .await;
            assert!(woken.0.load(SeqCst), "the inner waker was not woken");
        })
    });
}

/// A reset sleep keeps its waker: the task that polled it is woken at the
/// new deadline without polling it again (nothing else wakes it here).
#[test]
fn a_reset_sleep_wakes_at_its_new_deadline() {
    search(50, || {
        rankcheck_rt::future::block_on(async {
            let start = Instant::now();
            let mut sleep = Box::pin(time::sleep(Duration::from_secs(10)));
            std::future::poll_fn(|cx| {
                assert!(sleep.as_mut().poll(cx).is_pending());
                Poll::Ready(())
            })
            .await;
            sleep.as_mut().reset(start + Duration::from_secs(2));
            let mut waited = false;
            std::future::poll_fn(|_| {
                if std::mem::replace(&mut waited, true) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            assert_eq!(start.elapsed(), Duration::from_secs(2));
            assert!(sleep.is_elapsed());
        })
    });
}

#[test]
fn an_interval_ticks_a_period_apart_and_skips_missed_ticks_when_told() {
    search(20, || {
        rankcheck_rt::future::block_on(async {
            let start = Instant::now();
            let mut ticks = time::interval(Duration::from_millis(10));
            assert_eq!(ticks.tick().await, start);
            assert_eq!(ticks.tick().await, start + Duration::from_millis(10));
            time::sleep(Duration::from_millis(35)).await;
            ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
            // Late: the tick due at 20 ms comes now, the next at 50 ms.
            assert_eq!(ticks.tick().await, start + Duration::from_millis(20));
            assert_eq!(ticks.tick().await, start + Duration::from_millis(50));
            assert_eq!(Instant::now(), start + Duration::from_millis(50));
        })
    });
}

#[test]
fn pause_resume_and_advance_check_as_tokio_does() {
    let twice = panic_message(|| {
        search(1, || {
            time::pause();
            time::pause();
        })
    });
    assert!(twice.unwrap().contains("time is already frozen"));
    let unpaused = panic_message(|| {
        search(1, || {
            rankcheck_rt::future::block_on(time::advance(Duration::from_secs(1)));
        })
    });
    assert!(unpaused.unwrap().contains("time is not frozen"));
}

#[tokio::test(start_paused = true, runs = 20, seed = 1)]
async fn start_paused_pauses_time_before_the_body() {
    let start = Instant::now();
    time::advance(Duration::from_millis(1500)).await;
    assert_eq!(start.elapsed(), Duration::from_millis(1500));
    time::resume();
}

#[test]
fn instant_now_reads_the_real_clock_outside_a_run() {
    let first = Instant::now();
    std::thread::sleep(Duration::from_millis(2));
    assert!(Instant::now().duration_since(first) >= Duration::from_millis(2));
}
