//! Ported from awslabs/shuttle 0.9.9, `tests/basic/rwlock.rs` (Apache-2.0).
//! Changed: shuttle's types to rankcheck's; runners to the helpers in
//! `main.rs`; `try_lock_implies_std`/`try_lock_implied_by_std` run 500
//! random runs, not 5000. Shuttle refuses a thread's second read lock
//! (`double_read`, `double_try_read`, `read_try_read`), which its own
//! comments call stricter than std: ported to std's behaviour, where a
//! second read with no writer waiting succeeds. Locking a lock for writing
//! that the thread holds (`double_write`, `read_upgrade`,
//! `write_downgrade`) is std's "might panic or deadlock": rankcheck reports
//! the deadlock.
//! Skipped: none.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use rankcheck::sync::mpsc::channel;
use rankcheck::sync::{Arc, RwLock, TryLockError};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

use crate::{check, check_dfs, check_pct, check_random, observed, outcomes};

#[test]
fn reader_concurrency() {
    let saw_concurrent_reads = Arc::new(AtomicBool::new(false));
    {
        let saw_concurrent_reads = Arc::clone(&saw_concurrent_reads);
        check_random(
            move || {
                let rwlock = Arc::new(RwLock::new(0usize));
                let readers = Arc::new(rankcheck::sync::atomic::AtomicUsize::new(0));
                {
                    let rwlock = Arc::clone(&rwlock);
                    let readers = Arc::clone(&readers);
                    let saw_concurrent_reads = Arc::clone(&saw_concurrent_reads);
                    thread::spawn(move || {
                        let counter = rwlock.read().unwrap();
                        assert_eq!(*counter, 0);
                        readers.fetch_add(1, Ordering::SeqCst);
                        thread::yield_now();
                        if readers.load(Ordering::SeqCst) == 2 {
                            saw_concurrent_reads.store(true, Ordering::SeqCst);
                        }
                        readers.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                let counter = rwlock.read().unwrap();
                assert_eq!(*counter, 0);
                readers.fetch_add(1, Ordering::SeqCst);
                thread::yield_now();
                if readers.load(Ordering::SeqCst) == 2 {
                    saw_concurrent_reads.store(true, Ordering::SeqCst);
                }
                readers.fetch_sub(1, Ordering::SeqCst);
            },
            100,
        );
    }
    assert!(saw_concurrent_reads.load(Ordering::SeqCst));
}

fn deadlock() {
    let lock1 = Arc::new(RwLock::new(0usize));
    let lock2 = Arc::new(RwLock::new(0usize));
    let lock1_clone = Arc::clone(&lock1);
    let lock2_clone = Arc::clone(&lock2);
    thread::spawn(move || {
        let _l1 = lock1_clone.read().unwrap();
        let _l2 = lock2_clone.read().unwrap();
    });
    let _l2 = lock2.write().unwrap();
    let _l1 = lock1.write().unwrap();
}

#[test]
#[should_panic(expected = "deadlock")]
fn deadlock_default() {
    check(deadlock);
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
fn rwlock_two_writers() {
    check_random(
        || {
            let lock = Arc::new(RwLock::new(1));
            let lock2 = lock.clone();
            thread::spawn(move || {
                let mut w = lock.write().unwrap();
                *w += 1;
                thread::yield_now();
            });
            thread::spawn(move || {
                let mut w = lock2.write().unwrap();
                *w += 1;
                thread::yield_now();
            });
        },
        100,
    );
}

#[test]
fn rwlock_allows_multiple_readers() {
    check_dfs(|| {
        let lock1 = Arc::new(RwLock::new(1));
        let lock2 = lock1.clone();
        let (s1, r1) = channel::<usize>();
        let (s2, r2) = channel::<usize>();
        thread::spawn(move || {
            let w = lock1.read().unwrap();
            s1.send(*w).unwrap();
            let r = r2.recv().unwrap();
            assert_eq!(r, 1);
        });
        thread::spawn(move || {
            let w = lock2.read().unwrap();
            s2.send(*w).unwrap();
            let r = r1.recv().unwrap();
            assert_eq!(r, 1);
        });
    });
}

fn two_readers_and_one_writer() {
    let lock1 = Arc::new(RwLock::new(1));
    for _ in 0..2 {
        let rlock1 = lock1.clone();
        thread::spawn(move || {
            let r1 = rlock1.read().unwrap();
            thread::yield_now();
            assert!(*r1 > 0);
        });
    }
    let mut w = lock1.write().unwrap();
    *w += 1;
}

#[test]
fn rwlock_two_readers_and_one_writer_exhaustive() {
    check_dfs(two_readers_and_one_writer);
}

#[test]
fn rwlock_default() {
    struct Point(u32, u32);
    impl Default for Point {
        fn default() -> Self {
            Self(21, 42)
        }
    }
    check_dfs(|| {
        let point: RwLock<Point> = Default::default();
        let r = point.read().unwrap();
        assert_eq!(r.0, 21);
        assert_eq!(r.1, 42);
    });
}

#[test]
fn rwlock_into_inner() {
    check_dfs(|| {
        let lock = Arc::new(RwLock::new(0u64));
        let threads = (0..2)
            .map(|_| {
                let lock = lock.clone();
                thread::spawn(move || {
                    *lock.write().unwrap() += 1;
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

#[test]
fn concurrent_try_increment() {
    let seen = observed();
    let record = seen.clone();
    check_dfs(move || {
        let lock = Arc::new(RwLock::new(0usize));
        let threads = (0..2)
            .map(|_| {
                let lock = Arc::clone(&lock);
                thread::spawn(move || {
                    match lock.try_write() {
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

/// Threads try both modes; whatever rankcheck's lock grants, std's
/// (taken at the same point: no scheduling point between) grants too.
#[test]
fn try_lock_implies_std() {
    check_random(
        move || {
            let lock = Arc::new(RwLock::new(()));
            let reference_lock = Arc::new(std::sync::RwLock::new(()));
            let threads = (0..3)
                .map(|_| {
                    let lock = Arc::clone(&lock);
                    let reference_lock = Arc::clone(&reference_lock);
                    thread::spawn(move || {
                        for _ in 0..3 {
                            {
                                let r = lock.try_read();
                                if r.is_ok() {
                                    assert!(reference_lock.try_read().is_ok());
                                }
                            }
                            {
                                let w = lock.try_write();
                                if w.is_ok() {
                                    assert!(reference_lock.try_write().is_ok());
                                }
                            }
                        }
                    })
                })
                .collect::<Vec<_>>();
            for thd in threads {
                thd.join().unwrap();
            }
        },
        500,
    );
}

/// The converse: whatever std's lock grants, rankcheck's grants.
#[test]
fn try_lock_implied_by_std() {
    check_random(
        move || {
            let lock = Arc::new(RwLock::new(()));
            let reference_lock = Arc::new(std::sync::RwLock::new(()));
            let threads = (0..3)
                .map(|_| {
                    let lock = Arc::clone(&lock);
                    let reference_lock = Arc::clone(&reference_lock);
                    thread::spawn(move || {
                        for _ in 0..5 {
                            {
                                let r = reference_lock.try_read();
                                if r.is_ok() {
                                    assert!(lock.try_read().is_ok());
                                }
                            }
                            {
                                let w = reference_lock.try_write();
                                if w.is_ok() {
                                    assert!(lock.try_write().is_ok());
                                }
                            }
                        }
                    })
                })
                .collect::<Vec<_>>();
            for thd in threads {
                thd.join().unwrap();
            }
        },
        500,
    );
}

#[test]
fn concurrent_write_try_write_try_read() {
    let seen = observed();
    let record = seen.clone();
    check_dfs(move || {
        let lock = Arc::new(RwLock::new(0usize));
        let write_thread = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                *lock.write().unwrap() += 1;
            })
        };
        let try_write_thread = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                for n in 1..3 {
                    match lock.try_write() {
                        Ok(mut guard) => *guard += n,
                        Err(TryLockError::WouldBlock) => (),
                        Err(_) => panic!("unexpected TryLockError"),
                    };
                }
            })
        };
        let read_value = match lock.try_read() {
            Ok(guard) => Some(*guard),
            Err(TryLockError::WouldBlock) => None,
            Err(_) => panic!("unexpected TryLockError"),
        };
        write_thread.join().unwrap();
        try_write_thread.join().unwrap();
        let final_value = Arc::try_unwrap(lock).unwrap().into_inner().unwrap();
        record.lock().unwrap().insert((final_value, read_value));
    });
    let expected = HashSet::from([
        (1, None),
        (1, Some(0)),
        (1, Some(1)),
        (2, None),
        (2, Some(0)),
        (2, Some(1)),
        (2, Some(2)),
        (3, None),
        (3, Some(0)),
        (3, Some(1)),
        (3, Some(3)),
        (4, None),
        (4, Some(0)),
        (4, Some(1)),
        (4, Some(2)),
        (4, Some(3)),
        (4, Some(4)),
    ]);
    assert_eq!(outcomes(&seen), expected);
}

/// std: a second read lock with no writer waiting succeeds.
#[test]
fn double_read() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.read().unwrap();
        let _guard_2 = rwlock.read().unwrap();
    })
}

#[test]
#[should_panic(expected = "deadlock")]
fn double_write() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.write().unwrap();
        let _guard_2 = rwlock.write();
    })
}

#[test]
#[should_panic(expected = "deadlock")]
fn read_upgrade() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.read().unwrap();
        let _guard_2 = rwlock.write();
    })
}

#[test]
#[should_panic(expected = "deadlock")]
fn write_downgrade() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.write().unwrap();
        let _guard_2 = rwlock.read();
    })
}

/// std: a second `try_read` with no writer succeeds.
#[test]
fn double_try_read() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.try_read().unwrap();
        assert!(rwlock.try_read().is_ok());
    })
}

/// std: `try_read` while holding a read lock, no writer, succeeds.
#[test]
fn read_try_read() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.read().unwrap();
        assert!(rwlock.try_read().is_ok());
    })
}

#[test]
fn double_try_write() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.try_write().unwrap();
        assert!(matches!(rwlock.try_write(), Err(TryLockError::WouldBlock)));
    })
}

#[test]
fn write_try_write() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.write().unwrap();
        assert!(matches!(rwlock.try_write(), Err(TryLockError::WouldBlock)));
    })
}

#[test]
fn try_read_upgrade() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.try_read().unwrap();
        assert!(matches!(rwlock.try_write(), Err(TryLockError::WouldBlock)));
    })
}

#[test]
fn try_write_downgrade() {
    check_dfs(|| {
        let rwlock = RwLock::new(());
        let _guard_1 = rwlock.try_write().unwrap();
        assert!(matches!(rwlock.try_read(), Err(TryLockError::WouldBlock)));
    })
}
