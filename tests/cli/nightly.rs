//! Nightly campaigns through the real binary: shards as separate processes
//! merge into exactly the unsharded night, a shard killed with SIGKILL and
//! run again loses no run and counts none twice, merging is idempotent, a
//! known failure is not new, and damaged shard files and databases give
//! their documented errors.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rankcheck_history::{parse_shard, Evidence, History, Record};

use crate::support::{json, rankcheck, root, temp_dir};

pub fn suite(name: &str) -> String {
    root()
        .join("tests/nightly")
        .join(name)
        .display()
        .to_string()
}

pub fn fresh(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub fn text(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// `rankcheck nightly SUITE --out DIR ARGS...` as a child process.
fn spawn_nightly(suite: &str, out: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .args(["nightly", suite, "--out", text(out), "--jobs", "1"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rankcheck runs")
}

pub fn nightly(suite: &str, out: &Path, args: &[&str]) -> Output {
    spawn_nightly(suite, out, args)
        .wait_with_output()
        .expect("rankcheck ends")
}

fn history(dir: &Path) -> History {
    History::open_existing(&dir.join("history.sqlite")).expect("a history")
}

/// The failures of a history without their replay files, which name the
/// shard that wrote them.
fn failure_set(history: &History) -> BTreeSet<(String, String, u64, u64, u64)> {
    history
        .failures()
        .expect("failures")
        .into_iter()
        .map(|f| (f.program, f.key, f.first_night, f.last_night, f.count))
        .collect()
}

/// The chunk records of a shard file, as (setting, first run, runs).
fn chunks_of(file: &Path) -> Vec<(String, u64, u64)> {
    let read = parse_shard(&std::fs::read_to_string(file).expect("shard file"));
    read.records
        .into_iter()
        .filter_map(|(_, r)| match r {
            Record::Chunk(c) => Some((c.setting, c.first_run, c.runs)),
            _ => None,
        })
        .collect()
}

/// Wait (reading the file until it does, for a minute at most) until a
/// shard file holds at least `chunks` chunk records.
fn wait_for_chunks(file: &Path, chunks: usize) {
    let start = Instant::now();
    while std::fs::read_to_string(file)
        .map(|t| t.matches("\"type\":\"chunk\"").count())
        .unwrap_or(0)
        < chunks
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never reached {chunks} chunks",
            file.display()
        );
        std::thread::yield_now();
    }
}

const NIGHT: [&str; 8] = [
    "--runs", "6000", "--chunk", "256", "--night", "n1", "--seed", "1",
];

/// N = 1, 2, 3, 4 shards, each a separate process running at the same
/// time, merged, give exactly the evidence (runs, clean runs, chunks and the
/// accumulated miss probability, bit for bit) and the failure signatures
/// (with their counts) of the unsharded night.
#[test]
fn shards_merged_equal_the_unsharded_night() {
    let whole = fresh("nightly-whole");
    let out = nightly(&suite("suite.toml"), &whole, &NIGHT);
    assert_eq!(out.status.code(), Some(1), "new failures: {out:?}");
    let expected = history(&whole);
    let evidence = expected.evidence(None).expect("evidence");
    let failures = failure_set(&expected);
    assert_eq!(
        evidence.iter().map(|e| e.runs).sum::<u64>() > 0,
        !failures.is_empty()
    );
    for n in 1..=4u32 {
        let dir = fresh(&format!("nightly-shards-{n}"));
        let children: Vec<Child> = (0..n)
            .map(|i| {
                let shard = format!("{i}/{n}");
                let mut args = NIGHT.to_vec();
                args.extend(["--shard", &shard]);
                spawn_nightly(&suite("suite.toml"), &dir, &args)
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("shard ends");
            // A shard of several records failures and leaves alerting to
            // the report; a single shard is a whole night.
            let expected_code = if n == 1 { 1 } else { 0 };
            assert_eq!(
                out.status.code(),
                Some(expected_code),
                "{n} shards: {out:?}"
            );
        }
        if n > 1 {
            let merged = rankcheck(&["merge", text(&dir)]);
            assert_eq!(merged.status.code(), Some(0), "{merged:?}");
        }
        let got = history(&dir);
        assert_eq!(
            got.evidence(None).expect("evidence"),
            evidence,
            "{n} shards"
        );
        assert_eq!(failure_set(&got), failures, "{n} shards");
    }
}

/// Merging the same shard files again adds nothing: the evidence, the
/// failures and the report are unchanged.
#[test]
fn merging_twice_equals_merging_once() {
    let dir = fresh("nightly-twice");
    for i in 0..2 {
        let shard = format!("{i}/2");
        let mut args = NIGHT.to_vec();
        args.extend(["--shard", &shard]);
        let out = nightly(&suite("suite.toml"), &dir, &args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let first = rankcheck(&["merge", text(&dir)]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let report_once = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    let evidence_once = history(&dir).evidence(None).expect("evidence");
    let second = rankcheck(&["merge", text(&dir)]);
    assert_eq!(second.status.code(), Some(0), "{second:?}");
    let said = String::from_utf8_lossy(&second.stdout);
    assert!(said.contains(": 0 chunks new"), "{said}");
    assert!(said.contains(", 0 failure sightings new"), "{said}");
    assert_eq!(
        history(&dir).evidence(None).expect("evidence"),
        evidence_once
    );
    let report_twice = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    assert_eq!(report_twice, report_once);
}

/// A shard killed with a real SIGKILL in the middle of its night, then run
/// again, ends with exactly the runs of an uninterrupted run: none lost,
/// none counted twice (the shard file holds every chunk once).
#[test]
fn a_killed_shard_resumes_without_losing_or_repeating_runs() {
    let args = [
        "--runs", "300000", "--chunk", "1000", "--night", "k", "--shard", "0/2",
    ];
    let long = suite("long.toml");
    let reference = fresh("nightly-unkilled");
    assert_eq!(nightly(&long, &reference, &args).status.code(), Some(0));
    let killed = fresh("nightly-killed");
    let child = spawn_nightly(&long, &killed, &args);
    let file = killed.join("nights/k/shard-0-of-2.jsonl");
    wait_for_chunks(&file, 5);
    let status = Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("killed shard ends");
    assert_eq!(out.status.code(), None, "SIGKILL ended it: {out:?}");
    let before = chunks_of(&file);
    let total = chunks_of(&reference.join("nights/k/shard-0-of-2.jsonl"));
    assert!(
        before.len() < total.len(),
        "killed in the middle: {} of {} chunks",
        before.len(),
        total.len()
    );
    let again = nightly(&long, &killed, &args);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stdout).contains("resuming after"));
    let mut after = chunks_of(&file);
    let unique: BTreeSet<(String, u64)> = after.iter().map(|(s, f, _)| (s.clone(), *f)).collect();
    assert_eq!(unique.len(), after.len(), "no chunk recorded twice");
    after.sort();
    let mut total = total;
    total.sort();
    assert_eq!(after, total, "the same chunks as the uninterrupted shard");
    for dir in [&reference, &killed] {
        assert_eq!(rankcheck(&["merge", text(dir)]).status.code(), Some(0));
    }
    let runs = |dir: &Path| -> Vec<(String, u64, u64)> {
        history(dir)
            .evidence(None)
            .expect("evidence")
            .into_iter()
            .map(|e: Evidence| (e.setting, e.runs, e.clean_runs))
            .collect()
    };
    assert_eq!(runs(&killed), runs(&reference));
}

/// SIGINT and SIGTERM finish the chunk in flight, record an `interrupted`
/// end, print the summary and exit 3; the same command then resumes.
#[test]
fn a_signal_stops_a_night_after_the_chunk_in_flight() {
    for signal in ["-INT", "-TERM"] {
        let dir = fresh(&format!("nightly-signal{signal}"));
        let args = ["--runs", "2000000", "--chunk", "1000", "--night", "s"];
        let child = spawn_nightly(&suite("long.toml"), &dir, &args);
        let file = dir.join("nights/s/shard-0-of-1.jsonl");
        wait_for_chunks(&file, 2);
        let sent = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let out = child.wait_with_output().expect("ends");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{signal}: {out:?}");
        assert!(
            stdout.contains("interrupted: stopped after the chunk in flight"),
            "{stdout}"
        );
        assert!(stdout.contains("morning report"), "{stdout}");
        let text_now = std::fs::read_to_string(&file).expect("shard file");
        let last = text_now.lines().last().expect("a last line");
        assert!(last.contains("\"status\":\"interrupted\""), "{last}");
        let read = parse_shard(&text_now);
        assert!(read.problems.is_empty(), "{:?}", read.problems);
    }
}

/// A failure seen on one night is not new on the next: `report` exits 1
/// after the first night and 0 after the second, with the failure among
/// those still failing.
#[test]
fn a_known_failure_is_not_new_the_next_night() {
    let dir = fresh("nightly-known");
    let known = suite("known.toml");
    let first = nightly(
        &known,
        &dir,
        &["--runs", "3000", "--chunk", "250", "--night", "d1"],
    );
    assert_eq!(first.status.code(), Some(1), "{first:?}");
    let report = rankcheck(&["report", text(&dir), "--format", "json"]);
    assert_eq!(report.status.code(), Some(1));
    let report = json(&report);
    assert_eq!(report["new"].as_array().map(Vec::len), Some(1), "{report}");
    let second = nightly(
        &known,
        &dir,
        &["--runs", "3000", "--chunk", "250", "--night", "d2"],
    );
    assert_eq!(second.status.code(), Some(0), "{second:?}");
    let report = rankcheck(&["report", text(&dir), "--format", "json"]);
    assert_eq!(report.status.code(), Some(0));
    let report = json(&report);
    assert_eq!(report["night"], "d2");
    assert_eq!(report["previous_night"], "d1");
    assert_eq!(report["new"].as_array().map(Vec::len), Some(0), "{report}");
    let still = &report["still_failing"][0];
    assert_eq!(still["first_night"], "d1");
    assert_eq!(still["last_night"], "d2");
    let replay = still["replay"].as_str().expect("a replay file");
    assert_eq!(rankcheck(&["replay", replay]).status.code(), Some(1));
    // The evidence of the correct program adds up over both nights.
    let evidence = report["evidence"].as_array().expect("evidence");
    let counter: Vec<&serde_json::Value> = evidence
        .iter()
        .filter(|e| e["program"] == "locked_counter_ok")
        .collect();
    assert!(!counter.is_empty());
    for e in counter {
        assert_eq!(e["nights"], 2, "{e}");
        assert!(e["runs"].as_u64() > e["night_runs"].as_u64(), "{e}");
    }
    // A night that does not meet it: not seen lately, or gone after one
    // night with --gone-after 1.
    let third = nightly(
        &suite("long.toml"),
        &dir,
        &["--runs", "1000", "--night", "d3"],
    );
    assert_eq!(third.status.code(), Some(0), "{third:?}");
    let lately = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    assert_eq!(
        lately["not_seen_lately"].as_array().map(Vec::len),
        Some(1),
        "{lately}"
    );
    let gone = json(&rankcheck(&[
        "report",
        text(&dir),
        "--format",
        "json",
        "--gone-after",
        "1",
    ]));
    assert_eq!(gone["gone"].as_array().map(Vec::len), Some(1), "{gone}");
}

/// A shard file cut in the middle of a line, with a garbled line too, is
/// reported with its file and line numbers, and every other record is
/// ingested; merge exits 3.
#[test]
fn a_truncated_shard_file_is_reported_and_the_rest_ingested() {
    let dir = fresh("nightly-truncated");
    let out = nightly(
        &suite("long.toml"),
        &dir,
        &[
            "--runs", "8000", "--chunk", "1000", "--night", "t", "--shard", "0/1",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    std::fs::remove_file(dir.join("history.sqlite")).expect("history removed");
    let file = dir.join("nights/t/shard-0-of-1.jsonl");
    let whole = std::fs::read_to_string(&file).expect("shard file");
    let lines: Vec<&str> = whole.lines().collect();
    // Lines: header, 8 chunks, end. Garble chunk 2 (line 3); cut chunk 8
    // (line 9) in the middle and drop the end record.
    let mut damaged = String::new();
    for (i, line) in lines.iter().take(8).enumerate() {
        damaged.push_str(if i == 2 {
            "{\"type\":\"chunk\",garbage"
        } else {
            line
        });
        damaged.push('\n');
    }
    damaged.push_str(&lines[8][..lines[8].len() / 2]);
    std::fs::write(&file, &damaged).expect("damaged");
    let merged = rankcheck(&["merge", text(&dir)]);
    assert_eq!(merged.status.code(), Some(3), "{merged:?}");
    let stderr = String::from_utf8_lossy(&merged.stderr);
    let name = file.display().to_string();
    assert!(
        stderr.contains(&format!("{name}:3: not a shard record")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{name}:9: truncated record")),
        "{stderr}"
    );
    let runs: u64 = history(&dir)
        .evidence(None)
        .expect("evidence")
        .iter()
        .map(|e| e.runs)
        .sum();
    assert_eq!(runs, 6000, "the 6 whole chunks of 1000 runs are ingested");
}

/// A corrupted database is refused, by every command, with the documented
/// error naming the file, and left byte for byte as it was.
#[test]
fn a_corrupted_database_is_refused_and_left_untouched() {
    let dir = fresh("nightly-corrupt");
    let out = nightly(
        &suite("known.toml"),
        &dir,
        &["--runs", "500", "--night", "c"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let db = dir.join("history.sqlite");
    let bytes = std::fs::read(&db).expect("database");
    let cases: [(usize, &str); 2] = [
        (0, "it does not start with the SQLite header"),
        (4096 + 8, "corrupt history database"),
    ];
    for (offset, detail) in cases {
        let mut broken = bytes.clone();
        for b in &mut broken[offset..offset + 64] {
            *b = 0xA5;
        }
        std::fs::write(&db, &broken).expect("corrupted");
        for args in [
            vec!["report", text(&dir)],
            vec!["merge", text(&dir)],
            vec![
                "nightly",
                &suite("known.toml"),
                "--out",
                text(&dir),
                "--runs",
                "10",
                "--night",
                "c2",
            ],
        ] {
            let out = rankcheck(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains(&format!("{}: corrupt history database", db.display())),
                "{args:?}: {stderr}"
            );
            assert!(stderr.contains(detail), "{args:?}: {stderr}");
            assert!(stderr.contains("it is left as it is"), "{stderr}");
            assert_eq!(
                std::fs::read(&db).expect("database"),
                broken,
                "{args:?} left it"
            );
        }
    }
}

/// A program that changed (a new fingerprint) starts its evidence again;
/// the old version's stays in the history, and the report shows the new.
#[test]
fn a_changed_program_starts_its_evidence_again() {
    let dir = fresh("nightly-changed");
    std::fs::create_dir_all(&dir).expect("dir");
    let program = dir.join("counter.rk");
    let source =
        std::fs::read_to_string(root().join("examples/locked_counter_ok.rk")).expect("example");
    std::fs::write(&program, &source).expect("program");
    let suite = dir.join("rankcheck.toml");
    std::fs::write(&suite, "[[program]]\npath = \"counter.rk\"\n").expect("suite");
    let out = dir.join("out");
    let night = |name: &str| nightly(text(&suite), &out, &["--runs", "2000", "--night", name]);
    assert_eq!(night("v1").status.code(), Some(0));
    std::fs::write(&program, format!("{source}\n// edited\n")).expect("edit");
    assert_eq!(night("v2").status.code(), Some(0));
    let all = history(&out).evidence(None).expect("evidence");
    let fingerprints: BTreeSet<&str> = all.iter().map(|e| e.fingerprint.as_str()).collect();
    assert_eq!(fingerprints.len(), 2, "both versions are kept");
    let report = json(&rankcheck(&["report", text(&out), "--format", "json"]));
    for e in report["evidence"].as_array().expect("evidence") {
        assert_eq!(e["nights"], 1, "only the new version's night counts: {e}");
        assert_eq!(e["runs"], e["night_runs"], "{e}");
    }
}

/// Bugs of programs with replicated threads (tests/replicated: six
/// setters, four incrementers, three workers each way of a lock-order
/// inversion) are met in many variants (which instances ran, the variables
/// raced on, which threads got stuck behind a deadlock): the morning report
/// lists each bug once, with its variants counted, and a second night of
/// the same bugs has no new failure and exits 0.
#[test]
fn replicated_threads_give_one_failure_per_bug() {
    let dir = fresh("nightly-replicated");
    let programs = root().join("tests/replicated");
    let night = |name: &str| {
        nightly(
            text(&programs),
            &dir,
            &["--runs", "4000", "--chunk", "200", "--night", name],
        )
    };
    let first = night("r1");
    assert_eq!(first.status.code(), Some(1), "{first:?}");
    let report = json(&rankcheck(&["report", text(&dir), "--format", "json"]));
    let new = report["new"].as_array().expect("new failures");
    let mut per_program = std::collections::BTreeMap::new();
    for failure in new {
        *per_program
            .entry(failure["program"].as_str().expect("a program"))
            .or_insert(0) += 1;
    }
    assert_eq!(per_program.len(), 3, "{report}");
    assert!(per_program.values().all(|&n| n <= 2), "{per_program:?}");
    assert!(
        new.iter().any(|f| f["variants"].as_u64() > Some(1)),
        "no bug was met in more than one variant: {report}"
    );
    let second = night("r2");
    assert_eq!(second.status.code(), Some(0), "{second:?}");
    let report = rankcheck(&["report", text(&dir), "--format", "json"]);
    assert_eq!(report.status.code(), Some(0));
    let report = json(&report);
    assert_eq!(report["new"].as_array().map(Vec::len), Some(0), "{report}");
    assert_eq!(
        report["still_failing"].as_array().map(Vec::len),
        Some(new.len())
    );
}
