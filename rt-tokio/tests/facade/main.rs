//! The tokio facade through tokio's paths: `select!` and `timeout` explore
//! both outcomes of a race, `join!`/`try_join!` and the runtime shapes
//! behave as tokio's, and `#[tokio::test]` runs a test under the search
//! and reports a found bug with a replay string; the modules hold the
//! regression tests of what published crates' tests needed (bench
//! `crates`): time on the virtual clock, `JoinSet`, the sync types'
//! additions and their use outside a run.

#[path = "../../../rt/tests/support/mod.rs"]
mod support;

mod foreign_thread;
mod join_set;
mod sync;
mod time;

use rankcheck_tokio as tokio;

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;

use support::panic_message;
use tokio::sync::{oneshot, Mutex};
use tokio::time::{timeout, Duration};

/// Which of two outcomes some run of a search saw.
struct Seen([AtomicBool; 2]);

impl Seen {
    const fn new() -> Seen {
        Seen([AtomicBool::new(false), AtomicBool::new(false)])
    }

    fn saw(&self, outcome: usize) {
        self.0[outcome].store(true, SeqCst);
    }

    fn both(&self) -> bool {
        self.0.iter().all(|seen| seen.load(SeqCst))
    }
}

fn search(runs: u64, test: impl Fn() + Send + Sync + 'static) {
    rankcheck_rt::Builder::new().runs(runs).seed(1).check(test);
}

#[test]
fn select_explores_both_outcomes_of_a_race_between_tasks() {
    static SEEN: Seen = Seen::new();
    search(300, || {
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let (first_tx, first_rx) = oneshot::channel();
            let (second_tx, second_rx) = oneshot::channel();
            tokio::spawn(async move {
                let _ = first_tx.send(1);
            });
            tokio::spawn(async move {
                let _ = second_tx.send(2);
            });
            let winner = tokio::select! {
                Ok(value) = first_rx => value,
                Ok(value) = second_rx => value,
            };
            SEEN.saw(winner - 1);
        })
    });
    assert!(SEEN.both(), "select! saw only one sender win");
}

#[test]
fn select_chooses_between_ready_branches_unless_biased() {
    static SEEN: Seen = Seen::new();
    search(100, || {
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let unbiased = tokio::select! {
                value = async { 0 } => value,
                value = async { 1 } => value,
            };
            SEEN.saw(unbiased);
            let biased = tokio::select! {
                biased;
                value = async { 0 } => value,
                value = async { 1 } => value,
            };
            assert_eq!(biased, 0, "a biased select! polls in source order");
        })
    });
    assert!(SEEN.both(), "both ready branches are chosen over a search");
}

#[test]
fn select_disables_unmatched_and_precondition_branches_then_runs_else() {
    search(20, || {
        rankcheck_rt::future::block_on(async {
            let ready = false;
            let chosen = tokio::select! {
                Some(value) = async { None::<u32> } => value,
                value = async { 7 }, if ready => value,
                else => 99,
            };
            assert_eq!(chosen, 99);
            let mut closed = false;
            let found = tokio::select! {
                Some(value) = async { None::<u32> } => value,
                mut value = async { 5 } => {
                    value += 1;
                    closed = true;
                    value
                }
            };
            assert_eq!((found, closed), (6, true));
        })
    });
}

/// The sender and the timeout wait for the same deadline on the clock:
/// both timers fire together, and whichever task the search runs first
/// decides, as in tokio, where both are woken in one turn of the timer.
#[test]
fn a_timeout_and_a_sleep_of_the_same_deadline_race() {
    static SEEN: Seen = Seen::new();
    search(300, || {
        rankcheck_rt::future::block_on(async {
            let (tx, rx) = oneshot::channel();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let _ = tx.send(());
            });
            match timeout(Duration::from_secs(1), rx).await {
                Ok(received) => {
                    received.unwrap();
                    SEEN.saw(0);
                }
                Err(tokio::time::error::Elapsed { .. }) => SEEN.saw(1),
            }
        })
    });
    assert!(SEEN.both(), "the race saw only one outcome");
}

#[test]
fn join_and_try_join_give_every_output_or_the_first_error() {
    search(50, || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let count = Arc::new(Mutex::new(0));
            let add = |n| {
                let count = count.clone();
                async move {
                    *count.lock().await += n;
                    n
                }
            };
            assert_eq!(tokio::join!(add(1), add(2), add(3)), (1, 2, 3));
            assert_eq!(*count.lock().await, 6);
            let ok: Result<(u8, &str), ()> = tokio::try_join!(async { Ok(1) }, async { Ok("a") });
            assert_eq!(ok, Ok((1, "a")));
            let failed: Result<(u8, u8), &str> =
                tokio::try_join!(async { Ok(1) }, async { Err("no") });
            assert_eq!(failed, Err("no"));
        })
    });
}

#[test]
fn spawn_blocking_runs_the_closure_as_a_task() {
    search(20, || {
        rankcheck_rt::future::block_on(async {
            let sum = tokio::task::spawn_blocking(|| (1..=4).sum::<u32>());
            assert_eq!(sum.await.unwrap(), 10);
        })
    });
}

#[tokio::test(runs = 50, seed = 1, flavor = "multi_thread", worker_threads = 2)]
async fn the_test_attribute_runs_an_async_body_under_the_search() {
    let count = Arc::new(Mutex::new(0));
    let other = tokio::spawn({
        let count = count.clone();
        async move { *count.lock().await += 1 }
    });
    *count.lock().await += 1;
    other.await.unwrap();
    assert_eq!(*count.lock().await, 2);
}

/// Two tasks read, then write, a counter under separate locks.
async fn lost_update_between_tasks() {
    let count = Arc::new(Mutex::new(0));
    let other = tokio::spawn({
        let count = count.clone();
        async move {
            let seen = *count.lock().await;
            *count.lock().await = seen + 1;
        }
    });
    let seen = *count.lock().await;
    *count.lock().await = seen + 1;
    other.await.unwrap();
    assert_eq!(*count.lock().await, 2, "lost update");
}

/// The update is lost only where the other task runs between the read
/// and the write: a multi-thread runtime's preemption.
#[tokio::test(
    runs = 2000,
    seed = 2,
    strategy = "pctvb",
    depth = 2,
    vars = 1,
    flavor = "multi_thread"
)]
#[should_panic(expected = "lost update")]
async fn the_test_attribute_fails_with_the_bug_it_finds() {
    lost_update_between_tasks().await;
}

/// On a current-thread runtime (`#[tokio::test]`'s default) a task runs
/// until it returns `Pending`: neither task waits between its read and its
/// write (the locks are free then), so no run loses the update, as none
/// does under tokio's current-thread runtime. (The same search finds the
/// loss in a multi-thread runtime, above.)
#[tokio::test(runs = 2000, seed = 2, strategy = "pctvb", depth = 2, vars = 1)]
async fn a_current_thread_runtime_switches_tasks_only_where_they_return_pending() {
    lost_update_between_tasks().await;
}

/// A current-thread runtime still interleaves tasks where they yield: the
/// spawned task runs at the main task's yield, or later.
#[test]
fn a_current_thread_runtime_interleaves_tasks_at_their_yields() {
    static SEEN: Seen = Seen::new();
    search(300, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let other = tokio::spawn({
                let flag = flag.clone();
                async move { flag.store(true, SeqCst) }
            });
            // Nothing switches before the main task yields.
            assert!(!flag.load(SeqCst));
            tokio::task::yield_now().await;
            SEEN.saw(usize::from(flag.load(SeqCst)));
            other.await.unwrap();
        })
    });
    assert!(SEEN.both(), "the yield saw only one order");
}

#[test]
fn the_test_attribute_reports_a_found_bug_with_a_replay_string() {
    let report =
        panic_message(the_test_attribute_fails_with_the_bug_it_finds).expect("the bug is found");
    let start = report.find("\"rc").expect("a replay string") + 1;
    let end = start + report[start..].find('"').expect("its end");
    let replayed = panic_message(|| {
        rankcheck_rt::replay(
            || rankcheck_rt::future::block_on(lost_update_between_tasks()),
            &report[start..end],
        )
    })
    .expect("the replay fails too");
    assert!(replayed.contains("lost update"), "{replayed}");
}
