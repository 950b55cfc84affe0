//! rankcheck-rt on the programs of `examples/`: each buggy one fails at its
//! header's (d, v) = (c + 1, v) within 5,000 runs and replays from its
//! string, each correct one passes, and the same seed gives the same
//! result; plus what bad usage is told.

mod explore;
mod explore_counts;
mod json;
mod shapes;
#[path = "../support/mod.rs"]
mod support;

mod programs;
mod readme;

use rankcheck::{Builder, Priorities, Strategy, Vars};
use rankcheck_rt as rankcheck;

use programs::{Example, Expect, EXAMPLES};
use support::panic_message;

/// The master seed of every search here: results are fixed by it.
const SEED: u64 = 7;

/// The report of `example` searched at its header's bounds.
fn report_at_header(example: &Example, c: u32, v: usize) -> String {
    let vars = if v == 0 { Vars::None } else { Vars::Count(v) };
    let builder = Builder::new()
        .seed(SEED)
        .depth(c + 1)
        .vars(vars)
        .runs(5_000);
    let body = example.body;
    panic_message(|| {
        builder.check(body);
    })
    .unwrap_or_else(|| {
        panic!(
            "{}: no failure in 5,000 runs at d = {}, v = {v}",
            example.name,
            c + 1
        )
    })
}

/// The replay string a report ends with.
fn replay_string(report: &str) -> &str {
    let line = report
        .lines()
        .find_map(|l| l.split_once("rankcheck::replay(test, \"").map(|(_, r)| r))
        .expect("a report has a replay line");
    &line[..line.find('"').expect("the string's end")]
}

/// A report's failure and the steps of its interleaving, without their
/// marks (`story` compares those).
fn failure_part(report: &str) -> String {
    let end = report
        .find("\nfound in")
        .or_else(|| report.find("\nreplayed"))
        .unwrap_or(report.len());
    let mut part = String::new();
    let mut in_table = false;
    for line in report[..end].lines() {
        if line.starts_with("interleaving (") {
            in_table = true;
            continue;
        }
        if in_table && line.is_empty() {
            break;
        }
        let line = if in_table {
            line.get(1..).unwrap_or("")
        } else {
            line
        };
        part.push_str(line);
        part.push('\n');
    }
    part
}

/// A report's interleaving as it tells it: the table's header and rows
/// with their marks (preemptions, critical switches), and what the
/// interleaving took.
fn story(report: &str) -> String {
    let start = report.find("interleaving (").expect("an interleaving");
    let took = report[start..]
        .find("\nthe interleaving ")
        .map_or(report.len(), |i| start + i + 1);
    let end = report[took..].find('\n').map_or(report.len(), |i| took + i);
    report[start..end].to_owned()
}

#[test]
fn every_buggy_example_fails_at_its_bounds_and_replays() {
    for example in &EXAMPLES {
        let Expect::Fails { kind, c, v } = example.expect else {
            continue;
        };
        let report = report_at_header(example, c, v);
        assert!(
            report.starts_with(&format!("error[{kind}]")),
            "{}: expected a {kind}:\n{report}",
            example.name
        );
        assert!(
            report.contains("interleaving ("),
            "{}:\n{report}",
            example.name
        );
        let replay = replay_string(&report).to_owned();
        let body = example.body;
        let replayed = panic_message(|| rankcheck::replay(body, &replay))
            .unwrap_or_else(|| panic!("{}: the replay did not fail", example.name));
        assert_eq!(
            failure_part(&replayed),
            failure_part(&report),
            "{}: the replay differs",
            example.name
        );
        assert_eq!(
            story(&replayed),
            story(&report),
            "{}: the replay tells another story",
            example.name
        );
    }
}

/// The (d, v) setting itself finds each bug, not a preparatory run: with
/// one preparatory run, the first seed whose preparatory run passes
/// leaves the bug to the search, which must find it within 5,000 runs.
#[test]
fn the_search_at_the_header_bounds_finds_each_bug_itself() {
    for example in &EXAMPLES {
        let Expect::Fails { c, v, .. } = example.expect else {
            continue;
        };
        let vars = if v == 0 { Vars::None } else { Vars::Count(v) };
        // Figure 10's bug needs thread bounding at c = 2 (its header's
        // t = 3 of n = 3 fragments + change points), as the CLI's test of
        // the examples at their bounds says too.
        let priorities = if example.name.starts_with("fig10") {
            Priorities::ThreadBounded
        } else {
            Priorities::Pct
        };
        let by_search = (0..64).find_map(|seed| {
            let builder = Builder::new()
                .seed(seed)
                .profile_runs(1)
                .depth(c + 1)
                .vars(vars)
                .priorities(priorities)
                .runs(5_000);
            let report = panic_message(|| {
                builder.check(example.body);
            })?;
            let found = report.lines().find(|l| l.starts_with("found in"))?;
            (!found.starts_with("found in preparatory")).then(|| found.to_owned())
        });
        let found = by_search.unwrap_or_else(|| {
            panic!(
                "{}: no seed of 64 left the bug to the search, or the search missed it",
                example.name
            )
        });
        assert!(
            found.starts_with("found in run "),
            "{}: {found}",
            example.name
        );
    }
}

#[test]
fn the_correct_example_passes_and_states_its_guarantee() {
    // The portfolio, as `rankcheck` checks by default, and PCTVB's rotation.
    for strategy in [Strategy::Portfolio, Strategy::Pctvb] {
        let guarantee = Builder::new()
            .seed(SEED)
            .strategy(strategy)
            .runs(3_000)
            .check(programs::locked_counter_ok);
        assert_eq!(guarantee.runs, 3_000);
        let text = guarantee.to_string();
        // The summary names the test by where it called `check`.
        assert!(
            text.starts_with(&format!("no failure in 3000 runs of {}:", file!())),
            "{text}"
        );
        assert!(
            text.contains("no bug of depth 1 over no variable, with probability >="),
            "{text}"
        );
        assert!(guarantee.confidence.is_some_and(|c| c > 0.0), "{text}");
    }
}

#[test]
fn the_same_seed_gives_the_same_result() {
    let report = |seed: u64| {
        panic_message(|| {
            Builder::new()
                .seed(seed)
                .runs(5_000)
                .check(|| programs::corner_variable(20));
        })
        .expect("the corner bug is found")
    };
    let (first, second) = (report(11), report(11));
    assert_eq!(failure_part(&first), failure_part(&second));
    assert_eq!(replay_string(&first), replay_string(&second));
    let found = |r: &str| {
        r.lines()
            .find(|l| l.starts_with("found in"))
            .map(|l| l.split(", seed").next().unwrap_or("").to_owned())
    };
    assert_eq!(found(&first), found(&second));
}

#[test]
fn a_deadlock_names_what_each_thread_waits_for() {
    let example = EXAMPLES
        .iter()
        .find(|e| e.name == "lock_order_deadlock")
        .unwrap();
    let report = report_at_header(example, 1, 1);
    // Both workers wait for the mutex the other holds; main waits to join.
    assert!(
        report.starts_with("error[deadlock]: deadlock: 3 threads blocked"),
        "{report}"
    );
    assert_eq!(report.matches("waits for Mutex@").count(), 2, "{report}");
    assert_eq!(report.matches("(held by thread@").count(), 2, "{report}");
    assert!(
        report.contains("thread main waits to join thread@"),
        "{report}"
    );
}

#[test]
fn a_panic_in_a_spawned_thread_is_reported_with_its_thread_and_place() {
    let report = report_at_header(&EXAMPLES[2], 1, 1);
    assert!(
        report.starts_with("error[panic]: a changed between two reads"),
        "{report}"
    );
    assert!(report.contains("programs.rs:"), "{report}");
    assert!(report.contains("fails here"), "{report}");
    assert!(
        !report.contains("thread main fails here"),
        "the reader fails:\n{report}"
    );
}

/// PCTVB d = 2, v = 1 draws `cold` in half the runs and then places its
/// one change point among cold's 3 accesses: p >= 1/2 * 1/(3 * 3) per run
/// once the thread order is right (results/rt_vs_shuttle.md). Its search
/// finds the corner bug at hot = 400 in a few runs.
fn pctvb_at_the_corner() -> Builder {
    Builder::new()
        .seed(SEED)
        .depth(2)
        .vars(Vars::Count(1))
        .profile_runs(5)
        .runs(5_000)
}

#[test]
fn the_corner_variable_is_found_by_pctvb_at_hot_400() {
    let report = panic_message(|| {
        pctvb_at_the_corner().check(|| programs::corner_variable(400));
    })
    .expect("found");
    assert!(
        report.contains("cold changed between two reads"),
        "{report}"
    );
}

/// A replay string run against a test that changed says where they parted
/// in the test's own terms: a thread the trace would name, or one the test
/// never started, never a bare index.
#[test]
fn a_replay_of_another_test_says_where_it_parted() {
    let report = panic_message(|| {
        Builder::new().seed(SEED).runs(5_000).check(programs::fig02);
    })
    .expect("fig02 has a bug");
    let replay = replay_string(&report).to_owned();
    let alone = || {
        let a = rankcheck::sync::atomic::AtomicUsize::new(0);
        for _ in 0..8 {
            a.fetch_add(1, rankcheck::sync::atomic::Ordering::SeqCst);
        }
    };
    let parted = panic_message(|| rankcheck::replay(alone, &replay)).unwrap();
    assert!(
        parted.contains("does not fit this test")
            && parted.contains("a thread the test never started"),
        "{parted}"
    );
    assert!(!parted.contains("runs thread 1,"), "{parted}");
}

/// A bug the preparatory runs meet is reported as found there, and the
/// summary says the search did not begin (not "0 runs ..., 1 failed").
#[test]
fn a_bug_found_before_the_search_says_so() {
    let report = panic_message(|| {
        Builder::new()
            .seed(SEED)
            .runs(100)
            .check(|| panic!("always"));
    })
    .unwrap();
    assert!(report.contains("found in preparatory run 1"), "{report}");
    assert!(
        report.contains("the search did not begin: a preparatory run failed"),
        "{report}"
    );
    assert!(!report.contains("0 runs of"), "{report}");
}

#[test]
fn bad_usage_is_told_clearly() {
    let outside = panic_message(|| {
        let counter = rankcheck::sync::atomic::AtomicUsize::new(0);
        counter.load(rankcheck::sync::atomic::Ordering::SeqCst);
    })
    .unwrap();
    assert!(outside.contains("outside a test run"), "{outside}");

    let corrupt =
        panic_message(|| rankcheck::replay(programs::fig02, "rc1:all:0_1:deadbeef")).unwrap();
    assert!(corrupt.contains("not a replay string"), "{corrupt}");

    let main_panics = panic_message(|| {
        Builder::new()
            .seed(SEED)
            .runs(10)
            .check(|| panic!("the test itself panics"));
    })
    .unwrap();
    assert!(
        main_panics.starts_with("error[panic]: the test itself panics"),
        "{main_panics}"
    );
    assert!(
        main_panics.contains("thread main fails here"),
        "{main_panics}"
    );

    let nested = panic_message(|| {
        Builder::new().seed(SEED).runs(1).check(|| {
            rankcheck::check(|| {});
        });
    })
    .unwrap();
    assert!(nested.contains("cannot be nested"), "{nested}");

    let kept = std::sync::Arc::new(std::sync::Mutex::new(None));
    let keep = kept.clone();
    let stale = panic_message(|| {
        Builder::new()
            .seed(SEED)
            .runs(2)
            .profile_runs(1)
            .check(move || {
                let mut slot = keep.lock().unwrap();
                // A channel (unlike the types with a `const fn new`)
                // belongs to the run that made it.
                match slot.as_ref() {
                    None => *slot = Some(rankcheck::sync::mpsc::channel::<u32>().0),
                    Some(old) => {
                        let _ = old.send(1);
                    }
                }
            });
    })
    .unwrap();
    assert!(stale.contains("created in another run"), "{stale}");
}
