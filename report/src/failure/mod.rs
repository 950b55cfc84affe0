//! A failure as every report shows it: where it failed, the interleaving,
//! what the program printed, the preemptions it took and what its run
//! tracked. [`FailureJson`] is the model and the JSON (`first_failure`);
//! its steps are the trace's [`StepView`]s, what can be read off them is in
//! `steps.rs`, and [`failure_text`] renders it as text after the head the
//! front end renders.

mod found_by;
mod steps;
mod text;

use serde::Serialize;

pub use self::found_by::{run_strategy, FoundBy};
pub use self::steps::{change_points, observe, Observed, StepView, Touched};
pub use self::text::failure_text;

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

/// How big a schedule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SizeJson {
    /// Switches away from a thread that could have gone on.
    pub preemptions: u64,
    /// Points where another thread ran than the one before.
    pub switches: u64,
    /// Steps.
    pub steps: u64,
}

/// How a failing schedule was shrunk (docs/ALGORITHMS.md, Shrinking).
#[derive(Clone, Debug, Serialize)]
pub struct ShrunkJson {
    /// The schedule the search found.
    pub before: SizeJson,
    /// The schedule reported (the trace's).
    pub after: SizeJson,
    /// The steps (1-based) the switch to which is critical.
    pub critical: Vec<u64>,
    /// Replays the shrinking made.
    pub replays: u64,
    /// Whether it ran to its end (false: its time ran out, and the smallest
    /// schedule found by then is reported).
    pub complete: bool,
    /// The steps (from 1) after which it preempts; in the JSON as the
    /// trace's `preemption` marks.
    #[serde(skip)]
    pub preempted: Vec<u64>,
}

impl From<rankcheck_engine::shrink::Size> for SizeJson {
    fn from(size: rankcheck_engine::shrink::Size) -> SizeJson {
        SizeJson {
            preemptions: size.preemptions,
            switches: size.switches,
            steps: size.steps,
        }
    }
}

impl From<&rankcheck_engine::shrink::Shrunk> for ShrunkJson {
    fn from(shrunk: &rankcheck_engine::shrink::Shrunk) -> ShrunkJson {
        ShrunkJson {
            before: shrunk.before.into(),
            after: shrunk.after.into(),
            critical: shrunk.critical.iter().map(|point| point + 1).collect(),
            replays: shrunk.replays,
            complete: shrunk.complete,
            preempted: shrunk.preemptions.clone(),
        }
    }
}

impl ShrunkJson {
    /// Mark its preemptions and critical switches on the steps of its
    /// trace.
    pub fn mark(&self, steps: &mut [StepView]) {
        for &after in &self.preempted {
            if let Some(view) = steps.get_mut(after as usize) {
                view.preemption = true;
            }
        }
        mark_critical(steps, &self.critical);
    }
}

/// Mark the switches to `critical` steps (from 1) critical.
pub fn mark_critical(steps: &mut [StepView], critical: &[u64]) {
    for &step in critical {
        if let Some(view) = steps.get_mut((step as usize).wrapping_sub(1)) {
            view.critical = true;
        }
    }
}

/// One line the program printed.
#[derive(Clone, Debug, Serialize)]
pub struct PrintedJson {
    /// The printing thread.
    pub thread: String,
    /// The text.
    pub text: String,
}

/// A failure in JSON (`docs/guide/src/json-output.md`, `first_failure`).
/// Fields are
/// added, never renamed; those only one front end has are left out of the
/// other's JSON rather than written as null, so that each front end's
/// JSON stays what its documentation lists.
#[derive(Debug, Serialize)]
pub struct FailureJson {
    /// The execution's number, from 1.
    pub run: u64,
    /// `assert`, `deadlock`, `error` or `step-limit` for a `.rk` program;
    /// `panic`, `deadlock` or `step-limit` for a Rust test.
    pub kind: String,
    /// The message.
    pub message: String,
    /// The 1-based source line (0: unknown).
    pub line: usize,
    /// The 1-based column (0: unknown).
    pub column: usize,
    /// The source file of `line`, for a Rust test, whose code spans files;
    /// absent for a `.rk` program, which is one file (the summary's
    /// `program`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The failing thread's name.
    pub thread: String,
    /// What replays it: the replay file's path (null if it could not be
    /// written), or a Rust test's replay string.
    pub replay: Option<String>,
    /// The interleaving.
    pub trace: Vec<StepView>,
    /// `search`, `preparatory` or `explore` ([`FoundBy::name`]).
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
    /// How the schedule was shrunk before it was reported (null when it
    /// was not: `--no-shrink`, or a failure that exhaustive search found).
    pub shrunk: Option<ShrunkJson>,
    /// Whether the run scheduled by priorities, so that the trace marks
    /// preemptions (change points), not switches. Not in the JSON, which
    /// has the marks themselves (`trace[].preemption`, `trace[].switch`).
    #[serde(skip)]
    pub priorities: bool,
}
