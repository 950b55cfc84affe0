//! The morning report as an HTML page, and the history plots: after two
//! nights, `report --html` writes a well-formed, self-contained page whose
//! tables say what `report --format json` says, with one history figure
//! per program whose marks are the accumulated runs and guarantees of the
//! report's evidence; `plot history` draws the same figure alone; bad input
//! exits 2 naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use roxmltree::{Document, Node, ParsingOptions};
use serde_json::Value;

use crate::nightly::{fresh, nightly, suite, text};
use crate::plots::{marks, marks_in, number, Marked};
use crate::support::{json, rankcheck};

/// Two nights: `h1` runs a correct program alone (`long.toml`), `h2` the
/// nightly test suite, which adds a program with a bug many streams find
/// and one whose bug needs the writer first: two new failures, one
/// program with two nights of evidence, two with one. Small nights: a few
/// thousand runs in chunks of 256.
fn two_nights(name: &str) -> PathBuf {
    let dir = fresh(name);
    let nights = [
        ("long.toml", "h1", "2000", Some(0)),
        // Enough for every stream of the three programs to get a chunk:
        // the default's cycle has eight per program.
        ("suite.toml", "h2", "5000", Some(1)),
    ];
    for (suite_file, night, runs, status) in nights {
        let args = ["--runs", runs, "--chunk", "256", "--night", night];
        let out = nightly(&suite(suite_file), &dir, &args);
        assert_eq!(out.status.code(), status, "{out:?}");
    }
    dir
}

/// The page, parsed as XML (it is XHTML-compatible: the DOCTYPE is its only
/// DTD).
fn parse(page: &str) -> Document<'_> {
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(page, options).expect("the page is well-formed")
}

/// Nothing on the page comes from elsewhere: no script, no link, no
/// `src`/`href` but to the page itself or inline data, no URL in a style.
fn assert_self_contained(doc: &Document, page: &str) {
    for node in doc.descendants().filter(Node::is_element) {
        let name = node.tag_name().name();
        assert!(
            !["script", "link", "iframe", "img"].contains(&name),
            "<{name}>"
        );
        for attr in node.attributes() {
            if ["src", "href"].contains(&attr.name()) {
                let value = attr.value();
                assert!(
                    value.starts_with('#') || value.starts_with("data:"),
                    "{name} {}={value}",
                    attr.name()
                );
            }
        }
    }
    for outside in ["url(", "@import", "http://", "https://"] {
        let style = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "style")
            .filter_map(|n| n.text())
            .collect::<String>();
        assert!(!style.contains(outside), "style has {outside}");
    }
    assert!(!page.contains("src=\"http"), "no remote source");
    assert!(
        !page.contains('`'),
        "names are set as code, never shown with their backticks"
    );
}

/// Every table: caption, then rows of cells keyed by column name.
fn tables(doc: &Document) -> Vec<(String, Vec<BTreeMap<String, String>>)> {
    let text_of = |n: Node| {
        n.descendants()
            .filter(Node::is_text)
            .filter_map(|t| t.text())
            .collect::<String>()
    };
    doc.descendants()
        .filter(|n| n.tag_name().name() == "table")
        .map(|table| {
            let caption = table
                .children()
                .find(|n| n.tag_name().name() == "caption")
                .map(text_of)
                .unwrap_or_default();
            let header: Vec<String> = table
                .descendants()
                .filter(|n| n.tag_name().name() == "th")
                .map(text_of)
                .collect();
            let rows = table
                .descendants()
                .filter(|n| n.tag_name().name() == "tr")
                .filter(|tr| tr.children().any(|c| c.tag_name().name() == "td"))
                .map(|tr| {
                    let cells = tr.children().filter(|c| c.tag_name().name() == "td");
                    header.iter().cloned().zip(cells.map(text_of)).collect()
                })
                .collect();
            (caption, rows)
        })
        .collect()
}

/// A JSON number or string as a table cell shows it (a `quoted` name is
/// set as code, without its backticks).
fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.replace('`', ""),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// The failure tables hold the JSON's failures, section by section, with
/// the commands that replay them.
fn assert_failure_tables(report: &Value, tables: &[(String, Vec<BTreeMap<String, String>>)]) {
    let captions = [
        ("new", "New failures"),
        ("still_failing", "Still failing"),
        ("not_seen_lately", "Not seen in the latest night"),
        ("gone", "Not seen for 3 nights or more"),
    ];
    for (field, caption) in captions {
        let failures = report[field].as_array().expect("a failure list");
        // The section's heading names it; the caption says what the table
        // holds rather than repeating the heading.
        let caption = format!("{caption}: each failure and its replay");
        let rows = tables
            .iter()
            .find(|(c, _)| *c == caption)
            .map(|(_, rows)| rows.clone())
            .unwrap_or_default();
        assert_eq!(rows.len(), failures.len(), "{caption}");
        for (row, failure) in rows.iter().zip(failures) {
            for (column, key) in [
                ("program", "program"),
                ("first seen", "first_night"),
                ("last seen", "last_night"),
                ("failing chunks", "count"),
                ("replay", "replay_command"),
            ] {
                assert_eq!(row[column], cell(&failure[key]), "{caption}: {column}");
            }
            assert!(row["failure"].contains(&cell(&failure["message"])));
        }
    }
}

/// The evidence tables hold the JSON's evidence, stream by stream.
fn assert_evidence_tables(report: &Value, tables: &[(String, Vec<BTreeMap<String, String>>)]) {
    let rows: Vec<&BTreeMap<String, String>> = tables
        .iter()
        .filter(|(c, _)| c.ends_with(": runs and guarantee per setting"))
        .flat_map(|(_, rows)| rows)
        .collect();
    let evidence = report["evidence"].as_array().expect("evidence");
    assert_eq!(rows.len(), evidence.len());
    for e in evidence {
        let row = rows
            .iter()
            .find(|r| r["program"] == cell(&e["program"]) && r["setting"] == cell(&e["setting"]))
            .unwrap_or_else(|| panic!("no row for {e}"));
        for (column, key) in [
            ("nights", "nights"),
            ("runs", "runs"),
            ("last night", "night_runs"),
            ("failing", "failures"),
            ("bound", "bound"),
        ] {
            assert_eq!(row[column], cell(&e[key]), "{e}: {column}");
        }
        let guarantee = &row["no bug of the setting's class, p >="];
        match (e["failures"].as_u64(), e["miss_log10"].as_f64()) {
            (Some(f), _) if f > 0 => assert_eq!(guarantee, "none: it failed"),
            (_, None) => assert_eq!(guarantee, "no bound claimed"),
            (_, Some(miss)) if miss < -4.0 => assert_eq!(*guarantee, format!("1 - 10^{miss:.1}")),
            (_, Some(_)) => {
                let c = e["confidence"].as_f64().unwrap();
                assert_eq!(*guarantee, format!("{c:.4}"));
            }
        }
    }
}

/// A program's figure plots, per setting of its evidence, the runs the
/// report counts (by its last night) and the guarantee it states, and
/// rings exactly the nights with a failure.
fn assert_history_marks(program: &str, marks: &[Marked], report: &Value) {
    let evidence: Vec<&Value> = report["evidence"]
        .as_array()
        .expect("evidence")
        .iter()
        .filter(|e| e["program"] == program)
        .collect();
    let series: BTreeSet<&str> = marks
        .iter()
        .map(|(s, _)| s.as_str())
        .filter(|s| *s != "failure")
        .collect();
    let settings: BTreeSet<&str> = evidence
        .iter()
        .map(|e| e["setting"].as_str().unwrap())
        .collect();
    assert_eq!(series, settings, "{program}: one series per setting");
    for e in &evidence {
        let setting = e["setting"].as_str().unwrap();
        let on = |panel: &str| -> Vec<&BTreeMap<String, String>> {
            let mut points: Vec<&BTreeMap<String, String>> = marks
                .iter()
                .filter(|(s, m)| s == setting && m["panel"] == panel)
                .map(|(_, m)| m)
                .collect();
            points.sort_by(|a, b| number(a, "x").total_cmp(&number(b, "x")));
            points
        };
        let runs = on("runs");
        assert_eq!(runs.len() as u64, e["nights"].as_u64().unwrap(), "{e}");
        let last = runs.last().expect("a night");
        assert_eq!(number(last, "y"), e["runs"].as_f64().unwrap(), "{e}");
        // The night before the latest stands at the runs before it.
        if let ([.., before, _], true) = (runs.as_slice(), e["night_runs"] != 0) {
            let earlier = e["runs"].as_u64().unwrap() - e["night_runs"].as_u64().unwrap();
            assert_eq!(number(before, "y"), earlier as f64, "{e}");
        }
        let ys: Vec<f64> = runs.iter().map(|m| number(m, "y")).collect();
        assert!(
            ys.windows(2).all(|w| w[0] < w[1]),
            "runs accumulate: {ys:?}"
        );
        // The latest night's guarantee point is the report's guarantee,
        // and there is none where the report claims none ("none: it
        // failed", "no bound claimed").
        let guarantee = on("guarantee");
        let latest = guarantee
            .iter()
            .find(|m| number(m, "x") == number(last, "x"));
        match e["confidence"].as_f64() {
            Some(c) => assert_eq!(latest.map(|m| number(m, "y")), Some(c), "{e}"),
            None => assert!(latest.is_none(), "no guarantee claimed, none drawn: {e}"),
        }
        let claimed = e["guarantee"].as_str().expect("the guarantee's text");
        assert_eq!(
            e["confidence"].is_null(),
            claimed == "none: it failed" || claimed == "no bound claimed",
            "{e}"
        );
        if e["failures"].as_u64() > Some(0) {
            assert_eq!(claimed, "none: it failed", "{e}");
        }
        let failing_nights: u64 = runs
            .iter()
            .map(|m| u64::from(number(m, "failures") > 0.0))
            .sum();
        let rings = marks
            .iter()
            .filter(|(s, m)| s == "failure" && m["setting"] == setting && m["panel"] == "runs")
            .count() as u64;
        assert_eq!(rings, failing_nights, "{e}");
        let failed: f64 = runs.iter().map(|m| number(m, "failures")).sum();
        assert_eq!(failed, e["failures"].as_f64().unwrap(), "{e}");
    }
}

#[test]
fn the_html_report_is_self_contained_and_says_what_the_json_says() {
    let dir = two_nights("report-html");
    let page_path = dir.join("report.html");
    let out = rankcheck(&[
        "report",
        text(&dir),
        "--format",
        "json",
        "--html",
        text(&page_path),
    ]);
    assert_eq!(out.status.code(), Some(1), "new failures: {out:?}");
    // The page is announced as every written file is, on stderr.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr, format!("wrote {}\n", text(&page_path)));
    let report = json(&out);
    assert_eq!(report["night"], "h2");
    assert_eq!(report["new"].as_array().map(Vec::len), Some(2), "{report}");
    let page = std::fs::read_to_string(&page_path).expect("the page was written");
    let doc = parse(&page);
    assert_eq!(doc.root_element().tag_name().name(), "html");
    assert_self_contained(&doc, &page);
    let tables = tables(&doc);
    assert_failure_tables(&report, &tables);
    assert_evidence_tables(&report, &tables);
    let programs: BTreeSet<&str> = report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["program"].as_str().unwrap())
        .collect();
    let figures: Vec<Node> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "figure")
        .collect();
    assert_eq!(programs.len(), 3);
    assert_eq!(figures.len(), programs.len(), "one figure per program");
    for figure in figures {
        let caption = figure
            .children()
            .find(|n| n.tag_name().name() == "figcaption")
            .and_then(|n| n.text())
            .expect("a caption");
        let program = caption
            .strip_suffix(": runs and guarantee night by night")
            .expect("the caption names the program");
        assert!(programs.contains(program), "{program}");
        let svgs: Vec<Node> = figure
            .children()
            .filter(|n| n.tag_name().name() == "svg")
            .collect();
        assert_eq!(svgs.len(), 1, "{program}: one inline <svg>");
        let svg_text = &page[svgs[0].range()];
        for words in ["runs accumulated (log scale)", "guarantee (nines)", "h2"] {
            assert!(svg_text.contains(words), "{program}: `{words}`");
        }
        assert_history_marks(program, &marks_in(svgs[0]), &report);
    }
}

#[test]
fn plot_history_draws_one_program_and_prints_its_numbers() {
    let dir = two_nights("plot-history");
    let report = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    let svg = dir.join("lost_push.svg");
    let out = rankcheck(&[
        "plot",
        "history",
        text(&dir),
        "--program",
        "lost_push",
        "-o",
        text(&svg),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("lost_push (fingerprint "), "{said}");
    assert_history_marks("lost_push", &marks(&svg), &report);
    // Several programs and no --program, or an unknown one: exit 2, naming
    // the programs there are.
    for program in [None, Some("nope")] {
        let mut args = vec!["plot", "history", text(&dir), "-o", text(&svg)];
        args.extend(program.map(|p| ["--program", p]).into_iter().flatten());
        let out = rankcheck(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr.contains("fig01, locked_counter_ok, lost_push"),
            "{stderr}"
        );
    }
}

/// `plot history` of every program states on every stream what the
/// report states: the latest night's guarantee point is the report's
/// guarantee, absent where the report says "none: it failed" (a stream that
/// failed used to be drawn with the guarantee of its clean runs, 0.5 for
/// fig01's PCT d=1 stream), and the numbers it prints say the same words.
#[test]
fn the_history_figure_and_the_report_agree_on_every_stream() {
    let dir = two_nights("plot-history-agree");
    let report = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    let evidence = report["evidence"].as_array().expect("evidence");
    assert!(
        evidence.iter().any(|e| e["guarantee"] == "none: it failed"),
        "a stream failed: {report}"
    );
    let programs: BTreeSet<&str> = evidence
        .iter()
        .map(|e| e["program"].as_str().unwrap())
        .collect();
    for program in programs {
        let svg = dir.join(format!("{program}.svg"));
        let args = [
            "plot",
            "history",
            text(&dir),
            "--program",
            program,
            "-o",
            text(&svg),
        ];
        let out = rankcheck(&args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_history_marks(program, &marks(&svg), &report);
        let said = String::from_utf8_lossy(&out.stdout);
        for e in evidence.iter().filter(|e| e["program"] == program) {
            let line = format!(
                "  {}: {}",
                e["setting"].as_str().unwrap(),
                e["runs"].as_u64().unwrap()
            );
            let stated = said
                .lines()
                .find(|l| l.starts_with(&line))
                .unwrap_or_else(|| panic!("{program}: no line for {e} in {said}"));
            let guarantee = format!("guarantee {},", e["guarantee"].as_str().unwrap());
            assert!(stated.contains(&guarantee), "{stated} / {e}");
        }
    }
}

/// A missing directory, a database that is not one, and a page that cannot
/// be written: exit 2 with the file named, and no page written.
#[test]
fn bad_input_to_the_html_report_exits_2_naming_the_file() {
    let dir = fresh("report-html-bad");
    std::fs::create_dir_all(&dir).expect("dir");
    let page = dir.join("page.html");
    let figure = dir.join("figure.svg");
    let expect_error = |args: &[&str], names: &Path| {
        let out = rankcheck(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(text(names)), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!stderr.contains("wrote"), "{stderr}");
        assert!(!page.exists(), "{args:?} wrote no page");
        assert!(!figure.exists(), "{args:?} wrote no figure");
    };
    let missing = dir.join("missing");
    expect_error(
        &["report", text(&missing), "--html", text(&page)],
        &missing.join("history.sqlite"),
    );
    let db = dir.join("history.sqlite");
    std::fs::write(&db, "not a database").expect("garbage");
    expect_error(&["report", text(&dir), "--html", text(&page)], &db);
    expect_error(&["plot", "history", text(&dir), "-o", text(&figure)], &db);
    let campaign = two_nights("report-html-unwritable");
    let unwritable = campaign.join("no-such-dir").join("page.html");
    expect_error(
        &["report", text(&campaign), "--html", text(&unwritable)],
        &unwritable,
    );
}
