//! Running many executions of one program under a strategy, on one or
//! more worker threads, and collecting what they found.
//!
//! Workers take runs in chunks, and run `i` is seeded with
//! [`run_seed`]`(seed, i)` whoever runs it, so the result does not depend
//! on the number of workers. Each worker keeps one [`Vm`] (its buffers in
//! place) for as long as its runs share an executable, and hands the
//! buffers to a new one when a run tracks another set. Its machines record
//! no schedule ([`Vm::record_schedule`]): a failing run, which
//! `Strategy::prepare` makes again from its number and seed, is redone
//! with one.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::id::ThreadId;
use crate::outcome::{Bug, Outcome};
use crate::strategy::{Executables, Plan, PlanRunner, Strategy};
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

/// Run `run` (seeded `seed`) again on `vm`, recording its schedule: the
/// search runs without (see [`Vm::record_schedule`]) and redoes the few
/// failing runs. The strategy prepares the same scheduler for the same run
/// and `vm` keeps the run's executable, so the execution is the same one.
fn redo_recorded<St: Strategy>(strategy: &mut St, vm: &mut Vm<'_>, run: u64, seed: u64) -> Outcome {
    let (_, mut scheduler) = strategy.prepare(run, seed);
    vm.record_schedule(true);
    let outcome = vm.run(&mut scheduler);
    vm.record_schedule(false);
    outcome
}

/// Whether a failure of execution `number` (from 1) is lower than the one
/// `found` keeps (the lowest failing run so far, if any).
fn lowest_yet(found: &[Failure], number: u64) -> bool {
    found.first().is_none_or(|f| f.run > number)
}

/// Executions handed to a worker at a time: large enough that taking them
/// costs nothing, small enough that workers stay busy to the end.
const CHUNK: u64 = 64;

/// [`search`] over the strategy of `plan`, whatever its kind.
pub fn search_plan(
    plan: &Plan,
    executables: &Executables,
    config: &SearchConfig,
    keep_running: &(dyn Fn(u64) -> bool + Sync),
) -> SearchResult {
    plan.run(Searcher {
        executables,
        config,
        keep_running,
    })
}

/// [`search`]'s arguments but the strategy, which the plan hands over.
struct Searcher<'a> {
    executables: &'a Executables,
    config: &'a SearchConfig,
    keep_running: &'a (dyn Fn(u64) -> bool + Sync),
}

impl PlanRunner for Searcher<'_> {
    type Output = SearchResult;

    fn run<St: Strategy>(self, strategy: &St) -> SearchResult {
        search(strategy, self.executables, self.config, self.keep_running)
    }
}

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
        let mut claims = Claims {
            next: &next,
            stop_at: &stop_at,
            stopped: &stopped,
            done: &done,
            keep_running,
            runs: config.runs,
            chunk: None,
            current: 0,
            over: false,
        };
        let record = |run: u64, seed: u64, outcome: Outcome, vm: &Vm<'_>| match outcome {
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
                    stop_at.fetch_min(run - config.first_run + 1, Ordering::Relaxed);
                }
                // Only the lowest failing run is kept; the others are
                // counted.
                if lowest_yet(&found, failure.run) {
                    found.clear();
                    found.push(failure);
                }
            }
            Outcome::Diverged { .. } => {
                unreachable!("invariant: a strategy's scheduler only chooses enabled threads")
            }
        };
        // Whether run `run` (0-based) failing would be the lowest failing
        // run found yet (the lowest only goes down).
        let lowest_failure_so_far = |run: u64| {
            let found = failures
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            lowest_yet(&found, run + 1)
        };
        let mut buffers = VmBuffers::default();
        let mut upcoming = claims.next().map(|offset| {
            let (run, seed) = numbered(config, offset);
            let (tracked, scheduler) = strategy.prepare(run, seed);
            (run, seed, scheduler, executables.get(tracked).clone())
        });
        // One machine for as long as the runs share an executable: building
        // one per run moved the whole machine in and out at every run.
        while let Some((mut run, mut seed, mut scheduler, exe)) = upcoming.take() {
            let mut vm = Vm::with_buffers(&exe, config.limits, buffers);
            vm.record_schedule(false);
            loop {
                let outcome = match vm.run(&mut scheduler) {
                    // Only the lowest failing run is reported: a higher one
                    // (under --keep-going) is counted without its schedule.
                    Outcome::Bug(_) if lowest_failure_so_far(run) => {
                        redo_recorded(&mut strategy, &mut vm, run, seed)
                    }
                    outcome => outcome,
                };
                record(run, seed, outcome, &vm);
                let Some(offset) = claims.next() else { break };
                let (next_run, next_seed) = numbered(config, offset);
                let (tracked, next_scheduler) = strategy.prepare(next_run, next_seed);
                let next_exe = executables.get(tracked);
                if !Arc::ptr_eq(next_exe, &exe) {
                    upcoming = Some((next_run, next_seed, next_scheduler, next_exe.clone()));
                    break;
                }
                (run, seed, scheduler) = (next_run, next_seed, next_scheduler);
            }
            buffers = vm.into_buffers();
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

/// Run `offset` of a search: its number and its seed.
fn numbered(config: &SearchConfig, offset: u64) -> (u64, u64) {
    let run = config.first_run + offset;
    (run, run_seed(config.seed, run))
}

/// The runs one worker of a search takes, a chunk at a time, and the
/// counting of those it finished.
struct Claims<'s> {
    /// The first run no worker has taken.
    next: &'s AtomicU64,
    /// Runs at or above this are not started.
    stop_at: &'s AtomicU64,
    stopped: &'s AtomicBool,
    /// Runs finished by every worker, counted once a chunk.
    done: &'s AtomicU64,
    keep_running: &'s (dyn Fn(u64) -> bool + Sync),
    runs: u64,
    /// The chunk being run (none before the first) and its next run.
    chunk: Option<Range<u64>>,
    current: u64,
    /// Whether the search is over for this worker.
    over: bool,
}

impl Claims<'_> {
    /// The next run (0-based) for this worker, every run handed out before
    /// being finished; `None` when the search is over for it.
    fn next(&mut self) -> Option<u64> {
        while !self.over {
            if let Some(chunk) = &self.chunk {
                let (start, end) = (chunk.start, chunk.end);
                if self.current < end {
                    let offset = self.current;
                    if offset >= self.stop_at.load(Ordering::Relaxed)
                        || self.stopped.load(Ordering::Relaxed)
                    {
                        self.done.fetch_add(offset - start, Ordering::Relaxed);
                        self.over = true;
                        return None;
                    }
                    self.current += 1;
                    return Some(offset);
                }
                // Shared counters are touched once a chunk, not once a run,
                // so that workers do not fight over their cache line.
                let finished = self.current - start;
                let total = self.done.fetch_add(finished, Ordering::Relaxed) + finished;
                if !(self.keep_running)(total) {
                    self.stopped.store(true, Ordering::Relaxed);
                }
                if end >= self.runs {
                    self.over = true;
                    return None;
                }
            }
            let start = self.next.fetch_add(CHUNK, Ordering::Relaxed);
            let end = start.saturating_add(CHUNK).min(self.runs);
            self.chunk = Some(start..end);
            self.current = start;
        }
        None
    }
}
