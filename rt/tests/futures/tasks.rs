//! Tasks, wakers and `block_on`: hand-written futures work as under any
//! executor, a lost wake-up is a deadlock, a task's panic and abort are
//! its handle's `JoinError`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use rankcheck::future::{self, block_on};
use rankcheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::{Arc, Mutex};
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

/// A flag a future waits for, with the waker of its waiter.
#[derive(Default)]
struct Flag {
    set: AtomicBool,
    waiter: Mutex<Option<Waker>>,
}

impl Flag {
    fn set(&self) {
        self.set.store(true, SeqCst);
        if let Some(waiter) = self.waiter.lock().unwrap().take() {
            waiter.wake();
        }
    }
}

/// Waits for the flag. `careful`: registers its waker before it looks at
/// the flag; otherwise the flag can be set between the look and the
/// registration, and the wake-up is lost.
struct FlagSet {
    flag: Arc<Flag>,
    careful: bool,
}

impl Future for FlagSet {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.careful {
            *self.flag.waiter.lock().unwrap() = Some(cx.waker().clone());
        }
        if self.flag.set.load(SeqCst) {
            return Poll::Ready(());
        }
        if !self.careful {
            *self.flag.waiter.lock().unwrap() = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// A task waits for the flag, another sets it, the test awaits both.
fn flag_between_tasks(careful: bool) {
    block_on(async move {
        let flag = Arc::new(Flag::default());
        let waiter = future::spawn(FlagSet {
            flag: flag.clone(),
            careful,
        });
        let setter = future::spawn(async move { flag.set() });
        setter.await.unwrap();
        waiter.await.unwrap();
    });
}

#[test]
fn a_lost_wake_up_is_a_deadlock_naming_the_task() {
    let report = panic_message(|| {
        rankcheck::Builder::new()
            .runs(2000)
            .seed(1)
            .check(|| flag_between_tasks(false));
    })
    .expect("the lost wake-up is found");
    assert!(report.contains("error[deadlock]"), "{report}");
    assert!(
        report.contains("waits to be woken; last polled at tasks.rs:"),
        "{report}"
    );
    // The test's thread awaits the waiter, which nothing wakes.
    let waiter = report
        .lines()
        .find(|l| l.contains("│ thread task@"))
        .expect("the waiting task is listed");
    let task = waiter.split_whitespace().nth(2).expect("its name");
    assert!(
        report.contains("│ thread main waits to be woken; last polled at tasks.rs:"),
        "{report}"
    );
    assert!(
        report.contains(&format!("(awaits the end of {task})")),
        "{report}"
    );
}

#[test]
fn a_careful_waiter_passes_with_a_guarantee() {
    let guarantee = rankcheck::Builder::new()
        .runs(300)
        .seed(1)
        .check(|| flag_between_tasks(true));
    assert_eq!(guarantee.runs, 300);
}

#[test]
fn a_found_async_bug_replays_from_its_string() {
    let report = panic_message(|| {
        rankcheck::Builder::new()
            .runs(2000)
            .seed(2)
            .check(|| flag_between_tasks(false));
    })
    .expect("found");
    let start = report.find("\"rc").expect("a replay string") + 1;
    let end = start + report[start..].find('"').expect("its end");
    let replayed =
        panic_message(|| rankcheck::replay(|| flag_between_tasks(false), &report[start..end]))
            .expect("the replay fails too");
    assert!(replayed.contains("error[deadlock]"), "{replayed}");
    assert!(replayed.contains("waits to be woken"), "{replayed}");
}

#[test]
fn tasks_return_their_results_and_run_concurrently() {
    rankcheck::Builder::new().runs(200).seed(3).check(|| {
        let sum = block_on(async {
            let hits = Arc::new(AtomicUsize::new(0));
            let tasks: Vec<_> = (0..3)
                .map(|i| {
                    let hits = hits.clone();
                    future::spawn(async move {
                        hits.fetch_add(1, SeqCst);
                        future::yield_now().await;
                        i * 10
                    })
                })
                .collect();
            let mut sum = 0;
            for task in tasks {
                sum += task.await.unwrap();
            }
            assert_eq!(hits.load(SeqCst), 3);
            sum
        });
        assert_eq!(sum, 30);
    });
}

#[test]
fn a_tasks_panic_is_its_handles_join_error() {
    rankcheck::Builder::new().runs(50).seed(4).check(|| {
        block_on(async {
            let task = future::spawn(async { panic!("boom") });
            let error = task.await.expect_err("the task panicked");
            assert!(error.is_panic() && !error.is_cancelled());
            assert_eq!(*error.into_panic().downcast::<&str>().unwrap(), "boom");
        });
    });
}

#[test]
fn a_panic_no_handle_takes_fails_the_run() {
    let report = panic_message(|| {
        rankcheck::Builder::new().runs(50).seed(5).check(|| {
            block_on(async {
                drop(future::spawn(async { panic!("lost in a task") }));
                future::yield_now().await;
            });
        });
    })
    .expect("the panic fails the run");
    assert!(report.contains("lost in a task"), "{report}");
}

#[test]
fn an_aborted_task_is_cancelled_at_its_next_pending() {
    rankcheck::Builder::new().runs(200).seed(6).check(|| {
        block_on(async {
            let started = Arc::new(AtomicBool::new(false));
            let task = {
                let started = started.clone();
                future::spawn(async move {
                    started.store(true, SeqCst);
                    std::future::pending::<()>().await;
                })
            };
            future::yield_now().await;
            task.abort();
            let error = task.await.expect_err("never finishes by itself");
            assert!(error.is_cancelled());
        });
    });
}

#[test]
fn a_task_left_waiting_when_the_test_ends_is_dropped_not_a_deadlock() {
    rankcheck::Builder::new().runs(100).seed(7).check(|| {
        let handle = future::spawn(std::future::pending::<()>());
        assert!(!handle.is_finished());
    });
}

#[test]
fn block_on_runs_in_a_spawned_thread_too() {
    rankcheck::Builder::new().runs(100).seed(8).check(|| {
        let thread = rankcheck::thread::spawn(|| {
            block_on(async { future::spawn(async { 7 }).await.unwrap() })
        });
        assert_eq!(thread.join().unwrap(), 7);
    });
}

/// The test's thread waits for the flag, a task sets it.
fn flag_from_a_task(careful: bool) {
    block_on(async move {
        let flag = Arc::new(Flag::default());
        let setter = flag.clone();
        drop(future::spawn(async move { setter.set() }));
        FlagSet { flag, careful }.await;
    });
}

#[test]
fn every_schedule_of_the_flag_finds_the_lost_wake_up_and_clears_the_careful_waiter() {
    let careless = rankcheck::explore(|| flag_from_a_task(false), 20_000, 500);
    assert!(careless.complete, "{} schedules", careless.schedules);
    assert!(
        careless.failures.iter().any(|f| f.kind == "deadlock"),
        "{:?}",
        careless.failures
    );
    let careful = rankcheck::explore(|| flag_from_a_task(true), 20_000, 500);
    assert!(careful.complete, "{} schedules", careful.schedules);
    assert!(careful.failures.is_empty(), "{:?}", careful.failures);
}

#[test]
fn an_async_failure_writes_the_same_json_as_a_threads() {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rt-async-json.json");
    let _ = std::fs::remove_file(&path);
    panic_message(|| {
        rankcheck::Builder::new()
            .runs(2000)
            .seed(1)
            .json(&path)
            .check(|| flag_between_tasks(false));
    })
    .expect("found");
    let text = std::fs::read_to_string(&path).expect("the JSON was written");
    let json: serde_json::Value = serde_json::from_str(&text).expect("it parses");
    let failure = &json["first_failure"];
    assert_eq!(failure["kind"], "deadlock", "{json}");
    assert!(
        failure["replay"].as_str().unwrap().starts_with("rc"),
        "{json}"
    );
    let trace = failure["trace"].as_array().expect("the steps");
    assert!(
        trace.iter().any(|s| s["operation"] == "waits to be woken"),
        "{json}"
    );
}

#[test]
fn choose_draws_every_alternative_and_replays_its_choice() {
    use std::sync::atomic::AtomicBool as StdAtomicBool;
    static SEEN: [StdAtomicBool; 3] = [const { StdAtomicBool::new(false) }; 3];
    rankcheck::Builder::new().runs(100).seed(9).check(|| {
        SEEN[future::choose(3)].store(true, std::sync::atomic::Ordering::Relaxed);
    });
    assert!(SEEN
        .iter()
        .all(|s| s.load(std::sync::atomic::Ordering::Relaxed)));
    // A failure that needs the last alternative replays with it.
    let test = || assert_ne!(future::choose(3), 2, "the last alternative");
    let report = panic_message(|| {
        rankcheck::Builder::new().runs(100).seed(10).check(test);
    })
    .expect("found");
    let start = report.find("\"rc").expect("a replay string") + 1;
    let end = start + report[start..].find('"').expect("its end");
    let replayed =
        panic_message(|| rankcheck::replay(test, &report[start..end])).expect("fails again");
    assert!(replayed.contains("the last alternative"), "{replayed}");
}

#[test]
fn tasks_holding_and_awaiting_async_types_are_torn_down_safely_when_a_run_fails() {
    use rankcheck::future::sync::{mpsc, Mutex as AsyncMutex};
    let report = panic_message(|| {
        rankcheck::Builder::new().runs(100).seed(11).check(|| {
            block_on(async {
                let lock = Arc::new(AsyncMutex::new(0));
                let held = lock.clone().lock_owned().await;
                let (tx, _rx) = mpsc::channel(1);
                tx.send(1).await.unwrap();
                let waiter = {
                    let lock = lock.clone();
                    future::spawn(async move { *lock.lock().await += 1 })
                };
                let sender = future::spawn(async move { tx.send(2).await });
                let holder = future::spawn(async move {
                    let _held = held;
                    std::future::pending::<()>().await;
                });
                future::yield_now().await;
                drop((waiter, sender, holder));
                panic!("the test fails while its tasks wait");
            });
        });
    })
    .expect("the run fails");
    assert!(
        report.contains("the test fails while its tasks wait"),
        "{report}"
    );
}
