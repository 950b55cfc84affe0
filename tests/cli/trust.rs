//! The defects of the trust issue, each pinned through the real binary: no
//! false bug, no false proof, and nothing lost on interruption, a closed
//! pipe or a runaway exploration. (The programs with a bug are in
//! `tests/bugs`, checked with the examples by the header-driven tests.)

use std::io::Read as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{exhaustive, json, rankcheck, root, temp_dir};

/// Peterson's algorithm is correct: no schedule fails, and the model
/// checker's mode (every thread at every scheduling point) proves it.
#[test]
fn peterson_is_proved_correct() {
    let path = root().join("tests/programs/peterson.rk");
    let (code, report) = exhaustive(
        &["explore", "--preemptions", "unbounded", "--vars", "all"],
        &path,
    );
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["exhausted"], true);
    assert_eq!(report["preemptions"], Value::Null);
}

/// An `await` whose condition writes shared memory (directly, or through a
/// function it calls) is rejected with the line of the write.
#[test]
fn await_conditions_with_side_effects_are_rejected() {
    let dir = temp_dir("await-effects");
    let program = dir.join("take.rk");
    std::fs::write(
        &program,
        "global tokens = 1;\n\
         fn take() {\n\
             tokens = tokens - 1;\n\
             return tokens >= 0;\n\
         }\n\
         thread a { await take(); }\n",
    )
    .unwrap();
    let out = rankcheck(&[program.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`take` writes shared memory, so an `await` condition may not call it"),
        "{stderr}"
    );
    assert!(stderr.contains("take.rk:3:"), "{stderr}");
    assert!(
        stderr.contains("called from this `await` condition"),
        "{stderr}"
    );
}

/// Start rankcheck with piped output and wait until it has installed its
/// SIGINT and SIGTERM handlers (read off `/proc/PID/status`), so that a
/// signal sent next is caught rather than fatal. The caller waits for the
/// child ([`interrupt`]).
#[allow(clippy::zombie_processes)]
fn start_and_wait_for_handlers(args: &[&str]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rankcheck starts");
    let status = format!("/proc/{}/status", child.id());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(&status).unwrap_or_default();
        let caught = text
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        // SIGINT is signal 2, SIGTERM 15: bits 1 and 14.
        if caught & (1 << 1) != 0 && caught & (1 << 14) != 0 {
            return child;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("handlers not installed: {text}");
        }
        std::thread::yield_now();
    }
}

/// Send `signal` to the child and collect its exit code and output.
fn interrupt(mut child: Child, signal: &str) -> (Option<i32>, String, String) {
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .unwrap();
    let code = child.wait().expect("rankcheck ends").code();
    (code, stdout, stderr)
}

/// SIGINT and SIGTERM stop a search after the chunk in flight: the JSON
/// summary of the runs done is printed, with the guarantee they earned, and
/// the exit status says the search is incomplete.
#[test]
fn an_interrupted_search_reports_what_it_did() {
    let program = root().join("examples/locked_counter_ok.rk");
    for signal in ["-INT", "-TERM"] {
        let child = start_and_wait_for_handlers(&[
            "--runs",
            "1000000000",
            "--seed",
            "1",
            "--format",
            "json",
            program.to_str().unwrap(),
        ]);
        let (code, stdout, stderr) = interrupt(child, signal);
        assert_eq!(code, Some(3), "{signal}: {stderr}");
        let report: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{signal}: not JSON ({e}): {stdout:?}"));
        assert_eq!(report["interrupted"], true);
        let runs = report["runs"].as_u64().unwrap();
        assert!(runs > 0 && runs < 1_000_000_000, "{signal}: {runs} runs");
        assert!(report["confidence"].as_f64().unwrap() > 0.0);
    }
}

/// An interrupted exploration or classification says what it proved so
/// far and exits 3.
#[test]
fn an_interrupted_exploration_reports_what_it_proved() {
    let program = root().join("examples/locked_counter_ok.rk");
    let program = program.to_str().unwrap();
    for command in [
        &["explore", "--vars", "all", "--preemptions", "3"][..],
        &["classify", "--max-preemptions", "3"][..],
    ] {
        let mut args = command.to_vec();
        args.extend(["-D", "N=40", "--format", "json", program]);
        let child = start_and_wait_for_handlers(&args);
        let (code, stdout, stderr) = interrupt(child, "-INT");
        assert_eq!(code, Some(3), "{command:?}: {stderr}");
        let report: Value = serde_json::from_str(&stdout).expect("JSON");
        assert_eq!(report["stopped"], "interrupted", "{command:?}");
        assert_eq!(report["exhausted"], false, "{command:?}");
    }
}

/// Exhaustive search is bounded in memory and in schedules: either limit
/// ends it with exit status 3 and says what was proved.
#[test]
fn exploration_limits_end_it_with_what_was_proved() {
    let program = root().join("examples/locked_counter_ok.rk");
    let (code, report) = exhaustive(
        &[
            "explore",
            "--vars",
            "all",
            "--preemptions",
            "3",
            "-D",
            "N=40",
            "--max-memory",
            "1M",
        ],
        &program,
    );
    assert_eq!(code, Some(3), "{report}");
    assert_eq!(report["stopped"], "max-memory");
    let (code, report) = exhaustive(
        &["explore", "--preemptions", "2", "--max-schedules", "5"],
        &program,
    );
    assert_eq!(code, Some(3), "{report}");
    assert_eq!(report["stopped"], "max-schedules");
    assert_eq!(report["schedules"], 5);

    let out = rankcheck(&[
        "explore",
        "--preemptions",
        "2",
        "--max-schedules",
        "5",
        program.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("stopped at --max-schedules before the bound was exhausted")
            && text.contains("The full bound is not proved."),
        "{text}"
    );
}

/// Exploration gives the same counts whatever the number of workers.
#[test]
fn exploration_does_not_depend_on_jobs() {
    let program = root().join("examples/fig10_c2v2t3.rk");
    let run = |jobs: &str| {
        let (code, report) = exhaustive(&["classify", "--jobs", jobs], &program);
        (
            code,
            report["schedules"].clone(),
            report["pruned"].clone(),
            report["c"].clone(),
        )
    };
    assert_eq!(run("1"), run("2"));
    assert_eq!(run("1"), run("3"));
}

/// Closed pipes end the program quietly with its usual exit status, never a
/// panic (exit 101): a bug found is still exit 1.
#[test]
fn closed_pipes_do_not_panic() {
    let program = root().join("examples/fig02_c1v1.rk");
    let dir = temp_dir("closed-pipe");
    for closed in ["stdout", "stderr", "both"] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_rankcheck"));
        command.args([
            "--seed",
            "1",
            "--replay-dir",
            dir.to_str().unwrap(),
            program.to_str().unwrap(),
        ]);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("rankcheck starts");
        if closed != "stderr" {
            drop(child.stdout.take());
        }
        if closed != "stdout" {
            drop(child.stderr.take());
        }
        let code = child.wait().expect("rankcheck ends").code();
        assert_eq!(code, Some(1), "{closed} closed");
    }
}

/// Too many threads is an error that names the limit and the line, not an
/// abort or an out-of-memory kill: spawned ones fail the run; thread items
/// that start more are refused before running, at their count.
#[test]
fn thread_limits_are_errors_with_a_line() {
    let dir = temp_dir("limits");
    let spawned = dir.join("spawned.rk");
    std::fs::write(
        &spawned,
        "fn worker() { }\nfn main() {\n    for i in 0..20000 {\n        spawn worker();\n    }\n}\n",
    )
    .unwrap();
    let out = rankcheck(&[
        "--runs",
        "1",
        "--replay-dir",
        dir.to_str().unwrap(),
        "--format",
        "json",
        spawned.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let failure = &report["first_failure"];
    assert_eq!(failure["kind"], "error");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("spawning one more than the limit of 10000"),
        "{message}"
    );
    assert_eq!(failure["line"], 4);

    let items = dir.join("items.rk");
    std::fs::write(&items, "thread v[2](i) { }\nthread w[20000](i) { }\n").unwrap();
    let out = rankcheck(&["--runs", "1", items.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the program starts 20002 threads, more than the limit of 10000"),
        "{stderr}"
    );
    assert!(stderr.contains("items.rk:2:10"), "{stderr}");
}

/// The unbounded exploration of a buggy example finds its bug.
#[test]
fn unbounded_exploration_finds_bugs() {
    let (code, report) = exhaustive(
        &["explore", "--preemptions", "unbounded", "--vars", "all"],
        Path::new(&root().join("examples/fig03_c2v1.rk")),
    );
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["kind"], "assert");
}
