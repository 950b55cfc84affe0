//! The classic litmus tests, each explored in full
//! (`rankcheck::explore_memory`): every run ends by failing with its
//! outcome, so the distinct failures are the reachable outcomes.

use std::collections::BTreeSet;

use rankcheck::sync::atomic::{fence, AtomicUsize, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

use Ordering::{Acquire, Relaxed, Release, SeqCst};

/// The outcomes `test` reaches under `model`: the messages it fails with.
fn outcomes<F>(model: MemoryModel, test: F) -> BTreeSet<String>
where
    F: Fn() + Send + Sync + 'static,
{
    let explored = rankcheck::explore_memory(test, 200_000, 10_000, model);
    assert!(explored.complete, "the exploration was cut");
    explored.failures.into_iter().map(|r| r.message).collect()
}

fn set(outcomes: &[&str]) -> BTreeSet<String> {
    outcomes.iter().map(|o| o.to_string()).collect()
}

/// Two fresh atomics, shared.
fn pair() -> (Arc<AtomicUsize>, Arc<AtomicUsize>) {
    (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)))
}

/// Store buffering: each thread stores to one atomic, then loads the
/// other (with an optional SeqCst fence between).
fn store_buffering(order: Ordering, fenced: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        let (x, y) = pair();
        let side = |mine: Arc<AtomicUsize>, theirs: Arc<AtomicUsize>| {
            thread::spawn(move || {
                mine.store(1, order);
                if fenced {
                    fence(SeqCst);
                }
                theirs.load(order)
            })
        };
        let first = side(x.clone(), y.clone());
        let second = side(y, x);
        let (a, b) = (first.join().unwrap(), second.join().unwrap());
        panic!("{a}{b}");
    }
}

#[test]
fn store_buffering_relaxed_reaches_all_four_outcomes() {
    let reached = outcomes(MemoryModel::Weak, store_buffering(Relaxed, false));
    assert_eq!(reached, set(&["00", "01", "10", "11"]));
}

#[test]
fn store_buffering_seq_cst_never_reads_both_zeros() {
    let reached = outcomes(MemoryModel::Weak, store_buffering(SeqCst, false));
    assert_eq!(reached, set(&["01", "10", "11"]));
}

#[test]
fn store_buffering_with_seq_cst_fences_never_reads_both_zeros() {
    let reached = outcomes(MemoryModel::Weak, store_buffering(Relaxed, true));
    assert_eq!(reached, set(&["01", "10", "11"]));
}

#[test]
fn sequential_consistency_keeps_relaxed_store_buffering_as_it_was() {
    let reached = outcomes(MemoryModel::Sc, store_buffering(Relaxed, false));
    assert_eq!(reached, set(&["01", "10", "11"]));
}

/// Message passing: data, then a flag; the reader reads the flag, then
/// the data.
fn message_passing(publish: Ordering, consume: Ordering) -> impl Fn() + Send + Sync + 'static {
    move || {
        let (data, flag) = pair();
        let writer = {
            let (data, flag) = (data.clone(), flag.clone());
            thread::spawn(move || {
                data.store(1, Relaxed);
                flag.store(1, publish);
            })
        };
        let reader = thread::spawn(move || (flag.load(consume), data.load(Relaxed)));
        writer.join().unwrap();
        let (seen, read) = reader.join().unwrap();
        panic!("{seen}{read}");
    }
}

#[test]
fn message_passing_relaxed_may_read_the_data_stale() {
    let reached = outcomes(MemoryModel::Weak, message_passing(Relaxed, Relaxed));
    assert_eq!(reached, set(&["00", "01", "10", "11"]));
}

#[test]
fn message_passing_release_acquire_never_reads_the_data_stale() {
    let reached = outcomes(MemoryModel::Weak, message_passing(Release, Acquire));
    assert_eq!(reached, set(&["00", "01", "11"]));
}

/// 2+2W: each thread stores to both atomics, in opposite orders; the
/// outcome is the final values.
fn two_plus_two_writes(order: Ordering) -> impl Fn() + Send + Sync + 'static {
    move || {
        let (x, y) = pair();
        let side = |first: Arc<AtomicUsize>, second: Arc<AtomicUsize>| {
            thread::spawn(move || {
                first.store(1, order);
                second.store(2, order);
            })
        };
        let a = side(x.clone(), y.clone());
        let b = side(y.clone(), x.clone());
        a.join().unwrap();
        b.join().unwrap();
        panic!("{}{}", x.load(Relaxed), y.load(Relaxed));
    }
}

#[test]
fn two_plus_two_writes_seq_cst_never_ends_with_both_first_stores() {
    let reached = outcomes(MemoryModel::Weak, two_plus_two_writes(SeqCst));
    assert_eq!(reached, set(&["12", "21", "22"]));
}

#[test]
fn two_plus_two_writes_relaxed_keeps_stores_in_execution_order() {
    // C11 allows "11" with Relaxed; the model puts every store last in its
    // atomic's modification order (docs/guide/src/rust/weak-memory.md), so
    // it does not reach it, and reaches nothing C11 forbids.
    let reached = outcomes(MemoryModel::Weak, two_plus_two_writes(Relaxed));
    assert_eq!(reached, set(&["12", "21", "22"]));
}

/// IRIW: two writers, two readers reading the atomics in opposite orders
/// (the main thread is the first reader; the writers are not joined, so
/// that the search has fewer points to order).
fn independent_reads(order: Ordering) -> impl Fn() + Send + Sync + 'static {
    move || {
        let (x, y) = pair();
        let writer = |a: Arc<AtomicUsize>| thread::spawn(move || a.store(1, order));
        writer(x.clone());
        writer(y.clone());
        let other = {
            let (x, y) = (x.clone(), y.clone());
            thread::spawn(move || (y.load(order), x.load(order)))
        };
        let (a, b) = (x.load(order), y.load(order));
        let (c, d) = other.join().unwrap();
        panic!("{a}{b}{c}{d}");
    }
}

#[test]
fn iriw_seq_cst_never_sees_the_writes_in_two_orders() {
    let reached = outcomes(MemoryModel::Weak, independent_reads(SeqCst));
    assert!(!reached.contains("1010"), "{reached:?}");
    assert_eq!(
        reached,
        outcomes(MemoryModel::Sc, independent_reads(SeqCst))
    );
    assert_eq!(reached.len(), 15, "{reached:?}");
}

#[test]
fn iriw_relaxed_may_see_the_writes_in_two_orders() {
    let reached = outcomes(MemoryModel::Weak, independent_reads(Relaxed));
    assert!(reached.contains("1010"), "{reached:?}");
    assert_eq!(reached.len(), 16, "{reached:?}");
}

#[test]
fn coherence_of_two_reads_never_goes_back() {
    let reached = outcomes(MemoryModel::Weak, || {
        let x = Arc::new(AtomicUsize::new(0));
        let writer = {
            let x = x.clone();
            thread::spawn(move || {
                x.store(1, Relaxed);
                x.store(2, Relaxed);
            })
        };
        let reader = thread::spawn(move || (x.load(Relaxed), x.load(Relaxed)));
        writer.join().unwrap();
        let (a, b) = reader.join().unwrap();
        panic!("{a}{b}");
    });
    assert_eq!(reached, set(&["00", "01", "02", "11", "12", "22"]));
}

#[test]
fn a_weak_compare_exchange_may_fail_spuriously_a_strong_one_not() {
    let reached = outcomes(MemoryModel::Weak, || {
        let x = AtomicUsize::new(0);
        let weak = x.compare_exchange_weak(0, 1, Relaxed, Relaxed).is_ok();
        let strong = AtomicUsize::new(0)
            .compare_exchange(0, 1, Relaxed, Relaxed)
            .is_ok();
        panic!("{weak} {strong}");
    });
    assert_eq!(reached, set(&["false true", "true true"]));
}

#[test]
fn an_unpark_publishes_what_came_before_it_to_the_park() {
    // std: an unpark synchronises with the park that takes its token.
    let reached = outcomes(MemoryModel::Weak, || {
        let data = Arc::new(AtomicUsize::new(0));
        let main = thread::current();
        let worker = {
            let data = data.clone();
            thread::spawn(move || {
                data.store(1, Relaxed);
                main.unpark();
            })
        };
        thread::park();
        let seen = data.load(Relaxed);
        worker.join().unwrap();
        panic!("{seen}");
    });
    assert_eq!(reached, set(&["1"]));
}

#[test]
fn a_mutex_publishes_what_its_holder_wrote() {
    // Every rt synchronisation is a release/acquire edge: what a thread
    // stored Relaxed before its unlock is seen by the next holder.
    let reached = outcomes(MemoryModel::Weak, || {
        let data = Arc::new(AtomicUsize::new(0));
        let lock = Arc::new(rankcheck::sync::Mutex::new(false));
        let writer = {
            let (data, lock) = (data.clone(), lock.clone());
            thread::spawn(move || {
                data.store(1, Relaxed);
                *lock.lock().unwrap() = true;
            })
        };
        let written = *lock.lock().unwrap();
        let seen = data.load(Relaxed);
        writer.join().unwrap();
        panic!("{written}{seen}");
    });
    assert_eq!(reached, set(&["false0", "false1", "true1"]));
}

#[test]
fn a_completed_once_publishes_what_its_initialiser_wrote() {
    // std: the initialiser happens before every call_once that finds it
    // done, also on the fast path.
    let reached = outcomes(MemoryModel::Weak, || {
        let data = Arc::new(AtomicUsize::new(0));
        let once = Arc::new(rankcheck::sync::Once::new());
        let init = {
            let (data, once) = (data.clone(), once.clone());
            thread::spawn(move || once.call_once(|| data.store(1, Relaxed)))
        };
        let seen = once.is_completed().then(|| data.load(Relaxed));
        init.join().unwrap();
        panic!("{seen:?}");
    });
    assert_eq!(reached, set(&["None", "Some(1)"]));
}
