//! Reports a user can believe: each item of the reports issue pinned
//! through the real binary. (The guide's JSON tables are checked in
//! `readme.rs`, interruption and exit statuses in `trust.rs`.)

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::markdown::{markdown_files, GUIDE};
use crate::support::{buggy_programs, exhaustive, header_bounds, json, rankcheck, root, temp_dir};

fn path(relative: &str) -> String {
    root().join(relative).to_str().unwrap().to_string()
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8_lossy(&rankcheck(args).stdout).into_owned()
}

fn stderr(args: &[&str]) -> String {
    String::from_utf8_lossy(&rankcheck(args).stderr).into_owned()
}

/// One definition of a preemption: a classified bug's trace marks exactly
/// `c` preemptions and its observed count is `c`; a search's failure marks
/// as many as its shrunk schedule took (its `shrunk.after`); unshrunk, as
/// many as the change points that fired, and a random failure none.
#[test]
fn preemptions_are_counted_one_way() {
    for program in buggy_programs() {
        let Some((c, _, _)) = header_bounds(&program) else {
            continue;
        };
        let name = program.display().to_string();
        let (_, report) = exhaustive(&["classify"], &program);
        let bug = &report["bug"];
        let marks = bug["trace"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["preemption"] == true)
            .count();
        assert_eq!(marks as u32, c, "{name}: marks in the trace");
        assert_eq!(bug["observed"]["preemptions"], c, "{name}");
        assert_eq!(report["c"], c, "{name}");
    }
    let dir = temp_dir("preemptions");
    let out = rankcheck(&[
        "--seed",
        "1",
        "--format",
        "json",
        "--replay-dir",
        dir.to_str().unwrap(),
        &path("examples/lost_wakeup.rk"),
    ]);
    let failure = &json(&out)["first_failure"];
    let changes = failure["change_points"].as_array().unwrap().len();
    assert_eq!(failure["observed"]["preemptions"], changes);
    let marks = failure["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["preemption"] == true)
        .count();
    assert_eq!(marks, changes);
    assert_eq!(failure["shrunk"]["after"]["preemptions"], marks);
    let out = rankcheck(&[
        "--strategy",
        "random",
        "--no-shrink",
        "--seed",
        "1",
        "--format",
        "json",
        "--replay-dir",
        dir.to_str().unwrap(),
        &path("examples/lost_wakeup.rk"),
    ]);
    let failure = &json(&out)["first_failure"];
    assert_eq!(failure["observed"]["preemptions"], 0);
    assert!(failure["trace"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["preemption"] == false));
    let text = stdout(&[
        "--strategy",
        "random",
        "--no-shrink",
        "--seed",
        "1",
        "--replay-dir",
        dir.to_str().unwrap(),
        &path("examples/lost_wakeup.rk"),
    ]);
    assert!(
        text.contains("away from a thread that could have gone on, marked ~"),
        "{text}"
    );
    assert!(
        text.contains("without priorities a switch is not a preemption"),
        "{text}"
    );
}

/// The racing variable shows in the trace: lost_push's pushes read `head`
/// in the steps that end with their tracked write to the new node.
#[test]
fn every_variable_a_step_touched_is_shown() {
    let dir = temp_dir("touched");
    // PCTVB tracks one variable, so untracked reads of head happen inside
    // steps.
    let out = rankcheck(&[
        "--strategy",
        "pctvb",
        "--seed",
        "1",
        "--format",
        "json",
        "--replay-dir",
        dir.to_str().unwrap(),
        &path("examples/lost_push.rk"),
    ]);
    let trace = json(&out)["first_failure"]["trace"].clone();
    let reads_head = trace.as_array().unwrap().iter().any(|step| {
        step["var"] != "head"
            && step["touched"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["var"] == "head" && t["read"] == true)
    });
    assert!(
        reads_head,
        "no step shows its untracked read of head: {trace}"
    );
}

/// The note that --max-runs cut the count appears only when it did and no
/// failure ended the search.
#[test]
fn the_max_runs_note_is_only_said_when_true() {
    let dir = temp_dir("capped");
    let found = stdout(&[
        "--seed",
        "1",
        "--max-runs",
        "50",
        "--replay-dir",
        dir.to_str().unwrap(),
        &path("examples/fig02_c1v1.rk"),
    ]);
    assert!(found.contains("found in run"), "{found}");
    assert!(!found.contains("--max-runs"), "{found}");
    let clean = stdout(&[
        "--seed",
        "1",
        "--max-runs",
        "50",
        &path("examples/locked_counter_ok.rk"),
    ]);
    assert!(
        clean.contains(
            "(--max-runs; in Rust, Builder::max_runs or max_time) cut the run count, so the target confidence 0.99 was not reached"
        ),
        "{clean}"
    );
}

/// Settings that can place no change point are not run, and the summary
/// says why; asking only for such a setting is an input error.
#[test]
fn settings_that_cannot_do_anything_are_not_run() {
    let fig02 = path("examples/fig02_c1v1.rk");
    for vars in ["none", "sync"] {
        let out = rankcheck(&["--seed", "1", "--vars", vars, "--format", "json", &fig02]);
        let report = json(&out);
        assert_eq!(
            report["settings"].as_array().unwrap().len(),
            1,
            "--vars {vars}"
        );
        assert_eq!(report["settings"][0]["depth"], 1);
        let skipped = report["skipped"].as_array().unwrap();
        assert_eq!(skipped.len(), 2, "--vars {vars}");
        assert!(skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no change point can be placed"));
        assert!(
            report["runs"].as_u64().unwrap() < 1000,
            "--vars {vars} ran {}",
            report["runs"]
        );
    }
    let text = stdout(&["--seed", "1", "--vars", "none", &fig02]);
    assert!(
        text.contains("not run: depth 2 over none: it tracks no variable"),
        "{text}"
    );
    let out = rankcheck(&["--depth", "2", "--vars", "none", &fig02]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("nothing to run: depth 2 over none"),
        "{message}"
    );
}

/// The guarantee is stated per variable set: on corner_variable, a bug
/// over `cold` alone is excluded with a far higher probability than one
/// over `hot`, in the search's JSON and in `bounds`.
#[test]
fn guarantees_are_stated_per_variable_set() {
    let corner = path("examples/corner_variable.rk");
    let report = json(&rankcheck(&[
        "--seed", "1", "--depth", "2", "--vars", "1", "--runs", "200", "--format", "json", &corner,
    ]));
    let sets = report["settings"][0]["per_set"].as_array().unwrap().clone();
    let bound = |name: &str| {
        sets.iter()
            .find(|s| s["vars"] == serde_json::json!([name]))
            .map(|s| s["bound"].as_f64().unwrap())
            .unwrap()
    };
    assert!(bound("cold") > 20.0 * bound("hot"), "{sets:?}");
    assert_eq!(
        report["settings"][0]["bound"].as_f64().unwrap(),
        bound("hot")
    );
    let bounds = json(&rankcheck(&["bounds", "--format", "json", &corner]));
    let runs = |name: &str| {
        bounds["pctvb_per_set"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["vars"] == serde_json::json!([name]))
            .map(|s| s["runs_needed"].as_u64().unwrap())
            .unwrap()
    };
    assert!(runs("cold") * 20 < runs("hot"));
    assert_eq!(
        bounds["pctvb"]["runs_needed"].as_u64().unwrap(),
        runs("hot")
    );
}

/// Arguments mean the same everywhere, options may precede the
/// subcommand, several programs work, and errors name the flag typed.
#[test]
fn arguments_read_the_same_everywhere() {
    let corner = path("examples/corner_variable.rk");
    let fig01 = path("examples/fig01_c0v0.rk");
    let ok = path("examples/locked_counter_ok.rk");
    assert_eq!(
        rankcheck(&["-D", "HOT=5", "bounds", &corner]).status.code(),
        Some(0)
    );
    assert_eq!(
        rankcheck(&["bounds", "--vars", "all", &corner])
            .status
            .code(),
        Some(0)
    );
    let dir = temp_dir("several");
    let out = rankcheck(&[
        "--seed",
        "2",
        "--runs",
        "500",
        "--format",
        "json",
        "--replay-dir",
        dir.to_str().unwrap(),
        &fig01,
        &ok,
    ]);
    assert_eq!(out.status.code(), Some(1), "the worst status: a failure");
    let reports = json(&out);
    assert_eq!(reports.as_array().map(Vec::len), Some(2));
    assert!(reports[0]["first_failure"].is_object());
    assert!(reports[1]["first_failure"].is_null());
    assert_eq!(reports[1]["threads"], Value::Null, "--threads not given");
    let message = stderr(&["--depth", "-1", &corner]);
    assert!(
        message.contains("--depth") && message.contains("from 1 to 32"),
        "{message}"
    );
    let message = stderr(&["sites", "--vars", "cold", &corner]);
    assert!(message.contains("--vars"), "{message}");
    let message = stderr(&["sites", "--track", "nosuch", &corner]);
    assert!(message.contains("--track nosuch"), "{message}");
    let message = stderr(&["--track", "nosuch", &corner]);
    assert!(message.contains("--track nosuch"), "{message}");
}

/// Replay files replay from any directory, are refused when edited, are
/// named so that runs with other `-D` values do not collide, go to
/// `.rankcheck/replays` by default, and the printed command works.
#[test]
fn replay_files_stand_on_their_own() {
    let work = temp_dir("replay-home");
    let program = work.join("race.rk");
    std::fs::copy(root().join("examples/corner_variable.rk"), &program).unwrap();
    let run = |defines: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_rankcheck"))
            .args(["--seed", "3", "-D", defines, "race.rk"])
            .current_dir(&work)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = run("HOT=5");
    let second = run("HOT=6");
    let replay_line = |text: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix("replay: "))
            .expect("a replay line")
            .to_string()
    };
    let (a, b) = (replay_line(&first), replay_line(&second));
    assert_ne!(a, b, "other -D values, another file");
    let file = work.join(".rankcheck/replays");
    let file = file.canonicalize().unwrap();
    assert!(
        a.contains(&format!(" {}/race-", file.display())),
        "the file by its absolute path: {a}"
    );
    // The printed command works pasted anywhere, and names the program as
    // the directory it runs in reaches it, without `..` detours.
    for dir in [work.as_path(), Path::new("/")] {
        let out = Command::new("sh")
            .args(["-c", &a])
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{a} in {}", dir.display());
        let text = String::from_utf8_lossy(&out.stdout);
        let program = work.join("race.rk").canonicalize().unwrap();
        let expected = if dir == Path::new("/") {
            format!("┌─ {}:", program.display())
        } else {
            "┌─ race.rk:".to_string()
        };
        assert!(text.contains(&expected), "{expected} in {text}");
    }
    let file = PathBuf::from(a.rsplit(' ').next().unwrap());
    // Edited: refused.
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = work.join("edited.replay");
    std::fs::write(&edited, text.replace("seed 3", "seed 4")).unwrap();
    let message = stderr(&["replay", edited.to_str().unwrap()]);
    assert!(message.contains("the checksum does not match"), "{message}");
    // Moved away from its program: the error says how to point at it.
    let moved = temp_dir("replay-moved").join("moved.replay");
    std::fs::write(&moved, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .args(["replay", moved.to_str().unwrap()])
        .current_dir(Path::new("/"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--program PATH"));
    let out = rankcheck(&[
        "replay",
        "--program",
        program.to_str().unwrap(),
        moved.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
}

/// A replay names the run it replays as the search's report did: the same
/// words for the strategy and, for a portfolio's run, its component
/// (`strategy portfolio, a pctvb run`), and the same seed; a run of a
/// single strategy is that strategy's. The portfolio's seed 1 finds
/// `lost_push.rk`'s bug in a URW run, its seed 2 `fig09_c1v1t3.rk`'s in a
/// PCTVB run (the case a replay used to call "strategy pctvb").
#[test]
fn a_replay_names_the_run_as_the_search_did() {
    let dir = temp_dir("replay-names");
    let strategy_of = |line: &str| {
        let start = line.find("(strategy ").expect("a strategy") + 1;
        let end = line[start..].find(", seed ").expect("a seed") + start;
        line[start..end].to_string()
    };
    let mut components = Vec::new();
    let runs = [
        ("1", None, "examples/lost_push.rk"),
        ("2", None, "examples/fig09_c1v1t3.rk"),
        ("1", Some("pctvb"), "examples/fig02_c1v1.rk"),
    ];
    for (seed, strategy, program) in runs {
        let mut args = vec!["--seed", seed, "--replay-dir", dir.to_str().unwrap()];
        args.extend(strategy.iter().flat_map(|s| ["--strategy", *s]));
        let program = path(program);
        args.push(&program);
        let found = stdout(&args);
        let found_line = found
            .lines()
            .find(|l| l.starts_with("found in run"))
            .unwrap_or_else(|| panic!("{args:?}: {found}"));
        let replay = found
            .lines()
            .find_map(|l| l.strip_prefix("replay: "))
            .expect("a replay line");
        let file = replay.rsplit(' ').next().unwrap();
        let replayed = stdout(&["replay", file]);
        let replayed_line = replayed
            .lines()
            .find(|l| l.starts_with("replayed run"))
            .unwrap_or_else(|| panic!("{replayed}"));
        let said = strategy_of(found_line);
        assert_eq!(
            strategy_of(replayed_line),
            said,
            "{found_line} / {replayed_line}"
        );
        assert!(
            replayed_line.contains(&format!(", seed {seed})")),
            "{replayed_line}"
        );
        match strategy {
            Some(strategy) => assert_eq!(said, format!("strategy {strategy}")),
            None => {
                let component = said
                    .strip_prefix("strategy portfolio, a ")
                    .and_then(|c| c.strip_suffix(" run"))
                    .unwrap_or_else(|| panic!("{found_line}"));
                components.push(component.to_string());
            }
        }
    }
    assert_eq!(components, ["urw", "pctvb"]);
}

/// Counts read in English: one preemption, one variable, one run.
#[test]
fn counts_read_in_english() {
    let text = stdout(&[
        "explore",
        "--preemptions",
        "1",
        "--vars",
        "1",
        &path("examples/fig03_c2v1.rk"),
    ]);
    assert!(
        text.contains("at most 1 preemption at accesses to any 1 variable (of Q = 1)"),
        "{text}"
    );
    let one = temp_dir("english").join("one.rk");
    std::fs::write(
        &one,
        "global x = 0;\nthread a { x = 1; }\nthread b { x = 2; }\n",
    )
    .unwrap();
    let text = stdout(&[
        "--seed",
        "1",
        "--runs",
        "1",
        "--depth",
        "1",
        one.to_str().unwrap(),
    ]);
    assert!(text.contains("no failure in 1 run of"), "{text}");
    assert!(text.contains("Q = 1 variable ("), "{text}");
    assert!(
        !text.contains(" 1 runs") && !text.contains("1 variables"),
        "{text}"
    );
}

/// The documents a clone needs are in the repository.
#[test]
fn the_documents_are_in_the_repository() {
    for doc in [
        "docs/LANGUAGE.md",
        "docs/ALGORITHMS.md",
        "docs/HISTORY.md",
        "docs/guide/book.toml",
        "docs/guide/src/SUMMARY.md",
        "ARCHITECTURE.md",
        "examples/README.md",
    ] {
        assert!(root().join(doc).is_file(), "{doc}");
    }
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("cargo install --path ."));
    let mut documents = vec![root().join("README.md")];
    documents.extend(markdown_files(&root().join(GUIDE)));
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        assert!(!text.contains("../shared"), "{}", document.display());
    }
}

/// A statement that fails in every run that reaches it (here `wait` with
/// its arguments swapped) is warned of before anything runs, with its
/// span, and the program still runs as the language says: a run-time
/// error at that statement.
#[test]
fn a_statement_that_always_fails_is_warned_of_and_still_runs() {
    let program = root().join("tests/errors/wait_swapped.rk");
    let out = rankcheck(&["--seed", "1", program.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stderr.contains("warning: the arguments of `wait` are swapped"),
        "{stderr}"
    );
    assert!(stderr.contains("wait_swapped.rk:8:9"), "{stderr}");
    assert!(stderr.contains("`wait(c, m)`"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("error[error]: `wait` needs a condition variable, found mutex"),
        "{stdout}"
    );
}
