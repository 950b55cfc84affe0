//! `Builder::json`: the summary the command's `--format json` prints,
//! written for a Rust test. Its failure says what the panic's report says,
//! and a clean search's settings and confidence are the `Guarantee`'s.

use std::path::PathBuf;

use rankcheck::{Builder, Strategy};
use rankcheck_rt as rankcheck;
use serde_json::Value;

use super::{panic_message, pctvb_at_the_corner, programs, SEED};

/// A file for one test's JSON, under Cargo's scratch directory for tests.
fn json_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("rt-{name}.json"))
}

/// The JSON written at `path`.
fn read_json(path: &PathBuf) -> Value {
    let text = std::fs::read_to_string(path).expect("the JSON was written");
    serde_json::from_str(&text).expect("the JSON parses")
}

/// The rows of a report's interleaving table, without its header.
fn table_rows(report: &str) -> Vec<&str> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("interleaving ("))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect()
}

/// The number `after` starts with in `line`.
fn number_after(line: &str, after: &str) -> u64 {
    let rest = &line[line.find(after).expect(after) + after.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().expect("a number")
}

#[test]
fn a_failing_search_writes_what_its_panic_reports() {
    let path = json_path("failing");
    let _ = std::fs::remove_file(&path);
    // PCTVB finds the corner bug in a search run, under priorities: the
    // trace marks its change points.
    let report = panic_message(|| {
        pctvb_at_the_corner()
            .json(&path)
            .check(|| programs::corner_variable(400));
    })
    .expect("found");
    let json = read_json(&path);
    assert_eq!(json["failures"], 1, "{json}");
    assert!(
        json["program"].as_str().unwrap().starts_with(file!()),
        "{json}"
    );
    let failure = &json["first_failure"];
    let kind = failure["kind"].as_str().unwrap();
    assert!(
        report.starts_with(&format!(
            "error[{kind}]: {}",
            failure["message"].as_str().unwrap()
        )),
        "{kind}:\n{report}"
    );
    let found = report
        .lines()
        .find(|l| l.starts_with("found in run "))
        .unwrap();
    assert_eq!(
        failure["run"],
        number_after(found, "found in run "),
        "{found}"
    );
    assert_eq!(failure["strategy"], "pctvb");
    assert!(found.contains("(strategy pctvb, seed"), "{found}");
    assert_eq!(failure["depth"], 2);
    let replay = report
        .lines()
        .find_map(|l| l.split_once("rankcheck::replay(test, \"").map(|(_, r)| r))
        .unwrap();
    assert_eq!(failure["replay"], &replay[..replay.find('"').unwrap()]);
    the_trace_is_the_table(&failure["trace"], &report);
}

/// Every step of `trace` is the table's row of the same number: thread,
/// place, operation and mark.
fn the_trace_is_the_table(trace: &Value, report: &str) {
    let steps = trace.as_array().expect("a trace");
    let rows = table_rows(report);
    assert_eq!(steps.len(), rows.len(), "{report}");
    let header = report
        .lines()
        .find(|l| l.starts_with("interleaving ("))
        .unwrap();
    assert_eq!(steps.len() as u64, number_after(header, "interleaving ("));
    let preempted = steps.iter().filter(|s| s["preemption"] == true).count();
    assert!(
        preempted > 0,
        "a priority run's trace marks its preemptions"
    );
    for (step, row) in steps.iter().zip(rows) {
        let cells: Vec<&str> = row[1..]
            .split("  ")
            .filter(|c| !c.trim().is_empty())
            .collect();
        assert_eq!(cells[0].trim(), step["step"].to_string(), "{row}");
        assert_eq!(cells[1].trim(), step["thread"].as_str().unwrap(), "{row}");
        assert_eq!(cells[2].trim(), step["location"].as_str().unwrap(), "{row}");
        assert_eq!(
            cells[3].trim(),
            step["operation"].as_str().unwrap(),
            "{row}"
        );
        let mark = match (step["critical"] == true, step["preemption"] == true) {
            (true, _) => '!',
            (false, true) => '>',
            (false, false) => ' ',
        };
        assert!(row.starts_with(mark), "{row}");
    }
}

#[test]
fn a_clean_search_writes_the_guarantee_it_returns() {
    let path = json_path("clean");
    let _ = std::fs::remove_file(&path);
    let guarantee = Builder::new()
        .seed(SEED)
        .strategy(Strategy::Pctvb)
        .runs(3_000)
        .json(&path)
        .check(programs::locked_counter_ok);
    let json = read_json(&path);
    assert_eq!(json["first_failure"], Value::Null);
    assert_eq!(json["runs"], guarantee.runs);
    assert_eq!(json["seed"], guarantee.seed);
    assert_eq!(json["strategy"], guarantee.strategy);
    assert_eq!(json["confidence"].as_f64(), guarantee.confidence);
    let settings = json["settings"].as_array().unwrap();
    assert_eq!(settings.len(), guarantee.settings.len());
    assert!(settings.len() > 1, "PCTVB rotates through settings");
    for (json, setting) in settings.iter().zip(&guarantee.settings) {
        assert_eq!(json["depth"], setting.depth);
        assert_eq!(json["vars"].as_u64(), setting.vars.map(|v| v as u64));
        assert_eq!(json["runs"], setting.runs);
        assert_eq!(json["bound"].as_f64(), setting.bound);
        assert_eq!(json["confidence"].as_f64(), setting.confidence);
    }
}

#[test]
fn a_json_that_cannot_be_written_fails_the_test() {
    let message = panic_message(|| {
        Builder::new()
            .seed(SEED)
            .runs(10)
            .json("/nonexistent-directory/rankcheck.json")
            .check(programs::locked_counter_ok);
    })
    .expect("the check panics");
    assert!(
        message.starts_with("rankcheck: cannot write the JSON report to /nonexistent-directory"),
        "{message}"
    );
}

/// A clean default search states what its PCTVB runs earned per
/// variable, beside its PCT settings, as the command does.
#[test]
fn a_clean_default_search_states_per_variable_guarantees() {
    let path = json_path("clean-default");
    let _ = std::fs::remove_file(&path);
    let guarantee = Builder::new()
        .seed(SEED)
        // 100 cycles of 26.
        .runs(2_600)
        .json(&path)
        .check(programs::locked_counter_ok);
    let json = read_json(&path);
    assert_eq!(json["strategy"], "portfolio");
    let settings: Vec<(u64, String, u64)> = json["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["depth"].as_u64().unwrap(),
                s["tracking"].as_str().unwrap().to_owned(),
                s["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    let per_set: Vec<Vec<(String, f64)>> = json["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["per_set"]
                .as_array()
                .map(|sets| {
                    sets.iter()
                        .map(|set| {
                            (
                                set["vars"][0].as_str().unwrap().to_owned(),
                                1.0 / set["bound"].as_f64().unwrap(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    let expected = [
        (2, "1 of 2", 100),
        (3, "1 of 2", 1100),
        (1, "none", 100),
        (3, "all", 100),
    ];
    let expected: Vec<(u64, String, u64)> = expected
        .iter()
        .map(|&(d, t, r)| (d, t.to_owned(), r))
        .collect();
    assert_eq!(settings, expected);
    assert_eq!(guarantee.settings.len(), 4);
    // Depth 3 and 2 over one of {the counter (k_q 19), the mutex (18)},
    // n = 4: 1/(2 * 4 * 19^(d-1)) and 1/(2 * 4 * 18^(d-1)).
    for (index, counter, mutex) in [(1, 2888.0, 2592.0), (0, 152.0, 144.0)] {
        let sets = &per_set[index];
        assert_eq!(sets.len(), 2, "{sets:?}");
        // The counter is a function's value (no name in the source, so its
        // type and place); the mutex is `let m = Arc::new(Mutex::new(()))`.
        assert!(sets[0].0.starts_with("AtomicI64@"), "{sets:?}");
        assert_eq!(sets[1].0, "m", "{sets:?}");
        assert!((sets[0].1 - counter).abs() < 1e-6, "{sets:?}");
        assert!((sets[1].1 - mutex).abs() < 1e-6, "{sets:?}");
    }
    assert!(per_set[2].is_empty() && per_set[3].is_empty());
    let depth3 = &guarantee.settings[1];
    let expected = 1.0 - (1.0 - 1.0 / 2888.0f64).powf(1100.0);
    assert!((depth3.confidence.unwrap() - expected).abs() < 1e-9);
}

/// A failure's schedule is shrunk before it is reported, as the command's
/// is: the corner bug needs one preemption, which the report shows (the
/// search's schedule had more); `no_shrink` reports the search's own.
#[test]
fn a_failure_is_reported_shrunk_unless_asked_not_to() {
    let path = json_path("shrunk");
    let report = panic_message(|| {
        pctvb_at_the_corner()
            .json(&path)
            .check(|| programs::corner_variable(400));
    })
    .expect("found");
    let failure = read_json(&path)["first_failure"].clone();
    let shrunk = &failure["shrunk"];
    assert_eq!(shrunk["after"]["preemptions"], 1, "{shrunk}");
    assert!(shrunk["before"]["steps"].as_u64() >= shrunk["after"]["steps"].as_u64());
    assert_eq!(failure["observed"]["preemptions"], 1, "{failure}");
    assert!(report.contains("shrunk from"), "{report}");
    assert!(report.contains("critical switch"), "{report}");
    let unshrunk = json_path("unshrunk");
    panic_message(|| {
        pctvb_at_the_corner()
            .no_shrink()
            .json(&unshrunk)
            .check(|| programs::corner_variable(400));
    })
    .expect("found");
    assert!(read_json(&unshrunk)["first_failure"]["shrunk"].is_null());
}
