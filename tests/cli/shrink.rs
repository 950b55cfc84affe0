//! Shrinking through the real binary: on every buggy example the reported
//! schedule is the shrunk one (its replay file fails again the same way,
//! its `observed` counts are its own), it has no more preemptions than the
//! schedule the search found, and as many as `classify`'s minimal `c`;
//! the report marks its critical switches, and `--no-shrink` keeps the
//! search's schedule.

use serde_json::Value;

use crate::support::{
    buggy_programs, exhaustive, expectation, header_bounds, json, rankcheck, temp_dir,
};

/// `check --format json` of `program` (seed `seed`, 10,000 runs at most)
/// with `extra` flags: the first failure.
fn first_failure(program: &std::path::Path, seed: &str, extra: &[&str]) -> Value {
    let dir = temp_dir("shrink");
    let mut args = vec![
        "--seed",
        seed,
        "--runs",
        "10000",
        "--format",
        "json",
        "--replay-dir",
        dir.to_str().unwrap(),
    ];
    args.extend(extra);
    args.push(program.to_str().unwrap());
    let out = rankcheck(&args);
    assert_eq!(out.status.code(), Some(1), "{}", program.display());
    json(&out)["first_failure"].clone()
}

#[test]
fn every_example_is_shrunk_to_its_fewest_preemptions_and_replays() {
    for program in buggy_programs() {
        if expectation(&program)[0] == "ok" {
            continue;
        }
        let name = program.display().to_string();
        let failure = first_failure(&program, "7", &[]);
        let shrunk = &failure["shrunk"];
        assert!(shrunk.is_object(), "{name}: {failure}");
        let (before, after) = (&shrunk["before"], &shrunk["after"]);
        assert!(
            after["preemptions"].as_u64() <= before["preemptions"].as_u64(),
            "{name}: {shrunk}"
        );
        // `observed` and the trace describe the shrunk schedule.
        assert_eq!(failure["observed"]["preemptions"], after["preemptions"]);
        let trace = failure["trace"].as_array().expect("a trace");
        assert_eq!(
            trace.len() as u64,
            after["steps"].as_u64().unwrap(),
            "{name}"
        );
        // The replay file is the shrunk schedule, and fails the same way.
        let replay = failure["replay"].as_str().expect("a replay file");
        let replayed = json(&rankcheck(&["replay", "--format", "json", replay]));
        for field in ["kind", "line", "column", "message", "trace"] {
            assert_eq!(replayed[field], failure[field], "{name}: {field}");
        }
        // Classify's minimal c, where the header says classify finds one.
        if header_bounds(&program).is_some() {
            let (_, classified) = exhaustive(&["classify"], &program);
            assert_eq!(after["preemptions"], classified["c"], "{name}: {shrunk}");
        }
    }
}

/// On fig02 a SURW search's first failure (seed 2) switches away from a
/// runnable thread 4 times; the bug needs one preemption, which the shrunk
/// report shows, with the switch it cannot do without marked.
#[test]
fn fig02s_report_shows_one_preemption_and_its_critical_switch() {
    let program = crate::support::root().join("examples/fig02_c1v1.rk");
    let first = first_failure(&program, "2", &["--strategy", "surw", "--no-shrink"]);
    assert!(first["shrunk"].is_null());
    assert!(first["observed"]["switches"].as_u64() >= Some(3), "{first}");
    let failure = first_failure(&program, "2", &["--strategy", "surw"]);
    assert_eq!(failure["observed"]["preemptions"], 1, "{failure}");
    assert_eq!(
        failure["shrunk"]["before"]["preemptions"],
        first["observed"]["switches"]
    );
    let critical: Vec<&Value> = failure["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["critical"] == true)
        .collect();
    assert_eq!(critical.len(), 1, "{failure}");
    let dir = temp_dir("shrink-text");
    let out = rankcheck(&[
        "--seed",
        "2",
        "--strategy",
        "surw",
        "--replay-dir",
        dir.to_str().unwrap(),
        program.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the interleaving took 1 preemption"),
        "{text}"
    );
    assert!(text.contains("! after a critical switch"), "{text}");
    assert!(text.contains("critical switch (!): before step"), "{text}");
    assert!(text.contains("shrunk from"), "{text}");
}
