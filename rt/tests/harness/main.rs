//! The harness a Rust user expects: environment overrides read by every
//! check, and panics that point at the test (the test attribute is in
//! tests/std_api). The tests hold one lock: they change the process's
//! environment and panic hook, which every check reads.

#[path = "../support/mod.rs"]
mod support;

use std::panic::{self, Location};
use std::sync::{Mutex as StdMutex, MutexGuard as StdMutexGuard};

use rankcheck::thread;
use rankcheck_rt as rankcheck;

use support::{lost_update, panic_message};

static ENVIRONMENT: StdMutex<()> = StdMutex::new(());

/// The environment to themselves, with no rankcheck variable set.
fn exclusive() -> StdMutexGuard<'static, ()> {
    let guard = ENVIRONMENT.lock().unwrap_or_else(|p| p.into_inner());
    for name in [
        "RANKCHECK_SEED",
        "RANKCHECK_RUNS",
        "RANKCHECK_TIME",
        "RANKCHECK_REPLAY",
        "RANKCHECK_RECORDS",
        "RANKCHECK_FIRST_RUN",
    ] {
        std::env::remove_var(name);
    }
    guard
}

fn replay_string(report: &str) -> String {
    let start = report.find("\"rc").expect("a replay string") + 1;
    let end = start + report[start..].find('"').expect("its end");
    report[start..end].to_owned()
}

#[test]
fn the_environment_sets_the_seed_and_the_run_count() {
    let _env = exclusive();
    std::env::set_var("RANKCHECK_SEED", "5");
    std::env::set_var("RANKCHECK_RUNS", "7");
    let guarantee = rankcheck::Builder::new().runs(100).seed(1).check(|| {
        let _ = thread::spawn(|| {}).join();
    });
    assert_eq!((guarantee.seed, guarantee.runs), (5, 7));
}

#[test]
fn a_bad_value_names_its_variable() {
    let _env = exclusive();
    for (name, value) in [("RANKCHECK_RUNS", "many"), ("RANKCHECK_TIME", "soon")] {
        std::env::set_var(name, value);
        let message = panic_message(|| {
            rankcheck::Builder::new().runs(1).check(|| {});
        })
        .expect("refused");
        std::env::remove_var(name);
        assert!(message.contains(name), "{message}");
    }
}

#[test]
fn the_environment_replays_a_failing_run() {
    let _env = exclusive();
    let report = panic_message(|| {
        rankcheck::Builder::new()
            .runs(1000)
            .seed(3)
            .check(lost_update);
    })
    .expect("found");
    std::env::set_var("RANKCHECK_REPLAY", replay_string(&report));
    // Another seed and one run: only the replay can fail it.
    let replayed = panic_message(|| {
        rankcheck::Builder::new()
            .runs(1)
            .seed(99)
            .check(lost_update);
    })
    .expect("the replayed run fails");
    assert!(replayed.contains("lost update"), "{replayed}");
}

/// Where `f`'s panic was raised.
fn panic_site(f: impl FnOnce()) -> String {
    let site = std::sync::Arc::new(StdMutex::new(String::new()));
    let seen = site.clone();
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if let Some(at) = info.location() {
            *seen.lock().unwrap() = format!("{}:{}", at.file(), at.line());
        }
    }));
    let _ = panic::catch_unwind(panic::AssertUnwindSafe(f));
    panic::set_hook(previous);
    let site = site.lock().unwrap().clone();
    site
}

#[test]
fn replay_and_diverged_panics_point_at_the_test() {
    let _env = exclusive();
    let here = Location::caller().file();
    let corrupt = panic_site(|| rankcheck::replay(lost_update, "rc1:all:0_1:deadbeef"));
    assert!(corrupt.starts_with(here), "{corrupt}");
    // A schedule of another test, with a third thread: the replay diverges.
    let three = panic_message(|| {
        rankcheck::Builder::new().runs(10).seed(1).check(|| {
            let threads: Vec<_> = (0..2).map(|_| thread::spawn(|| {})).collect();
            for t in threads {
                t.join().unwrap();
            }
            panic!("three threads ran");
        });
    })
    .expect("fails");
    let other = replay_string(&three);
    let diverged_message =
        panic_message(|| rankcheck::replay(lost_update, &other)).expect("diverges");
    assert!(diverged_message.contains("diverged"), "{diverged_message}");
    let diverged = panic_site(|| rankcheck::replay(lost_update, &other));
    assert!(diverged.starts_with(here), "{diverged}");
    let checked = panic_site(|| {
        rankcheck::Builder::new()
            .runs(1000)
            .seed(3)
            .check(lost_update);
    });
    assert!(checked.starts_with(here), "{checked}");
}

/// Calls of the nondeterministic test, kept outside rankcheck's view.
static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn a_run_that_does_not_replay_is_reported_as_nondeterminism() {
    let _env = exclusive();
    // Every other call takes another path (a std atomic the scheduler does
    // not see, as a HashMap's seed or the clock would): the failing run's
    // replay is the next call, and parts from it where the paths differ.
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(50).seed(4).check(|| {
            let odd = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 2 == 1;
            let other = odd.then(|| thread::spawn(|| {}));
            thread::yield_now();
            if let Some(other) = other {
                other.join().unwrap();
                panic!("odd calls fail");
            }
        });
    })
    .expect("reported");
    assert!(message.contains("uncontrolled nondeterminism"), "{message}");
    assert!(
        message.contains("parted from it at scheduling point 2 of 4"),
        "{message}"
    );
    assert!(message.contains("odd calls fail"), "{message}");
}

/// A static two tests use at the same time.
static SHARED: rankcheck::sync::atomic::AtomicUsize = rankcheck::sync::atomic::AtomicUsize::new(0);
/// Holds the first test in its run while the second starts.
static INSIDE: std::sync::Barrier = std::sync::Barrier::new(2);
static TRIED: std::sync::Barrier = std::sync::Barrier::new(2);
static FIRST_RUN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

#[test]
fn two_tests_sharing_a_static_at_once_are_refused() {
    let _env = exclusive();
    let first = std::thread::spawn(|| {
        rankcheck::Builder::new().runs(1).profile_runs(1).check(|| {
            SHARED.fetch_add(1, rankcheck::sync::atomic::Ordering::SeqCst);
            if FIRST_RUN.swap(false, std::sync::atomic::Ordering::SeqCst) {
                // Its run goes on (its OS thread waits) while the other
                // test uses the static.
                INSIDE.wait();
                TRIED.wait();
            }
        });
    });
    INSIDE.wait();
    let message = panic_message(|| {
        rankcheck::Builder::new().runs(1).check(|| {
            SHARED.load(rankcheck::sync::atomic::Ordering::SeqCst);
        });
    });
    TRIED.wait();
    first.join().unwrap();
    let message = message.expect("refused");
    assert!(
        message.contains("in use by a test running at the same time"),
        "{message}"
    );
}

/// Run by `the_replay_command_reruns_the_failure_when_pasted` in a child
/// process (it does nothing otherwise): a check that fails.
#[test]
fn child_of_the_paste_test() {
    if std::env::var_os("RANKCHECK_PASTE_CHILD").is_none() {
        return;
    }
    rankcheck::Builder::new().seed(3).check(lost_update);
}

/// The test binary run with `args` and `env`: its combined output.
fn child(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args(args).env("RANKCHECK_PASTE_CHILD", "1");
    for name in [
        "RANKCHECK_SEED",
        "RANKCHECK_RUNS",
        "RANKCHECK_TIME",
        "RANKCHECK_REPLAY",
        "RANKCHECK_RECORDS",
        "RANKCHECK_FIRST_RUN",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    let output = command.output().expect("the test binary runs");
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

#[test]
fn the_replay_command_reruns_the_failure_when_pasted() {
    // The environment to itself: the children inherit it.
    let _env = exclusive();
    let name = "child_of_the_paste_test";
    let first = child(&["--exact", name, "--nocapture"], &[]);
    let line = first
        .lines()
        .find(|l| l.starts_with("replay: "))
        .unwrap_or_else(|| panic!("a replay line: {first}"));
    // `RANKCHECK_REPLAY='...' cargo test -- --exact NAME`: the string and
    // the test, as a shell would pass them.
    let (_, quoted) = line.split_once("RANKCHECK_REPLAY='").expect("the variable");
    let (replay, rest) = quoted.split_once('\'').expect("its end");
    let (_, test) = rest.split_once("-- --exact ").expect("the test's name");
    assert_eq!(test.trim(), name, "{line}");
    let again = child(
        &["--exact", test.trim(), "--nocapture"],
        &[("RANKCHECK_REPLAY", replay)],
    );
    assert!(again.contains("replayed"), "{again}");
    assert!(again.contains("lost"), "{again}");
}

/// Four threads each bump a shared counter 20 times: the confidence
/// alone would ask for far more runs than a test's budget.
fn four_counters() {
    use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let count = rankcheck::sync::Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let count = count.clone();
            thread::spawn(move || {
                for _ in 0..20 {
                    count.fetch_add(1, SeqCst);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(count.load(SeqCst), 80);
}

#[test]
fn a_check_without_options_keeps_to_a_test_s_budget() {
    let _env = exclusive();
    let guarantee = rankcheck::Builder::new().seed(2).check(four_counters);
    assert!(guarantee.runs <= rankcheck::DEFAULT_MAX_RUNS, "{guarantee}");
    assert!(
        guarantee.to_string().contains("the run cap"),
        "the cap is said: {guarantee}"
    );
    let headline = guarantee.headline();
    assert!(
        headline.starts_with("no failure in") && headline.contains("; weakest: no bug of depth"),
        "{headline}"
    );
}

#[test]
fn the_most_time_stops_the_runs_and_says_so() {
    let _env = exclusive();
    let guarantee = rankcheck::Builder::new()
        .seed(2)
        .max_runs(u64::MAX)
        .max_time(Some(std::time::Duration::from_millis(50)))
        .check(four_counters);
    assert!(guarantee.runs < 1_000_000, "{guarantee}");
    assert!(guarantee.to_string().contains("the run cap"), "{guarantee}");
}

/// A test whose every run takes real time (a `std::thread::sleep`, as
/// crates' suites have): the time budget counts the preparatory runs and
/// is checked before each run, so a 1 s budget with 100 ms runs stops
/// after about ten of them (20 preparatory runs alone used to take 2 s,
/// and the search checked the clock every 64 runs).
#[test]
fn the_time_budget_stops_a_test_whose_runs_sleep() {
    let _env = exclusive();
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = runs.clone();
    let guarantee = rankcheck::Builder::new()
        .seed(3)
        .max_runs(u64::MAX)
        .max_time(Some(std::time::Duration::from_secs(1)))
        .check(move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_millis(100));
        });
    let runs = runs.load(std::sync::atomic::Ordering::Relaxed);
    // Ten runs fit; the margin is for a loaded machine's slow clock reads,
    // far below the 84 runs of the old checks.
    assert!((2..=14).contains(&runs), "{runs} runs: {guarantee}");
}

/// The records a campaign's chunk (`RANKCHECK_RECORDS`) of `test` appends,
/// as JSON values, with `RANKCHECK_FIRST_RUN` at `first_run`.
fn campaign_records(first_run: u64, test: impl FnOnce()) -> Vec<serde_json::Value> {
    let path = std::env::temp_dir().join(format!("rankcheck-records-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    std::env::set_var("RANKCHECK_RECORDS", &path);
    std::env::set_var("RANKCHECK_FIRST_RUN", first_run.to_string());
    test();
    std::env::remove_var("RANKCHECK_RECORDS");
    std::env::remove_var("RANKCHECK_FIRST_RUN");
    let text = std::fs::read_to_string(&path).expect("records written");
    let _ = std::fs::remove_file(&path);
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a record is JSON"))
        .collect()
}

/// In a campaign an exploration records one chunk of its own setting: its
/// schedules as runs, its bound and how it ended, which the campaign
/// reports as a proof when complete; a failing one records the failing
/// schedule first, with the command that replays it.
#[test]
fn an_exploration_in_a_campaign_records_its_schedules_and_failure() {
    let _env = exclusive();
    let mut schedules = 0;
    let clean = campaign_records(7, || {
        let explored = rankcheck::Exploration::new(1000, 1000)
            .preemption_bound(1)
            .run(|| {
                let _ = thread::spawn(|| {}).join();
            });
        assert!(explored.complete);
        schedules = explored.schedules;
    });
    let [chunk] = &clean[..] else {
        panic!("one chunk record: {clean:?}")
    };
    assert_eq!(chunk["type"], "chunk");
    assert_eq!(chunk["setting"], "explore c=1 complete");
    assert_eq!(chunk["runs"], schedules);
    assert_eq!(
        (chunk["clean_runs"].as_u64(), chunk["first_run"].as_u64()),
        (Some(schedules), Some(7))
    );

    let mut failing_schedule = 0;
    let failing = campaign_records(100, || {
        let explored = rankcheck::Exploration::new(1000, 1000)
            .stop_at_first_failure()
            .run(lost_update);
        failing_schedule = explored.first_failing.expect("it fails").schedule;
    });
    let [failure, chunk] = &failing[..] else {
        panic!("a failure record, then a chunk record: {failing:?}")
    };
    assert_eq!(failure["type"], "failure");
    assert_eq!(failure["setting"], "explore failed");
    assert_eq!(failure["run"], 100 + failing_schedule);
    assert!(failure["message"]
        .as_str()
        .is_some_and(|m| m.contains("lost update")));
    let replay = failure["replay"].as_str().expect("a replay command");
    assert!(replay.starts_with("RANKCHECK_REPLAY=rc"), "{replay}");
    assert_eq!(chunk["setting"], "explore failed");
    assert_eq!(
        (chunk["runs"].as_u64(), chunk["failures"].as_u64()),
        (Some(failing_schedule), Some(1))
    );
}

/// The place a facade checks on behalf of (loom's `model`).
#[track_caller]
fn the_callers_place() -> &'static std::panic::Location<'static> {
    std::panic::Location::caller()
}

#[test]
fn a_facade_s_check_names_the_test_it_checks_for() {
    let _env = exclusive();
    let place = the_callers_place();
    let guarantee = rankcheck::Builder::new()
        .runs(10)
        .seed(2)
        .check_at(place, four_counters);
    let named = format!("{}:{}", place.file(), place.line());
    assert!(guarantee.headline().contains(&named), "{guarantee}");
}
