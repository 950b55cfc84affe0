//! `steps`: how many scheduling decisions shuttle makes in one execution of a program.

use crate::config::config;
use crate::counting::{Counting, Spread, Tally};
use crate::program::Program;
use shuttle::scheduler::{PctScheduler, RandomScheduler, Scheduler};
use shuttle::Runner;
use std::rc::Rc;

/// The scheduler whose executions are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerChoice {
    /// `RandomScheduler`.
    Random,
    /// `PctScheduler` with this bug depth.
    Pct {
        /// PCT's `max_depth`.
        depth: usize,
    },
}

impl SchedulerChoice {
    /// The scheduler's name in CSV rows.
    pub fn name(self) -> &'static str {
        match self {
            SchedulerChoice::Random => "random",
            SchedulerChoice::Pct { .. } => "pct",
        }
    }

    /// The bug depth, for PCT.
    pub fn depth(self) -> Option<usize> {
        match self {
            SchedulerChoice::Random => None,
            SchedulerChoice::Pct { depth } => Some(depth),
        }
    }
}

/// Runs `executions` executions of `program` (which must not fail) and returns the spread of
/// their `next_task` calls and choice points.
pub fn count(program: Program, scheduler: SchedulerChoice, executions: usize, seed: u64) -> Spread {
    match scheduler {
        SchedulerChoice::Random => {
            run_counted(program, RandomScheduler::new_from_seed(seed, executions))
        }
        SchedulerChoice::Pct { depth } => run_counted(
            program,
            PctScheduler::new_from_seed(seed, depth, executions),
        ),
    }
}

fn run_counted<S: Scheduler + 'static>(program: Program, scheduler: S) -> Spread {
    let tally = Rc::new(Tally::default());
    let runner = Runner::new(Counting::new(scheduler, Rc::clone(&tally)), config());
    runner.run(program.test());
    tally.finished()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Assertion;

    /// Shuttle calls `next_task` at every scheduling point: each access to a shared variable,
    /// plus 8 for two threads spawned by a main task: main's first step, 2 spawns, 2 joins and
    /// the exits of main and of both threads. fig02 has 4 accesses (2 reads; a read and a write).
    #[test]
    fn fig02_takes_twelve_decisions_in_every_execution() {
        for scheduler in [SchedulerChoice::Random, SchedulerChoice::Pct { depth: 2 }] {
            let spread = count(Program::Fig02NoAssert, scheduler, 200, 7);
            assert_eq!(spread.executions, 200);
            assert_eq!((spread.next_task_min, spread.next_task_max), (12, 12));
        }
    }

    /// corner_variable has 4 * HOT + 3 accesses (2 * HOT + 2 in reader, 2 * HOT + 1 in
    /// writer), plus the same 8 as fig02: 51 at HOT = 10.
    #[test]
    fn corner_variable_takes_four_hot_plus_eleven_decisions() {
        let program = Program::CornerVariable {
            hot: 10,
            assertion: Assertion::Skipped,
        };
        let spread = count(program, SchedulerChoice::Pct { depth: 2 }, 200, 7);
        assert_eq!((spread.next_task_min, spread.next_task_max), (51, 51));
        assert!(spread.choice_points_max <= 51);
    }

    /// locked_counter has 9 increments of 4 steps (lock, read, write, unlock), main's final
    /// read, and for three threads 3 spawns, 3 joins and 4 exits plus main's first step: 48
    /// when no thread ever blocks, more when a lock or a join has to wait.
    #[test]
    fn locked_counter_takes_at_least_forty_eight_decisions() {
        let spread = count(Program::LockedCounter, SchedulerChoice::Random, 1000, 7);
        assert_eq!(spread.executions, 1000);
        assert_eq!(spread.next_task_min, 48);
        assert!(
            spread.next_task_max > 48,
            "some execution blocked on the mutex"
        );
    }
}
