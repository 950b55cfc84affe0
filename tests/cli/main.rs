//! End-to-end tests of the `rankcheck` command: programs as test data with
//! their expected outcome in a `// expect:` header, run through the real
//! binary, so exit codes, JSON, replay files and diagnostics are all covered.

mod deploy;
mod docs;
#[path = "../../plot/tests/support/geometry.rs"]
mod geometry;
mod help;
mod markdown;
mod nightly;
mod outputs;
mod plots;
mod readme;
mod registry;
mod report_page;
mod reports;
mod rust_nightly;
mod shrink;
mod slurm;
mod strategies;
mod suite_summary;
mod support;
mod trust;

use serde_json::Value;

use support::{
    buggy_programs, exhaustive, expectation, header_bounds, json, programs, rankcheck, root,
    search_under, temp_dir,
};

/// Every buggy example fails with the kind its header names within 10,000
/// runs of the random scheduler, and the failure replays to the same kind
/// and line; the correct one passes every run.
///
/// The random scheduler finds each of these bugs with probability well over
/// 1/100 per run (they need at most two preemptions among a few dozen
/// steps), so 10,000 runs miss one with probability below 0.99^10000 < 1e-43;
/// the seed is fixed anyway.
#[test]
fn examples_fail_as_their_headers_say_and_replay() {
    examples_fail_and_replay_under("random");
}

/// The check behind [`examples_fail_as_their_headers_say_and_replay`], for
/// any strategy that tracks everything: 10,000 runs at seed 7 find every
/// example's bug with the kind its header names, the replay file repeats
/// it step for step, and the correct example passes every run.
pub fn examples_fail_and_replay_under(strategy: &str) {
    let replays = temp_dir(&format!("examples-{strategy}"));
    for path in programs("examples") {
        let expect = expectation(&path);
        let kind = expect[0].as_str();
        let (code, report) = search_under(strategy, "10000", "7", &replays, &path);
        let name = format!("{} under {strategy}", path.display());
        if kind == "ok" {
            assert_eq!(code, Some(0), "{name}: {report}");
            assert_eq!(report["runs"], 10_000, "{name}");
            assert_eq!(report["failures"], 0, "{name}");
            assert!(report["first_failure"].is_null(), "{name}");
            continue;
        }
        assert_eq!(code, Some(1), "{name} should fail: {report}");
        let failure = &report["first_failure"];
        assert_eq!(failure["kind"], kind, "{name}: {report}");
        assert_eq!(
            failure["found_by"], "search",
            "{name}: the search itself finds it, not a preparatory run"
        );
        let replay = failure["replay"].as_str().expect("replay path");
        let replayed = rankcheck(&["replay", "--format", "json", replay]);
        assert_eq!(replayed.status.code(), Some(1), "{name}: replay");
        let replayed = json(&replayed);
        assert_eq!(replayed["kind"], failure["kind"], "{name}");
        assert_eq!(replayed["line"], failure["line"], "{name}");
        assert_eq!(replayed["message"], failure["message"], "{name}");
        assert_eq!(
            replayed["trace"], failure["trace"],
            "{name}: the replay takes the same steps"
        );
    }
}

/// Every error class reports its message at its line: `// expect: compile
/// LINE MESSAGE` for errors found before running, `// expect: KIND LINE
/// MESSAGE` for failures at run time.
#[test]
fn errors_name_their_line() {
    let replays = temp_dir("errors");
    for path in programs("tests/errors") {
        let expect = expectation(&path);
        let (kind, line, message) = (expect[0].as_str(), &expect[1], expect[2..].join(" "));
        let name = path.display();
        let args = [
            "--strategy",
            "random",
            "--runs",
            "200",
            "--seed",
            "3",
            "--max-steps",
            "10000",
            "--format",
            "json",
            "--replay-dir",
        ];
        let mut args: Vec<&str> = args.to_vec();
        args.extend([replays.to_str().unwrap(), path.to_str().unwrap()]);
        let out = rankcheck(&args);
        if kind == "compile" {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
            assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
            assert!(
                stderr.contains(&message),
                "{name}: expected `{message}` in\n{stderr}"
            );
            let location = format!("{}:{line}:", path.display());
            assert!(
                stderr.contains(&location),
                "{name}: expected `{location}` in\n{stderr}"
            );
            assert!(
                stderr.contains('^'),
                "{name}: a caret under the span\n{stderr}"
            );
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{name}");
        let report = json(&out);
        let failure = &report["first_failure"];
        assert_eq!(failure["kind"], kind, "{name}: {report}");
        assert_eq!(failure["line"].to_string(), *line, "{name}: {report}");
        let got = failure["message"].as_str().unwrap_or_default();
        assert!(
            got.contains(&message),
            "{name}: expected `{message}` in `{got}`"
        );
    }
}

/// The same seed gives the same result, always: run count, failing run,
/// trace and all.
#[test]
fn same_seed_same_result() {
    let replays = temp_dir("determinism");
    let run = |seed: &str| {
        let out = rankcheck(&[
            "--seed",
            seed,
            "--runs",
            "2000",
            "--jobs",
            "1",
            "--format",
            "json",
            "--replay-dir",
            replays.to_str().unwrap(),
            root().join("examples/fig04_c2v2.rk").to_str().unwrap(),
        ]);
        let mut report = json(&out);
        report["elapsed_s"] = Value::Null;
        report["executions_per_s"] = Value::Null;
        report
    };
    let first = run("11");
    assert_eq!(first, run("11"));
    assert_eq!(first, run("11"));
    // Different seeds explore differently: over a few seeds, some first
    // failing run differs (each seed's run index is geometric with p < 1/2).
    let runs: Vec<Value> = ["12", "13", "14", "15", "16"]
        .iter()
        .map(|s| run(s)["first_failure"]["run"].clone())
        .collect();
    assert!(
        runs.iter().any(|r| *r != first["first_failure"]["run"]),
        "{runs:?}"
    );
}

/// A replay file made for one version of a program is refused for an
/// edited one, and for other `-D` values.
#[test]
fn replay_refuses_an_edited_program() {
    let dir = temp_dir("edited");
    let program = dir.join("prog.rk");
    std::fs::copy(root().join("examples/corner_variable.rk"), &program).expect("copy");
    let out = rankcheck(&[
        "--runs",
        "5000",
        "--seed",
        "1",
        "-D",
        "HOT=5",
        "--format",
        "json",
        "--replay-dir",
        dir.to_str().unwrap(),
        program.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let replay = json(&out)["first_failure"]["replay"]
        .as_str()
        .expect("replay path")
        .to_string();
    assert_eq!(
        rankcheck(&["replay", &replay]).status.code(),
        Some(1),
        "replays as recorded"
    );

    let text = std::fs::read_to_string(&replay).expect("replay file");
    let other_define = text.replace("define HOT=5", "define HOT=6");
    let changed = dir.join("changed-define.replay");
    std::fs::write(&changed, other_define).expect("write");
    let out = rankcheck(&["replay", changed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the checksum does not match: the file was changed"),
        "{stderr}"
    );

    let source = std::fs::read_to_string(&program).expect("program");
    std::fs::write(&program, source.replace("cold = 1;", "cold = 2;")).expect("edit");
    let out = rankcheck(&["replay", &replay]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("was recorded for another version of"),
        "{stderr}"
    );
}

/// A corrupt replay file is an input error that names its line.
#[test]
fn corrupt_replay_file_names_the_line() {
    let dir = temp_dir("corrupt");
    let file = dir.join("bad.replay");
    std::fs::write(&file, "rankcheck-replay 2\nprogram x.rk\nseed many\n").expect("write");
    let out = rankcheck(&["replay", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 3"), "{stderr}");
}

/// Usage errors exit 2 with a message, and so does a `-D` for a const the
/// program does not declare.
#[test]
fn usage_errors_exit_2() {
    let fig01 = root().join("examples/fig01_c0v0.rk");
    let out = rankcheck(&["--runs", "0", fig01.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = rankcheck(&["-D", "NOPE=1", fig01.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("declares no const `NOPE`"));
    let out = rankcheck(&["no/such/file.rk"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read no/such/file.rk"));
}

/// PCTVB (the default strategy) finds every buggy example with the depth
/// `d = c + 1` and variable bound `v` of its header, and the failure it
/// reports replays step for step. Thread-bounded priorities are used where
/// the header needs them: a `c` counts change points under thread
/// bounding, where a preempted thread may stay above a third one; PCT's
/// change point drops it below every thread, so `fig10` and
/// `unspawned_priority` need one more change point (`d = c + 2`) with PCT's
/// priorities (docs/ALGORITHMS.md, Thread bounding).
///
/// Each of these bugs has a per-run probability of at least 1/500 under
/// its setting (the bounds test below measures them), so 5,000 runs miss
/// with probability below (1 - 1/500)^5000 < 5e-5; the seed is fixed.
#[test]
fn pctvb_finds_each_example_at_its_header_bounds() {
    let replays = temp_dir("pctvb");
    for path in buggy_programs() {
        let name = path.display().to_string();
        let Some((c, v, _)) = header_bounds(&path) else {
            // The correct program: a short search stays clean.
            let out = rankcheck(&[
                "--runs",
                "2000",
                "--seed",
                "3",
                "--format",
                "json",
                path.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{name}");
            assert_eq!(json(&out)["failures"], 0);
            continue;
        };
        let depth = (c + 1).to_string();
        let vars = v.to_string();
        let priorities = if name.contains("fig10") || name.contains("unspawned_priority") {
            "thread-bounded"
        } else {
            "pct"
        };
        let out = rankcheck(&[
            "--depth",
            &depth,
            "--vars",
            &vars,
            "--priorities",
            priorities,
            "--runs",
            "5000",
            "--seed",
            "21",
            "--format",
            "json",
            "--replay-dir",
            replays.to_str().unwrap(),
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let report = json(&out);
        let failure = &report["first_failure"];
        assert_eq!(failure["found_by"], "search", "{name}: {report}");
        assert_eq!(failure["kind"], expectation(&path)[0].as_str(), "{name}");
        assert_eq!(failure["depth"], c + 1, "{name}");
        assert_eq!(
            failure["chosen_vars"].as_array().map(Vec::len),
            Some(v as usize),
            "{name}"
        );
        let replay = failure["replay"].as_str().expect("replay path");
        let replayed = json(&rankcheck(&["replay", "--format", "json", replay]));
        assert_eq!(
            replayed["trace"], failure["trace"],
            "{name}: the replay takes the same steps"
        );
    }
}

/// The run count, failures and first failing run do not depend on the
/// number of workers.
#[test]
fn results_do_not_depend_on_jobs() {
    let program = root().join("examples/corner_variable.rk");
    let run = |jobs: &str, keep_going: bool| {
        let mut args = vec![
            "--depth", "2", "--vars", "1", "--runs", "3000", "--seed", "5", "--jobs", jobs,
        ];
        args.extend(["--format", "json", "--replay-dir"]);
        let dir = temp_dir(&format!("jobs{jobs}{keep_going}"));
        let dir = dir.to_str().unwrap().to_string();
        args.push(&dir);
        if keep_going {
            args.push("--keep-going");
        }
        args.push(program.to_str().unwrap());
        let report = json(&rankcheck(&args));
        (
            report["runs"].clone(),
            report["failures"].clone(),
            report["first_failure"]["run"].clone(),
        )
    };
    for keep_going in [false, true] {
        let one = run("1", keep_going);
        assert_eq!(one, run("2", keep_going), "keep_going = {keep_going}");
        assert_eq!(one, run("3", keep_going), "keep_going = {keep_going}");
    }
}

/// A correct implementation finds each bug at least as often as the
/// per-run bound promises: the upper end of the 99.9% Clopper-Pearson
/// interval of the measured hit rate is never below the bound. Run with
/// fixed seeds over every example whose depth under PCT's priorities is
/// `c + 1` (all but fig10, whose PCT depth is 4, checked at 4), for PCT
/// and PCTVB.
#[test]
fn measured_hit_rates_are_not_below_the_bounds() {
    for path in programs("examples") {
        let Some((c, v, _)) = header_bounds(&path) else {
            continue;
        };
        let name = path.display().to_string();
        let depth = if name.contains("fig10") { c + 2 } else { c + 1 };
        for strategy in ["pct", "pctvb"] {
            let depth = depth.to_string();
            let vars = v.to_string();
            let mut args = vec!["--strategy", strategy, "--depth", &depth];
            if strategy == "pctvb" {
                args.extend(["--vars", &vars]);
            }
            let dir = temp_dir("rates");
            let dir = dir.to_str().unwrap().to_string();
            args.extend([
                "--runs",
                "4000",
                "--keep-going",
                "--confidence",
                "0.999",
                "--seed",
                "9",
            ]);
            args.extend([
                "--format",
                "json",
                "--replay-dir",
                &dir,
                path.to_str().unwrap(),
            ]);
            let report = json(&rankcheck(&args));
            let bound = report["bound"]
                .as_f64()
                .unwrap_or_else(|| panic!("{name} {strategy}: no bound: {report}"));
            let high = report["hit_rate_high"].as_f64().expect("hit rate interval");
            assert!(
                high >= bound,
                "{name} {strategy} d={depth}: measured {} of 4000 (interval up to {high}) below the bound {bound}",
                report["failures"]
            );
        }
    }
}

/// `rankcheck bounds` gives the exact bounds for a program whose `n` and
/// `k_q` are known: in fig02 two threads make four accesses to `a`.
#[test]
fn bounds_have_their_exact_values() {
    let fig02 = root().join("examples/fig02_c1v1.rk");
    let out = rankcheck(&[
        "bounds",
        "--depth",
        "2",
        "--vars",
        "1",
        "--format",
        "json",
        fig02.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(
        (
            report["n"].clone(),
            report["k"].clone(),
            report["Q"].clone()
        ),
        (2.into(), 4.into(), 1.into())
    );
    // PCT: 1/(n k^(d-1)) = 1/(2 * 4) = 1/8; PCTVB with Q = 1: the same.
    // Runs for 99%: ceil(ln 0.01 / ln(7/8)) = ceil(34.49) = 35.
    for strategy in ["pct", "pctvb"] {
        assert!(
            (report[strategy]["bound"].as_f64().unwrap() - 0.125).abs() < 1e-12,
            "{report}"
        );
        assert_eq!(report[strategy]["runs_needed"], 35);
    }
    // corner_variable at HOT = 50: k_q(hot) = 2 threads * 50 * (read + write)
    // = 200, k_q(cold) = 3, k = 203. PCT: 1/(2 * 203) = 1/406. PCTVB, the
    // bug's variable unknown: 1/C(2,1) * 1/(2 * 200) = 1/800.
    let corner = root().join("examples/corner_variable.rk");
    let report = json(&rankcheck(&[
        "bounds",
        "--format",
        "json",
        corner.to_str().unwrap(),
    ]));
    assert_eq!(report["k"], 203);
    assert!((report["pct"]["bound"].as_f64().unwrap() - 1.0 / 406.0).abs() < 1e-15);
    assert!((report["pctvb"]["bound"].as_f64().unwrap() - 1.0 / 800.0).abs() < 1e-15);
}

/// `rankcheck bounds` on a program whose preparatory runs accessed fewer
/// variables than `--vars` asks for: PCTVB tracks all of them (every bug
/// involves at most those) and says so, exit 0; with no shared variable at
/// all, variable bounding has nothing to choose. A `--track` list shorter
/// than `--vars` is refused.
#[test]
fn bounds_with_fewer_variables_than_asked_track_them_all() {
    let dir = temp_dir("bounds-fewer");
    let alone = dir.join("alone.rk");
    std::fs::write(
        &alone,
        "fn main() {\n    let x = 1;\n    assert(x == 1);\n}\n",
    )
    .unwrap();
    let out = rankcheck(&["bounds", "--depth", "1", alone.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("pct    per-run bound 1 "), "{stdout}");
    assert!(
        stdout.contains("(--vars 1: the preparatory runs accessed no variable, so variable bounding has nothing to choose)"),
        "{stdout}"
    );
    let report = json(&rankcheck(&[
        "bounds",
        "--format",
        "json",
        alone.to_str().unwrap(),
    ]));
    assert_eq!(report["vars"], "1");
    assert_eq!(report["vars_drawn"], 0);

    // fig02 shares one variable, `a`: --vars 2 is PCT's bound over it.
    let fig02 = root().join("examples/fig02_c1v1.rk");
    let fig02 = fig02.to_str().unwrap();
    let out = rankcheck(&["bounds", "--vars", "2", fig02]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("(--vars 2: the preparatory runs accessed only 1 variable, so pctvb tracks all of them)"),
        "{stdout}"
    );
    let report = json(&rankcheck(&[
        "bounds", "--vars", "2", "--format", "json", fig02,
    ]));
    assert_eq!(report["vars_drawn"], 1);
    assert_eq!(report["pctvb"]["bound"], report["pct"]["bound"], "{report}");

    let out = rankcheck(&["bounds", "--vars", "2", "--track", "a", fig02]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--vars 2: --track names only 1 variable"),
        "{stderr}"
    );
}

/// Correct programs pass every run under every strategy: no false alarms
/// from condition variables, `await`, `atomic`, heap records or yield-based
/// spinning (which needs the spin-loop guard under priority scheduling:
/// without it the waiter can outrank the setter forever and every such run
/// ends at the step limit).
#[test]
fn correct_programs_pass_under_every_strategy() {
    for path in programs("tests/programs") {
        assert_eq!(expectation(&path)[0], "ok", "{}", path.display());
        for strategy in ["random", "pct", "pctvb"] {
            let out = rankcheck(&[
                "--strategy",
                strategy,
                "--runs",
                "2000",
                "--seed",
                "4",
                "--format",
                "json",
                path.to_str().unwrap(),
            ]);
            let report = json(&out);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{} under {strategy}: {report}",
                path.display()
            );
            assert_eq!(report["runs"], 2000);
        }
    }
}

/// `classify` reports each example's header (c, v, t), and exploring with
/// one preemption fewer, or one variable fewer, exhausts the bound without
/// finding it: the header's bounds are minimal.
#[test]
fn classify_reports_each_header_and_smaller_bounds_find_nothing() {
    for path in buggy_programs() {
        let Some((c, v, t)) = header_bounds(&path) else {
            continue;
        };
        let name = path.display().to_string();
        let (code, report) = exhaustive(&["classify"], &path);
        assert_eq!(code, Some(1), "{name}: {report}");
        assert_eq!(
            (
                report["c"].clone(),
                report["v"].clone(),
                report["t"].clone()
            ),
            (c.into(), v.into(), t.into()),
            "{name}"
        );
        assert_eq!(report["kind"], expectation(&path)[0].as_str(), "{name}");
        let replay = report["replay"].as_str().expect("replay file");
        assert_eq!(
            rankcheck(&["replay", replay]).status.code(),
            Some(1),
            "{name}: the replay fails too"
        );
        let mut smaller = Vec::new();
        if c > 0 {
            smaller.push((c - 1, v.min(c - 1)));
        }
        if v > 0 {
            smaller.push((c, v - 1));
        }
        for (c, v) in smaller {
            let (c, v) = (c.to_string(), v.to_string());
            let (code, report) = exhaustive(&["explore", "--preemptions", &c, "--vars", &v], &path);
            assert_eq!(code, Some(0), "{name} at c={c} v={v}: {report}");
            assert_eq!(report["exhausted"], true, "{name} at c={c} v={v}");
        }
    }
}

/// The correct program is fully explored at c = 2 over any two variables.
#[test]
fn locked_counter_is_fully_explored_at_two_preemptions() {
    let path = root().join("examples/locked_counter_ok.rk");
    let (code, report) = exhaustive(&["explore", "--preemptions", "2", "--vars", "2"], &path);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["exhausted"], true);
    // n = 4 threads, c = 2: every order of 6 fragments.
    assert_eq!(report["orders"], 720);
}

/// Exact schedule counts where the reasoning is short. fig01 at c = 0:
/// two threads, so two priority orders of two fragments, [1, 2] and [2, 1];
/// the first gives the writer (thread 1) the higher priority, so it runs
/// first and the checker's assertion fails on schedule 1 of 2.
/// fig02 at c = 0 over its one variable: the same two orders, no
/// preemption, and neither order fails: 2 schedules, exhausted.
#[test]
fn exhaustive_schedule_counts() {
    let (code, report) = exhaustive(&["classify"], &root().join("examples/fig01_c0v0.rk"));
    assert_eq!(code, Some(1));
    assert_eq!(
        (
            report["schedules"].clone(),
            report["schedules_to_first_bug"].clone()
        ),
        (2.into(), 1.into())
    );
    let (code, report) = exhaustive(
        &["explore", "--preemptions", "0", "--vars", "1"],
        &root().join("examples/fig02_c1v1.rk"),
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        (report["schedules"].clone(), report["exhausted"].clone()),
        (2.into(), true.into())
    );
}

/// A program whose variables are fewer than `--vars` asks for (here none):
/// explore tracks them all, which answers for every smaller set, and finds
/// the failure; the replay file it writes fails the same way.
#[test]
fn explore_with_fewer_variables_than_vars() {
    let path = root().join("tests/explore/no_variables.rk");
    for vars in [None, Some("3")] {
        let mut args = vec!["explore"];
        args.extend(vars.iter().flat_map(|v| ["--vars", v]));
        let (code, report) = exhaustive(&args, &path);
        assert_eq!(code, Some(1), "{vars:?}: {report}");
        assert_eq!(report["kind"], "assert", "{report}");
        assert_eq!(report["line"], 6, "{report}");
        let replay = report["replay"].as_str().expect("replay file");
        assert_eq!(rankcheck(&["replay", replay]).status.code(), Some(1));
    }
}

/// Pruning never loses a bug: on every example, classify with and without
/// it reports the same (c, v, t) and kind, and with it fewer schedules run.
#[test]
fn pruning_never_loses_a_bug() {
    for path in buggy_programs() {
        if header_bounds(&path).is_none() {
            continue;
        }
        let name = path.display().to_string();
        let (_, pruned) = exhaustive(&["classify"], &path);
        let (_, full) = exhaustive(&["classify", "--no-prune"], &path);
        for field in ["c", "v", "t", "kind", "line"] {
            assert_eq!(pruned[field], full[field], "{name}: {field}");
        }
        let (with, without) = (
            pruned["schedules"].as_u64().unwrap(),
            full["schedules"].as_u64().unwrap(),
        );
        assert!(
            with <= without,
            "{name}: {with} schedules with pruning, {without} without"
        );
        if full["c"].as_u64().unwrap_or(0) > 0 {
            assert!(with < without, "{name}: pruning saved nothing ({with})");
        }
    }
}

/// `rankcheck sites` lists the variables with their profiled accesses, and
/// `--track cold` in corner_variable instruments exactly its three sites
/// (two reads in the reader, one write in the writer), none of `hot`'s.
#[test]
fn sites_lists_variables_and_the_instrumented_sites() {
    let corner = root().join("examples/corner_variable.rk");
    let out = rankcheck(&[
        "sites",
        "--track",
        "cold",
        "--format",
        "json",
        corner.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(report["Q"], 2);
    let vars = report["vars"].as_array().unwrap();
    assert_eq!(
        (vars[0]["name"].clone(), vars[0]["k_q"].clone()),
        ("hot".into(), 200.into())
    );
    assert_eq!(
        (
            vars[1]["name"].clone(),
            vars[1]["k_q"].clone(),
            vars[1]["shared"].clone()
        ),
        ("cold".into(), 3.into(), true.into())
    );
    let sites = report["instrumented"].as_array().unwrap();
    assert_eq!(sites.len(), 3);
    assert!(
        sites
            .iter()
            .all(|s| s["may_access"] == serde_json::json!(["cold"])),
        "{sites:?}"
    );
    let out = rankcheck(&["sites", "--format", "csv", corner.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("id,name,kind,line,k_q,mean,shared,sites\n0,hot,global,9,200,"),
        "{text}"
    );
    let out = rankcheck(&["sites", "--track", "nope", corner.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--track nope: the program has no variable `nope`"),
        "{stderr}"
    );
}

/// Strip what varies between runs (timings, rates, temp paths) from a report.
fn stable(text: &str) -> String {
    let pid = format!("rankcheck-test-{}-", std::process::id());
    text.lines()
        .map(|line| {
            let line = line
                .replace(std::env::temp_dir().to_str().unwrap_or("/tmp"), "$TMP")
                .replace(&pid, "rankcheck-test-PID-")
                .replace(
                    &format!("replay: {} ", env!("CARGO_BIN_EXE_rankcheck")),
                    "replay: rankcheck ",
                );
            match line.find(" runs/s") {
                Some(_) if line.contains('(') => {
                    line.split(" (").next().unwrap_or_default().to_string() + " (...)"
                }
                _ => line,
            }
        })
        .map(|line| match line.find(", 0.") {
            Some(at) if line.contains("seed") => line[..at].to_string() + ", ...)",
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rendering of diagnostics: every error with file, line, column, the
/// source line and a caret, as a user sees it.
#[test]
fn diagnostics_render_with_a_caret() {
    let dir = temp_dir("render");
    let program = dir.join("errors.rk");
    std::fs::write(
        &program,
        "global a = 0;\n\nthread t {\n    let x = a\n    a = y + 1;\n}\n\nfn f(p, p) {\n    return 1;\n}\n",
    )
    .unwrap();
    let out = rankcheck(&[program.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr =
        String::from_utf8_lossy(&out.stderr).replace(program.to_str().unwrap(), "errors.rk");
    insta::assert_snapshot!(stderr);
}

/// The human report of a failure, with its interleaving and summary.
#[test]
fn failure_report_reads_as_documented() {
    let dir = temp_dir("report");
    let out = rankcheck(&[
        "--seed",
        "1",
        "--jobs",
        "1",
        "--replay-dir",
        dir.to_str().unwrap(),
        root().join("examples/lost_wakeup.rk").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // The executable first, then the checkout (which may itself be under
    // the temp directory that `stable` masks).
    let stdout = String::from_utf8_lossy(&out.stdout)
        .replace(
            &format!("replay: {} ", env!("CARGO_BIN_EXE_rankcheck")),
            "replay: rankcheck ",
        )
        .replace(root().to_str().unwrap(), "$ROOT");
    insta::assert_snapshot!(stable(&stdout));
}

/// With `--loop-bound`, allocation sites split into heap instances: in
/// this program only the second object of one `new` is raced on, so the
/// exploration exhausts tracking `slots` and instance #0 alone and finds
/// the bug tracking instance #1; the replay file names the instance and
/// replays.
#[test]
fn explore_splits_allocation_sites_into_instances() {
    let path = root().join("tests/explore/instance_race.rk");
    let (code, report) = exhaustive(
        &[
            "explore",
            "--preemptions",
            "1",
            "--vars",
            "1",
            "--loop-bound",
            "2",
        ],
        &path,
    );
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["tracked"], serde_json::json!(["main:new@11#1"]));
    assert_eq!(
        (report["c"].clone(), report["v"].clone()),
        (1.into(), 1.into())
    );
    let replay = report["replay"].as_str().expect("replay file");
    let text = std::fs::read_to_string(replay).expect("replay readable");
    assert!(text.contains(" instances 1:"), "{text}");
    assert_eq!(rankcheck(&["replay", replay]).status.code(), Some(1));
    // Without splitting, the whole allocation site is one variable.
    let (code, report) = exhaustive(&["explore", "--preemptions", "1", "--vars", "1"], &path);
    assert_eq!(code, Some(1));
    assert_eq!(report["tracked"], serde_json::json!(["main:new@11"]));
}
