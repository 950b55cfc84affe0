//! A whole machine state between two steps: every thread and the shared
//! memory. It is plain data, so the model checkers clone, compare and hash
//! it. This module also answers docs/LANGUAGE.md "Which threads can run".

use crate::condition::evaluate_condition;
use crate::failure::{Failure, Kind};
use crate::memory::Memory;
use crate::program::Program;
use crate::thread::{Blocker, Status, Thread};
use crate::value::Value;

/// All threads and the shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Machine {
    /// Threads by id: thread `k` is `threads[k]`.
    pub threads: Vec<Thread>,
    /// Shared memory.
    pub memory: Memory,
}

/// Counts operations against a limit: scheduling points, loop iterations and
/// calls, as docs/LANGUAGE.md's step limit does.
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    /// Operations so far.
    pub used: u64,
    /// More than this many is a step-limit failure.
    pub limit: u64,
}

/// How many operations evaluating a blocked thread's `await` condition may
/// take when the scheduler asks whether the thread can run. Past it the
/// condition counts as failing, so the thread can run and, once chosen,
/// reports the step limit itself.
const CONDITION_PROBE_LIMIT: u64 = 100_000;

impl Meter {
    /// A meter allowing `limit` operations.
    pub fn new(limit: u64) -> Meter {
        Meter { used: 0, limit }
    }

    /// Counts one operation; false once past the limit.
    pub fn tick(&mut self) -> bool {
        self.used += 1;
        self.used <= self.limit
    }
}

impl Machine {
    /// The state before the first scheduling point.
    pub fn start(program: &Program) -> Machine {
        let threads = program
            .initial_threads
            .iter()
            .enumerate()
            .map(|(id, start)| Thread::new(program, id as u32, start.function, &start.args))
            .collect();
        Machine {
            threads,
            memory: Memory::new(program),
        }
    }

    /// Whether thread `tid` can run (docs/LANGUAGE.md "Which threads can run").
    pub fn can_run(&self, program: &Program, tid: usize) -> bool {
        match &self.threads[tid].status {
            Status::Ready => true,
            Status::Finished => false,
            Status::Blocked(blocker) => match blocker {
                Blocker::Lock { mutex, .. } | Blocker::Reacquire { mutex, .. } => {
                    self.memory.owner(*mutex).is_none()
                }
                Blocker::Wait { .. } => false,
                Blocker::Join { thread, .. } => self.threads[*thread as usize].is_finished(),
                Blocker::Await { cond, .. } => {
                    let mut probe = Meter::new(CONDITION_PROBE_LIMIT);
                    let outcome = evaluate_condition(program, self, tid, *cond, &mut probe);
                    !matches!(outcome, Ok((Value::Bool(false), _)))
                }
            },
        }
    }

    /// The ids of the threads that can run, in increasing order.
    pub fn enabled(&self, program: &Program) -> Vec<u32> {
        (0..self.threads.len())
            .filter(|&tid| self.can_run(program, tid))
            .map(|tid| tid as u32)
            .collect()
    }

    /// The threads blocked in `await` whose condition is false now.
    pub fn sleeping_awaiters(&self, program: &Program) -> Vec<usize> {
        (0..self.threads.len())
            .filter(|&tid| {
                let awaiting = matches!(
                    self.threads[tid].status,
                    Status::Blocked(Blocker::Await { .. })
                );
                awaiting && !self.can_run(program, tid)
            })
            .collect()
    }

    /// The deadlock failure of a state where no thread can run, or `None` if
    /// every thread has finished.
    pub fn deadlock(&self) -> Option<Failure> {
        let blocked: Vec<(u32, u32)> = self
            .threads
            .iter()
            .filter_map(|thread| match &thread.status {
                Status::Blocked(blocker) => Some((thread.id, blocker.line())),
                Status::Ready | Status::Finished => None,
            })
            .collect();
        let &(thread, line) = blocked.first()?;
        Some(Failure {
            kind: Kind::Deadlock,
            thread,
            line,
            message: None,
            blocked,
        })
    }
}
