//! The engine's registry of strategies through the command line and a
//! nightly suite: `test-lowest`, a strategy that exists only as one file
//! of the engine (`strategy/registered/test_lowest.rs`, compiled for
//! tests), runs by its name with no edit to the command, and an unknown
//! name is refused with the registered names, where it was given.

use crate::nightly::{fresh, nightly, text};
use crate::support::{json, rankcheck, root};

fn program() -> String {
    root()
        .join("tests/registry/lowest_first.rk")
        .display()
        .to_string()
}

fn suite(name: &str) -> String {
    root()
        .join("tests/registry")
        .join(name)
        .display()
        .to_string()
}

/// Every seed's first run fails: only the test strategy runs the writer
/// to the end before the checker reads.
#[test]
fn the_command_runs_a_strategy_registered_by_its_file_alone() {
    for seed in ["1", "2", "3"] {
        let out = rankcheck(&[
            "check",
            "--strategy",
            "test-lowest",
            "--seed",
            seed,
            "--runs",
            "50",
            "--no-shrink",
            "--format",
            "json",
            &program(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let summary = json(&out);
        assert_eq!(summary["strategy"], "test-lowest", "{summary}");
        assert_eq!(summary["runs"], 1, "{summary}");
        assert_eq!(summary["first_failure"]["run"], 1, "{summary}");
    }
    // Taken, but not offered: help lists the users' strategies only.
    let help = String::from_utf8_lossy(&rankcheck(&["check", "--help"]).stdout).into_owned();
    assert!(!help.contains("test-lowest"), "{help}");
}

#[test]
fn the_flag_refuses_an_unknown_strategy_with_the_registered_names() {
    let out = rankcheck(&["check", "--strategy", "fast", &program()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(
        error.contains("invalid value 'fast' for '--strategy <STRATEGY>'"),
        "{error}"
    );
    for name in ["portfolio", "pctvb", "ksurw", "random"] {
        assert!(error.contains(name), "{error}");
    }
}

/// The suite's stream is keyed by the strategy's name, and its failure's
/// replay file names the strategy and replays.
#[test]
fn a_nightly_suite_runs_a_strategy_registered_by_its_file_alone() {
    let dir = fresh("registry-nightly");
    let out = nightly(
        &suite("suite.toml"),
        &dir,
        &["--runs", "20", "--night", "n1"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    assert_eq!(report["evidence"][0]["setting"], "test-lowest", "{report}");
    let replay = report["new"][0]["replay"].as_str().expect("a replay file");
    let file = std::fs::read_to_string(replay).expect("the replay file");
    assert!(file.contains("\nstrategy test-lowest\n"), "{file}");
    assert_eq!(rankcheck(&["replay", replay]).status.code(), Some(1));
}

#[test]
fn a_suite_line_with_an_unknown_strategy_is_refused_with_the_registered_names() {
    let dir = fresh("registry-unknown");
    let out = nightly(&suite("unknown.toml"), &dir, &["--runs", "20"]);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(error.contains("[[program]] 1 (lowest_first.rk)"), "{error}");
    assert!(
        error.contains("unknown strategy `fast`: expected one of "),
        "{error}"
    );
    assert!(error.contains("test-lowest"), "{error}");
}
