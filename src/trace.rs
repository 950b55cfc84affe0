//! A failing execution replayed with everything a report shows: each step's
//! thread, line and operation, every shared variable it touched (untracked
//! ones included, so that a race can be read off the trace), and where the
//! preemptions were.
//!
//! One definition of a preemption everywhere (docs/LANGUAGE.md, Priorities,
//! change points and preemptions): a priority change point. Under priority
//! scheduling the trace marks the step after each change point that fired;
//! a switch to a thread that just became able to run is not marked. The
//! random scheduler has no priorities, so its traces mark the switches away
//! from a thread that could have gone on instead, and say so.

use std::sync::Arc;

use rankcheck_engine::ir::{Op, Program};
use rankcheck_engine::outcome::Bug;
use rankcheck_engine::replay::TraceStep;
use rankcheck_engine::{
    Access, BugKind, Event, EventKind, Executable, InstanceKey, Instrumentation, Limits, Outcome,
    ReplayScheduler, ThreadId, Tracer, Vm,
};
use rankcheck_report::failure::{StepView, Touched};

use crate::diagnostics::SourceFile;

/// How the switches of a trace are to be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marks {
    /// Priority scheduling: the steps (1-based) after which a change point
    /// fired. The step after each is marked as a preemption.
    ChangePoints(Vec<u64>),
    /// No priorities (the random scheduler, or exploration without a
    /// bound): switches away from a thread that could have gone on are
    /// marked.
    Switches,
}

/// A failing execution replayed with a trace.
pub struct TracedFailure {
    /// The failure, as the replay ended.
    pub bug: Bug,
    /// Every step up to the failure.
    pub steps: Vec<StepView>,
    /// What the program printed: (thread, text).
    pub prints: Vec<(String, String)>,
    /// Whether the steps mark preemptions or switches.
    pub priorities: bool,
}

/// How a replay of a schedule ended, when it did not fail.
pub enum ReplayMismatch {
    /// Every thread finished.
    Passed,
    /// The schedule asked for a thread that could not run.
    Diverged {
        /// The scheduling point.
        step: u64,
    },
}

/// Replay `schedule` on `program`, tracked as `instrumentation` says (with
/// `instances` split), and trace it. Every site is observed for the trace,
/// which does not move a scheduling point.
pub fn trace(
    program: &Arc<Program>,
    instrumentation: Instrumentation,
    instances: &[InstanceKey],
    limits: Limits,
    schedule: &[ThreadId],
    file: &SourceFile,
    marks: &Marks,
) -> Result<TracedFailure, ReplayMismatch> {
    let exe =
        Executable::with_instances(program.clone(), &instrumentation.observing_all(), instances);
    let mut vm = Vm::new(&exe, limits);
    vm.record_prints();
    vm.log_accesses();
    let mut tracer = Tracer::new(ReplayScheduler::new(schedule));
    let bug = match vm.run(&mut tracer) {
        Outcome::Bug(bug) => bug,
        Outcome::Pass { .. } => return Err(ReplayMismatch::Passed),
        Outcome::Diverged { step, .. } => return Err(ReplayMismatch::Diverged { step }),
    };
    let program = exe.program();
    let name = |t: ThreadId| vm.thread_name(t);
    let mut steps: Vec<StepView> = tracer
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| view(i + 1, step, program, file, &name))
        .collect();
    // The failing thread's last step ends in the failure itself, or, for a
    // failure found at a scheduling point (a deadlock), in its own event.
    if let Some((thread, switched)) = tracer.unfinished() {
        let last = TraceStep {
            thread,
            event: vm.final_event().unwrap_or(Event::START),
            accesses: vm.last_accesses().to_vec(),
            switched,
        };
        let mut view = view(steps.len() + 1, &last, program, file, &name);
        if vm.final_event().is_none() {
            view.line = Some(file.line(bug.span));
            view.operation = failing_operation(bug.kind).to_string();
            view.var = None;
        }
        steps.push(view);
    }
    let priorities = match marks {
        Marks::ChangePoints(after) => {
            for &s in after {
                if let Some(step) = steps.get_mut(s as usize) {
                    step.preemption = true;
                }
            }
            true
        }
        Marks::Switches => false,
    };
    let prints = vm
        .prints()
        .iter()
        .map(|p| (vm.thread_name(p.thread), p.text.clone()))
        .collect();
    Ok(TracedFailure {
        bug,
        steps,
        prints,
        priorities,
    })
}

/// What the failing step did, when it failed inside the step.
fn failing_operation(kind: BugKind) -> &'static str {
    match kind {
        BugKind::Assert => "assertion fails",
        BugKind::Error => "run-time error",
        BugKind::StepLimit => "step limit reached",
        BugKind::Deadlock => "blocks",
    }
}

/// One trace step as a report line.
fn view(
    number: usize,
    step: &TraceStep,
    program: &Program,
    file: &SourceFile,
    name: &dyn Fn(ThreadId) -> String,
) -> StepView {
    StepView {
        step: number,
        thread: name(step.thread),
        line: step
            .event
            .loc
            .map(|loc| file.line(program.span_at(loc.func, loc.pc as usize))),
        location: None,
        operation: describe(&step.event, program),
        var: step.event.var.map(|v| program.vars[v.index()].name.clone()),
        touched: touched(&step.accesses, program),
        preemption: false,
        critical: false,
        switch: step.switched,
        tracked: step.event.tracked,
    }
}

/// The variables of a step's accesses, in the order first touched.
fn touched(accesses: &[Access], program: &Program) -> Vec<Touched> {
    let mut out: Vec<Touched> = Vec::new();
    for access in accesses {
        let Some(var) = access.var else { continue };
        let name = &program.vars[var.index()].name;
        match out.iter_mut().find(|t| &t.var == name) {
            Some(t) => {
                t.read |= !access.write;
                t.write |= access.write;
            }
            None => out.push(Touched {
                var: name.clone(),
                read: !access.write,
                write: access.write,
            }),
        }
    }
    out
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
        EventKind::Write if event.tracked => format!("write {location}"),
        EventKind::Write => format!("write {location}, which lets a waiting thread run"),
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
        EventKind::Atomic if var.is_empty() => "atomic block ends".into(),
        EventKind::Atomic => format!("atomic block ends (touched {var})"),
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
