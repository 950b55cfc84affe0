//! Exploration without a preemption bound: every schedule of a `.rk`
//! program, by the depth-first search of [`super::dfs`] on the VM. What
//! it proves is what a model checker proves: no schedule of the program
//! fails.
//!
//! It prunes by state caching: the VM logs every access of every step
//! ([`crate::Vm::log_accesses`]), so a scheduling point whose
//! happens-before signature was reached before has the same state, and
//! without a bound the future from a state does not depend on how it was
//! reached. A pruned run is stopped at once (the VM's threads are data).
//! As under priorities, a thread that yielded more than
//! [`crate::priority::SPIN_YIELDS`] times is tried only when nothing else
//! can run, so that spin loops end.

use crate::executable::Executable;
use crate::id::ThreadId;
use crate::outcome::Outcome;
use crate::priority::SPIN_YIELDS;
use crate::scheduler::{EventKind, Point, Scheduler};
use crate::vm::{Limits, Vm, VmBuffers};

use super::dfs::{self, Ending, Pruning, Runner, SearchPath};
use super::footprint::Touch;
use super::{ExploreConfig, Explored, FoundBug, Monitor};

/// Runs a program on the VM, one machine's buffers reused from run to
/// run, keeping its failing runs.
struct VmRunner<'e> {
    exe: &'e Executable,
    limits: Limits,
    buffers: VmBuffers,
    bugs: Vec<FoundBug>,
}

impl Runner for VmRunner<'_> {
    fn run(&mut self, path: &mut SearchPath) -> Ending {
        let buffers = std::mem::take(&mut self.buffers);
        let mut vm = Vm::with_buffers(self.exe, self.limits, buffers);
        vm.log_accesses();
        let ending = match vm.run(&mut OnPath(path)) {
            Outcome::Pass { .. } => Ending::Passed,
            Outcome::Bug(bug) => {
                self.bugs.push(FoundBug {
                    bug,
                    schedule: vm.schedule().to_vec(),
                    order: Vec::new(),
                    preemptions: Vec::new(),
                    change_steps: Vec::new(),
                });
                Ending::Failed
            }
            Outcome::Diverged { .. } => Ending::Cut,
        };
        // The last step's accesses are not told: the search then takes it
        // to have touched everything, which costs state caching nothing
        // (it never compares steps) and keeps sleep sets sound.
        self.buffers = vm.into_buffers();
        ending
    }

    fn stops_cheaply(&self) -> bool {
        true
    }
}

/// The VM's scheduler on the search's path: tells it each step's accesses
/// and yields, and takes its choices.
struct OnPath<'p>(&'p mut SearchPath);

impl Scheduler for OnPath<'_> {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(last) = point.last {
            self.0.stepped(last, point.accesses.iter().map(Touch::from));
            if point.event.kind == EventKind::Yield {
                self.0.yielded(last);
            }
        }
        self.0.choose(point)
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
    let mut runner = VmRunner {
        exe,
        limits: config.limits,
        buffers: VmBuffers::default(),
        bugs: Vec::new(),
    };
    let settings = dfs::Settings {
        pruning: if config.prune {
            Pruning::States
        } else {
            Pruning::None
        },
        preemption_bound: None,
        spin_yields: Some(SPIN_YIELDS),
        max_schedules: config.max_schedules,
        max_memory: config.max_memory,
        stop_at_first_failure: !config.finish_bound,
        // Its states pruning already makes a schedule of each state; the
        // context-bounded search (`bounded`) is the one by preemptions.
        deepening: None,
    };
    let searched = dfs::search(&mut runner, &settings, monitor);
    if let Some(parted) = searched.parted {
        unreachable!("invariant: the VM runs a function of its schedule ({parted:?})")
    }
    Explored {
        schedules: searched.schedules,
        schedules_to_first_bug: searched.first_failure,
        pruned: searched.pruned,
        // Stopped at its first bug, it covered no proof even if that was
        // its last schedule.
        exhausted: searched.exhausted && (config.finish_bound || runner.bugs.is_empty()),
        bugs: runner.bugs,
        completed_bound: None,
        stop: searched.stop,
        more_threads: None,
    }
}
