//! Data races on `UnsafeCell` and loads without synchronisation
//! (`unsync_load`) under weak memory (loom's causality checks),
//! a cell access held open by `get`/`get_mut_ptr`, `Cell`, and a task
//! woken by a thread seeing what the thread did before the wake; each
//! explored in full, so a race any schedule makes is found.

use std::collections::BTreeSet;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use rankcheck::cell::{Cell, UnsafeCell};
use rankcheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel};
use rankcheck_rt as rankcheck;

use crate::structures::replay_string;
use crate::support::panic_message;
use Ordering::{Acquire, Relaxed, Release};

/// The distinct failure messages of every schedule and read of `test`.
fn failures<F>(test: F) -> BTreeSet<String>
where
    F: Fn() + Send + Sync + 'static,
{
    let explored = rankcheck::explore_memory(test, 100_000, 1_000, MemoryModel::Weak);
    assert!(explored.complete, "the exploration was cut");
    explored.failures.into_iter().map(|r| r.message).collect()
}

/// A cell and a flag, shared by the threads of a test through an `Rc`
/// (`spawn_local` asks for no `Send`).
struct Shared {
    data: UnsafeCell<usize>,
    flag: AtomicUsize,
}

fn shared() -> Rc<Shared> {
    Rc::new(Shared {
        data: UnsafeCell::new(0),
        flag: AtomicUsize::new(0),
    })
}

/// A writer writes the cell then raises the flag with `store`; the reader
/// reads the cell once it sees the flag with `load`.
fn handoff(store: Ordering, load: Ordering) -> impl Fn() + Send + Sync + 'static {
    move || {
        let shared = shared();
        let writer = {
            let shared = shared.clone();
            thread::spawn_local(move || {
                shared.data.with_mut(|_| ());
                shared.flag.store(1, store);
            })
        };
        if shared.flag.load(load) == 1 {
            shared.data.with(|_| ());
        }
        writer.join().unwrap();
    }
}

#[test]
fn a_release_acquire_handoff_orders_the_cell_and_a_relaxed_one_races() {
    assert!(failures(handoff(Release, Acquire)).is_empty());
    let raced = failures(handoff(Relaxed, Acquire));
    assert_eq!(raced.len(), 1, "{raced:?}");
    let message = raced.first().unwrap();
    assert!(
        message.starts_with("Causality violation: Concurrent read and write accesses"),
        "{message}"
    );
}

/// Two threads write the cell, the second after joining the first when
/// `joined`.
fn two_writes(joined: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        let shared = shared();
        let other = {
            let shared = shared.clone();
            thread::spawn_local(move || shared.data.with_mut(|_| ()))
        };
        if joined {
            other.join().unwrap();
            shared.data.with_mut(|_| ());
        } else {
            shared.data.with_mut(|_| ());
            other.join().unwrap();
        }
    }
}

#[test]
fn unordered_writes_race_under_weak_memory_only_and_a_join_orders_them() {
    assert!(failures(two_writes(true)).is_empty());
    let raced = failures(two_writes(false));
    assert!(!raced.is_empty());
    assert!(
        raced
            .iter()
            .all(|m| m.contains("Concurrent write accesses")),
        "{raced:?}"
    );
    // Sequential consistency looks for no race.
    let sc = rankcheck::explore_memory(two_writes(false), 10_000, 1_000, MemoryModel::Sc);
    assert!(sc.complete && sc.failures.is_empty());
}

/// The lines of `two_writes`' racing writes: the spawned thread's and
/// the main thread's.
const TWO_WRITES_LINES: [u32; 2] = [84, 90];

/// The first line of a report and the line that says where it failed.
fn failure_head(report: &str) -> (&str, Option<&str>) {
    let first = report.lines().next().unwrap_or_default();
    (first, report.lines().find(|l| l.contains("fails here")))
}

/// A search's report of the test `make` makes, which must fail with a
/// data race on a cell that its replay string reproduces: the report.
fn race_found_and_replayed<F>(search: rankcheck::Builder, make: impl Fn() -> F) -> String
where
    F: Fn() + Send + Sync + 'static,
{
    let test = make();
    let report = panic_message(move || {
        search.memory_model(MemoryModel::Weak).check(test);
    })
    .expect("the race is found");
    assert!(
        report.starts_with("error[panic]: Causality violation: Concurrent"),
        "{report}"
    );
    assert!(!report.contains("nondeterminism"), "{report}");
    let replay = replay_string(&report).to_owned();
    assert!(replay.contains(":weak:"), "{replay}");
    let replayed = panic_message(|| rankcheck::replay(make(), &replay)).expect("the replay fails");
    assert_eq!(failure_head(&replayed), failure_head(&report), "{replayed}");
    report
}

#[test]
fn a_race_a_search_finds_names_both_writes_and_replays() {
    // Every run races: nothing orders the writes.
    let report = race_found_and_replayed(rankcheck::Builder::new().seed(1).runs(100), || {
        two_writes(false)
    });
    assert!(report.contains("Concurrent write accesses"), "{report}");
    // The report names the earlier write in its message and the later
    // one as where the run failed, in either order.
    let named = |earlier: u32, failing: u32| {
        report.contains(&format!(
            "wrote it at cells.rs:{earlier} with no happens-before"
        )) && report.contains(&format!("fails here (cells.rs:{failing})"))
    };
    let [spawned, main] = TWO_WRITES_LINES;
    assert!(named(spawned, main) || named(main, spawned), "{report}");
    // The shrinker replays under weak memory too: its schedule is shrunk
    // and still the race (the replay above fails as the report says).
    assert!(report.contains("shrunk from"), "{report}");
    assert!(!report.contains("fails here (ptr.rs"), "{report}");
}

#[test]
fn a_race_found_by_each_strategy_past_the_preparatory_runs_replays() {
    // One preparatory run, which the relaxed handoff passes unless the
    // writer runs first, so that the strategies' own runs find it too.
    for strategy in [
        rankcheck::Strategy::Portfolio,
        rankcheck::Strategy::Pctvb,
        rankcheck::Strategy::Pct,
        rankcheck::Strategy::Pos,
        rankcheck::Strategy::Random,
    ] {
        for seed in 0..4 {
            let search = rankcheck::Builder::new()
                .strategy(strategy)
                .seed(seed)
                .runs(2_000)
                .profile_runs(1);
            let report = race_found_and_replayed(search, || handoff(Relaxed, Acquire));
            assert!(
                report.contains("Concurrent read and write accesses"),
                "{strategy:?}, seed {seed}: {report}"
            );
        }
    }
}

#[test]
fn a_pointer_holds_its_access_open_across_scheduling_points() {
    let overlapping = || {
        let shared = shared();
        let other = {
            let shared = shared.clone();
            thread::spawn_local(move || drop(shared.data.get()))
        };
        let write = shared.data.get_mut_ptr();
        // A scheduling point while the write is open.
        shared.flag.store(1, Relaxed);
        drop(write);
        other.join().unwrap();
    };
    let found = failures(overlapping);
    assert!(
        found
            .iter()
            .any(|m| m.contains("while another access to it is open")),
        "{found:?}"
    );
}

#[test]
fn a_cell_reads_and_writes_as_std_s() {
    rankcheck::Builder::new().runs(5).seed(1).check(|| {
        let cell = Cell::new(1);
        assert_eq!(cell.replace(2), 1);
        cell.set(3);
        let other = Cell::new(4);
        cell.swap(&other);
        assert_eq!((cell.get(), other.take()), (4, 3));
        assert_eq!((other.get(), cell.into_inner()), (0, 4));
    });
}

#[test]
fn a_task_woken_by_a_thread_sees_what_it_did_before_the_wake() {
    let woken = || {
        let gate = Arc::new(AtomicBool::new(false));
        let mut polls = 0;
        rankcheck::future::block_on(poll_fn(|cx| {
            if polls == 0 {
                let (gate, waker) = (gate.clone(), cx.waker().clone());
                thread::spawn(move || {
                    gate.store(true, Relaxed);
                    waker.wake();
                });
            }
            polls += 1;
            match gate.load(Relaxed) {
                true => Poll::Ready(()),
                false if polls > 1 => panic!("woken without the gate open"),
                false => Poll::Pending,
            }
        }));
    };
    assert!(failures(woken).is_empty());
}

/// A thread stores 1; the main thread loads without synchronisation,
/// after joining it when `joined`, else while it may run.
fn unsync_after_store(joined: bool) -> impl Fn() + Send + Sync + 'static {
    move || {
        let value = Arc::new(AtomicUsize::new(0));
        let mut writer = Some({
            let value = value.clone();
            thread::spawn(move || value.store(1, Relaxed))
        });
        if joined {
            if let Some(w) = writer.take() {
                w.join().unwrap();
            }
        }
        // Tests only: the racy case is what the check must find.
        #[allow(unsafe_code)]
        let seen = unsafe { value.unsync_load() };
        assert!(seen <= 1);
        if let Some(w) = writer {
            w.join().unwrap();
        }
    }
}

/// A writer stores, then raises a flag with `Relaxed`; the main thread,
/// seeing the flag, loads without synchronisation: the store is always
/// made before the load and never happens before it, so the load itself
/// finds the race (not a later store).
fn unsync_after_relaxed_flag() {
    let value = Arc::new(AtomicUsize::new(0));
    let flag = Arc::new(AtomicBool::new(false));
    let writer = {
        let (value, flag) = (value.clone(), flag.clone());
        thread::spawn(move || {
            value.store(1, Relaxed);
            flag.store(true, Relaxed);
        })
    };
    if flag.load(Relaxed) {
        // Tests only: the racy case is what the check must find.
        #[allow(unsafe_code)]
        let seen = unsafe { value.unsync_load() };
        assert!(seen <= 1);
    }
    writer.join().unwrap();
}

#[test]
fn an_unsync_load_after_a_racing_store_fails_naming_both() {
    let raced = failures(unsync_after_relaxed_flag);
    assert_eq!(raced.len(), 1, "{raced:?}");
    assert!(
        raced.iter().all(|m| m.starts_with(
            "Causality violation: Concurrent `unsync_load` and atomic store of value: "
        ) && m.contains("loads it with unsync_load")),
        "{raced:?}"
    );
}

#[test]
fn an_unsync_load_ordered_after_every_store_passes_and_a_racing_one_fails() {
    assert!(failures(unsync_after_store(true)).is_empty());
    let raced = failures(unsync_after_store(false));
    assert!(!raced.is_empty());
    assert!(
        raced
            .iter()
            .all(|m| m.starts_with("Causality violation: Concurrent") && m.contains("unsync_load")),
        "{raced:?}"
    );
}
