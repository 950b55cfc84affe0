//! A task's start is a step of its own: its first operation is a
//! scheduling point like every other, so what its first poll does before
//! it can be interleaved, and a run can end there (awslabs/shuttle 0.9.9's
//! `tests/future/basic.rs`, Apache-2.0: `async_atomic`,
//! `drop_shuttle_yield_future`, `abort_at_second_await_point`, ported with
//! their outcomes collected per run, as rankcheck's exploration counts
//! schedules differently from shuttle's DFS).
//!
//! The outcomes are read through std atomics, which rankcheck does not
//! see (that is the point: code before a task's first operation), so no
//! reduction can know that the steps around them conflict. The tests
//! explore every schedule unreduced, as shuttle's DFS does.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex as StdMutex};

use rankcheck::future::{self, block_on};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

/// The outcomes the runs of an exploration recorded.
type Seen<T> = Arc<StdMutex<BTreeSet<T>>>;

fn explore_outcomes<T: Ord + Send + 'static>(
    test: impl Fn(&Seen<T>) + Send + Sync + 'static,
) -> BTreeSet<T> {
    let seen: Seen<T> = Arc::default();
    let record = seen.clone();
    let explored = rankcheck::__private::explore_unreduced(
        move || test(&record),
        100_000,
        1_000,
        rankcheck::MemoryModel::Sc,
    );
    assert!(explored.complete, "{explored:?}");
    let outcomes = std::mem::take(&mut *seen.lock().unwrap());
    outcomes
}

#[test]
fn another_task_sees_what_a_task_did_before_its_first_operation() {
    // shuttle's `async_atomic`: the second task may run between the
    // first's store of 1 (a std atomic, unseen) and its yield.
    let seen = explore_outcomes(|seen| {
        let r = Arc::new(AtomicUsize::new(0));
        let r1 = r.clone();
        future::spawn(async move {
            r1.store(1, SeqCst);
            thread::yield_now();
            r1.store(0, SeqCst);
        });
        let seen = seen.clone();
        future::spawn(async move {
            seen.lock().unwrap().insert(r.load(SeqCst));
        });
    });
    assert!(seen.contains(&1), "{seen:?}");
}

#[test]
fn a_run_may_end_while_a_task_waits_at_its_first_yield() {
    // shuttle's `drop_shuttle_yield_future`: the task is dropped before it
    // ran, at its yield, or not at all (it finished).
    let seen = explore_outcomes(|seen| {
        let steps = Arc::new(AtomicUsize::new(0));
        let in_task = steps.clone();
        future::spawn(async move {
            in_task.fetch_add(1, SeqCst);
            future::yield_now().await;
            in_task.fetch_add(1, SeqCst);
        });
        // What the task did by the time the run ends (main's last step).
        let seen = seen.clone();
        let record = move || seen.lock().unwrap().insert(steps.load(SeqCst));
        thread::yield_now();
        record();
    });
    assert_eq!(seen, [0, 1, 2].into_iter().collect(), "{seen:?}");
}

#[test]
fn an_abort_takes_effect_at_each_await_point_or_after_the_end() {
    // shuttle's `abort_at_second_await_point`: (steps done, cancelled).
    let seen = explore_outcomes(|seen| {
        let steps = Arc::new(AtomicUsize::new(0));
        let in_task = steps.clone();
        let (ready, started) = future::sync::oneshot::channel();
        let task = future::spawn(async move {
            ready.send(()).unwrap();
            in_task.fetch_add(1, SeqCst);
            future::yield_now().await;
            in_task.fetch_add(1, SeqCst);
            future::yield_now().await;
            in_task.fetch_add(1, SeqCst);
        });
        block_on(async { started.await.unwrap() });
        thread::yield_now();
        task.abort();
        let cancelled = block_on(task).is_err_and(|e| e.is_cancelled());
        seen.lock().unwrap().insert((steps.load(SeqCst), cancelled));
    });
    let expected = [(1, true), (2, true), (3, false)].into_iter().collect();
    assert_eq!(seen, expected, "{seen:?}");
}
