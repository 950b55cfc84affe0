//! The plot commands through the binary: each writes a well-formed SVG
//! whose marks carry exactly the numbers the same command prints, and every
//! CSV output round-trips through the `csv` crate with the columns the
//! user guide documents (its "CSV output" chapter).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::markdown::chapter;
use crate::support::{json, rankcheck, root, temp_dir};

/// A mark: its series and its `data-*` attributes (without `data-`).
pub type Marked = (String, BTreeMap<String, String>);

/// The marks of an SVG file.
pub fn marks(path: &std::path::Path) -> Vec<Marked> {
    let text = std::fs::read_to_string(path).expect("the SVG was written");
    let doc = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    marks_in(doc.root_element())
}

/// The marks under an `<svg>` element, as a page holds it.
pub fn marks_in(svg: roxmltree::Node) -> Vec<Marked> {
    svg.descendants()
        .filter(|n| n.attribute("class") == Some("point"))
        .map(|n| {
            let attrs = n
                .attributes()
                .filter_map(|a| {
                    a.name()
                        .strip_prefix("data-")
                        .map(|k| (k.to_string(), a.value().to_string()))
                })
                .collect::<BTreeMap<_, _>>();
            (attrs["series"].clone(), attrs)
        })
        .collect()
}

pub fn number(attrs: &BTreeMap<String, String>, name: &str) -> f64 {
    attrs[name].parse().expect("a number")
}

fn example(name: &str) -> String {
    root().join(name).to_str().unwrap().to_string()
}

#[test]
fn plot_bound_marks_the_guarantees_it_prints() {
    let dir = temp_dir("plot-bound");
    let svg = dir.join("bound.svg");
    let out = rankcheck(&[
        "plot",
        "bound",
        "--runs",
        "20000",
        "--format",
        "json",
        "-o",
        svg.to_str().unwrap(),
        &example("examples/corner_variable.rk"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    let marks = marks(&svg);
    let panels = report["panels"].as_array().unwrap();
    // (1,0), (2,1), (3,1), (3,2) with Q = 2; 5,000 runs each.
    assert_eq!(panels.len(), 4);
    let mut drawn = 0;
    for panel in panels {
        assert_eq!(panel["runs"], 5000);
        for curve in panel["curves"].as_array().unwrap() {
            if curve["drawn"] != true {
                continue;
            }
            drawn += 1;
            let (_, mark) = marks
                .iter()
                .find(|(s, m)| {
                    s == curve["label"].as_str().unwrap()
                        && m["panel"] == panel["title"].as_str().unwrap()
                })
                .unwrap_or_else(|| panic!("no mark for {curve}"));
            assert_eq!(number(mark, "x"), 5000.0);
            assert_eq!(
                number(mark, "y"),
                curve["confidence"].as_f64().unwrap(),
                "{curve}"
            );
        }
    }
    assert_eq!(marks.len(), drawn);
    let text = std::fs::read_to_string(&svg).unwrap();
    for words in [
        "executions N (log scale)",
        "target 0.99",
        "pctvb over cold",
        "depth 2 over 1 variable (1 of 2)",
    ] {
        assert!(text.contains(words), "{words}");
    }
}

#[test]
fn check_plot_marks_the_runs_done() {
    let dir = temp_dir("check-plot");
    let svg = dir.join("check.svg");
    let out = rankcheck(&[
        "--seed",
        "1",
        "--runs",
        "4000",
        "--format",
        "json",
        "--plot",
        svg.to_str().unwrap(),
        &example("examples/locked_counter_ok.rk"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    let marks = marks(&svg);
    for setting in report["settings"].as_array().unwrap() {
        let runs = setting["runs"].as_f64().unwrap();
        let headline = marks
            .iter()
            .find(|(s, m)| {
                let tracking = match setting["tracking"].as_str().unwrap() {
                    "none" => "no variable",
                    "all" => "any variables",
                    other => other,
                };
                // The default portfolio's PCT settings track every
                // variable or none; its PCTVB settings draw one (`1 of 2`),
                // and their panel draws PCT beside them.
                let series = if tracking.contains(" of ") {
                    s == "pctvb"
                } else {
                    s == "pct" || s == "pct and pctvb"
                };
                series
                    && number(m, "x") == runs
                    && m["panel"].starts_with(&format!("depth {} over", setting["depth"]))
                    && m["panel"].contains(tracking)
            })
            .unwrap_or_else(|| panic!("no mark for {setting}"));
        assert_eq!(
            number(&headline.1, "y"),
            setting["confidence"].as_f64().unwrap()
        );
    }
    // One program only, and never for the random strategy.
    let refused = rankcheck(&[
        "--strategy",
        "random",
        "--plot",
        svg.to_str().unwrap(),
        &example("examples/locked_counter_ok.rk"),
    ]);
    assert_eq!(refused.status.code(), Some(2));
}

/// 60 searches of `corner_variable.rk` at depth 2 over 1 variable: PCTVB
/// finds its bug with p >= 1/800 per run (about 1/6 measured), so the
/// measured curve stays above the bound at every checkpoint.
#[test]
fn plot_hits_marks_the_fractions_and_bounds_it_prints() {
    let dir = temp_dir("plot-hits");
    let svg = dir.join("hits.svg");
    let args = [
        "plot",
        "hits",
        "--trials",
        "60",
        "--runs",
        "300",
        "--seed",
        "4",
        "-o",
        svg.to_str().unwrap(),
    ];
    let mut with_json: Vec<&str> = args.to_vec();
    let program = example("examples/corner_variable.rk");
    with_json.extend(["--format", "json", &program]);
    let out = rankcheck(&with_json);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    let marks = marks(&svg);
    let checkpoints = report["checkpoints"].as_array().unwrap();
    assert_eq!(checkpoints.last().unwrap()["runs"], 300);
    for c in checkpoints {
        let runs = c["runs"].as_f64().unwrap();
        let at = |series: &str| {
            marks
                .iter()
                .find(|(s, m)| s == series && number(m, "x") == runs)
                .unwrap_or_else(|| panic!("no {series} mark at {runs}"))
                .1
                .clone()
        };
        let measured = at("measured");
        assert_eq!(number(&measured, "y"), c["fraction"].as_f64().unwrap());
        assert_eq!(number(&measured, "low"), c["low"].as_f64().unwrap());
        assert_eq!(number(&measured, "high"), c["high"].as_f64().unwrap());
        assert_eq!(
            number(&at("guarantee"), "y"),
            c["guarantee"].as_f64().unwrap()
        );
        assert!(
            c["fraction"].as_f64().unwrap() >= c["guarantee"].as_f64().unwrap(),
            "{c}"
        );
    }
    assert_eq!(report["below_bound"], false);
    // The same seed gives the same numbers in CSV.
    let mut with_csv: Vec<&str> = args.to_vec();
    with_csv.extend(["--format", "csv", &program]);
    let rows = csv_rows(&rankcheck(&with_csv));
    assert_eq!(rows.len(), checkpoints.len());
    for (row, c) in rows.iter().zip(checkpoints) {
        assert_eq!(
            row["fraction"].parse::<f64>().unwrap(),
            c["fraction"].as_f64().unwrap()
        );
        assert_eq!(
            row["guarantee"].parse::<f64>().unwrap(),
            c["guarantee"].as_f64().unwrap()
        );
    }
}

/// A program without a bug has no hit rate: `plot hits` says that no
/// search failed, claims nothing about the bug's class, and exits 2.
#[test]
fn plot_hits_of_a_correct_program_says_no_search_failed() {
    let dir = temp_dir("plot-hits-clean");
    let svg = dir.join("hits.svg");
    let program = example("examples/locked_counter_ok.rk");
    let out = rankcheck(&[
        "plot",
        "hits",
        "--trials",
        "5",
        "--runs",
        "50",
        "-o",
        svg.to_str().unwrap(),
        &program,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("error: no search failed, so there is no hit rate"),
        "{stderr}"
    );
    assert!(stderr.contains("over 1 variable (1 of 2)"), "{stderr}");
    assert!(!stdout.contains("below the bound"), "{stdout}");
    assert!(!stdout.contains("is not of depth"), "{stdout}");
}

/// The rows of a command's CSV output, keyed by header.
fn csv_rows(out: &std::process::Output) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.expect("a record").iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// The header of a command's CSV output.
fn csv_header(out: &std::process::Output) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader.records().count();
    assert!(rows > 0, "no row: {}", String::from_utf8_lossy(&out.stdout));
    header
}

/// The guide's CSV table: for a command, the columns (and, in
/// parentheses, the variant a flag gives).
fn documented_columns(command: &str) -> (Vec<String>, Vec<String>) {
    let csv = chapter("csv-output.md", "CSV output");
    let row = csv
        .lines()
        .find(|l| l.starts_with(&format!("| {command} |")))
        .unwrap_or_else(|| panic!("no CSV row for {command}"));
    let columns = row.split('|').nth(3).unwrap();
    let (plain, variant) = columns.split_once("(with").unwrap_or((columns, ""));
    let names = |text: &str| -> Vec<String> {
        text.split('`')
            .enumerate()
            .filter(|(i, s)| i % 2 == 1 && !s.starts_with("--"))
            .map(|(_, s)| s.to_string())
            .collect()
    };
    (names(plain), names(variant))
}

#[test]
fn csv_outputs_have_the_documented_columns() {
    let dir = temp_dir("csv");
    let dir = dir.to_str().unwrap();
    let corner = example("examples/corner_variable.rk");
    let fig02 = example("examples/fig02_c1v1.rk");
    let svg = format!("{dir}/x.svg");
    let run = |args: &[&str]| {
        let out = rankcheck(args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        csv_header(&out)
    };
    // The report of a night with a failure (exit 1) and clean streams.
    let campaign = format!("{dir}/campaign");
    let _ = std::fs::remove_dir_all(&campaign);
    let known = example("tests/nightly/known.toml");
    let night = rankcheck(&[
        "nightly", &known, "--runs", "500", "--night", "csv", "--out", &campaign,
    ]);
    assert_eq!(night.status.code(), Some(1), "a new failure: {night:?}");
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("report", run(&["report", "--format", "csv", &campaign])),
        (
            "check",
            run(&["--seed", "1", "--runs", "200", "--format", "csv", &corner]),
        ),
        ("bounds", run(&["bounds", "--format", "csv", &corner])),
        (
            "explore, classify",
            run(&["explore", "--preemptions", "1", "--format", "csv", &fig02]),
        ),
        (
            "explore, classify",
            run(&["classify", "--replay-dir", dir, "--format", "csv", &fig02]),
        ),
        ("sites", run(&["sites", "--format", "csv", &corner])),
        (
            "plot bound",
            run(&[
                "plot", "bound", "--runs", "100", "--format", "csv", "-o", &svg, &corner,
            ]),
        ),
        (
            "plot hits",
            run(&[
                "plot", "hits", "--trials", "3", "--runs", "50", "--format", "csv", "-o", &svg,
                &corner,
            ]),
        ),
    ];
    for (command, header) in cases {
        let (plain, _) = documented_columns(command);
        assert_eq!(header, plain, "{command}");
    }
    let (_, tracked) = documented_columns("sites");
    assert_eq!(
        run(&["sites", "--track", "cold", "--format", "csv", &corner]),
        tracked
    );
}

/// `plot hits --format json` has exactly the guide's fields (JSON output).
pub fn plot_hits_json() -> Value {
    let dir = temp_dir("plot-hits-json");
    let svg = dir.join("hits.svg");
    json(&rankcheck(&[
        "plot",
        "hits",
        "--trials",
        "5",
        "--runs",
        "100",
        "--format",
        "json",
        "-o",
        svg.to_str().unwrap(),
        &example("examples/corner_variable.rk"),
    ]))
}

/// `plot bound --format json`.
pub fn plot_bound_json() -> Value {
    let dir = temp_dir("plot-bound-json");
    let svg = dir.join("bound.svg");
    json(&rankcheck(&[
        "plot",
        "bound",
        "--format",
        "json",
        "-o",
        svg.to_str().unwrap(),
        &example("examples/corner_variable.rk"),
    ]))
}

/// `plot bound` out to 100M executions (each of the four settings marked
/// at 10M runs) keeps every label on the canvas: the `100M` tick at the
/// right edge of the right-hand panels, the legends of variable sets, the
/// title. Each text's extent is estimated with the font the figure is laid
/// out with (`geometry`).
#[test]
fn plot_bound_keeps_its_text_on_the_canvas() {
    let dir = temp_dir("plot-bound-geometry");
    let svg = dir.join("bound.svg");
    let out = rankcheck(&[
        "plot",
        "bound",
        "--runs",
        "40000000",
        "-o",
        svg.to_str().unwrap(),
        &example("examples/corner_variable.rk"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(&svg).unwrap();
    let (_, boxes) = crate::geometry::text_boxes(&text);
    assert!(
        boxes.iter().any(|b| b.text == "100M"),
        "the axis reaches 100M"
    );
    crate::geometry::assert_text_inside(&text, "plot bound");
}
