//! A traced run's steps as the shared report shows them: each step's
//! thread, its last operation described in the test's terms (`lock
//! Mutex@12:16`, `join thread@9#1`) at its `file.rs:line`, and every
//! variable it touched; then a last row for the failure itself. And the
//! change points that fired, named the same way.

use std::panic::Location;

use rankcheck_engine::priority::AppliedChange;
use rankcheck_engine::VarId;
use rankcheck_report::failure::{ChangeJson, StepView, Touched};
use rankcheck_report::summary::VarNames;

use crate::executor::RunResult;
use crate::failure::FailureKind;
use crate::object::ObjectId;
use crate::trace::{touched, Operation, Step};
use crate::var::{short_file, Registry};

/// What a run's steps are read with: its objects' variables and threads'
/// names, and the registry's variable names.
struct Names<'a> {
    result: &'a RunResult,
    registry: &'a Registry,
}

impl Names<'_> {
    fn var_of(&self, object: ObjectId) -> VarId {
        self.result
            .objects
            .get(object.index())
            .copied()
            .unwrap_or(VarId(u32::MAX))
    }

    fn var(&self, var: VarId) -> String {
        self.registry.name(var).to_owned()
    }

    fn object(&self, object: ObjectId) -> String {
        self.var(self.var_of(object))
    }

    fn thread(&self, index: usize) -> String {
        self.result
            .thread_names
            .get(index)
            .cloned()
            .unwrap_or_default()
    }
}

/// The steps of `result`'s trace, marked with the change points that
/// fired (under priorities) or the switches, and a last row for the
/// failure.
pub fn steps(
    result: &RunResult,
    changes: Option<&[AppliedChange]>,
    registry: &Registry,
) -> Vec<StepView> {
    let names = Names { result, registry };
    let traced = result.trace.as_ref().map_or(&[][..], |t| &t.steps[..]);
    let mut steps: Vec<StepView> = traced
        .iter()
        .enumerate()
        .map(|(i, step)| view(i + 1, step, &names))
        .collect();
    if let Some(last) = failing_step(steps.len() + 1, result) {
        steps.push(last);
    }
    if let Some(changes) = changes {
        // A change point follows step `c.step`: the next one is preempted.
        for change in changes {
            if let Some(step) = steps.get_mut(change.step as usize) {
                step.preemption = true;
            }
        }
    }
    steps
}

/// The change points that fired, with the threads and variables named.
pub fn change_points(
    changes: &[AppliedChange],
    result: &RunResult,
    registry: &Registry,
) -> Vec<ChangeJson> {
    let names = Names { result, registry };
    changes
        .iter()
        .map(|c| ChangeJson {
            index: c.index,
            access: c.access,
            step: c.step,
            thread: names.thread(c.thread.index()),
            var: c.var.map(|v| names.var(v)),
        })
        .collect()
}

/// One step, by its last operation.
fn view(number: usize, step: &Step, names: &Names<'_>) -> StepView {
    let last = step.operations.last();
    StepView {
        step: number,
        thread: names.thread(step.thread.index()),
        line: last.map(|(_, site)| site.line() as usize),
        location: last.map(|(_, site)| location(site)),
        operation: last.map_or_else(
            || "runs".to_owned(),
            |(op, _)| describe(*op, step.blocked, names),
        ),
        var: last
            .and_then(|(op, _)| op.touches())
            .map(|(object, _)| names.object(object)),
        touched: touched(step, |o| names.var_of(o))
            .into_iter()
            .map(|(var, read, write)| Touched {
                var: names.var(var),
                read,
                write,
            })
            .collect(),
        preemption: false,
        switch: step.switched,
        critical: false,
        tracked: false,
    }
}

/// The row of the failure: the failing thread where it failed, and how.
fn failing_step(number: usize, result: &RunResult) -> Option<StepView> {
    let failure = result.failure.as_ref()?;
    let operation = match failure.kind {
        FailureKind::Panic => "panics",
        FailureKind::Deadlock => "no thread can run: deadlock",
        FailureKind::StepLimit => "exceeds the step limit",
        FailureKind::Diverged => "cannot run: the replay does not fit",
    };
    let at = failure.location.as_ref();
    Some(StepView {
        step: number,
        thread: failure.thread.clone(),
        line: at.map(|l| l.line as usize),
        location: at.map(|l| format!("{}:{}", short_file(&l.file), l.line)),
        operation: operation.to_owned(),
        var: None,
        touched: Vec::new(),
        preemption: false,
        switch: false,
        critical: false,
        tracked: false,
    })
}

/// `file.rs:line`, as the table shows a place.
fn location(site: &Location<'_>) -> String {
    format!("{}:{}", short_file(site.file()), site.line())
}

/// What an operation did, in a few words; `blocked` when it blocked the
/// thread.
fn describe(op: Operation, blocked: bool, names: &Names<'_>) -> String {
    let name = |object| names.object(object);
    let text = match op {
        Operation::Access {
            object,
            write: false,
        } => format!("read {}", name(object)),
        Operation::Access {
            object,
            write: true,
        } => format!("write {}", name(object)),
        Operation::Lock(o) => format!("lock {}", name(o)),
        Operation::Unlock(o) => format!("unlock {}", name(o)),
        Operation::RwLock(o, false) => format!("read-lock {}", name(o)),
        Operation::RwLock(o, true) => format!("write-lock {}", name(o)),
        Operation::Wait(o) => format!("wait on {}", name(o)),
        Operation::Woken(o) => format!("woken from {}", name(o)),
        Operation::Early { object, timeout } => {
            let on = object.map_or_else(|| "park".to_owned(), name);
            if timeout {
                format!("times out: {on}")
            } else {
                format!("wakes spuriously: {on}")
            }
        }
        Operation::Notify(o, false) => format!("notify_one {}", name(o)),
        Operation::Notify(o, true) => format!("notify_all {}", name(o)),
        Operation::Barrier(o) => format!("wait at {}", name(o)),
        Operation::Send(o) => format!("send on {}", name(o)),
        Operation::Recv(o) => format!("receive on {}", name(o)),
        Operation::Disconnect(o) => format!("drop an end of {}", name(o)),
        Operation::Spawn => "spawn".to_owned(),
        Operation::Join(t) => format!("join {}", names.thread(t.index())),
        Operation::Yield => "yield".to_owned(),
        Operation::Park => "park".to_owned(),
        Operation::Unpark(t) => format!("unpark {}", names.thread(t.index())),
        Operation::Finish => "finish".to_owned(),
        Operation::Pending if blocked => return "waits to be woken".to_owned(),
        Operation::Pending => "woken".to_owned(),
        Operation::Abort(t) => format!("abort {}", names.thread(t.index())),
        Operation::TimerFires => "times out: timer".to_owned(),
    };
    if blocked {
        format!("blocks on {text}")
    } else {
        text
    }
}
