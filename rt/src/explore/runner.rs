//! The executor as the runner of the engine's depth-first search
//! (`rankcheck_engine::explore::dfs`): each run a run of the test's
//! closure with every object tracked and no wait ending early, its
//! scheduler and read choices the search's path, each step's touches
//! those the executor logged (crate::footprint). It keeps the distinct
//! failures and the first failing run's replay string.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use rankcheck_engine::explore::dfs::{Ending, Runner, SearchPath};
use rankcheck_engine::explore::Place;
use rankcheck_engine::{Point, Scheduler, ThreadId, VarId};

use crate::executor::{RunConfig, RunResult, Session, StepLimit, Test, Tracking};
use crate::failure::{Failure, FailureKind};
use crate::footprint::StepLog;
use crate::memory::choice::{ReadOracle, ReadPolicy};
use crate::memory::MemoryModel;
use crate::replay_string::ReplayString;
use crate::wake::WakeChoices;

use super::{FailingRun, Reached};

/// Runs a test on one session, for the search.
pub(super) struct OnExecutor {
    session: Session,
    test: Test,
    steps: StepLimit,
    model: MemoryModel,
    /// Whether a weak compare-exchange may fail spuriously.
    spurious_cas: bool,
    /// The search's path while a run goes: the executor takes its
    /// scheduler by value and keeps the read choices' oracle, both of
    /// which walk it.
    path: Rc<RefCell<SearchPath>>,
    /// What the executor logs the running step's touches into.
    log: StepLog,
    /// The distinct failures of the schedules run.
    pub(super) failures: BTreeSet<Reached>,
    /// The first schedule that failed.
    pub(super) first_failing: Option<FailingRun>,
}

impl OnExecutor {
    /// Runs `test`, at most `steps` operations a run, under `model`, its
    /// weak compare-exchanges failing spuriously as `spurious_cas` says.
    pub(super) fn new(
        test: Test,
        steps: StepLimit,
        model: MemoryModel,
        spurious_cas: bool,
    ) -> OnExecutor {
        OnExecutor {
            session: Session::new(),
            test,
            steps,
            model,
            spurious_cas,
            path: Rc::default(),
            log: StepLog::default(),
            failures: BTreeSet::new(),
            first_failing: None,
        }
    }

    /// How the run that gave `result`, schedule `schedule`, ended; its
    /// failure kept.
    fn ending(&mut self, result: &RunResult, schedule: u64) -> Ending {
        match &result.failure {
            // The executor stopped at the point whose choice could not run.
            Some(f) if f.kind == FailureKind::Diverged => Ending::Cut,
            Some(f) => {
                self.failures.insert(reached(f));
                self.first_failing.get_or_insert_with(|| FailingRun {
                    schedule,
                    replay: replay_of(result, self.model, self.steps.cell_points),
                });
                Ending::Failed
            }
            None => Ending::Passed,
        }
    }
}

impl Runner for OnExecutor {
    fn run(&mut self, path: &mut SearchPath) -> Ending {
        std::mem::swap(path, &mut *self.path.borrow_mut());
        let config = RunConfig {
            tracking: Tracking::All,
            steps: self.steps,
            trace: false,
            // No wait ends early: the run is a function of its schedule.
            wakes: WakeChoices::Replay(Vec::new()),
            memory: self.model,
            reads: ReadPolicy::Oracle(Rc::new(RefCell::new(Reads(self.path.clone())))),
            spurious_cas: self.spurious_cas,
            footprint: Some(self.log.clone()),
        };
        self.log.borrow_mut().touches.clear();
        let scheduler = OnPath {
            path: self.path.clone(),
            log: self.log.clone(),
        };
        let (result, mut scheduler) = self.session.run(&self.test, scheduler, config);
        // The last step ends the run with no point after it.
        if let Some(&last) = result.schedule.last() {
            scheduler.tell(last);
        }
        std::mem::swap(path, &mut *self.path.borrow_mut());
        self.ending(&result, path.schedule())
    }

    fn stops_cheaply(&self) -> bool {
        // Stopping a run unwinds its threads' stacks, which costs more
        // than finishing it.
        false
    }
}

/// The executor's scheduler on the search's path: tells it what each step
/// touched, and takes its choices.
struct OnPath {
    path: Rc<RefCell<SearchPath>>,
    log: StepLog,
}

impl OnPath {
    /// Tell the path what `thread`'s step touched, and start the next
    /// step's log.
    fn tell(&mut self, thread: ThreadId) {
        let mut log = self.log.borrow_mut();
        let mut path = self.path.borrow_mut();
        path.stepped(thread, log.touches.iter().copied());
        log.touches.clear();
    }
}

impl Scheduler for OnPath {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(last) = point.last {
            self.tell(last);
        }
        self.path.borrow_mut().choose(point)
    }
}

/// The read choices of a run of the search: the path's.
struct Reads(Rc<RefCell<SearchPath>>);

impl ReadOracle for Reads {
    fn choose(&mut self, atomic: VarId, options: usize) -> usize {
        self.0.borrow_mut().read(Place::Memory(atomic.0), options)
    }
}

/// The replay string of a run of the exploration: every object tracked,
/// no wait ended early, its read choices and schedule.
fn replay_of(result: &RunResult, memory: MemoryModel, cell_points: bool) -> String {
    ReplayString {
        tracking: Tracking::All,
        early: result.early.clone(),
        memory,
        cell_points,
        reads: result.reads.clone(),
        schedule: result.schedule.clone(),
    }
    .encode()
}

/// A failure as the exploration reports it.
fn reached(failure: &Failure) -> Reached {
    let mut blocked: Vec<(String, u32)> = failure
        .blocked
        .iter()
        .map(|b| (b.at.file.clone(), b.at.line))
        .collect();
    blocked.sort_unstable();
    Reached {
        kind: failure.kind.name(),
        message: failure.message.clone(),
        file: failure.location.as_ref().map(|at| at.file.clone()),
        line: failure.location.as_ref().map(|at| at.line),
        blocked,
    }
}
