//! `RANKCHECK_LOOM_SEARCH=random` (`model::Builder::random_search`): the
//! model runs rankcheck's randomized search without exploring first.

use std::process::Command;
use std::sync::atomic::{AtomicUsize as Count, Ordering::SeqCst};

use crate::loom;
use crate::support::panic_message;
use crate::{lost_update, two_increments};

#[test]
fn the_random_search_runs_in_place_of_the_exploration() {
    // Two increments take a handful of schedules to explore; the search
    // runs its thousands of runs instead.
    static EXPLORED: Count = Count::new(0);
    let mut builder = loom::model::Builder::new();
    builder.random_search = false;
    builder.check(|| {
        EXPLORED.fetch_add(1, SeqCst);
        two_increments();
    });
    static SEARCHED: Count = Count::new(0);
    builder.random_search = true;
    builder.check(|| {
        SEARCHED.fetch_add(1, SeqCst);
        two_increments();
    });
    let (explored, searched) = (EXPLORED.load(SeqCst), SEARCHED.load(SeqCst));
    assert!(explored < 100, "{explored} executions explored");
    assert!(searched >= 1_000, "{searched} executions searched");
}

#[test]
fn the_random_search_reports_a_bug_with_its_replay_string() {
    let mut builder = loom::model::Builder::new();
    builder.random_search = true;
    let report = panic_message(|| builder.check(lost_update)).expect("the search fails");
    assert!(
        report.contains("lost update") && report.contains("replay:"),
        "{report}"
    );
}

#[test]
fn the_random_search_and_an_exhaustive_model_contradict() {
    let mut builder = loom::model::Builder::new();
    builder.random_search = true;
    builder.exhaustive = true;
    let message = panic_message(|| builder.check(two_increments)).expect("a contradiction");
    assert!(
        message.contains("RANKCHECK_LOOM_SEARCH=random"),
        "{message}"
    );
    assert!(message.contains("RANKCHECK_LOOM_EXHAUSTIVE"), "{message}");
}

/// Run `reads_the_variable` alone in a child of this test binary, with
/// `RANKCHECK_LOOM_SEARCH` set to `value` (the variable is read once per
/// `Builder::new`; setting it in this process would race the other tests).
fn child_with(value: &str) -> std::process::Output {
    Command::new(std::env::current_exe().expect("the test binary"))
        .args(["search::reads_the_variable", "--exact", "--ignored"])
        .env("RANKCHECK_LOOM_SEARCH", value)
        .env("EXPECTED_RANDOM_SEARCH", (value == "random").to_string())
        .output()
        .expect("the test binary runs")
}

#[test]
fn the_variable_sets_the_builder_s_random_search() {
    for value in ["random", "explore", ""] {
        let output = child_with(value);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{value:?}: {stdout}");
        assert!(stdout.contains("1 passed"), "{value:?}: {stdout}");
    }
    let output = child_with("fast");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        stdout.contains("invalid value for `RANKCHECK_LOOM_SEARCH`: \"fast\""),
        "{stdout}"
    );
}

/// Run by `the_variable_sets_the_builder_s_random_search` in a child.
#[test]
#[ignore = "run in a child process, with RANKCHECK_LOOM_SEARCH set"]
fn reads_the_variable() {
    let expected = std::env::var("EXPECTED_RANDOM_SEARCH").expect("set by the parent");
    let builder = loom::model::Builder::new();
    assert_eq!(builder.random_search.to_string(), expected);
}
