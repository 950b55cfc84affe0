//! The whole pipeline on any program that compiles: preparatory runs, a
//! few PCT and random executions, an exhaustive exploration at one
//! preemption, and the replay of every failing schedule, all under small
//! limits. Nothing panics, every schedule the engine chose replays to the
//! same outcome, and exploration with and without pruning agrees on
//! whether a bug exists.
#![no_main]

use std::collections::HashSet;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use rankcheck_engine::explore::{all_orders, explore, ExploreConfig};
use rankcheck_engine::profile::profile;
use rankcheck_engine::{
    Executable, Instrumentation, Limits, Outcome, PriorityScheduler, PriorityScheme,
    RandomScheduler, ReplayScheduler, Scheduler, Vm,
};

const LIMITS: Limits = Limits {
    max_steps: 5_000,
    max_call_depth: 200,
    max_threads: 16,
    max_heap_slots: 4_096,
};

/// Run under `scheduler`, then replay the schedule it made: same outcome.
fn run_and_replay(exe: &Executable, scheduler: &mut impl Scheduler) {
    let mut vm = Vm::new(exe, LIMITS);
    let first = vm.run(scheduler);
    let schedule = vm.schedule().to_vec();
    let again = Vm::new(exe, LIMITS).run(&mut ReplayScheduler::new(&schedule));
    assert_eq!(first, again, "a schedule replays to the same outcome");
}

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = rankcheck_instr::compile(source, &[]) else {
        return;
    };
    let program = Arc::new(program);
    let all = Executable::new(program.clone(), &Instrumentation::all(&program));
    let seen = profile(&all, 4, 1, LIMITS);
    if seen.max_threads > 6 {
        return;
    }
    for seed in 0..4 {
        run_and_replay(&all, &mut RandomScheduler::new(seed));
        let mut pct = PriorityScheduler::new(
            seed,
            PriorityScheme::Pct,
            3,
            seen.max_threads,
            seen.max_accesses.max(1),
        );
        run_and_replay(&all, &mut pct);
    }
    let explored_exe = Executable::new(
        program.clone(),
        &Instrumentation::all(&program).observing_all(),
    );
    let orders = all_orders(seen.max_threads + 1);
    let config = |prune| ExploreConfig {
        preemptions: 1,
        n_threads: seen.max_threads,
        limits: LIMITS,
        prune,
        finish_bound: false,
        max_schedules: 2_000,
        max_memory: 64 << 20,
        jobs: 1,
    };
    let pruned = explore(&explored_exe, &orders, &config(true), &mut HashSet::new(), &|_| true);
    let full = explore(&explored_exe, &orders, &config(false), &mut HashSet::new(), &|_| true);
    // Each stops at its first bug; both finished unless a cap stopped one.
    let finished = |e: &rankcheck_engine::explore::Explored| e.exhausted || !e.bugs.is_empty();
    if finished(&pruned) && finished(&full) {
        assert_eq!(
            pruned.bugs.is_empty(),
            full.bugs.is_empty(),
            "pruning finds a bug exactly when the full exploration does"
        );
    }
    for bug in pruned.bugs.iter().chain(&full.bugs) {
        let outcome = Vm::new(&explored_exe, LIMITS).run(&mut ReplayScheduler::new(&bug.schedule));
        assert!(matches!(outcome, Outcome::Bug(_)), "an explored bug replays");
    }
});
