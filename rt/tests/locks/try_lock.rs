//! `try_read`, `try_write` and `try_lock` never block and decide on the
//! lock as it is at their own scheduling point; a holder keeps the lock
//! until its unlock's scheduling point. The outcome sets of races are
//! exactly the ones std allows: collected over many runs of a random
//! search (every interleaving of these small tests comes up), and compared
//! with the set worked out by hand.

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use rankcheck::sync::mpsc::channel;
use rankcheck::sync::{Arc, Mutex, RwLock, TryLockError};
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

/// Every outcome `test` reaches over `runs` random runs for each of a few
/// seeds.
fn outcomes<O, F>(runs: u64, test: F) -> BTreeSet<O>
where
    O: Ord + Send + 'static,
    F: Fn() -> O + Send + Sync + 'static,
{
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let test = Arc::new(test);
    for seed in 1..=3 {
        let seen = seen.clone();
        let test = test.clone();
        Builder::new()
            .strategy(Strategy::Random)
            .seed(seed)
            .runs(runs)
            .check(move || {
                let outcome = test();
                seen.lock().unwrap().insert(outcome);
            });
    }
    let mut seen = seen.lock().unwrap();
    std::mem::take(&mut *seen)
}

/// A `try_write` against a held lock fails at once: it never waits for
/// the holder, which here waits for the trying thread's message.
#[test]
fn try_write_never_blocks() {
    Builder::new().seed(3).runs(500).check(|| {
        let lock = Arc::new(RwLock::new(0));
        let (tx, rx) = channel();
        let other = lock.clone();
        let trying = thread::spawn(move || {
            thread::yield_now();
            let _ = other.try_write();
            tx.send(()).unwrap();
        });
        let _held = lock.write().unwrap();
        rx.recv().unwrap();
        drop(_held);
        trying.join().unwrap();
    });
}

/// Two threads each add one under `try_write`: one succeeds, the other
/// may find the lock held (also during a critical section with no
/// operation in it), so the total is 1 or 2.
#[test]
fn concurrent_try_writes_reach_both_totals() {
    let totals = outcomes(300, || {
        let lock = Arc::new(RwLock::new(0usize));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let lock = lock.clone();
                thread::spawn(move || {
                    if let Ok(mut guard) = lock.try_write() {
                        *guard += 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let total = *lock.read().unwrap();
        total
    });
    assert_eq!(totals, BTreeSet::from([1, 2]));
}

/// A writer adds 1; another thread tries to add 1, then 2, with
/// `try_write`; main peeks with `try_read`. The 17 (final value, peek)
/// pairs std allows: the peek sees any value the lock held between the
/// writes, or fails; only (3, Some(2)) is impossible (the value is never 2
/// when the first try failed).
#[test]
fn write_try_write_try_read_reach_every_outcome_std_allows() {
    let seen = outcomes(2_000, || {
        let lock = Arc::new(RwLock::new(0usize));
        let writer = {
            let lock = lock.clone();
            thread::spawn(move || *lock.write().unwrap() += 1)
        };
        let trier = {
            let lock = lock.clone();
            thread::spawn(move || {
                for n in 1..3 {
                    match lock.try_write() {
                        Ok(mut guard) => *guard += n,
                        Err(TryLockError::WouldBlock) => {}
                        Err(e) => panic!("unexpected {e}"),
                    }
                }
            })
        };
        let peek = match lock.try_read() {
            Ok(guard) => Some(*guard),
            Err(TryLockError::WouldBlock) => None,
            Err(e) => panic!("unexpected {e}"),
        };
        writer.join().unwrap();
        trier.join().unwrap();
        let total = *lock.read().unwrap();
        (total, peek)
    });
    let mut allowed = BTreeSet::new();
    for (total, peeks) in [
        (1, &[0, 1][..]),
        (2, &[0, 1, 2][..]),
        (3, &[0, 1, 3][..]),
        (4, &[0, 1, 2, 3, 4][..]),
    ] {
        allowed.insert((total, None));
        for &p in peeks {
            allowed.insert((total, Some(p)));
        }
    }
    assert_eq!(allowed.len(), 17);
    assert_eq!(seen, allowed);
}

/// `try_read` against a writer whose critical section has no operation:
/// it can still find the lock held, at the writer's unlock.
#[test]
fn try_read_sees_a_writer_until_its_unlock() {
    let seen = outcomes(300, || {
        let lock = Arc::new(RwLock::new(()));
        let other = lock.clone();
        let writer = thread::spawn(move || drop(other.write().unwrap()));
        let read = lock.try_read().is_ok();
        writer.join().unwrap();
        read
    });
    assert_eq!(seen, BTreeSet::from([false, true]));
}

/// Readers share: `try_read` succeeds while another reader holds the
/// lock, `try_write` does not.
#[test]
fn readers_share_and_keep_writers_out() {
    Builder::new().seed(5).runs(50).check(|| {
        let lock = RwLock::new(1);
        let first = lock.read().unwrap();
        assert_eq!(*lock.try_read().unwrap(), 1);
        assert!(matches!(lock.try_write(), Err(TryLockError::WouldBlock)));
        drop(first);
        assert!(lock.try_write().is_ok());
    });
}

/// The same for a mutex: `try_lock` during another thread's empty
/// critical section can fail.
#[test]
fn try_lock_sees_a_holder_until_its_unlock() {
    let seen = outcomes(300, || {
        let lock = Arc::new(Mutex::new(()));
        let other = lock.clone();
        let holder = thread::spawn(move || drop(other.lock().unwrap()));
        let taken = lock.try_lock().is_ok();
        holder.join().unwrap();
        taken
    });
    assert_eq!(seen, BTreeSet::from([false, true]));
}
