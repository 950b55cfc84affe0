//! A search keeps one machine per worker while the executable stays the
//! same, and hands its buffers to a new one when a run tracks other
//! variables: that must change nothing a user sees. Every example, under
//! PCTVB (a set of variables drawn per run, so the executable changes from
//! run to run) and under random (one executable throughout), finds the
//! same failures as running each run alone on a fresh machine.

use std::sync::Arc;

use rankcheck_engine::search::run_seed;
use rankcheck_engine::strategy::{Instrumenter, PrioritySetting, VarSelection};
use rankcheck_engine::{
    search, Executables, Instrumentation, Limits, Outcome, PriorityScheme, PriorityStrategy,
    Program, RandomStrategy, SearchConfig, Strategy, ThreadId, Vm,
};
use rankcheck_instr::compile;

mod common;

const RUNS: u64 = 150;

/// PCTVB with depth 2, one variable drawn per run from all of them.
fn pctvb(program: &Program) -> PriorityStrategy {
    let vars = (0..program.vars.len())
        .map(|v| rankcheck_engine::VarId(v as u32))
        .collect();
    PriorityStrategy::new(
        PriorityScheme::Pct,
        program.threads.len(),
        vec![20; program.vars.len()],
        vec![PrioritySetting {
            depth: 2,
            vars: VarSelection::Drawn {
                pool: vars,
                count: 1,
            },
        }],
    )
}

/// The failing runs (numbered from 1) and their schedules, each run on a
/// machine of its own.
fn alone<St: Strategy>(
    strategy: &St,
    executables: &Executables,
    seed: u64,
) -> Vec<(u64, Vec<ThreadId>)> {
    let (mut strategy, mut executables) = (strategy.clone(), executables.clone());
    let mut failing = Vec::new();
    for run in 0..RUNS {
        let (tracked, mut scheduler) = strategy.prepare(run, run_seed(seed, run));
        let mut vm = Vm::new(executables.get(tracked), Limits::default());
        if let Outcome::Bug(_) = vm.run(&mut scheduler) {
            failing.push((run + 1, vm.schedule().to_vec()));
        }
    }
    failing
}

fn compare<St: Strategy>(strategy: &St, executables: &Executables, place: &str) {
    for jobs in [1, 2] {
        let config = SearchConfig {
            first_run: 0,
            runs: RUNS,
            seed: 3,
            limits: Limits::default(),
            keep_going: true,
            jobs,
        };
        let found = search(strategy, executables, &config, &|_| true);
        let expected = alone(strategy, executables, config.seed);
        let place = format!("{place}, {jobs} jobs");
        assert_eq!(found.failures, expected.len() as u64, "{place}");
        let first = found.first_failure.map(|f| (f.run, f.schedule));
        assert_eq!(first.as_ref(), expected.first(), "{place}");
    }
}

#[test]
fn reusing_the_machine_changes_no_run() {
    let instrumenter: Instrumenter = Arc::new(Instrumentation::for_vars);
    for path in common::example_paths() {
        let source = std::fs::read_to_string(&path).expect("an example");
        let program = Arc::new(compile(&source, &[]).expect("the examples compile"));
        let place = path.display().to_string();
        let tracking = Executables::new(Arc::clone(&program), instrumenter.clone());
        compare(&pctvb(&program), &tracking, &format!("{place}, pctvb"));
        let every = Executables::every_variable(Arc::clone(&program));
        compare(&RandomStrategy::new(), &every, &format!("{place}, random"));
    }
}
