//! Progress lines on stderr while a search or an exploration runs: shown
//! only on a terminal and never with `--format json`, so that scripts and
//! pipes see only the report.

use std::io::IsTerminal;
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

/// The progress line of a search: runs done, runs per second, the time
/// spent and left, and the lowest confidence the settings reached so far.
pub struct SearchProgress {
    bar: ProgressBar,
    started: Instant,
    deadline: Option<Instant>,
}

impl SearchProgress {
    /// A line for a search of `total` runs (`None`: as many as time allows)
    /// ending at `deadline` if there is one.
    pub fn new(format: Format, total: Option<u64>, deadline: Option<Instant>) -> SearchProgress {
        let bar = if format != Format::Human || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
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
            bar
        };
        SearchProgress {
            bar,
            started: Instant::now(),
            deadline,
        }
    }

    /// `done` runs finished; `confidence` is the lowest reached so far.
    pub fn update(&self, done: u64, confidence: Option<f64>) {
        if self.bar.is_hidden() {
            return;
        }
        let elapsed = self.started.elapsed();
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
        let mut parts = vec![format!("{} elapsed", clock(elapsed))];
        match (self.deadline, self.bar.length()) {
            (Some(deadline), _) => parts.push(format!(
                "{} left",
                clock(deadline.saturating_duration_since(Instant::now()))
            )),
            (None, Some(total)) if rate > 0.0 => parts.push(format!(
                "about {} left",
                clock(Duration::from_secs_f64(
                    total.saturating_sub(done) as f64 / rate
                ))
            )),
            _ => {}
        }
        parts.push(match self.bar.length() {
            Some(total) => format!("{done} of {total} runs"),
            None => format!("{done} runs"),
        });
        parts.push(format!("{rate:.0} runs/s"));
        if let Some(c) = confidence {
            parts.push(format!("confidence {c:.4}"));
        }
        self.bar.set_position(done);
        self.bar.set_message(status_line(&parts));
        self.bar.tick();
    }

    /// Clear the line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
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
