//! The JSON tables of the user guide (its "JSON output" chapter) against
//! real output: every documented field is present, and every field present
//! is documented, so that the two cannot drift apart again.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::markdown::{chapter, section};
use crate::support::{json, rankcheck, root, temp_dir};

/// The guide's chapter of JSON fields, one `## ` section per command.
const JSON_OUTPUT: &str = "json-output.md";

/// The field paths a section of the guide's JSON output chapter documents
/// in its tables: the backquoted names in the first column of every row
/// (`a[].b` is field `b` of each element of array `a`).
fn documented(name: &str) -> BTreeSet<String> {
    let json = chapter(JSON_OUTPUT, "JSON output");
    let body = section(&json, name)
        .unwrap_or_else(|| panic!("no `## {name}` in the guide's {JSON_OUTPUT}"));
    let mut fields = BTreeSet::new();
    for row in body.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split('|').nth(1).unwrap_or_default();
        for (i, part) in first.split('`').enumerate() {
            if i % 2 == 1 {
                fields.insert(part.to_string());
            }
        }
    }
    assert!(!fields.is_empty(), "no fields under {name}");
    fields
}

/// Every field path of `value`, elements of arrays of objects merged;
/// `opaque` fields are listed but not entered (documented elsewhere).
fn paths(value: &Value, prefix: &str, opaque: &[&str], out: &mut BTreeSet<String>) {
    let Value::Object(map) = value else { return };
    for (key, child) in map {
        let path = format!("{prefix}{key}");
        out.insert(path.clone());
        if opaque.contains(&path.as_str()) {
            continue;
        }
        match child {
            Value::Object(_) => paths(child, &format!("{path}."), opaque, out),
            Value::Array(items) => {
                for item in items {
                    paths(item, &format!("{path}[]."), opaque, out);
                }
            }
            _ => {}
        }
    }
}

/// The fields of several outputs, merged.
fn fields_of(outputs: &[Value], opaque: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for output in outputs {
        paths(output, "", opaque, &mut out);
    }
    out
}

fn assert_same(section: &str, outputs: &[Value], opaque: &[&str]) {
    let documented = documented(section);
    let present = fields_of(outputs, opaque);
    let missing: Vec<&String> = documented.difference(&present).collect();
    let undocumented: Vec<&String> = present.difference(&documented).collect();
    assert!(
        missing.is_empty() && undocumented.is_empty(),
        "the guide's {JSON_OUTPUT}, `{section}`: documented but absent {missing:?}; present but undocumented {undocumented:?}"
    );
}

fn run_json(args: &[&str]) -> Value {
    json(&rankcheck(args))
}

#[test]
fn json_output_tables_match_real_output() {
    let dir = temp_dir("readme");
    let dir = dir.to_str().unwrap();
    let example = |name: &str| root().join(name).to_str().unwrap().to_string();
    let (lost_push, fig02, corner) = (
        example("examples/lost_push.rk"),
        example("examples/fig02_c1v1.rk"),
        example("examples/corner_variable.rk"),
    );
    let printed = example("tests/bugs/printed_race.rk");

    // check: a failure with drawn variables and a hit rate, and a run with
    // settings that cannot be run.
    let failing = run_json(&[
        "--strategy",
        "pctvb",
        "--seed",
        "1",
        "--keep-going",
        "--runs",
        "3000",
        "--replay-dir",
        dir,
        "--format",
        "json",
        &lost_push,
    ]);
    let skipping = run_json(&[
        "--seed", "1", "--runs", "100", "--vars", "none", "--format", "json", &fig02,
    ]);
    // The default portfolio, with its sampling runs.
    let portfolio = run_json(&["--seed", "1", "--runs", "100", "--format", "json", &corner]);
    assert_same(
        "check",
        &[failing.clone(), skipping, portfolio],
        &["first_failure"],
    );

    // first_failure, and replay: with printed output and change points.
    let printing = run_json(&[
        "--seed",
        "1",
        "--depth",
        "2",
        "--vars",
        "1",
        "--replay-dir",
        dir,
        "--format",
        "json",
        &printed,
    ]);
    let failure = printing["first_failure"].clone();
    let mut replayed = run_json(&[
        "replay",
        "--format",
        "json",
        failure["replay"].as_str().expect("a replay file"),
    ]);
    // A replay file keeps the shrunk schedule and its critical switches,
    // not how it was shrunk.
    assert!(failure["shrunk"].is_object(), "{failure}");
    assert!(replayed["shrunk"].is_null(), "{replayed}");
    replayed["shrunk"] = failure["shrunk"].clone();
    assert_eq!(
        replayed, failure,
        "replay --format json prints the search's failure object"
    );
    assert_same(
        "first_failure, and replay",
        &[failure, failing["first_failure"].clone()],
        &[],
    );

    // bounds, with variable sets.
    let bounds = run_json(&["bounds", "--format", "json", &corner]);
    assert_same("bounds", &[bounds], &[]);

    // explore and classify: a bug, a stopped exploration.
    let classified = run_json(&["classify", "--replay-dir", dir, "--format", "json", &fig02]);
    let stopped = run_json(&[
        "explore",
        "--max-schedules",
        "3",
        "--preemptions",
        "2",
        "--format",
        "json",
        &corner,
    ]);
    assert_same("explore and classify", &[classified, stopped], &["bug"]);

    // sites, with instrumented sites.
    let sites = run_json(&["sites", "--track", "cold", "--format", "json", &corner]);
    assert_same("sites", &[sites], &[]);

    // plot bound and plot hits.
    assert_same("plot bound", &[crate::plots::plot_bound_json()], &[]);
    assert_same("plot hits", &[crate::plots::plot_hits_json()], &[]);

    // report: a night with a new failure and clean streams.
    let campaign = temp_dir("readme-nightly");
    let _ = std::fs::remove_dir_all(&campaign);
    let suite = example("tests/nightly/known.toml");
    let out = rankcheck(&[
        "nightly",
        &suite,
        "--runs",
        "500",
        "--night",
        "readme",
        "--out",
        campaign.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report = run_json(&["report", campaign.to_str().unwrap(), "--format", "json"]);
    assert_same(
        "report",
        &[report],
        &["still_failing", "not_seen_lately", "gone"],
    );
}

/// Every float cell of `check --format csv` in the one notation of the
/// guide's CSV output chapter
/// (plain between 1e-6 and 1e16), and the JSON's fields one type each:
/// the top-level `vars_asked` a string, `settings[].vars` a number.
#[test]
fn numbers_are_written_one_way_and_fields_have_one_type() {
    let program = root().join("examples/locked_counter_ok.rk");
    let program = program.to_str().unwrap();
    let args = [
        "--seed", "1", "--runs", "200", "--depth", "2", "--vars", "1",
    ];
    let out = rankcheck(&[&args[..], &["--format", "csv", program]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut rows = text.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = rows.next().unwrap();
    let row = rows.next().unwrap();
    for column in ["bound", "confidence"] {
        let cell = row[header.iter().position(|h| *h == column).unwrap()];
        let value: f64 = cell.parse().unwrap();
        assert!((1e-6..1.0).contains(&value), "{column} = {cell}");
        assert!(!cell.contains('e'), "{column} = {cell}: plain decimal");
    }
    let json = run_json(&[&args[..], &["--format", "json", program]].concat());
    assert_eq!(json["vars_asked"], "1");
    assert_eq!(json["settings"][0]["vars"], 1);
    assert!(json.get("vars").is_none(), "one name, one type");
}
