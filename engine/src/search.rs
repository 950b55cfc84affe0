//! Running many executions of one program under a strategy, on one or
//! more worker threads, and collecting what they found.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::id::ThreadId;
use crate::outcome::{Bug, Outcome};
use crate::strategy::{Executables, Strategy};
use crate::vm::{Limits, Vm, VmBuffers};

/// How many executions to run and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// The index of the first run (0 for a search on its own). A campaign
    /// gives every night and shard its own range of one seed stream, so
    /// that all their runs are independent draws.
    pub first_run: u64,
    /// Executions to run at most: runs `first_run..first_run + runs`.
    pub runs: u64,
    /// The master seed; run `i` uses [`run_seed`]`(seed, i)`.
    pub seed: u64,
    /// Limits for each execution.
    pub limits: Limits,
    /// Count every failing run instead of stopping at the first.
    pub keep_going: bool,
    /// Worker threads.
    pub jobs: usize,
}

/// A failing execution, with what replays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The execution's number, from 1: its run index plus one.
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
    /// Executions run. Without `keep_going`, a search that failed counts the
    /// runs up to and including the first failing one, whichever worker ran
    /// what.
    pub runs: u64,
    /// Executions that failed.
    pub failures: u64,
    /// The failing execution with the lowest number.
    pub first_failure: Option<Failure>,
    /// Whether `keep_running` stopped the search early (a time budget).
    pub stopped: bool,
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

/// Executions handed to a worker at a time: large enough that taking them
/// costs nothing, small enough that workers stay busy to the end.
const CHUNK: u64 = 64;

/// Run up to `config.runs` executions on `config.jobs` workers, run `i`
/// (from `config.first_run`) prepared by `strategy.prepare(i, run_seed(seed,
/// i))` and run on the executable of `executables` that tracks what it
/// asks. `keep_running` is
/// told how many executions are done after every chunk of them and may stop
/// the search by returning `false` (a time budget, a progress bar).
///
/// The result does not depend on the number of workers unless
/// `keep_running` stops the search: every run below the first failing one
/// is run, and the first failure is the failing run with the lowest number.
pub fn search<St: Strategy>(
    strategy: &St,
    executables: &Executables,
    config: &SearchConfig,
    keep_running: &(dyn Fn(u64) -> bool + Sync),
) -> SearchResult {
    let next = AtomicU64::new(0);
    // Runs numbered (0-based) at or above this are not started.
    let stop_at = AtomicU64::new(config.runs);
    let done = AtomicU64::new(0);
    let stopped = AtomicBool::new(false);
    let failures: Mutex<Vec<Failure>> = Mutex::new(Vec::new());
    let failure_count = AtomicU64::new(0);

    let worker = || {
        let mut strategy = strategy.clone();
        let mut executables = executables.clone();
        let mut buffers = VmBuffers::default();
        let mut finished = 0;
        'chunks: loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            let end = start.saturating_add(CHUNK).min(config.runs);
            for offset in start..end {
                if offset >= stop_at.load(Ordering::Relaxed) || stopped.load(Ordering::Relaxed) {
                    done.fetch_add(finished, Ordering::Relaxed);
                    break 'chunks;
                }
                let run = config.first_run + offset;
                let seed = run_seed(config.seed, run);
                let (tracked, mut scheduler) = strategy.prepare(run, seed);
                let exe = executables.get(tracked);
                let mut vm = Vm::with_buffers(exe, config.limits, buffers);
                match vm.run(&mut scheduler) {
                    Outcome::Pass { .. } => {}
                    Outcome::Bug(bug) => {
                        failure_count.fetch_add(1, Ordering::Relaxed);
                        let failure = Failure {
                            run: run + 1,
                            run_seed: seed,
                            bug,
                            schedule: vm.schedule().to_vec(),
                        };
                        let mut found = failures
                            .lock()
                            .unwrap_or_else(|poisoned| poisoned.into_inner());
                        if !config.keep_going {
                            stop_at.fetch_min(offset + 1, Ordering::Relaxed);
                        }
                        // Only the lowest failing run is kept; the others
                        // are counted.
                        if found.first().is_none_or(|f| f.run > failure.run) {
                            found.clear();
                            found.push(failure);
                        }
                    }
                    Outcome::Diverged { .. } => {
                        unreachable!(
                            "invariant: a strategy's scheduler only chooses enabled threads"
                        )
                    }
                }
                buffers = vm.into_buffers();
                finished += 1;
            }
            // Shared counters are touched once a chunk, not once a run, so
            // that workers do not fight over their cache line.
            let total = done.fetch_add(finished, Ordering::Relaxed) + finished;
            finished = 0;
            if !keep_running(total) {
                stopped.store(true, Ordering::Relaxed);
            }
            if end >= config.runs {
                break;
            }
        }
    };
    if config.jobs <= 1 {
        worker();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..config.jobs {
                scope.spawn(worker);
            }
        });
    }

    let mut found = failures
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    found.sort_by_key(|f| f.run);
    let stopped = stopped.into_inner();
    let first_failure = found.into_iter().next();
    let runs = match (&first_failure, config.keep_going, stopped) {
        (Some(first), false, false) => first.run - config.first_run,
        (None, _, false) | (_, true, false) => config.runs,
        (_, _, true) => done.into_inner(),
    };
    let failures = if config.keep_going {
        failure_count.into_inner()
    } else {
        u64::from(first_failure.is_some())
    };
    SearchResult {
        runs,
        failures,
        first_failure,
        stopped,
    }
}
