//! The interleaving of a failure, step by step, and what can be read off
//! it: the preemptions it took and the change points that fired.
//!
//! One definition of a preemption everywhere (docs/LANGUAGE.md, Priorities,
//! change points and preemptions): a priority change point. Under priority
//! scheduling the trace marks the step after each change point that fired;
//! without priorities it marks the switches away from a thread that could
//! have gone on instead.

use serde::Serialize;

use super::ChangeJson;

/// One variable a step touched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Touched {
    /// The variable's name.
    pub var: String,
    /// Whether the step read it.
    pub read: bool,
    /// Whether the step wrote it (or, for a mutex or condition variable,
    /// operated on it).
    pub write: bool,
}

/// One line of an interleaving.
#[derive(Clone, Debug, Serialize)]
pub struct StepView {
    /// 1-based step number.
    pub step: usize,
    /// The thread's name.
    pub thread: String,
    /// The source line of the operation that ended the step.
    pub line: Option<usize>,
    /// Where that operation is, as `file.rs:line`, for a Rust test, whose
    /// code spans files (the table shows it in place of the line); absent
    /// for a `.rk` program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// What the operation did, such as `read a` or `lock m`.
    pub operation: String,
    /// The variable the operation touched, if any.
    pub var: Option<String>,
    /// Every shared variable the step touched, in the order first touched.
    pub touched: Vec<Touched>,
    /// Whether a preemption (a priority change point) came right before
    /// this step.
    pub preemption: bool,
    /// Whether this thread was chosen away from one that could have gone on.
    pub switch: bool,
    /// Whether the switch to this step is critical: a shrunk schedule
    /// without it no longer fails the same way.
    pub critical: bool,
    /// Whether the step ended with a tracked access: a place where a
    /// change point may go.
    #[serde(skip)]
    pub tracked: bool,
}

/// The bug as its trace shows it: the preemptions it took (change points,
/// under priorities), the variables whose accesses they followed, the
/// switches away from a thread that could have gone on, and the threads
/// that ran (docs/ALGORITHMS.md, bug characteristics: upper bounds on the
/// bug's `c`, `v` and `t`).
#[derive(Clone, Debug, Serialize)]
pub struct Observed {
    /// Change points that fired (0 without priorities).
    pub preemptions: usize,
    /// The variables whose accesses the preempted threads had just made.
    pub variables: Vec<String>,
    /// Switches away from a thread that could have gone on, preemptions or
    /// not.
    pub switches: usize,
    /// The threads that ran.
    pub threads: usize,
}

/// Count what a trace's interleaving took.
pub fn observe(steps: &[StepView]) -> Observed {
    let mut variables: Vec<String> = Vec::new();
    let mut preemptions = 0;
    for pair in steps.windows(2) {
        if pair[1].preemption {
            preemptions += 1;
            if let Some(var) = &pair[0].var {
                if !variables.contains(var) {
                    variables.push(var.clone());
                }
            }
        }
    }
    let mut threads: Vec<&str> = steps.iter().map(|s| s.thread.as_str()).collect();
    threads.sort_unstable();
    threads.dedup();
    Observed {
        preemptions,
        variables,
        switches: steps.iter().filter(|s| s.switch).count(),
        threads: threads.len(),
    }
}

/// The change points that fired, read off a trace whose steps mark them
/// and say which ended with a tracked access.
pub fn change_points(steps: &[StepView]) -> Vec<ChangeJson> {
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
