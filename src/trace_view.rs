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
            preemption: step.preempting,
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
