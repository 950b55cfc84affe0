//! Turning a recorded trace into the interleaving a report shows.

use rankcheck_engine::ir::{Op, Program};
use rankcheck_engine::replay::TraceStep;
use rankcheck_engine::{Event, EventKind, ThreadId};
use serde::Serialize;

use crate::diagnostics::SourceFile;

/// One line of an interleaving.
#[derive(Clone, Debug, Serialize)]
pub struct StepView {
    /// 1-based step number.
    pub step: usize,
    /// The thread's name.
    pub thread: String,
    /// The source line of the operation that ended the step.
    pub line: Option<usize>,
    /// What the operation did, such as `read a` or `lock m`.
    pub operation: String,
    /// The variable the operation touched, if any.
    pub var: Option<String>,
    /// Whether the scheduler switched to this thread away from one that
    /// could have gone on.
    pub preemption: bool,
}

/// The steps of a trace as report lines. `name` gives thread names.
pub fn view_steps(
    steps: &[TraceStep],
    program: &Program,
    file: &SourceFile,
    name: impl Fn(ThreadId) -> String,
) -> Vec<StepView> {
    steps
        .iter()
        .enumerate()
        .map(|(i, step)| StepView {
            step: i + 1,
            thread: name(step.thread),
            line: step
                .event
                .loc
                .map(|loc| file.line(program.span_at(loc.func, loc.pc as usize))),
            operation: describe(&step.event, program),
            var: step.event.var.map(|v| program.vars[v.index()].name.clone()),
            preemption: step.switched,
        })
        .collect()
}

/// What an event did, in a few words.
pub fn describe(event: &Event, program: &Program) -> String {
    let site = event.site.map(|s| &program.sites[s.index()]);
    let text = site.map(|s| s.text.as_str()).unwrap_or("");
    let var = event
        .var
        .map(|v| program.vars[v.index()].name.as_str())
        .unwrap_or("");
    // For accesses through references, name the location and the variable.
    let location = if site.is_some_and(|s| s.var.is_none()) && !var.is_empty() {
        format!("{text} ({var})")
    } else {
        text.to_string()
    };
    match event.kind {
        EventKind::Start => "start".into(),
        EventKind::Read => format!("read {location}"),
        EventKind::Write => format!("write {location}"),
        EventKind::Lock => format!("lock {var}"),
        EventKind::Unlock => format!("unlock {var}"),
        EventKind::Wait => format!("wait on {var}"),
        EventKind::Woken => format!("woken, relock {var}"),
        EventKind::Signal => format!("signal {var}"),
        EventKind::Broadcast => format!("broadcast {var}"),
        EventKind::Spawn => "spawn".into(),
        EventKind::Join => "join".into(),
        EventKind::Yield => "yield".into(),
        EventKind::Await => "await (true)".into(),
        EventKind::AwaitBlocked => "await (false: waits)".into(),
        EventKind::Atomic => format!("atomic block (touched {var})"),
        EventKind::Finished => "finish".into(),
        EventKind::Blocked => {
            let op = event
                .loc
                .map(|loc| program.functions[loc.func.index()].code[loc.pc as usize]);
            match op {
                Some(Op::Lock { .. }) => format!("blocks on lock {var}"),
                Some(Op::Join { .. }) => "blocks on join".into(),
                _ => "blocks".into(),
            }
        }
    }
}

/// The bug as the trace shows it: how many preemptions it took, at
/// accesses to which variables, among how many threads (PAPER.md, Bug
/// characteristics: an upper bound on the bug's `c`, `v` and `t`).
#[derive(Clone, Debug, Serialize)]
pub struct Observed {
    /// Switches away from a thread that could have gone on.
    pub preemptions: usize,
    /// The variables whose accesses the preempted threads had just made.
    pub variables: Vec<String>,
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
        threads: threads.len(),
    }
}
