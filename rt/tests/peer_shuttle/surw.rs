//! Ported from awslabs/shuttle 0.9.9, `tests/demo/surw.rs` (Apache-2.0):
//! uneven thread lengths bias a naive random walk away from the schedule
//! where the short thread's event comes after all of the long ones
//! ("Selectively Uniform Concurrency Testing", Zhao et al., ASPLOS '25).
//! Changed: shuttle's `UrwRandomScheduler` and `RandomScheduler` runners
//! to rankcheck's `Strategy::Urw` and `Strategy::Random`, seeded; the
//! random walk's negative tests run 2000 runs, not 10 000; a found
//! schedule fails the run (shuttle records it in a flag).
//! Skipped: `non_uniform_random_degrades_for_uneven_task_lengths` and
//! `uneven_task_lengths_async` (async: the future port).

use rankcheck::sync::atomic::{AtomicUsize, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

const NUM_EVENTS: usize = 25;
const NUM_ITERATIONS_URW: u64 = 1000;

fn uneven_workload_sync(counter1: Arc<AtomicUsize>, counter2: Arc<AtomicUsize>) {
    let t1 = thread::spawn(move || {
        counter1.store(0, Ordering::SeqCst);
    });
    let t2 = thread::spawn(move || {
        for _ in 0..NUM_EVENTS {
            counter2.store(1, Ordering::SeqCst);
        }
    });
    t1.join().ok();
    t2.join().ok();
}

fn uneven_task_creation_workload(counter1: Arc<AtomicUsize>, counter2: Arc<AtomicUsize>) {
    let t1 = thread::spawn(move || {
        counter1.store(0, Ordering::SeqCst);
    });
    let mut handles = Vec::new();
    for _ in 0..NUM_EVENTS {
        let counter2 = counter2.clone();
        handles.push(thread::spawn(move || {
            counter2.store(1, Ordering::SeqCst);
        }));
    }
    for h in handles {
        h.join().ok();
    }
    t1.join().ok();
}

/// Runs `workload` under `strategy` for `runs` runs; a run whose short
/// thread stored last fails with "found the schedule".
fn test_uneven_execution<F>(workload: F, strategy: Strategy, runs: u64)
where
    F: Fn(Arc<AtomicUsize>, Arc<AtomicUsize>) + Send + Sync + 'static,
{
    Builder::new()
        .strategy(strategy)
        .seed(0)
        .runs(runs)
        .no_shrink()
        .check(move || {
            let counter = Arc::new(AtomicUsize::new(1));
            workload(Arc::clone(&counter), Arc::clone(&counter));
            assert_ne!(counter.load(Ordering::SeqCst), 0, "found the schedule");
        });
}

#[test]
#[should_panic(expected = "found the schedule")]
fn uneven_task_lengths_sync() {
    test_uneven_execution(uneven_workload_sync, Strategy::Urw, NUM_ITERATIONS_URW);
}

#[test]
#[should_panic(expected = "found the schedule")]
fn uneven_task_creation() {
    test_uneven_execution(
        uneven_task_creation_workload,
        Strategy::Urw,
        NUM_ITERATIONS_URW,
    );
}

#[test]
fn non_uniform_degrades_for_uneven_task_creation() {
    test_uneven_execution(uneven_task_creation_workload, Strategy::Random, 2_000);
}
