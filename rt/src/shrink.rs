//! Shrinking a failing run's schedule before it is reported: the engine's
//! search (`rankcheck_engine::shrink`), each candidate a run of the test's
//! closure on the executor under the failing run's tracking. A run fails
//! the same way when its failure has the same kind and place and its
//! message reads the same with the run's values masked.

use std::time::{Duration, Instant};

use crate::executor::{RunConfig, Session, StepLimit, Test};
use crate::failure::Failure;
use crate::memory::choice::ReadPolicy;
use crate::replay_string::ReplayString;
use crate::wake::WakeChoices;
use rankcheck_engine::identity::masked;
use rankcheck_engine::shrink::{shrink, shrink_from, Decisions, Guided, Replayer, Shrunk};

/// Replays candidates on the executor until a deadline.
struct RunReplayer<'s> {
    session: &'s mut Session,
    test: &'s Test,
    replay: &'s ReplayString,
    steps: StepLimit,
    failure: &'s Failure,
    deadline: Instant,
}

/// Whether `other` is the failure `failure` is: the same kind and place,
/// and a message that reads the same with the run's values masked.
pub fn fails_the_same(other: &Failure, failure: &Failure) -> bool {
    other.kind == failure.kind
        && other.location == failure.location
        && masked(&other.message) == masked(&failure.message)
}

impl Replayer for RunReplayer<'_> {
    fn out_of_time(&mut self) -> bool {
        Instant::now() >= self.deadline
    }

    fn replay_anyway(&mut self, guided: &mut Guided) -> bool {
        let config = RunConfig {
            tracking: self.replay.tracking.clone(),
            // Cells are scheduling points as they were in the failing run.
            steps: StepLimit {
                cell_points: self.replay.cell_points,
                ..self.steps
            },
            trace: false,
            wakes: WakeChoices::Replay(self.replay.early.clone()),
            memory: self.replay.memory,
            reads: ReadPolicy::Replay(self.replay.reads.clone()),
            spurious_cas: true,
            footprint: None,
        };
        let run = std::mem::replace(guided, Guided::decisions(Decisions::new()));
        let (result, run) = self.session.run(self.test, run, config);
        *guided = run;
        let failure = result.failure.as_ref();
        failure.is_some_and(|f| fails_the_same(f, self.failure))
    }
}

/// Shrink the schedule of `replay`, whose run of `test` failed with
/// `failure`, for at most `budget`: from `first`, a rerun of that schedule
/// under a [`Guided`] scheduler that failed the same way
/// ([`fails_the_same`]), else from a replay of it; `None` when that does
/// not fail the same way. Its tracking and early wake-ups stay as they
/// are.
pub fn shrink_run(
    session: &mut Session,
    test: &Test,
    (replay, steps): (&ReplayString, StepLimit),
    (failure, first): (&Failure, Option<Guided>),
    budget: Duration,
) -> Option<Shrunk> {
    let mut replayer = RunReplayer {
        session,
        test,
        replay,
        steps,
        failure,
        deadline: Instant::now() + budget,
    };
    match first {
        Some(first) => Some(shrink_from(first, &mut replayer)),
        None => shrink(&replay.schedule, &mut replayer),
    }
}
