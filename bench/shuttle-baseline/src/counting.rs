//! A `Scheduler` wrapper that counts executions and scheduling decisions of the scheduler it wraps.
//!
//! shuttle's `Runner` owns its scheduler and panics out of `run` when an execution fails, so the
//! counts live in a shared `Tally` that outlives both.

use shuttle::scheduler::{Schedule, Scheduler, Task, TaskId};
use std::cell::Cell;
use std::rc::Rc;

/// Counts shared between a `Counting` scheduler and whoever reads them after the run.
#[derive(Debug, Default)]
pub struct Tally {
    /// Executions started: `new_execution` calls that the inner scheduler answered with a schedule.
    executions: Cell<u64>,
    /// Decisions in the execution under way (or the last one, once the run is over).
    current: Cell<Decisions>,
    /// Whether `current` belongs to an execution not yet added to `finished`.
    current_open: Cell<bool>,
    /// Decisions of every execution that ran to its end.
    finished: Cell<Spread>,
}

/// The scheduling decisions of one execution.
#[derive(Clone, Copy, Debug, Default)]
struct Decisions {
    /// Calls of `next_task`: every scheduling point, including those with one runnable task.
    next_task_calls: u64,
    /// Calls of `next_task` with two or more runnable tasks: the steps that shuttle's PCT counts
    /// and places its change points among.
    choice_points: u64,
}

/// Minimum, maximum and sum of the decisions of several executions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spread {
    /// Executions recorded.
    pub executions: u64,
    /// Fewest `next_task` calls in one execution.
    pub next_task_min: u64,
    /// Most `next_task` calls in one execution.
    pub next_task_max: u64,
    /// `next_task` calls over all recorded executions.
    pub next_task_sum: u64,
    /// Fewest choice points (two or more runnable tasks) in one execution.
    pub choice_points_min: u64,
    /// Most choice points in one execution.
    pub choice_points_max: u64,
    /// Choice points over all recorded executions.
    pub choice_points_sum: u64,
}

impl Spread {
    fn record(&mut self, decisions: Decisions) {
        if self.executions == 0 {
            self.next_task_min = decisions.next_task_calls;
            self.choice_points_min = decisions.choice_points;
        }
        self.executions += 1;
        self.next_task_min = self.next_task_min.min(decisions.next_task_calls);
        self.next_task_max = self.next_task_max.max(decisions.next_task_calls);
        self.next_task_sum += decisions.next_task_calls;
        self.choice_points_min = self.choice_points_min.min(decisions.choice_points);
        self.choice_points_max = self.choice_points_max.max(decisions.choice_points);
        self.choice_points_sum += decisions.choice_points;
    }
}

impl Tally {
    /// Executions started so far, the one under way included.
    pub fn executions(&self) -> u64 {
        self.executions.get()
    }

    /// Decisions of the executions that ran to their end. An execution counts as ended when the
    /// runner asks for the next one, which it does after the last one too, unless that one failed.
    pub fn finished(&self) -> Spread {
        self.finished.get()
    }

    fn close_current(&self) {
        if self.current_open.replace(false) {
            let mut finished = self.finished.get();
            finished.record(self.current.get());
            self.finished.set(finished);
        }
    }
}

/// Wraps a shuttle scheduler and counts into a `Tally` what the runner asks of it. Its choices
/// are the inner scheduler's, unchanged.
#[derive(Debug)]
pub struct Counting<S> {
    inner: S,
    tally: Rc<Tally>,
}

impl<S: Scheduler> Counting<S> {
    /// Counts the decisions of `inner` into `tally`.
    pub fn new(inner: S, tally: Rc<Tally>) -> Self {
        Counting { inner, tally }
    }
}

impl<S: Scheduler> Scheduler for Counting<S> {
    fn new_execution(&mut self) -> Option<Schedule> {
        self.tally.close_current();
        let schedule = self.inner.new_execution()?;
        self.tally.executions.set(self.tally.executions.get() + 1);
        self.tally.current.set(Decisions::default());
        self.tally.current_open.set(true);
        Some(schedule)
    }

    fn next_task(
        &mut self,
        runnable_tasks: &[&Task],
        current_task: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        let mut decisions = self.tally.current.get();
        decisions.next_task_calls += 1;
        if runnable_tasks.len() > 1 {
            decisions.choice_points += 1;
        }
        self.tally.current.set(decisions);
        self.inner
            .next_task(runnable_tasks, current_task, is_yielding)
    }

    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }
}
