//! The sampling strategies (`--strategy pos|wpos|swpos|urw|surw|ksurw`) and the
//! default portfolio through the binary: they find every example's bug and
//! replay it, pass every correct program, and give the same results for
//! any number of workers.

use crate::examples_fail_and_replay_under;
use crate::support::{expectation, json, programs, rankcheck, root, search_under, temp_dir};

/// The sampling strategies and the portfolio that runs them.
const STRATEGIES: [&str; 7] = ["pos", "wpos", "swpos", "urw", "surw", "ksurw", "portfolio"];

#[test]
fn pos_finds_every_example_and_replays() {
    examples_fail_and_replay_under("pos");
}

#[test]
fn wpos_finds_every_example_and_replays() {
    examples_fail_and_replay_under("wpos");
}

#[test]
fn swpos_finds_every_example_and_replays() {
    examples_fail_and_replay_under("swpos");
}

#[test]
fn portfolio_finds_every_example_and_replays() {
    examples_fail_and_replay_under("portfolio");
}

#[test]
fn urw_finds_every_example_and_replays() {
    examples_fail_and_replay_under("urw");
}

#[test]
fn surw_finds_every_example_and_replays() {
    examples_fail_and_replay_under("surw");
}

#[test]
fn ksurw_finds_every_example_and_replays() {
    examples_fail_and_replay_under("ksurw");
}

/// SCTBench's reorder with 19 setters spawned at one place and one
/// checker: the checker must read between a setter's two writes before
/// any setter's second. Kind-weighted SURW gives the checker's access
/// even odds against the setters' together and finds it in about 4 runs
/// (`results/strategies.md`), where SURW, which weighs the checker as one
/// thread in twenty, needs about 66: 40 runs miss with probability about
/// 1e-5 per seed.
#[test]
fn ksurw_finds_reorder_with_many_setters_in_a_few_runs() {
    let program = root().join("bench/corpus/scaled/reorder.rk");
    let replays = temp_dir("ksurw-reorder");
    for seed in ["1", "2", "3", "4", "5"] {
        let out = rankcheck(&[
            "check",
            "--strategy",
            "ksurw",
            "-D",
            "N=20",
            "--runs",
            "40",
            "--seed",
            seed,
            "--no-shrink",
            "--format",
            "json",
            "--replay-dir",
            replays.to_str().unwrap(),
            program.to_str().unwrap(),
        ]);
        let report = json(&out);
        assert_eq!(out.status.code(), Some(1), "seed {seed}: {report}");
        assert_eq!(report["first_failure"]["found_by"], "search", "seed {seed}");
    }
}

/// The bugs of `tests/bugs` (awaits, atomic blocks, spawns inside atomic
/// blocks, prints) are found too: the look-ahead handles every construct.
#[test]
fn sampling_finds_the_construct_bugs() {
    let replays = temp_dir("construct-bugs");
    for path in programs("tests/bugs") {
        let kind = expectation(&path)[0].clone();
        for strategy in STRATEGIES {
            let (code, report) = search_under(strategy, "10000", "3", &replays, &path);
            let name = format!("{} under {strategy}", path.display());
            assert_eq!(code, Some(1), "{name}: {report}");
            assert_eq!(report["first_failure"]["kind"], kind.as_str(), "{name}");
        }
    }
}

/// Correct programs, the spinning and handing-off ones included, pass
/// every run: no sampling strategy reports a bug that is not there.
#[test]
fn sampling_passes_every_correct_program() {
    let mut correct = programs("tests/programs");
    correct.extend(
        programs("bench/corpus")
            .into_iter()
            .filter(|p| expectation(p)[0] == "ok"),
    );
    correct.push(root().join("examples/locked_counter_ok.rk"));
    for path in correct {
        for strategy in STRATEGIES {
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
            let name = format!("{} under {strategy}", path.display());
            assert_eq!(out.status.code(), Some(0), "{name}: {report}");
            assert_eq!(report["runs"], 2000, "{name}");
        }
    }
}

/// Runs, failures and the first failing run are the same with one, two
/// and three workers, stopping at the first failure or going on.
#[test]
fn sampling_results_do_not_depend_on_jobs() {
    let program = root().join("examples/fig04_c2v2.rk");
    for strategy in STRATEGIES {
        let run = |jobs: &str, keep_going: bool| {
            let dir = temp_dir(&format!("{strategy}-jobs{jobs}{keep_going}"));
            let mut args = vec!["--strategy", strategy, "--runs", "3000", "--seed", "5"];
            args.extend(["--jobs", jobs, "--format", "json", "--replay-dir"]);
            args.push(dir.to_str().unwrap());
            if keep_going {
                args.push("--keep-going");
            }
            args.push(program.to_str().unwrap());
            let report = json(&rankcheck(&args));
            (
                report["runs"].clone(),
                report["failures"].clone(),
                report["first_failure"]["run"].clone(),
                report["first_failure"]["trace"].clone(),
            )
        };
        for keep_going in [false, true] {
            let one = run("1", keep_going);
            assert!(one.2.is_u64(), "{strategy} finds fig04's bug in 3000 runs");
            assert_eq!(one, run("2", keep_going), "{strategy}, {keep_going}");
            assert_eq!(one, run("3", keep_going), "{strategy}, {keep_going}");
        }
    }
}

/// Sampling strategies state no bound, so they take no bound flags and
/// draw no guarantee; the portfolio runs its own settings.
#[test]
fn sampling_strategies_refuse_bound_flags() {
    let program = root().join("examples/fig02_c1v1.rk");
    let program = program.to_str().unwrap();
    for strategy in STRATEGIES {
        let out = rankcheck(&["--strategy", strategy, "--depth", "2", program]);
        assert_eq!(out.status.code(), Some(2), "{strategy} --depth");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("takes no --depth"), "{strategy}: {said}");
        if strategy == "portfolio" {
            continue;
        }
        let plot = temp_dir("refuse").join("p.svg");
        let out = rankcheck(&[
            "--strategy",
            strategy,
            "--plot",
            plot.to_str().unwrap(),
            program,
        ]);
        assert_eq!(out.status.code(), Some(2), "{strategy} --plot");
    }
}

/// The default search is the portfolio: its runs split into the sampling
/// strategies' and the PCT and PCTVB settings' as its cycle of 26 says,
/// the counts add up to the runs done, and each setting states the
/// guarantee of its own runs.
#[test]
fn the_default_portfolio_accounts_for_every_run() {
    let program = root().join("examples/locked_counter_ok.rk");
    let out = rankcheck(&[
        "--runs",
        "10001",
        "--seed",
        "2",
        "--format",
        "json",
        program.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(report["strategy"], "portfolio");
    let sampling: Vec<(String, u64)> = report["sampling"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["strategy"].as_str().unwrap().into(),
                s["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    // 384 cycles of 26, then the cycle's first 17 slots.
    let expected = [("urw", 385), ("ksurw", 3462), ("swpos", 385), ("pos", 385)];
    let expected: Vec<(String, u64)> = expected.iter().map(|(s, n)| (s.to_string(), *n)).collect();
    assert_eq!(sampling, expected);
    let settings = report["settings"].as_array().unwrap();
    let tracking: Vec<(u64, &str, u64)> = settings
        .iter()
        .map(|s| {
            (
                s["depth"].as_u64().unwrap(),
                s["tracking"].as_str().unwrap(),
                s["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tracking,
        [
            (2, "1 of 2", 385),
            (3, "1 of 2", 4230),
            (1, "none", 385),
            (3, "all", 384)
        ]
    );
    for setting in settings {
        // 1 - (1 - p)^runs, from the setting's own runs.
        let p = setting["bound"].as_f64().unwrap();
        let runs = setting["runs"].as_f64().unwrap();
        let expected = 1.0 - (1.0 - p).powf(runs);
        let confidence = setting["confidence"].as_f64().unwrap();
        assert!((confidence - expected).abs() < 1e-9, "{setting}");
    }
}

/// A clean default search states what its PCTVB runs earned per
/// variable, beside the PCT settings' statements, in text and JSON.
#[test]
fn a_clean_default_search_states_per_variable_guarantees() {
    let program = root().join("examples/locked_counter_ok.rk");
    let program = program.to_str().unwrap();
    // 100 cycles of 26.
    let args = ["--runs", "2600", "--seed", "1", program];
    let out = rankcheck(&args);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "no bug of depth 3 over 1 variable (1 of 2), with probability >= 0.3168 (1100 runs, each finding one with p >= 1/2888; 13298 runs reach 0.99)",
        "    over counter alone: >= 0.3168 (each run p >= 1/2888)",
        "    over m alone: >= 0.3459 (each run p >= 1/2592)",
        "no bug of depth 1 over no variable, with probability >= 1 - 10^-12.5 (100 runs, each finding one with p >= 1/4; 17 runs reach 0.99)",
        "no bug of depth 3 over any variables, with probability >= 0.0181 (100 runs, each finding one with p >= 1/5476; 25216 runs reach 0.99)",
        "no bug of depth 2 over 1 variable (1 of 2), with probability >= 0.4832 (100 runs, each finding one with p >= 1/152; 698 runs reach 0.99)",
        "    over counter alone: >= 0.4832 (each run p >= 1/152)",
        "    over m alone: >= 0.5019 (each run p >= 1/144)",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in:\n{text}");
    }
    let report = json(&rankcheck(&[&args[..], &["--format", "json"]].concat()));
    let per_set = |index: usize| -> Vec<(String, f64, f64)> {
        report["settings"][index]["per_set"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["vars"][0].as_str().unwrap().to_string(),
                    s["bound"].as_f64().unwrap(),
                    s["confidence"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    // Depth 3 over one of {counter (k_q 19), m (18)}, n = 4: 1/(2 * 4 * 19^2)
    // and 1/(2 * 4 * 18^2), over the setting's 1100 runs.
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    for (index, runs, expected) in [
        (1, 1100.0, [("counter", 1.0 / 2888.0), ("m", 1.0 / 2592.0)]),
        (0, 100.0, [("counter", 1.0 / 152.0), ("m", 1.0 / 144.0)]),
    ] {
        let sets = per_set(index);
        assert_eq!(sets.len(), 2, "{sets:?}");
        for ((var, bound, confidence), (name, p)) in sets.iter().zip(expected) {
            assert_eq!(var, name);
            assert!(close(*bound, p), "{var}: {bound} against {p}");
            assert!(close(*confidence, 1.0 - (1.0 - p).powf(runs)), "{var}");
        }
    }
    assert!(report["settings"][2]["per_set"].is_null());
}
