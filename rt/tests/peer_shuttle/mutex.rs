//! Ported from awslabs/shuttle 0.9.9, `tests/basic/mutex.rs` (Apache-2.0).
//! Changed: shuttle's types to rankcheck's; `check_dfs`/`check_random`/
//! `PctScheduler` runners to the helpers in `main.rs`; `double_lock`
//! expects rankcheck's report of a thread locking a mutex it holds (a
//! deadlock: std documents the call "might panic or deadlock").
//! Skipped: none.

use std::collections::HashSet;

use rankcheck::sync::{Arc, Mutex, RwLock, TryLockError};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::{check_dfs, check_pct, check_random, observed, outcomes};

#[test]
fn basic_lock_test() {
    check_dfs(move || {
        let lock = Arc::new(Mutex::new(0usize));
        let lock_clone = Arc::clone(&lock);
        thread::spawn(move || {
            let mut counter = lock_clone.lock().unwrap();
            *counter += 1;
        });
        let mut counter = lock.lock().unwrap();
        *counter += 1;
    });
}

fn deadlock() {
    let lock1 = Arc::new(Mutex::new(0usize));
    let lock2 = Arc::new(Mutex::new(0usize));
    let lock1_clone = Arc::clone(&lock1);
    let lock2_clone = Arc::clone(&lock2);
    thread::spawn(move || {
        let _l1 = lock1_clone.lock().unwrap();
        let _l2 = lock2_clone.lock().unwrap();
    });
    let _l2 = lock2.lock().unwrap();
    let _l1 = lock1.lock().unwrap();
}

#[test]
#[should_panic(expected = "deadlock")]
fn deadlock_default() {
    check_dfs(deadlock);
}

#[test]
#[should_panic(expected = "deadlock")]
fn deadlock_random() {
    check_random(deadlock, 200);
}

#[test]
#[should_panic(expected = "deadlock")]
fn deadlock_pct() {
    check_pct(deadlock, 100, 2);
}

#[test]
#[should_panic(expected = "racing increments")]
fn concurrent_increment_buggy() {
    check_pct(
        || {
            let lock = Arc::new(Mutex::new(0usize));
            let threads = (0..2)
                .map(|_| {
                    let lock = Arc::clone(&lock);
                    thread::spawn(move || {
                        let curr = *lock.lock().unwrap();
                        *lock.lock().unwrap() = curr + 1;
                    })
                })
                .collect::<Vec<_>>();
            for thd in threads {
                thd.join().unwrap();
            }
            let counter = *lock.lock().unwrap();
            assert_eq!(counter, 2, "racing increments");
        },
        100,
        2,
    );
}

#[test]
fn concurrent_increment() {
    check_pct(
        || {
            let lock = Arc::new(Mutex::new(0usize));
            let threads = (0..2)
                .map(|_| {
                    let lock = Arc::clone(&lock);
                    thread::spawn(move || {
                        *lock.lock().unwrap() += 1;
                    })
                })
                .collect::<Vec<_>>();
            for thd in threads {
                thd.join().unwrap();
            }
            assert_eq!(*lock.lock().unwrap(), 2);
        },
        100,
        2,
    );
}

/// One thread increments twice, the other doubles: 2, 3 and 4.
#[test]
fn unlock_yields() {
    let seen = observed();
    let record = seen.clone();
    check_dfs(move || {
        let lock = Arc::new(Mutex::new(0usize));
        let add_thread = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                *lock.lock().unwrap() += 1;
                *lock.lock().unwrap() += 1;
            })
        };
        let mul_thread = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                *lock.lock().unwrap() *= 2;
            })
        };
        add_thread.join().unwrap();
        mul_thread.join().unwrap();
        let value = Arc::try_unwrap(lock).unwrap().into_inner().unwrap();
        record.lock().unwrap().insert(value);
    });
    assert_eq!(outcomes(&seen), HashSet::from([2, 3, 4]));
}

/// Shuttle's `value` is a std mutex, invisible to its scheduler; with it,
/// `explore`'s reduction (which sees only rankcheck's objects) may miss
/// the outcome 11 that needs the invisible update between two steps it
/// takes to commute, so the port makes `value` rankcheck's mutex.
#[test]
fn mutex_rwlock_interaction() {
    let seen = observed();
    let record = seen.clone();
    check_dfs(move || {
        let lock = Arc::new(Mutex::new(()));
        let rwlock = Arc::new(RwLock::new(()));
        let value = Arc::new(Mutex::new(0usize));
        let add_thread = {
            let lock = Arc::clone(&lock);
            let value = Arc::clone(&value);
            thread::spawn(move || {
                {
                    let _guard = lock.lock().unwrap();
                    *value.lock().unwrap() += 1;
                }
                {
                    let _guard = rwlock.write().unwrap();
                    if let Ok(_g) = lock.try_lock() {
                        *value.lock().unwrap() += 2;
                    } else {
                        *value.lock().unwrap() += 6;
                    }
                }
                {
                    let _guard = lock.lock().unwrap();
                    *value.lock().unwrap() += 3;
                }
            })
        };
        let mul_thread = {
            let lock = Arc::clone(&lock);
            let log = Arc::clone(&value);
            thread::spawn(move || {
                let _guard = lock.lock().unwrap();
                thread::yield_now();
                *log.lock().unwrap() *= 2;
            })
        };
        add_thread.join().unwrap();
        mul_thread.join().unwrap();
        let value = Arc::try_unwrap(value).unwrap().into_inner().unwrap();
        record.lock().unwrap().insert(value);
    });
    assert_eq!(outcomes(&seen), HashSet::from([6, 7, 9, 12, 11, 17]));
}

#[test]
fn concurrent_try_increment() {
    let seen = observed();
    let record = seen.clone();
    check_dfs(move || {
        let lock = Arc::new(Mutex::new(0usize));
        let threads = (0..2)
            .map(|_| {
                let lock = Arc::clone(&lock);
                thread::spawn(move || {
                    match lock.try_lock() {
                        Ok(mut guard) => *guard += 1,
                        Err(TryLockError::WouldBlock) => (),
                        Err(_) => panic!("unexpected TryLockError"),
                    };
                })
            })
            .collect::<Vec<_>>();
        for thd in threads {
            thd.join().unwrap();
        }
        let value = Arc::try_unwrap(lock).unwrap().into_inner().unwrap();
        record.lock().unwrap().insert(value);
    });
    assert_eq!(outcomes(&seen), HashSet::from([1, 2]));
}

#[test]
fn concurrent_lock_try_lock() {
    let seen = observed();
    let record = seen.clone();
    check_dfs(move || {
        let lock = Arc::new(Mutex::new(0usize));
        let lock_thread = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                *lock.lock().unwrap() += 1;
            })
        };
        let try_lock_thread = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                for n in 1..3 {
                    match lock.try_lock() {
                        Ok(mut guard) => *guard += n,
                        Err(TryLockError::WouldBlock) => (),
                        Err(_) => panic!("unexpected TryLockError"),
                    };
                }
            })
        };
        lock_thread.join().unwrap();
        try_lock_thread.join().unwrap();
        let value = Arc::try_unwrap(lock).unwrap().into_inner().unwrap();
        record.lock().unwrap().insert(value);
    });
    assert_eq!(outcomes(&seen), HashSet::from([1, 2, 3, 4]));
}

/// Shuttle panics "tried to acquire a Mutex it already holds"; std says
/// the call might panic or deadlock, and rankcheck reports a deadlock.
#[test]
#[should_panic(expected = "deadlock")]
fn double_lock() {
    check_dfs(|| {
        let mutex = Mutex::new(());
        let _guard_1 = mutex.lock().unwrap();
        let _guard_2 = mutex.lock();
    })
}

#[test]
fn double_try_lock() {
    check_dfs(|| {
        let mutex = Mutex::new(());
        let _guard_1 = mutex.try_lock().unwrap();
        assert!(matches!(mutex.try_lock(), Err(TryLockError::WouldBlock)));
    })
}

#[test]
#[should_panic(expected = "expected panic")]
fn panic_drop() {
    check_dfs(|| {
        let lock = Mutex::new(0);
        let _l = lock.lock().unwrap();
        panic!("expected panic");
    })
}

#[test]
fn mutex_into_inner() {
    check_dfs(|| {
        let lock = Arc::new(Mutex::new(0u64));
        let threads = (0..2)
            .map(|_| {
                let lock = lock.clone();
                thread::spawn(move || {
                    *lock.lock().unwrap() += 1;
                })
            })
            .collect::<Vec<_>>();
        for thread in threads {
            thread.join().unwrap();
        }
        let lock = Arc::try_unwrap(lock).unwrap();
        assert_eq!(lock.into_inner().unwrap(), 2);
    })
}

/// Two threads blocked on one mutex: unlocking it may wake either.
#[test]
fn mutex_unfair() {
    let seen = observed();
    let record = seen.clone();
    check_random(
        move || {
            let lock = Arc::new(Mutex::new(vec![]));
            let guard = lock.lock().unwrap();
            // std's mutex: the order the threads queued in, recorded
            // with no scheduling point between it and the lock.
            let order = Arc::new(std::sync::Mutex::new(vec![]));
            let threads = (0..2)
                .map(|tid| {
                    let lock = lock.clone();
                    let order = order.clone();
                    thread::spawn(move || {
                        order.lock().unwrap().push(tid);
                        lock.lock().unwrap().push(tid);
                    })
                })
                .collect::<Vec<_>>();
            while order.lock().unwrap().len() < 2 {
                thread::yield_now();
            }
            drop(guard);
            for thread in threads {
                thread.join().unwrap();
            }
            let lock = Arc::try_unwrap(lock).unwrap();
            let order = Arc::try_unwrap(order).unwrap();
            record
                .lock()
                .unwrap()
                .insert((lock.into_inner().unwrap(), order.into_inner().unwrap()));
        },
        100,
    );
    assert_eq!(
        outcomes(&seen),
        HashSet::from([
            (vec![0, 1], vec![0, 1]),
            (vec![1, 0], vec![0, 1]),
            (vec![0, 1], vec![1, 0]),
            (vec![1, 0], vec![1, 0]),
        ])
    );
}
