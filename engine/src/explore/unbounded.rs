//! Exploration without a preemption bound: every thread that can run is
//! tried at every scheduling point, depth first, replaying the path from
//! the initial state for each new branch (stateless search with state
//! caching). What it proves is what a model checker proves: no schedule of
//! the program fails.
//!
//! A scheduling point whose happens-before signature was reached before is
//! not explored again: the state is the same, and without a bound the
//! future from a state does not depend on how it was reached. As under
//! priorities, a thread that yielded more than
//! [`crate::priority::SPIN_YIELDS`] times is tried only when nothing else
//! can run, so that spin loops end.

use std::collections::HashSet;

use crate::executable::Executable;
use crate::id::ThreadId;
use crate::outcome::Outcome;
use crate::priority::SPIN_YIELDS;
use crate::scheduler::{EventKind, Point, Scheduler};
use crate::vm::{Vm, VmBuffers};

use super::signature::Signature;
use super::{ExploreConfig, Explored, FoundBug, Monitor, Progress, Stop};

/// A thread chosen for a moment, so that the VM ends a run cut short by
/// pruning: it reports a [`Outcome::Diverged`] naming it.
const PRUNED: ThreadId = ThreadId(u32::MAX);

/// One scheduling point of the current path.
#[derive(Clone, Debug)]
struct Frame {
    /// The thread chosen there.
    choice: ThreadId,
    /// The threads still to try there.
    todo: Vec<ThreadId>,
}

/// Replays the current path, then extends it with new frames.
struct PathScheduler<'p> {
    path: &'p mut Vec<Frame>,
    /// Frames of `path` replayed so far.
    at: usize,
    signature: Signature,
    seen: &'p mut HashSet<u64>,
    prune: bool,
    yields: Vec<u32>,
    pruned: bool,
}

impl Scheduler for PathScheduler<'_> {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(last) = point.last {
            self.signature.record(last, point.accesses);
            if point.event.kind == EventKind::Yield {
                self.signature.record_yield(last);
                if self.yields.len() <= last.index() {
                    self.yields.resize(last.index() + 1, 0);
                }
                self.yields[last.index()] += 1;
            }
        }
        if let Some(frame) = self.path.get(self.at) {
            self.at += 1;
            return frame.choice;
        }
        if self.prune && !self.seen.insert(self.signature.value()) {
            self.pruned = true;
            return PRUNED;
        }
        let spinning = |t: &ThreadId| self.yields.get(t.index()).is_some_and(|&y| y > SPIN_YIELDS);
        let mut choices: Vec<ThreadId> = point
            .enabled
            .iter()
            .copied()
            .filter(|t| !spinning(t))
            .collect();
        if choices.is_empty() {
            choices = point.enabled.to_vec();
        }
        // Lowest id first; the others are tried later, last popped first.
        choices.sort_unstable_by(|a, b| b.cmp(a));
        let Some(choice) = choices.pop() else {
            unreachable!("invariant: a scheduling point has an enabled thread")
        };
        self.path.push(Frame {
            choice,
            todo: choices,
        });
        self.at += 1;
        choice
    }
}

/// Explore every schedule of `exe` (which must observe every site, see
/// [`crate::Instrumentation::observing_all`]). `config.preemptions` and
/// `config.n_threads` do not apply.
pub fn explore_every_schedule(
    exe: &Executable,
    config: &ExploreConfig,
    monitor: &Monitor<'_>,
) -> Explored {
    let mut result = Explored::default();
    let mut path: Vec<Frame> = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut buffers = VmBuffers::default();
    loop {
        if result.schedules >= config.max_schedules {
            result.stop = Some(Stop::Schedules);
            return result;
        }
        let mut scheduler = PathScheduler {
            path: &mut path,
            at: 0,
            signature: Signature::default(),
            seen: &mut seen,
            prune: config.prune,
            yields: Vec::new(),
            pruned: false,
        };
        let mut vm = Vm::with_buffers(exe, config.limits, buffers);
        vm.log_accesses();
        let outcome = vm.run(&mut scheduler);
        let pruned = scheduler.pruned;
        let schedule = vm.schedule().to_vec();
        buffers = vm.into_buffers();
        match outcome {
            Outcome::Diverged { wanted, .. } if wanted == PRUNED && pruned => result.pruned += 1,
            Outcome::Diverged { .. } => {
                unreachable!("invariant: the explorer only chooses enabled threads")
            }
            Outcome::Pass { .. } => result.schedules += 1,
            Outcome::Bug(bug) => {
                result.schedules += 1;
                result
                    .schedules_to_first_bug
                    .get_or_insert(result.schedules);
                result.bugs.push(FoundBug {
                    bug,
                    schedule,
                    order: Vec::new(),
                    preemptions: Vec::new(),
                    change_steps: Vec::new(),
                });
                if !config.finish_bound {
                    return result;
                }
            }
        }
        // Backtrack to the deepest point with a thread still to try.
        while path.last().is_some_and(|f| f.todo.is_empty()) {
            path.pop();
        }
        let Some(frame) = path.last_mut() else {
            // Every schedule ran (with `finish_bound`, every failing one is
            // in `bugs`).
            result.exhausted = true;
            return result;
        };
        if let Some(choice) = frame.todo.pop() {
            frame.choice = choice;
        }
        let memory = (seen.capacity() * 9
            + path
                .iter()
                .map(|f| 32 + 4 * f.todo.capacity())
                .sum::<usize>()) as u64;
        if memory > config.max_memory {
            result.stop = Some(Stop::Memory(memory));
            return result;
        }
        if (result.schedules + result.pruned) % 256 == 0 {
            let progress = Progress {
                schedules: result.schedules,
                pruned: result.pruned,
                items_left: path.iter().map(|f| f.todo.len() as u64).sum(),
                bound: 0,
                memory,
            };
            if !monitor(&progress) {
                result.stop = Some(Stop::Interrupted);
                return result;
            }
        }
    }
}
