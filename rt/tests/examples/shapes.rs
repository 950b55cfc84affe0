//! Small tests of the shapes `rankcheck::explore` is measured on
//! (results/explore_rt.md, rt/examples/explore_shapes.rs) and whose
//! schedule counts rt/tests/examples/explore_counts.rs states. Each ends
//! by panicking with its outcome when `report` is set, so that the
//! failures of a search are the outcomes it reached.

use std::collections::VecDeque;

use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::mpsc::channel;
use rankcheck::sync::{Arc, Barrier, Condvar, Mutex};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

/// Fail with `outcome` when `report`: the search then reaches it.
fn outcome(report: bool, outcome: String) {
    if report {
        panic!("outcome {outcome}");
    }
}

/// `n` threads each wait once at a barrier of `n`, then write one shared
/// atomic; the outcome is the last writer.
pub fn barrier(n: usize, report: bool) {
    let barrier = Arc::new(Barrier::new(n));
    let last = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..n)
        .map(|k| {
            let (barrier, last) = (barrier.clone(), last.clone());
            thread::spawn(move || {
                barrier.wait();
                last.store(k + 1, SeqCst);
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    outcome(report, last.load(SeqCst).to_string());
}

/// Two threads pass a counter back and forth `rounds` times over two
/// channels.
pub fn ping_pong(rounds: usize, report: bool) {
    let (ping, pings) = channel::<usize>();
    let (pong, pongs) = channel::<usize>();
    let other = thread::spawn(move || {
        for _ in 0..rounds {
            let v = pings.recv().unwrap();
            pong.send(v + 1).unwrap();
        }
    });
    let mut v = 0;
    for _ in 0..rounds {
        ping.send(v).unwrap();
        v = pongs.recv().unwrap();
    }
    other.join().unwrap();
    outcome(report, v.to_string());
}

/// A producer pushes `items` into a queue under a mutex, notifying a
/// condition variable; a consumer waits on it while the queue is empty.
pub fn producer_consumer(items: usize, report: bool) {
    let shared = Arc::new((Mutex::new(VecDeque::new()), Condvar::new()));
    let consumer = {
        let shared = shared.clone();
        thread::spawn(move || {
            let (queue, ready) = &*shared;
            let mut taken = Vec::new();
            for _ in 0..items {
                let mut q = queue.lock().unwrap();
                while q.is_empty() {
                    q = ready.wait(q).unwrap();
                }
                taken.push(q.pop_front().unwrap());
            }
            taken
        })
    };
    for k in 0..items {
        let (queue, ready) = &*shared;
        queue.lock().unwrap().push_back(k);
        ready.notify_one();
    }
    let taken = consumer.join().unwrap();
    outcome(report, format!("{taken:?}"));
}

/// A tree of threads: every thread above the leaves spawns `fanout`
/// children and joins them; each writes an atomic of its own.
pub fn spawn_tree(depth: u32, fanout: usize, report: bool) {
    let written = Arc::new(AtomicUsize::new(0));
    grow(depth, fanout, written.clone());
    outcome(report, written.load(SeqCst).to_string());
}

fn grow(depth: u32, fanout: usize, written: Arc<AtomicUsize>) {
    let own = AtomicUsize::new(0);
    own.store(1, SeqCst);
    if depth == 0 {
        written.fetch_add(1, SeqCst);
        return;
    }
    let children: Vec<_> = (0..fanout)
        .map(|_| {
            let written = written.clone();
            thread::spawn(move || grow(depth - 1, fanout, written))
        })
        .collect();
    children.into_iter().for_each(|c| c.join().unwrap());
}

/// Main spawns `k` threads that each write an atomic of their own, then
/// joins them.
pub fn independent_threads(k: usize) {
    let threads: Vec<_> = (0..k)
        .map(|_| {
            thread::spawn(|| {
                let own = AtomicUsize::new(0);
                own.store(1, SeqCst);
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
}

/// Two threads write two different atomics (made before the spawn).
pub fn different_atomics() {
    let a = Arc::new(AtomicUsize::new(0));
    let b = AtomicUsize::new(0);
    let other = {
        let a = a.clone();
        thread::spawn(move || a.store(1, SeqCst))
    };
    b.store(1, SeqCst);
    other.join().unwrap();
}

/// Two threads take two different mutexes, each its own.
pub fn different_mutexes() {
    let a = Arc::new(Mutex::new(0));
    let b = Mutex::new(0);
    let other = {
        let a = a.clone();
        thread::spawn(move || *a.lock().unwrap() += 1)
    };
    *b.lock().unwrap() += 1;
    other.join().unwrap();
}

/// Small tests with failures of every kind, for the differential check:
/// each panics with what it observed, or deadlocks.
pub mod buggy {
    use super::*;
    use rankcheck::sync::mpsc::sync_channel;
    use rankcheck::sync::{Once, RwLock};

    /// Two threads take two mutexes in opposite orders, while a third
    /// writes an atomic of its own.
    pub fn lock_order() {
        let locks = Arc::new((Mutex::new(0), Mutex::new(0)));
        let other = {
            let locks = locks.clone();
            thread::spawn(move || {
                let _b = locks.1.lock().unwrap();
                let _a = locks.0.lock().unwrap();
            })
        };
        let bystander = thread::spawn(|| AtomicUsize::new(0).store(1, SeqCst));
        {
            let _a = locks.0.lock().unwrap();
            let _b = locks.1.lock().unwrap();
        }
        other.join().unwrap();
        bystander.join().unwrap();
    }

    /// A flag set under a mutex and waited for on a condition variable,
    /// without the loop: a notification before the wait is lost.
    pub fn lost_notification() {
        let shared = Arc::new((Mutex::new(false), Condvar::new()));
        let waiter = {
            let shared = shared.clone();
            thread::spawn(move || {
                let (flag, ready) = &*shared;
                let guard = flag.lock().unwrap();
                let guard = ready.wait(guard).unwrap();
                assert!(*guard, "woken with the flag unset");
            })
        };
        let (flag, ready) = &*shared;
        *flag.lock().unwrap() = true;
        ready.notify_all();
        waiter.join().unwrap();
    }

    /// A rendezvous channel and an unbounded one, with a receive that
    /// can come before or after a disconnection.
    pub fn channels() {
        let (tx, rx) = sync_channel::<usize>(0);
        let (done, finished) = channel::<usize>();
        let sender = thread::spawn(move || {
            tx.send(1).unwrap();
            done.send(2).unwrap();
        });
        let first = rx.recv().unwrap();
        let second = finished.recv().unwrap();
        let third = rx.try_recv().is_ok();
        sender.join().unwrap();
        panic!("outcome {first} {second} {third}");
    }

    /// Park and unpark: a token set before the park is kept.
    pub fn park_unpark() {
        let flag = Arc::new(AtomicUsize::new(0));
        let parked = {
            let flag = flag.clone();
            thread::spawn(move || {
                while flag.load(SeqCst) == 0 {
                    thread::park();
                }
            })
        };
        flag.store(1, SeqCst);
        parked.thread().unpark();
        let finished = parked.is_finished();
        parked.join().unwrap();
        panic!("outcome {finished}");
    }

    /// Readers and a writer of a `RwLock`, and a `Once` both run.
    pub fn rwlock_once() {
        static ONCE: Once = Once::new();
        let lock = Arc::new(RwLock::new(0));
        let writer = {
            let lock = lock.clone();
            thread::spawn(move || {
                ONCE.call_once(|| ());
                *lock.write().unwrap() += 1;
            })
        };
        let seen = *lock.read().unwrap();
        let done = ONCE.is_completed();
        writer.join().unwrap();
        panic!("outcome {seen} {done}");
    }

    /// A spawned thread's panic, taken by `join` or not, and a shared
    /// counter read racily.
    pub fn panics() {
        let counter = Arc::new(AtomicUsize::new(0));
        let a = {
            let counter = counter.clone();
            thread::spawn(move || {
                if counter.fetch_add(1, SeqCst) == 0 {
                    panic!("first");
                }
            })
        };
        let b = {
            let counter = counter.clone();
            thread::spawn(move || {
                if counter.fetch_add(1, SeqCst) == 0 {
                    panic!("first too");
                }
            })
        };
        let _ = a.join();
        b.join().unwrap();
    }

    /// Three threads add to a counter under a mutex, one with
    /// `try_lock` (it gives up when the mutex is held); the outcome is
    /// the counter.
    pub fn try_lock_counter() {
        let counter = Arc::new(Mutex::new(0));
        let threads: Vec<_> = (0..2)
            .map(|k| {
                let counter = counter.clone();
                thread::spawn(move || {
                    if k == 0 {
                        if let Ok(mut c) = counter.try_lock() {
                            *c += 10;
                        }
                    } else {
                        *counter.lock().unwrap() += 1;
                    }
                })
            })
            .collect();
        *counter.lock().unwrap() += 100;
        threads.into_iter().for_each(|t| t.join().unwrap());
        panic!("outcome {}", *counter.lock().unwrap());
    }

    /// Two waiters and one `notify_one`: one of them may wait forever.
    pub fn notify_one_of_two() {
        let shared = Arc::new((Mutex::new(0), Condvar::new()));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let shared = shared.clone();
                thread::spawn(move || {
                    let (count, ready) = &*shared;
                    let mut c = count.lock().unwrap();
                    while *c == 0 {
                        c = ready.wait(c).unwrap();
                    }
                    *c -= 1;
                })
            })
            .collect();
        let (count, ready) = &*shared;
        *count.lock().unwrap() += 2;
        ready.notify_one();
        waiters.into_iter().for_each(|t| t.join().unwrap());
    }

    /// Two senders on a channel of capacity 1; the receiver takes one
    /// message and leaves: which one, and whether a send failed.
    pub fn bounded_senders() {
        let (tx, rx) = sync_channel::<usize>(1);
        let failed = Arc::new(AtomicUsize::new(0));
        let senders: Vec<_> = (1..=2)
            .map(|k| {
                let (tx, failed) = (tx.clone(), failed.clone());
                thread::spawn(move || {
                    if tx.send(k).is_err() {
                        failed.fetch_add(k, SeqCst);
                    }
                })
            })
            .collect();
        drop(tx);
        let first = rx.recv().unwrap();
        drop(rx);
        senders.into_iter().for_each(|t| t.join().unwrap());
        panic!("outcome {first} {}", failed.load(SeqCst));
    }

    /// A thread spawns another that races with main on an atomic.
    pub fn nested_spawn() {
        let x = Arc::new(AtomicUsize::new(0));
        let outer = {
            let x = x.clone();
            thread::spawn(move || {
                let inner = {
                    let x = x.clone();
                    thread::spawn(move || x.store(2, SeqCst))
                };
                x.store(1, SeqCst);
                inner.join().unwrap();
            })
        };
        let seen = x.load(SeqCst);
        outer.join().unwrap();
        panic!("outcome {seen} {}", x.load(SeqCst));
    }

    /// Two barriers in a row among three threads, with a write between.
    pub fn barrier_twice() {
        let barrier = Arc::new(Barrier::new(2));
        let last = Arc::new(AtomicUsize::new(0));
        let other = {
            let (barrier, last) = (barrier.clone(), last.clone());
            thread::spawn(move || {
                barrier.wait();
                last.store(1, SeqCst);
                barrier.wait();
            })
        };
        barrier.wait();
        last.store(2, SeqCst);
        barrier.wait();
        let seen = last.load(SeqCst);
        other.join().unwrap();
        panic!("outcome {seen}");
    }
}

/// Store buffering with relaxed atomics and a mutex besides: under weak
/// memory both loads may read 0.
pub fn store_buffering() {
    use rankcheck::sync::atomic::Ordering::Relaxed;
    let cells = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0), Mutex::new(0)));
    let other = {
        let cells = cells.clone();
        thread::spawn(move || {
            cells.0.store(1, Relaxed);
            *cells.2.lock().unwrap() += 1;
            cells.1.load(Relaxed)
        })
    };
    cells.1.store(1, Relaxed);
    let mine = cells.0.load(Relaxed);
    let theirs = other.join().unwrap();
    panic!("outcome {mine} {theirs}");
}
