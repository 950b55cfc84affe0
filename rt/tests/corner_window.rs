//! The default search keeps variable bounding's promise on Rust code: a
//! bug that needs one preemption in a short window at a rarely accessed
//! variable, among hundreds of hot accesses, is found by the default
//! (whose cycle has PCTVB runs, as the command's) within a small factor of
//! PCTVB at depth 2 over one variable (issue 19).

#[path = "support/mod.rs"]
mod support;

use rankcheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder, Vars};
use rankcheck_rt as rankcheck;

use support::panic_message;

/// Increments of the hot counter by the raiser.
const HOT: usize = 400;

/// The raiser raises `flag` and lowers it again in the middle of HOT
/// increments of `hot`; the checker does a few increments, then reads the
/// flag once: it fails only when it runs right after the raise.
fn corner_window() {
    let hot = Arc::new(AtomicUsize::new(0));
    let flag = Arc::new(AtomicBool::new(false));
    let raiser = {
        let (hot, flag) = (hot.clone(), flag.clone());
        thread::spawn(move || {
            for i in 0..HOT {
                hot.fetch_add(1, SeqCst);
                if i == HOT / 2 {
                    flag.store(true, SeqCst);
                    flag.store(false, SeqCst);
                }
            }
        })
    };
    let checker = thread::spawn(move || {
        for _ in 0..5 {
            hot.fetch_add(1, SeqCst);
        }
        assert!(!flag.load(SeqCst), "the checker saw the flag raised");
    });
    raiser.join().unwrap();
    checker.join().unwrap();
}

/// The search run that found the bug, from the report's `found in run N`
/// line; the preparatory runs must not find it.
fn found_in(builder: Builder) -> u64 {
    let report = panic_message(|| {
        builder.check(corner_window);
    })
    .expect("the bug is found");
    assert!(
        report.contains("the checker saw the flag raised"),
        "{report}"
    );
    let rest = report
        .split("found in run ")
        .nth(1)
        .unwrap_or_else(|| panic!("found by a search run:\n{report}"));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().expect("a run number")
}

/// Mean executions to the bug over `seeds`, for the builder of a seed.
fn mean_runs(seeds: std::ops::Range<u64>, builder: impl Fn(u64) -> Builder) -> f64 {
    let n = seeds.end - seeds.start;
    let total: u64 = seeds.map(|seed| found_in(builder(seed))).sum();
    total as f64 / n as f64
}

#[test]
fn the_default_finds_a_corner_window_within_3x_of_pctvb() {
    let base = |seed| Builder::new().seed(seed).profile_runs(5).runs(5_000);
    let seeds = 1..11;
    let pctvb = mean_runs(seeds.clone(), |seed| {
        base(seed).depth(2).vars(Vars::Count(1))
    });
    let default = mean_runs(seeds, base);
    assert!(
        default <= 3.0 * pctvb,
        "the default's mean {default} runs against PCTVB's {pctvb}"
    );
}

/// A value made by `main` and shared is one variable whichever thread
/// reaches it first in a run: otherwise variable bounding would track a
/// different object in different runs (and the search above would never
/// find the corner window).
#[test]
fn a_shared_value_is_one_variable_whoever_uses_it_first() {
    let guarantee = Builder::new()
        .seed(1)
        .runs(200)
        .depth(2)
        .vars(Vars::Count(1))
        .check(|| {
            let hits = Arc::new(AtomicUsize::new(0));
            let others: Vec<_> = (0..2)
                .map(|_| {
                    let hits = hits.clone();
                    thread::spawn(move || {
                        hits.fetch_add(1, SeqCst);
                    })
                })
                .collect();
            for other in others {
                other.join().unwrap();
            }
            assert_eq!(hits.load(SeqCst), 2);
        });
    let text = guarantee.to_string();
    assert!(text.contains("Q = 1 variable"), "{text}");
    assert!(!text.contains(" in thread@"), "{text}");
}
