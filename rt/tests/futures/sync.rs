//! The async synchronisation types: an async lock-order deadlock, a
//! bounded channel whose receiver goes while a sender waits, a correct
//! producer and consumer, and the tokio semantics tests rely on.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool as StdAtomicBool, Ordering::Relaxed};
use std::task::{Context, Poll};

use rankcheck::future::sync::mpsc::{self, error::SendError};
use rankcheck::future::sync::{oneshot, watch, Mutex, Notify, RwLock, Semaphore};
use rankcheck::future::{self, block_on};
use rankcheck::sync::Arc;
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

/// Two tasks take two async mutexes in opposite orders, each holding the
/// first across an `.await`.
fn lock_order() {
    block_on(async {
        let a = Arc::new(Mutex::new(0));
        let b = Arc::new(Mutex::new(0));
        let first = {
            let (a, b) = (a.clone(), b.clone());
            future::spawn(async move {
                let mut x = a.lock().await;
                future::yield_now().await;
                *b.lock().await += 1;
                *x += 1;
            })
        };
        let second = future::spawn(async move {
            let mut y = b.lock().await;
            future::yield_now().await;
            *a.lock().await += 1;
            *y += 1;
        });
        first.await.unwrap();
        second.await.unwrap();
    });
}

#[test]
fn an_async_lock_order_deadlock_names_both_tasks() {
    let report = panic_message(|| {
        rankcheck::Builder::new()
            .runs(2000)
            .seed(1)
            .check(lock_order);
    })
    .expect("the deadlock is found");
    assert!(report.contains("error[deadlock]"), "{report}");
    let tasks: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("│ thread task@"))
        .collect();
    assert_eq!(tasks.len(), 2, "{report}");
    // Each waits for the mutex the other holds.
    for (waiting, other) in [(tasks[0], tasks[1]), (tasks[1], tasks[0])] {
        let holder = other.split_whitespace().nth(2).expect("a name");
        assert!(
            waiting.contains("waits to be woken; last polled at sync.rs:"),
            "{report}"
        );
        assert!(
            waiting.contains("(awaits to lock a,") || waiting.contains("(awaits to lock b,"),
            "the mutexes are named by their bindings: {report}"
        );
        assert!(waiting.contains(&format!("held by {holder})")), "{report}");
    }
}

#[test]
fn a_send_waiting_for_room_fails_with_its_value_when_the_receiver_goes() {
    static WAITED: StdAtomicBool = StdAtomicBool::new(false);
    rankcheck::Builder::new().runs(300).seed(2).check(|| {
        block_on(async {
            let (tx, rx) = mpsc::channel::<u32>(1);
            tx.send(1).await.unwrap();
            let sender = future::spawn(async move {
                let full = tx.try_send(9).is_err();
                let sent = tx.send(2).await;
                (full, sent)
            });
            future::yield_now().await;
            if !sender.is_finished() {
                WAITED.store(true, Relaxed);
            }
            drop(rx);
            let (full, sent) = sender.await.unwrap();
            assert!(full);
            assert_eq!(sent, Err(SendError(2)));
        });
    });
    assert!(
        WAITED.load(Relaxed),
        "some run dropped the receiver while the send waited"
    );
}

/// A producer sends through a bounded channel, a consumer adds up under an
/// async mutex; the total is exact.
fn producer_consumer() {
    block_on(async {
        let (tx, mut rx) = mpsc::channel(2);
        let total = Arc::new(Mutex::new(0));
        let producer = future::spawn(async move {
            for i in 1..=4 {
                tx.send(i).await.unwrap();
            }
        });
        let consumer = {
            let total = total.clone();
            future::spawn(async move {
                while let Some(i) = rx.recv().await {
                    *total.lock().await += i;
                }
            })
        };
        producer.await.unwrap();
        consumer.await.unwrap();
        assert_eq!(*total.lock().await, 10);
    });
}

#[test]
fn a_correct_producer_and_consumer_pass_with_a_guarantee() {
    let guarantee = rankcheck::Builder::new()
        .runs(500)
        .seed(3)
        .check(producer_consumer);
    assert_eq!(guarantee.runs, 500);
    assert!(
        guarantee.to_string().contains("with probability"),
        "{guarantee}"
    );
}

/// A future that raises `flag` once `inner` returned `Pending`: for a
/// lock, once its waiter is queued.
struct Queued<F> {
    inner: Pin<Box<F>>,
    flag: std::sync::Arc<StdAtomicBool>,
}

impl<F: Future> Future for Queued<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let polled = self.inner.as_mut().poll(cx);
        if polled.is_pending() {
            self.flag.store(true, Relaxed);
        }
        polled
    }
}

#[test]
fn an_unlock_hands_the_async_mutex_to_the_first_waiter() {
    static HANDED: StdAtomicBool = StdAtomicBool::new(false);
    rankcheck::Builder::new().runs(300).seed(4).check(|| {
        block_on(async {
            let mutex = Arc::new(Mutex::new(()));
            let queued = std::sync::Arc::new(StdAtomicBool::new(false));
            let held = mutex.lock().await;
            let waiter = {
                let (mutex, flag) = (mutex.clone(), queued.clone());
                future::spawn(async move {
                    let inner = Box::pin(mutex.lock());
                    drop(Queued { inner, flag }.await);
                })
            };
            for _ in 0..3 {
                future::yield_now().await;
            }
            let was_queued = queued.load(Relaxed);
            drop(held);
            // Fair, as tokio's: the lock went to the waiter at the unlock,
            // and the unlocker cannot take it back first (only once the
            // waiter is done with it).
            let taken = mutex.try_lock().is_ok();
            if was_queued {
                assert!(!taken || waiter.is_finished(), "the unlocker barged in");
                HANDED.fetch_or(!taken, Relaxed);
            }
            waiter.await.unwrap();
        });
    });
    assert!(HANDED.load(Relaxed), "some run queued the waiter first");
}

#[test]
fn notify_one_stores_a_permit_and_notify_waiters_does_not() {
    rankcheck::Builder::new().runs(100).seed(5).check(|| {
        block_on(async {
            let notify = Arc::new(Notify::new());
            notify.notify_one();
            notify.notified().await;
            let waiter = {
                let notify = notify.clone();
                future::spawn(async move { notify.notified().await })
            };
            while !waiter.is_finished() {
                notify.notify_waiters();
                future::yield_now().await;
            }
            waiter.await.unwrap();
        });
    });
}

#[test]
fn owned_guards_semaphores_rwlocks_oneshots_and_watches_behave_as_tokio() {
    rankcheck::Builder::new().runs(300).seed(6).check(|| {
        block_on(async {
            let semaphore = Arc::new(Semaphore::new(1));
            let permit = semaphore.acquire().await.unwrap();
            assert!(semaphore.try_acquire().is_err());
            drop(permit);
            assert_eq!(semaphore.available_permits(), 1);
            semaphore.close();
            assert!(semaphore.acquire().await.is_err());

            let mutex = Arc::new(Mutex::new(1));
            let mut owned = mutex.clone().lock_owned().await;
            let task = future::spawn(async move { *owned += 1 });
            task.await.unwrap();
            assert_eq!(*mutex.lock().await, 2);

            let lock = Arc::new(RwLock::new(1));
            let (r1, r2) = (lock.read().await, lock.read().await);
            assert!(lock.try_write().is_err());
            assert_eq!(*r1 + *r2, 2);
            drop((r1, r2));
            *lock.write().await += 1;
            assert_eq!(*lock.read().await, 2);

            let (tx, rx) = oneshot::channel::<u32>();
            drop(tx);
            assert!(rx.await.is_err());
            let (tx, rx) = oneshot::channel();
            let task = future::spawn(async move { tx.send(5) });
            assert_eq!(rx.await, Ok(5));
            task.await.unwrap().unwrap();

            let (tx, mut rx) = watch::channel(0);
            let watcher = future::spawn(async move {
                while *rx.borrow_and_update() != 3 {
                    if rx.changed().await.is_err() {
                        return false;
                    }
                }
                true
            });
            for i in 1..=3 {
                tx.send_replace(i);
            }
            assert!(watcher.await.unwrap(), "the last value is always seen");
        });
    });
}

/// The user guide's example (`docs/guide/src/rust/async.md`), as written
/// there.
#[test]
fn the_guide_example_passes() {
    use rankcheck::future::{self, block_on, sync::Mutex};
    use rankcheck::sync::Arc;

    rankcheck::Builder::new().runs(200).seed(7).check(|| {
        block_on(async {
            let count = Arc::new(Mutex::new(0));
            let other = {
                let count = count.clone();
                future::spawn(async move { *count.lock().await += 1 })
            };
            *count.lock().await += 1;
            other.await.unwrap();
            assert_eq!(*count.lock().await, 2);
        })
    });
}

#[test]
fn closing_and_dropping_ends_the_waits_as_tokio() {
    rankcheck::Builder::new().runs(300).seed(8).check(|| {
        block_on(async {
            // A closed semaphore fails the acquisition waiting on it.
            let semaphore = Arc::new(Semaphore::new(0));
            let waiter = {
                let semaphore = semaphore.clone();
                future::spawn(async move { semaphore.acquire().await.is_err() })
            };
            future::yield_now().await;
            semaphore.close();
            assert!(waiter.await.unwrap());

            // The receiver drains what was sent, then sees the senders gone.
            let (tx, mut rx) = mpsc::unbounded_channel();
            let sender = future::spawn(async move {
                tx.send(1).unwrap();
                tx.send(2).unwrap();
            });
            assert_eq!(rx.recv().await, Some(1));
            assert_eq!(rx.recv().await, Some(2));
            assert_eq!(rx.recv().await, None);
            sender.await.unwrap();
            let (tx, rx) = mpsc::unbounded_channel();
            drop(rx);
            assert_eq!(tx.send(3), Err(SendError(3)));

            // A watch receiver's `changed` fails once the sender is gone.
            let (tx, mut rx) = watch::channel(0);
            let watcher = future::spawn(async move { rx.changed().await.is_err() });
            drop(tx);
            assert!(watcher.await.unwrap());
        });
    });
}

#[test]
fn a_notified_dropped_after_notify_one_chose_it_passes_the_notification_on() {
    static PASSED_ON: StdAtomicBool = StdAtomicBool::new(false);
    rankcheck::Builder::new().runs(300).seed(9).check(|| {
        block_on(async {
            let notify = Arc::new(Notify::new());
            // A waiter that polls once, then gives up: whether it took the
            // notification then.
            let quitter = {
                let notify = notify.clone();
                future::spawn(async move {
                    let mut waiting = Box::pin(notify.notified());
                    let mut polled = Poll::Pending;
                    std::future::poll_fn(|cx| {
                        polled = waiting.as_mut().poll(cx);
                        Poll::Ready(())
                    })
                    .await;
                    future::yield_now().await;
                    polled.is_ready()
                })
            };
            notify.notify_one();
            let took_it = quitter.await.unwrap();
            // Unless the quitter took it, the notification is still there
            // for the next `notified`: stored at once, or passed on when
            // the quitter dropped the `Notified` notify_one had chosen.
            if !took_it {
                notify.notified().await;
                PASSED_ON.store(true, Relaxed);
            }
        });
    });
    assert!(PASSED_ON.load(Relaxed));
}
