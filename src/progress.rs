//! Progress lines on stderr while a search or an exploration runs: shown
//! only on a terminal and never with `--format json`, so that scripts and
//! pipes see only the report.

use std::io::IsTerminal;
use std::time::Duration;

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
