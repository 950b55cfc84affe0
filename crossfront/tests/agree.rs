//! The CI check: on every generated program both front ends reach the
//! same failures (crossfront's `compare`), with no disagreement.
//!
//! `CROSSFRONT_PROGRAMS` and `CROSSFRONT_SEED` (read by the build script)
//! choose the programs; `CROSSFRONT_RT_SCHEDULES` raises the runtime's
//! schedule budget per program for a longer run, and `CROSSFRONT_RESULTS`
//! names a file (relative to the workspace) to write the run's summary to
//! (results/crossfront.md).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use rankcheck_crossfront::programs::PROGRAMS;
use rankcheck_crossfront::{compare, Budgets, Compared, Disagreement, Kind};

/// At least this many programs must be compared in full.
const MIN_FULL: usize = 1_000;

/// Each side's budget per program; the runtime's schedules unless
/// `CROSSFRONT_RT_SCHEDULES` says otherwise.
const BUDGETS: Budgets = Budgets {
    engine_schedules: 200_000,
    runtime_schedules: 2_000,
    max_steps: 20_000,
    search_runs: 50,
    seed: 1,
};

/// What the programs gave.
#[derive(Default)]
struct Tally {
    /// Compared in full, and of those with failures, and of those where
    /// rt's own search reported one.
    full: usize,
    full_failing: usize,
    searched: usize,
    /// Compared one way (rt's failures among the engine's).
    partial: usize,
    skipped: BTreeMap<&'static str, usize>,
    /// Failures of the programs compared in full, by kind.
    kinds: BTreeMap<Kind, usize>,
    /// rt's schedules over the programs compared in full.
    schedules: u64,
    disagreements: Vec<Disagreement>,
}

impl Tally {
    fn add(&mut self, compared: Result<Compared, Disagreement>) {
        match compared {
            Ok(Compared::Full {
                failures,
                schedules,
                searched,
            }) => {
                self.full += 1;
                self.schedules += schedules;
                self.full_failing += usize::from(!failures.is_empty());
                self.searched += usize::from(searched.is_some());
                for f in failures {
                    *self.kinds.entry(f.kind).or_default() += 1;
                }
            }
            Ok(Compared::Partial { .. }) => self.partial += 1,
            Ok(Compared::Skipped(why)) => *self.skipped.entry(why).or_default() += 1,
            Err(disagreement) => self.disagreements.push(disagreement),
        }
    }

    /// The summary, as markdown.
    fn summary(&self, budgets: &Budgets, seconds: f64) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "| programs | compared in full | with failures | rt's search failed | one way (rt's budget ran out) | skipped | disagreements |\n| --- | --- | --- | --- | --- | --- | --- |\n| {} | {} | {} | {} | {} | {:?} | {} |\n",
            PROGRAMS.len(),
            self.full,
            self.full_failing,
            self.searched,
            self.partial,
            self.skipped,
            self.disagreements.len()
        );
        let _ = writeln!(
            out,
            "Failures reached by both sides, by kind: {:?}. rt ran {} schedules on the programs compared in full (budget {} per program), in {seconds:.0} s.",
            self.kinds, self.schedules, budgets.runtime_schedules
        );
        for d in &self.disagreements {
            let _ = writeln!(out, "\n```\n{d}\n```");
        }
        out
    }
}

fn budgets() -> Budgets {
    Budgets {
        runtime_schedules: std::env::var("CROSSFRONT_RT_SCHEDULES")
            .ok()
            .map(|n| n.parse().expect("CROSSFRONT_RT_SCHEDULES is a number"))
            .unwrap_or(BUDGETS.runtime_schedules),
        ..BUDGETS
    }
}

#[test]
fn both_front_ends_reach_the_same_failures() {
    let started = Instant::now();
    let budgets = budgets();
    let mut tally = Tally::default();
    for program in PROGRAMS {
        tally.add(compare(program, &budgets));
    }
    let summary = tally.summary(&budgets, started.elapsed().as_secs_f64());
    eprintln!("crossfront:\n{summary}");
    if let Ok(path) = std::env::var("CROSSFRONT_RESULTS") {
        let header = format!(
            "# Both front ends, one verdict\n\nWritten by `CROSSFRONT_PROGRAMS={} CROSSFRONT_SEED={} CROSSFRONT_RT_SCHEDULES={} CROSSFRONT_RESULTS=results/crossfront.md cargo test -p rankcheck-crossfront --test agree` (docs/guide/src/testing.md).\n\n",
            PROGRAMS.len(),
            std::env::var("CROSSFRONT_SEED").unwrap_or_else(|_| "0".to_owned()),
            budgets.runtime_schedules
        );
        // A relative path is the workspace's, as in the command above.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(path);
        std::fs::write(&path, header + &summary)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
    assert!(
        tally.disagreements.is_empty(),
        "{} disagreements",
        tally.disagreements.len()
    );
    assert!(
        tally.full >= MIN_FULL,
        "only {} programs compared in full",
        tally.full
    );
    // Not vacuous: many programs fail, in every kind, and rt's own search
    // finds most of those failures.
    assert!(
        tally.full_failing * 5 >= tally.full,
        "too few failing programs"
    );
    for kind in [Kind::Assert, Kind::Error, Kind::Deadlock] {
        assert!(tally.kinds.contains_key(&kind), "no {kind:?} failure");
    }
    assert!(
        tally.searched * 2 >= tally.full_failing,
        "rt's search found too few"
    );
}
