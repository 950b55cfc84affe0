//! A long search says how far it is: every ten seconds, one line on
//! stderr (shown by `cargo test -- --nocapture`), so that a check that
//! runs for minutes is never silent.

use std::time::{Duration, Instant};

/// How often a running search reports.
const EVERY: Duration = Duration::from_secs(10);

/// The progress of one search.
pub struct Progress<'a> {
    /// Where the test called `check`.
    program: &'a str,
    /// When the runs began.
    pub started: Instant,
    next: Instant,
}

impl<'a> Progress<'a> {
    /// The runs of the check at `program` begin.
    pub fn new(program: &'a str) -> Progress<'a> {
        let started = Instant::now();
        Progress {
            program,
            started,
            next: started + EVERY,
        }
    }

    /// `done` of `runs` runs are done, at `now`: a line if it is time.
    pub fn tick(&mut self, done: u64, runs: u64, now: Instant) {
        if now < self.next {
            return;
        }
        self.next = now + EVERY;
        let of = if runs == u64::MAX {
            String::new()
        } else {
            format!(" of {runs}")
        };
        eprintln!(
            "rankcheck: {}: {done}{of} runs, {:.0}s, no failure yet",
            self.program,
            now.duration_since(self.started).as_secs_f64()
        );
    }
}
