//! The CI check: on every generated program both front ends reach the
//! same failures (crossfront's `compare`), with no disagreement.

use std::collections::BTreeMap;
use std::time::Instant;

use rankcheck_crossfront::programs::PROGRAMS;
use rankcheck_crossfront::{compare, Budgets, Compared, Kind};

/// At least this many programs must be compared in full.
const MIN_FULL: usize = 1_000;

const BUDGETS: Budgets = Budgets {
    engine_schedules: 200_000,
    runtime_schedules: 2_000,
    max_steps: 20_000,
    search_runs: 50,
    seed: 1,
};

#[test]
fn both_front_ends_reach_the_same_failures() {
    let started = Instant::now();
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    let mut kinds: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut schedules = 0;
    for program in PROGRAMS {
        match compare(program, &BUDGETS) {
            Ok(Compared::Full {
                failures,
                schedules: s,
                searched,
            }) => {
                schedules += s;
                *tally.entry("full").or_default() += 1;
                if !failures.is_empty() {
                    *tally.entry("full, failing").or_default() += 1;
                }
                if searched.is_some() {
                    *tally.entry("full, the search failed").or_default() += 1;
                }
                for f in failures {
                    *kinds.entry(f.kind).or_default() += 1;
                }
            }
            Ok(Compared::Partial { .. }) => *tally.entry("partial").or_default() += 1,
            Ok(Compared::Skipped(why)) => *tally.entry(why).or_default() += 1,
            Err(disagreement) => disagreements.push(disagreement),
        }
    }
    eprintln!(
        "crossfront: {} programs {tally:?}, failures by kind {kinds:?}, {schedules} runtime schedules, {:.1?}",
        PROGRAMS.len(),
        started.elapsed()
    );
    for d in &disagreements {
        eprintln!("{d}\n");
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
    let full = tally.get("full").copied().unwrap_or(0);
    assert!(full >= MIN_FULL, "only {full} programs compared in full");
}
