//! `pct-until-bug`: executions that shuttle's PCT scheduler needs to find the bug of
//! `corner_variable.rk`, one seed at a time.

use crate::config::{config, panic_message};
use crate::counting::{Counting, Tally};
use crate::program::{Assertion, Program, CORNER_VARIABLE_MESSAGE};
use shuttle::scheduler::PctScheduler;
use shuttle::Runner;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

/// One PCT search: a seed, a bug depth and a bound on executions.
#[derive(Clone, Copy, Debug)]
pub struct Hunt {
    /// `HOT` of `corner_variable.rk`.
    pub hot: u32,
    /// PCT's bug depth d (`max_depth`): d - 1 priority change points per execution.
    pub depth: usize,
    /// The seed of the PCT scheduler.
    pub seed: u64,
    /// The most executions to run before giving up.
    pub cap: usize,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The assertion failed in the `executions`-th execution (counting from 1).
    Bug {
        /// Executions run, the failing one included.
        executions: u64,
    },
    /// `cap` executions ran and none failed.
    Cap {
        /// Executions run: the cap.
        executions: u64,
    },
}

impl Hunt {
    /// Runs PCT on `corner_variable.rk` until its assertion fails or the cap is reached.
    ///
    /// Shuttle's PCT runs its first execution oldest-task-first, to learn how many steps an
    /// execution takes; that execution counts here like any other. Panics must be silenced by
    /// the caller (`QuietPanics`) for a quiet run.
    pub fn run(self) -> Result<Outcome, String> {
        let tally = Rc::new(Tally::default());
        let scheduler = Counting::new(
            PctScheduler::new_from_seed(self.seed, self.depth, self.cap),
            Rc::clone(&tally),
        );
        let runner = Runner::new(scheduler, config());
        let program = Program::CornerVariable {
            hot: self.hot,
            assertion: Assertion::Checked,
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| runner.run(program.test())));
        let executions = tally.executions();
        match result {
            Ok(_) => Ok(Outcome::Cap { executions }),
            Err(payload) => match panic_message(payload.as_ref()) {
                Some(message) if message == CORNER_VARIABLE_MESSAGE => {
                    Ok(Outcome::Bug { executions })
                }
                message => Err(format!(
                    "seed {} failed with something other than the assertion: {}",
                    self.seed,
                    message.unwrap_or("(a panic without a message)")
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At HOT = 1 an execution has at most 15 decisions, so once PCT has seen the longest
    /// execution it finds the bug with p >= (2/3) / 14 per execution (the reader must outrank
    /// the main task or the writer, 2/3 of the priority orders, and the one change point must
    /// fall between the two reads of cold); 10,000 executions miss with p < 10^-200. The seeds
    /// are fixed, so the outcome is too.
    #[test]
    fn pct_finds_the_corner_variable_bug_at_small_hot() {
        for seed in 0..5 {
            let hunt = Hunt {
                hot: 1,
                depth: 2,
                seed,
                cap: 10_000,
            };
            match hunt.run() {
                Ok(Outcome::Bug { executions }) => assert!(
                    executions >= 2,
                    "the first execution is oldest-first and passes"
                ),
                other => panic!("seed {seed}: expected the bug, got {other:?}"),
            }
        }
    }

    /// With depth 1 PCT makes no priority change, and without one no execution fails: the
    /// thread that first runs goes on to the end. The cap is then reported as such.
    #[test]
    fn depth_one_reaches_the_cap() {
        let hunt = Hunt {
            hot: 1,
            depth: 1,
            seed: 0,
            cap: 500,
        };
        assert_eq!(hunt.run(), Ok(Outcome::Cap { executions: 500 }));
    }
}
