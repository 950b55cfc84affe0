//! The loom facade's own behaviour: a failure the exploration reaches (a
//! data race among them) panics with rankcheck's report and a replay
//! string that replays it; a test too big for the schedule cap, or not a
//! function of its schedule, falls back to the randomized search (which
//! still finds a bug) or, asked to be exhaustive, fails saying why; loom's
//! thread limit, unnamed main thread, `compare_and_swap` (not deprecated),
//! `Notify` and `AtomicWaker` behave as loom's; `RANKCHECK_LOOM_SEARCH=random`
//! runs the randomized search without exploring.

#[path = "../../../rt/tests/support/mod.rs"]
mod support;

mod api;
mod arc;
mod atomic;
mod causal_cell;
mod findings;
mod published_loom;
mod search;

use rankcheck_loom as loom;

use std::future::poll_fn;
use std::task::Poll;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use loom::sync::{Arc, Notify};
use loom::thread;
use support::panic_message;

/// Two threads increment with a load and a store: one update can be lost.
fn lost_update() {
    let count = Arc::new(AtomicUsize::new(0));
    let other = {
        let count = count.clone();
        thread::spawn(move || {
            let seen = count.load(Relaxed);
            count.store(seen + 1, Relaxed);
        })
    };
    let seen = count.load(Relaxed);
    count.store(seen + 1, Relaxed);
    other.join().unwrap();
    assert_eq!(count.load(Relaxed), 2, "lost update");
}

/// The replay string a report ends with.
fn replay_string(report: &str) -> &str {
    let start = report.find("\"rc").expect("a replay string") + 1;
    let end = start + report[start..].find('"').expect("its end");
    &report[start..end]
}

#[test]
fn a_failure_panics_with_the_report_and_a_replay_string_that_replays_it() {
    let report = panic_message(|| loom::model(lost_update)).expect("the model fails");
    assert!(report.starts_with("error[panic]: assertion"), "{report}");
    assert!(report.contains("lost update"), "{report}");
    let replay = replay_string(&report).to_owned();
    let replayed = panic_message(|| rankcheck_rt::replay(lost_update, &replay));
    assert!(replayed.is_some_and(|r| r.contains("lost update")));
}

/// A spawned thread and the main thread write a cell with nothing
/// ordering them: a data race in every schedule (the cell is not `Sync`;
/// loom's spawn asks for no `Send`).
fn racing_writes() {
    let data = std::rc::Rc::new(UnsafeCell::new(0_usize));
    let other = {
        let data = data.clone();
        thread::spawn(move || data.with_mut(|_| ()))
    };
    data.with_mut(|_| ());
    other.join().unwrap();
}

#[test]
fn a_data_race_panics_with_the_race_and_a_replay_string_that_replays_it() {
    let report = panic_message(|| loom::model(racing_writes)).expect("the model fails");
    assert!(
        report.starts_with(
            "error[panic]: Causality violation: Concurrent write accesses to `UnsafeCell`"
        ),
        "{report}"
    );
    assert!(
        report.contains("with no happens-before between them"),
        "{report}"
    );
    assert!(!report.contains("nondeterminism"), "{report}");
    let replay = replay_string(&report).to_owned();
    let replayed =
        panic_message(|| rankcheck_rt::replay(racing_writes, &replay)).expect("the replay fails");
    let first = |r: &str| r.lines().next().unwrap_or_default().to_owned();
    assert_eq!(first(&replayed), first(&report), "{replayed}");
}

/// Four threads each bump a counter twice: more schedules than a cap of 10.
fn four_counters() {
    let count = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let count = count.clone();
            thread::spawn(move || {
                count.fetch_add(1, Relaxed);
                count.fetch_add(1, Relaxed);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(count.load(Relaxed), 8);
}

#[test]
fn past_the_cap_the_randomized_search_stands_in_or_an_exhaustive_model_fails() {
    let mut builder = loom::model::Builder::new();
    builder.max_permutations = Some(10);
    // loom checks its cap every `checkpoint_interval` executions, before
    // the next: with an interval of 1, after 9.
    builder.checkpoint_interval = 1;
    builder.check(four_counters);
    builder.exhaustive = true;
    let message = panic_message(|| builder.check(four_counters)).expect("exhaustive fails");
    assert!(
        message.contains("did not finish within 9 schedules"),
        "{message}"
    );
    assert!(message.contains("LOOM_MAX_PERMUTATIONS"), "{message}");
}

#[test]
fn max_permutations_takes_effect_where_loom_checks_it() {
    // loom checks the cap only every 20,000 executions: a test that sets
    // 1 explores a small model to its end, as under loom.
    let mut builder = loom::model::Builder::new();
    builder.max_permutations = Some(1);
    builder.exhaustive = true;
    builder.check(two_increments);
}

#[test]
fn past_max_duration_the_exploration_counts_as_unfinished() {
    let mut builder = loom::model::Builder::new();
    builder.max_duration = Some(std::time::Duration::from_millis(1));
    builder.exhaustive = true;
    let message = panic_message(|| builder.check(four_counters)).expect("exhaustive fails");
    assert!(
        message.contains("did not finish within 0.001 s, "),
        "{message}"
    );
    assert!(message.contains("LOOM_MAX_DURATION"), "{message}");
}

#[test]
fn the_fallback_search_still_finds_a_bug() {
    let mut builder = loom::model::Builder::new();
    builder.max_permutations = Some(1);
    builder.checkpoint_interval = 1;
    builder.preemption_bound = Some(2);
    let report = panic_message(|| builder.check(lost_update)).expect("the search fails");
    assert!(
        report.contains("lost update") && report.contains("replay:"),
        "{report}"
    );
}

/// Two threads add to a counter with `fetch_add`: correct.
fn two_increments() {
    let count = Arc::new(AtomicUsize::new(0));
    let other = {
        let count = count.clone();
        thread::spawn(move || count.fetch_add(1, Relaxed))
    };
    count.fetch_add(1, Relaxed);
    other.join().unwrap();
    assert_eq!(count.load(Relaxed), 2);
}

/// `body`, after four more steps in the executions of the process that
/// `longer` picks by their number from 0 (`executions` counts them, out
/// of loom's sight), as a test that reads the clock may take: the test is
/// not a function of its schedule.
fn longer_when(
    executions: &'static std::sync::atomic::AtomicUsize,
    longer: fn(usize) -> bool,
    body: fn(),
) {
    if longer(executions.fetch_add(1, std::sync::atomic::Ordering::SeqCst)) {
        let own = AtomicUsize::new(0);
        for _ in 0..4 {
            own.load(Relaxed);
        }
    }
    body();
}

fn first(execution: usize) -> bool {
    execution == 0
}

fn every_other(execution: usize) -> bool {
    execution % 2 == 0
}

#[test]
fn a_test_not_a_function_of_its_schedule_falls_back_to_the_randomized_search() {
    use std::sync::atomic::AtomicUsize as Count;
    // The exploration finds it out and stops, without a panic, and the
    // search, which the later executions do not mislead, passes; or the
    // first passes at lower preemption bounds (which take the first
    // execution) do not find it out, and the search proper, which starts
    // afresh, explores a function of its schedule.
    static CORRECT: Count = Count::new(0);
    loom::model(|| longer_when(&CORRECT, first, two_increments));
    // ... or finds the bug, reported with its replay string.
    static LOST: Count = Count::new(0);
    let report = panic_message(|| loom::model(|| longer_when(&LOST, first, lost_update)))
        .expect("the search finds the lost update");
    assert!(
        report.contains("lost update") && report.contains("replay:"),
        "{report}"
    );
    assert!(!report.contains("nondeterminism"), "{report}");
    // Asked to be exhaustive, the model fails, saying why it cannot be
    // (every other execution differs: every pass sees it).
    static EXHAUSTIVE: Count = Count::new(0);
    let mut builder = loom::model::Builder::new();
    builder.exhaustive = true;
    let message = panic_message(|| {
        builder.check(|| longer_when(&EXHAUSTIVE, every_other, two_increments));
    })
    .expect("exhaustive fails");
    assert!(
        message.contains(
            "exhaustive exploration is not possible: the test took other decisions on the same \
             schedule"
        ),
        "{message}"
    );
}

#[test]
#[deny(deprecated)]
fn compare_and_swap_is_not_deprecated_as_in_loom() {
    loom::model(|| {
        let count = Arc::new(AtomicUsize::new(1));
        let other = {
            let count = count.clone();
            thread::spawn(move || count.compare_and_swap(1, 2, Relaxed))
        };
        let seen = count.compare_and_swap(1, 3, Relaxed);
        let other_seen = other.join().unwrap();
        // One of the two swapped and the other saw its value.
        assert!(
            (seen, other_seen) == (1, 3) || (seen, other_seen) == (2, 1),
            "{seen} {other_seen}"
        );
        let flag = AtomicBool::new(false);
        assert!(!flag.compare_and_swap(false, true, SeqCst));
        assert!(flag.compare_and_swap(false, false, SeqCst));
        let mut value = 7;
        let pointer = AtomicPtr::new(std::ptr::null_mut());
        assert!(pointer
            .compare_and_swap(std::ptr::null_mut(), &mut value, SeqCst)
            .is_null());
        assert_eq!(pointer.into_inner(), &mut value as *mut i32);
    });
}

#[test]
fn spawning_past_max_threads_fails_as_loom_s() {
    let mut builder = loom::model::Builder::new();
    builder.max_threads = 2;
    let report = panic_message(|| {
        builder.check(|| {
            let first = thread::spawn(|| ());
            let second = thread::spawn(|| ());
            first.join().unwrap();
            second.join().unwrap();
        })
    })
    .expect("a third thread fails");
    assert!(report.contains("more than 2 threads"), "{report}");
}

#[test]
fn the_main_thread_is_unnamed_and_named_threads_keep_their_names() {
    loom::model(|| {
        assert_eq!(thread::current().name(), None);
        let named = thread::Builder::new()
            .name("worker".to_owned())
            .spawn(|| thread::current().name().map(str::to_owned))
            .unwrap();
        assert_eq!(named.thread().name(), Some("worker"));
        assert_eq!(named.join().unwrap().as_deref(), Some("worker"));
    });
}

#[test]
fn a_notify_is_kept_for_the_next_wait_and_wakes_a_waiter() {
    loom::model(|| {
        let notify = Arc::new(Notify::new());
        notify.notify();
        notify.wait();
        let waiter = {
            let notify = notify.clone();
            thread::spawn(move || notify.wait())
        };
        notify.notify();
        waiter.join().unwrap();
    });
}

#[test]
fn an_atomic_waker_wakes_the_task_registered_in_it() {
    loom::model(|| {
        let waker = Arc::new(loom::future::AtomicWaker::new());
        let done = Arc::new(AtomicUsize::new(0));
        let setter = {
            let (waker, done) = (waker.clone(), done.clone());
            thread::spawn(move || {
                done.store(1, Relaxed);
                waker.wake();
            })
        };
        loom::future::block_on(poll_fn(|cx| {
            waker.register_by_ref(cx.waker());
            match done.load(Relaxed) {
                1 => Poll::Ready(()),
                _ => Poll::Pending,
            }
        }));
        setter.join().unwrap();
    });
}

#[test]
fn an_atomic_is_changed_in_place_through_exclusive_access() {
    loom::model(|| {
        let mut count = AtomicUsize::new(1);
        assert_eq!(count.with_mut(|value| std::mem::replace(value, 5)), 1);
        assert_eq!(count.load(Relaxed), 5);
    });
}

#[test]
fn loom_s_features_are_accepted() {
    // Cargo refuses a feature the package lacks; that these two are
    // declared, each empty, is what lets a crate that asks loom for them
    // build (the crate doc, Features, says why neither does anything).
    let manifest = include_str!("../../Cargo.toml");
    let features = &manifest[manifest.find("[features]").expect("a [features] table")..];
    let features = &features[..features.find("\n[").unwrap_or(features.len())];
    for feature in ["futures = []", "checkpoint = []"] {
        assert!(features.contains(feature), "{feature} in {features}");
    }
}

#[test]
fn a_checkpoint_file_is_ignored_and_the_model_still_checks() {
    let file =
        std::env::temp_dir().join(format!("rankcheck-loom-checkpoint-{}", std::process::id()));
    let mut builder = loom::model::Builder::new();
    builder.checkpoint_file(file.to_str().expect("a UTF-8 temporary path"));
    builder.checkpoint_interval = 1;
    builder.check(four_counters);
    let report = panic_message(|| builder.check(lost_update)).expect("the model fails");
    assert!(report.contains("lost update"), "{report}");
    assert!(!file.exists(), "no checkpoint is written");
}

/// Fills a buffer in a cell one slot at a time, then hands it over through
/// an atomic: 1,200 cell accesses and a handful of branch points.
#[allow(unsafe_code)]
fn fill_then_publish() {
    let buffer = Arc::new(UnsafeCell::new(vec![0u8; 1_200]));
    let ready = Arc::new(AtomicBool::new(false));
    let reader = {
        let (buffer, ready) = (buffer.clone(), ready.clone());
        thread::spawn(move || {
            if ready.load(SeqCst) {
                // SAFETY: published by the Release/Acquire pair above.
                buffer.with(|data| assert!(unsafe { &*data }.iter().all(|&b| b == 1)));
            }
        })
    };
    for i in 0..1_200 {
        // SAFETY: no other thread reaches the buffer before `ready`.
        buffer.with_mut(|data| unsafe { (&mut *data)[i] = 1 });
    }
    ready.store(true, SeqCst);
    reader.join().unwrap();
}

#[test]
fn max_branches_counts_loom_s_branch_points_not_cell_accesses() {
    // loom passes this at its default `max_branches` of 1,000: cell
    // accesses are no branch points. Counting them, the facade failed it
    // as a possible non-termination.
    let mut builder = loom::model::Builder::new();
    builder.max_branches = 1_000;
    builder.exhaustive = true;
    builder.check(fill_then_publish);
}

#[test]
fn a_failure_the_exploration_reaches_is_reported_from_its_own_run() {
    let report = panic_message(|| loom::model(lost_update)).expect("the model fails");
    assert!(
        report.contains("of the exhaustive exploration"),
        "the exploration's run is the one reported: {report}"
    );
}

#[test]
fn a_weak_compare_exchange_retry_loop_is_explored_to_the_end() {
    loom::model(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let bump = |count: Arc<AtomicUsize>| {
            let mut seen = count.load(Relaxed);
            while let Err(now) = count.compare_exchange_weak(seen, seen + 1, SeqCst, Relaxed) {
                seen = now;
            }
        };
        let other = {
            let count = count.clone();
            thread::spawn(move || bump(count))
        };
        bump(count.clone());
        other.join().unwrap();
        assert_eq!(count.load(SeqCst), 2);
    });
}
