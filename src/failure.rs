//! A failure as every command reports it: where it failed, the
//! interleaving, what the program printed, the preemptions it took, what
//! the run tracked, and the replay command; as text and as JSON. `check`,
//! `replay`, `explore` and `classify` all print a failure through here, so
//! they say the same things the same way.

use std::fmt::Write as _;
use std::path::PathBuf;

use rankcheck_engine::BugKind;
use serde::Serialize;

use crate::diagnostics::SourceFile;
use crate::invocation::command_line;
use crate::trace::{observe, Observed, StepView, TracedFailure};
use crate::words::{count, list};

/// What found a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    /// A run of the search.
    Search,
    /// One of the preparatory random runs.
    Preparatory,
    /// Exhaustive search.
    Explore,
}

impl FoundBy {
    /// The name JSON and replay files use.
    pub fn name(self) -> &'static str {
        match self {
            FoundBy::Search => "search",
            FoundBy::Preparatory => "preparatory",
            FoundBy::Explore => "explore",
        }
    }

    /// Read a name back.
    pub fn from_name(name: &str) -> Option<FoundBy> {
        match name {
            "search" => Some(FoundBy::Search),
            "preparatory" => Some(FoundBy::Preparatory),
            "explore" => Some(FoundBy::Explore),
            _ => None,
        }
    }
}

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
}

/// A priority change point that fired, as reports show it.
#[derive(Clone, Debug, Serialize)]
pub struct ChangeJson {
    /// Which change point (1-based).
    pub index: usize,
    /// The tracked access it followed (1-based count of tracked accesses).
    pub access: u64,
    /// The step (1-based) whose end it followed.
    pub step: u64,
    /// The thread whose priority changed.
    pub thread: String,
    /// The variable whose access it followed.
    pub var: Option<String>,
}

/// One line the program printed.
#[derive(Clone, Debug, Serialize)]
pub struct PrintedJson {
    /// The printing thread.
    pub thread: String,
    /// The text.
    pub text: String,
}

/// A failure in JSON (README, JSON output: `first_failure`).
#[derive(Debug, Serialize)]
pub struct FailureJson {
    /// The execution's number, from 1.
    pub run: u64,
    /// `assert`, `deadlock`, `error` or `step-limit`.
    pub kind: String,
    /// The message.
    pub message: String,
    /// The 1-based source line.
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// The failing thread's name.
    pub thread: String,
    /// The replay file's path, or null if it could not be written.
    pub replay: Option<String>,
    /// The interleaving.
    pub trace: Vec<StepView>,
    /// `search`, `preparatory` or `explore`.
    pub found_by: &'static str,
    /// The strategy of the failing run: for the portfolio, the component
    /// that ran it (`surw`, `pos`, `pct`, ...).
    pub strategy: String,
    /// The failing run's depth, under priority scheduling.
    pub depth: Option<u32>,
    /// The variables the failing run tracked; null when every variable.
    pub chosen_vars: Option<Vec<String>>,
    /// The change points that fired.
    pub change_points: Vec<ChangeJson>,
    /// What the interleaving took.
    pub observed: Observed,
    /// What the program printed.
    pub printed: Vec<PrintedJson>,
}

impl Report {
    /// The change points that fired, read off the trace.
    pub fn change_points(&self) -> Vec<ChangeJson> {
        let steps = &self.traced.steps;
        let mut changes = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            if !step.preemption || i == 0 {
                continue;
            }
            let before = &steps[i - 1];
            changes.push(ChangeJson {
                index: changes.len() + 1,
                access: steps[..i].iter().filter(|s| s.tracked).count() as u64,
                step: i as u64,
                thread: before.thread.clone(),
                var: before.var.clone(),
            });
        }
        changes
    }

    /// The JSON object.
    pub fn json(&self, file: &SourceFile) -> FailureJson {
        let bug = &self.traced.bug;
        FailureJson {
            run: self.run,
            kind: bug.kind.name().to_string(),
            message: bug.message.clone(),
            line: file.line(bug.span),
            column: file.column(bug.span),
            thread: bug.thread_name.clone(),
            replay: self.replay.as_ref().map(|p| p.display().to_string()),
            trace: self.traced.steps.clone(),
            found_by: self.found_by.name(),
            strategy: self.strategy.clone(),
            depth: self.depth,
            chosen_vars: self.chosen_vars.clone(),
            change_points: self.change_points(),
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
        }
    }

    /// The human report: the failure with its source line, the blocked
    /// threads of a deadlock, the interleaving, the printed output, what
    /// the interleaving took and what the run tracked.
    pub fn text(&self, file: &SourceFile) -> String {
        let mut out = failure_head(&self.traced, file);
        out.push_str(&interleaving(&self.traced));
        if !self.traced.prints.is_empty() {
            out.push_str("\nprinted:\n");
            for (thread, text) in &self.traced.prints {
                let _ = writeln!(out, "  [{thread}] {text}");
            }
        }
        out.push('\n');
        out.push_str(&self.observed_text());
        if let Some(line) = self.tracking_text() {
            out.push_str(&line);
        }
        out
    }

    /// `the interleaving took 2 preemptions, after accesses to m, among 3
    /// threads`, or for random scheduling its switches.
    fn observed_text(&self) -> String {
        let observed = observe(&self.traced.steps);
        let threads = count(observed.threads, "thread", "threads");
        if !self.traced.priorities {
            return format!(
                "the interleaving switched {} away from a thread that could have gone on, among {threads};\nwithout priorities a switch is not a preemption: `rankcheck classify` gives the bug's fewest preemptions\n",
                count(observed.switches, "time", "times"),
            );
        }
        let after = if observed.variables.is_empty() {
            String::new()
        } else {
            format!(", after accesses to {}", list(&observed.variables))
        };
        format!(
            "the interleaving took {}{after}, among {threads}\n",
            count(observed.preemptions, "preemption", "preemptions")
        )
    }

    /// `depth 3 run tracking cold; change points: #1 after ...`, for a run
    /// under priorities.
    fn tracking_text(&self) -> Option<String> {
        let depth = self.depth?;
        let tracked = match &self.chosen_vars {
            None => "every variable".to_string(),
            Some(vars) if vars.is_empty() => "no variable".to_string(),
            Some(vars) => list(vars),
        };
        let changes = self.change_points();
        let described = if changes.is_empty() {
            "none fired".to_string()
        } else {
            changes
                .iter()
                .map(|c| {
                    format!(
                        "#{} after tracked access {} (step {}, thread {}{})",
                        c.index,
                        c.access,
                        c.step,
                        c.thread,
                        c.var.as_ref().map(|v| format!(", {v}")).unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        Some(format!(
            "depth {depth} run tracking {tracked}; change points: {described}\n"
        ))
    }

    /// `replay: rankcheck replay FILE`, with the command as it can be typed.
    pub fn replay_line(&self) -> Option<String> {
        self.replay.as_ref().map(|p| {
            format!(
                "replay: {}\n",
                command_line(&["replay", &p.display().to_string()])
            )
        })
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

/// The interleaving as a table.
fn interleaving(failure: &TracedFailure) -> String {
    let steps = &failure.steps;
    let mut out = if failure.priorities {
        let marked = steps.iter().filter(|s| s.preemption).count();
        format!(
            "interleaving ({}, {}; > marks the step after a preemption):\n",
            count(steps.len(), "step", "steps"),
            count(marked, "preemption", "preemptions")
        )
    } else {
        let marked = steps.iter().filter(|s| s.switch).count();
        format!(
            "interleaving ({}, {} away from a thread that could have gone on, marked ~):\n",
            count(steps.len(), "step", "steps"),
            count(marked, "switch", "switches")
        )
    };
    let width = steps
        .iter()
        .map(|s| s.thread.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let operations: Vec<String> = steps.iter().map(|s| s.operation.clone()).collect();
    let op_width = operations.iter().map(String::len).max().unwrap_or(9).max(9);
    let _ = writeln!(
        out,
        "  {:>5}  {:<width$}  {:>5}  {:<op_width$}  touches",
        "step", "thread", "line", "operation"
    );
    for (step, operation) in steps.iter().zip(&operations) {
        let mark = match (failure.priorities, step.preemption, step.switch) {
            (true, true, _) => '>',
            (false, _, true) => '~',
            _ => ' ',
        };
        let line = step.line.map(|l| l.to_string()).unwrap_or_default();
        let touched = step
            .touched
            .iter()
            .map(|t| {
                let how = match (t.read, t.write) {
                    (true, true) => "rw",
                    (false, true) => "w",
                    _ => "r",
                };
                format!("{} {how}", t.var)
            })
            .collect::<Vec<_>>()
            .join(", ");
        let row = format!(
            "{mark} {:>5}  {:<width$}  {:>5}  {:<op_width$}  {touched}",
            step.step, step.thread, line, operation
        );
        let _ = writeln!(out, "{}", row.trim_end());
    }
    out
}
