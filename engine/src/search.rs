//! Running many executions of one program under a strategy and collecting
//! what they found.

use crate::id::ThreadId;
use crate::outcome::{Bug, Outcome};
use crate::scheduler::Scheduler;
use crate::vm::{Limits, Vm};
use crate::Executable;

/// How many executions to run and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Executions to run at most.
    pub runs: u64,
    /// The master seed; run `i` uses [`run_seed`]`(seed, i)`.
    pub seed: u64,
    /// Limits for each execution.
    pub limits: Limits,
    /// Count every failing run instead of stopping at the first.
    pub keep_going: bool,
}

/// A failing execution, with what replays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The execution's number, from 1.
    pub run: u64,
    /// The seed its scheduler was built from.
    pub run_seed: u64,
    /// What went wrong.
    pub bug: Bug,
    /// The choices that lead to it.
    pub schedule: Vec<ThreadId>,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// Executions run.
    pub runs: u64,
    /// Executions that failed.
    pub failures: u64,
    /// The first failing execution.
    pub first_failure: Option<Failure>,
    /// The most scheduling points any execution passed (PCT's `k`).
    pub max_steps: u64,
    /// The most threads any execution had (PCT's `n`).
    pub max_threads: usize,
}

/// The seed of run `run` (0-based) of a search seeded with `seed`: SplitMix64
/// over both, so that runs are independent and any run can be redone alone,
/// whatever order or worker ran it.
pub fn run_seed(seed: u64, run: u64) -> u64 {
    let mut z = seed
        ^ run
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Run up to `config.runs` executions of `exe`, each under the scheduler
/// `make_scheduler(run_seed)` builds. `on_run` is told how many executions
/// are done after each and may stop the search by returning `false` (a time
/// budget, a progress bar).
pub fn search<S, F, P>(
    exe: &Executable,
    config: &SearchConfig,
    mut make_scheduler: F,
    mut on_run: P,
) -> SearchResult
where
    S: Scheduler,
    F: FnMut(u64) -> S,
    P: FnMut(u64) -> bool,
{
    let mut vm = Vm::new(exe, config.limits);
    let mut result = SearchResult::default();
    for run in 0..config.runs {
        let seed = run_seed(config.seed, run);
        let mut scheduler = make_scheduler(seed);
        let outcome = vm.run(&mut scheduler);
        result.runs += 1;
        result.max_threads = result.max_threads.max(vm.n_threads());
        match outcome {
            Outcome::Pass { steps } => result.max_steps = result.max_steps.max(steps),
            Outcome::Bug(bug) => {
                result.max_steps = result.max_steps.max(bug.steps);
                result.failures += 1;
                if result.first_failure.is_none() {
                    result.first_failure = Some(Failure {
                        run: run + 1,
                        run_seed: seed,
                        bug,
                        schedule: vm.schedule().to_vec(),
                    });
                }
                if !config.keep_going {
                    break;
                }
            }
            Outcome::Diverged { .. } => {
                unreachable!("invariant: a search scheduler only chooses enabled threads")
            }
        }
        if !on_run(result.runs) {
            break;
        }
    }
    result
}
