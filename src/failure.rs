//! A failure as every command reports it: where it failed, the
//! interleaving, what the program printed, the preemptions it took, what
//! the run tracked, and the replay command; as text and as JSON. `check`,
//! `replay`, `explore` and `classify` all print a failure through here, so
//! they say the same things the same way.

use std::fmt::Write as _;
use std::path::PathBuf;

use rankcheck_engine::BugKind;
use rankcheck_report::failure::{
    change_points, failure_text, observe, FailureJson, FoundBy, PrintedJson, ShrunkJson,
};

use crate::diagnostics::SourceFile;
use crate::invocation::replay_command;
use crate::trace::TracedFailure;

/// A failure with everything its report shows.
pub struct Report {
    /// The replayed failure.
    pub traced: TracedFailure,
    /// The execution's number, from 1 (1 for exhaustive search).
    pub run: u64,
    /// What found it.
    pub found_by: FoundBy,
    /// The strategy of the failing run (`surw` for a SURW run of the
    /// portfolio), or `explore`.
    pub strategy: String,
    /// The failing run's depth `d`, under priority scheduling.
    pub depth: Option<u32>,
    /// The variables the failing run tracked; `None` when it tracked every
    /// variable.
    pub chosen_vars: Option<Vec<String>>,
    /// The replay file written for it.
    pub replay: Option<PathBuf>,
    /// How its schedule was shrunk, if it was.
    pub shrunk: Option<ShrunkJson>,
}

impl Report {
    /// The JSON object.
    pub fn json(&self, file: &SourceFile) -> FailureJson {
        let bug = &self.traced.bug;
        FailureJson {
            run: self.run,
            kind: bug.kind.name().to_string(),
            message: bug.message.clone(),
            line: file.line(bug.span),
            column: file.column(bug.span),
            file: None,
            thread: bug.thread_name.clone(),
            replay: self.replay.as_ref().map(|p| p.display().to_string()),
            trace: self.traced.steps.clone(),
            found_by: self.found_by.name(),
            strategy: self.strategy.clone(),
            depth: self.depth,
            chosen_vars: self.chosen_vars.clone(),
            change_points: change_points(&self.traced.steps),
            observed: observe(&self.traced.steps),
            printed: self
                .traced
                .prints
                .iter()
                .map(|(thread, text)| PrintedJson {
                    thread: thread.clone(),
                    text: text.clone(),
                })
                .collect(),
            shrunk: self.shrunk.clone(),
            priorities: self.traced.priorities,
        }
    }

    /// The human report: the failure with its source line, the blocked
    /// threads of a deadlock, the interleaving, the printed output, what
    /// the interleaving took and what the run tracked.
    pub fn text(&self, file: &SourceFile) -> String {
        failure_text(
            &self.json(file),
            &failure_head(&self.traced, file),
            Some("`rankcheck classify` gives the bug's fewest preemptions"),
        )
    }

    /// `replay: rankcheck replay FILE`, with the command as it can be
    /// typed in any directory.
    pub fn replay_line(&self) -> Option<String> {
        self.replay
            .as_ref()
            .map(|p| format!("replay: {}\n", replay_command(p)))
    }
}

/// The failure's location with its source line, and for a deadlock every
/// blocked thread.
fn failure_head(failure: &TracedFailure, file: &SourceFile) -> String {
    let bug = &failure.bug;
    let label = match bug.kind {
        BugKind::Deadlock => format!("{} blocks here", bug.thread_name),
        _ => format!("thread {} fails here", bug.thread_name),
    };
    let mut out = file.render_at(bug.kind.name(), &bug.message, bug.span, &label);
    if !bug.blocked.is_empty() {
        out.push_str("blocked threads:\n");
        for b in &bug.blocked {
            let _ = writeln!(
                out,
                "  {:<12} waits for {} (line {})",
                b.name,
                b.waits_on,
                file.line(b.span)
            );
        }
        out.push('\n');
    }
    out
}
