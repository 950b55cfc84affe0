//! Progress on stderr while a search or an exploration runs, so that
//! stdout holds only the report. On a terminal a search redraws one line
//! (human format); anywhere else (a pipe, a CI log, `--format json`) a
//! search that runs longer than ten seconds prints a line every ten
//! seconds, as the Rust front end's checks do, so that a long check is
//! never silent. An exploration's spinner shows on a terminal only.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::Format;

/// A spinner with a message, redrawn a few times a second.
pub fn spinner(format: Format) -> ProgressBar {
    if format == Format::Json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Parts of a progress message, comma-separated.
pub fn status_line(parts: &[String]) -> String {
    parts.join(", ")
}

/// How often a search away from a terminal prints its progress line.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// The progress of a search: runs done, runs per second, the time spent
/// and left, and the lowest confidence the settings reached so far.
pub struct SearchProgress {
    shown: Shown,
    started: Instant,
    deadline: Option<Instant>,
    total: Option<u64>,
}

/// Where a search's progress goes.
enum Shown {
    /// A line redrawn in place on the terminal.
    Bar(ProgressBar),
    /// A line of its own every [`LINE_EVERY`], `rankcheck: PROGRAM: ...`;
    /// `next` is when the next is due.
    Lines {
        program: String,
        next: Mutex<Instant>,
    },
}

impl SearchProgress {
    /// Progress of the search of `program` for `total` runs (`None`: as
    /// many as time allows) ending at `deadline` if there is one.
    pub fn new(
        format: Format,
        program: &str,
        total: Option<u64>,
        deadline: Option<Instant>,
    ) -> SearchProgress {
        let started = Instant::now();
        let shown = if format == Format::Human && std::io::stderr().is_terminal() {
            let length = if deadline.is_some() { None } else { total };
            let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
            let template = if length.is_some() {
                "{bar:30} {msg}"
            } else {
                "{spinner} {msg}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            Shown::Bar(bar)
        } else {
            Shown::Lines {
                program: program.to_string(),
                next: Mutex::new(started + LINE_EVERY),
            }
        };
        SearchProgress {
            shown,
            started,
            deadline,
            total: if deadline.is_some() { None } else { total },
        }
    }

    /// `done` runs finished; `confidence` is the lowest reached so far.
    pub fn update(&self, done: u64, confidence: Option<f64>) {
        let now = Instant::now();
        match &self.shown {
            Shown::Bar(bar) => {
                bar.set_position(done);
                bar.set_message(self.message(done, confidence, now));
                bar.tick();
            }
            Shown::Lines { .. } => {
                if let Some(line) = self.due_line(done, confidence, now) {
                    errln!("{line}");
                }
            }
        }
    }

    /// The line to print at `now` away from a terminal, if one is due.
    fn due_line(&self, done: u64, confidence: Option<f64>, now: Instant) -> Option<String> {
        let Shown::Lines { program, next } = &self.shown else {
            return None;
        };
        let mut next = next.lock().ok()?;
        if now < *next {
            return None;
        }
        *next = now + LINE_EVERY;
        Some(format!(
            "rankcheck: {program}: {}",
            self.message(done, confidence, now)
        ))
    }

    /// The message at `now`.
    fn message(&self, done: u64, confidence: Option<f64>, now: Instant) -> String {
        let left = self.deadline.map(|d| d.saturating_duration_since(now));
        search_message(
            done,
            self.total,
            now.duration_since(self.started),
            left,
            confidence,
        )
    }

    /// Clear the line.
    pub fn finish(&self) {
        if let Shown::Bar(bar) = &self.shown {
            bar.finish_and_clear();
        }
    }
}

/// The progress message of a search: time spent, time left (to the
/// deadline `left`, or estimated from the rate when there is a `total`),
/// runs done, whole runs per second, and the lowest confidence so far.
pub fn search_message(
    done: u64,
    total: Option<u64>,
    elapsed: Duration,
    left: Option<Duration>,
    confidence: Option<f64>,
) -> String {
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
    let mut parts = vec![format!("{} elapsed", clock(elapsed))];
    match (left, total) {
        (Some(left), _) => parts.push(format!("{} left", clock(left))),
        (None, Some(total)) if rate > 0.0 => parts.push(format!(
            "about {} left",
            clock(Duration::from_secs_f64(
                total.saturating_sub(done) as f64 / rate
            ))
        )),
        _ => {}
    }
    parts.push(match total {
        Some(total) => format!("{done} of {total} runs"),
        None => format!("{done} runs"),
    });
    parts.push(format!("{rate:.0} runs/s"));
    if let Some(c) = confidence {
        parts.push(format!("confidence {c:.4}"));
    }
    status_line(&parts)
}

/// `45s`, `7m05s`, `2h03m`.
fn clock(duration: Duration) -> String {
    let secs = duration.as_secs();
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timed_search_shows_time_left_and_whole_runs_per_second() {
        let message = search_message(
            4_226_432,
            None,
            Duration::from_secs(130),
            Some(Duration::from_secs(470)),
            Some(0.987_65),
        );
        assert_eq!(
            message,
            "2m10s elapsed, 7m50s left, 4226432 runs, 32511 runs/s, confidence 0.9877"
        );
    }

    #[test]
    fn away_from_a_terminal_a_line_comes_every_ten_seconds() {
        let started = Instant::now();
        let progress = SearchProgress {
            shown: Shown::Lines {
                program: "prog.rk".into(),
                next: Mutex::new(started + LINE_EVERY),
            },
            started,
            deadline: None,
            total: Some(1_000_000),
        };
        let at = |secs: u64| started + Duration::from_secs(secs);
        assert_eq!(progress.due_line(40_000, Some(0.5), at(4)), None);
        assert_eq!(
            progress.due_line(100_000, Some(0.5), at(10)).as_deref(),
            Some("rankcheck: prog.rk: 10s elapsed, about 1m30s left, 100000 of 1000000 runs, 10000 runs/s, confidence 0.5000")
        );
        assert_eq!(progress.due_line(150_000, None, at(15)), None);
        assert!(progress.due_line(200_000, None, at(20)).is_some());
    }

    #[test]
    fn a_counted_search_estimates_time_left() {
        let message = search_message(500, Some(2000), Duration::from_secs(10), None, None);
        assert_eq!(
            message,
            "10s elapsed, about 30s left, 500 of 2000 runs, 50 runs/s"
        );
        assert_eq!(clock(Duration::from_secs(7_380)), "2h03m");
    }
}
