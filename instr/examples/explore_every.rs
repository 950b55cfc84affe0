//! `cargo run --release -p rankcheck-instr --example explore_every -- PROGRAM.rk [MAX_SCHEDULES]`:
//! every schedule of a program (`rankcheck explore --preemptions
//! unbounded`, one variable set: every variable tracked), pruned as the
//! command prunes, linked with the engine and instr only: the quick way
//! to time the engine's depth-first search, or count its instructions
//! under callgrind. It prints the schedules run, the runs pruned, whether
//! the search was exhausted, and the first bug's kind, if any.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use rankcheck_engine::explore::{explore_every_schedule, ExploreConfig};
use rankcheck_engine::{Executable, Instrumentation, Limits};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, max_schedules) = match args.as_slice() {
        [path] => (path, u64::MAX),
        [path, cap] => match cap.parse::<u64>() {
            Ok(cap) => (path, cap),
            Err(_) => {
                eprintln!("explore_every: MAX_SCHEDULES must be a whole number, found `{cap}`");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: explore_every PROGRAM.rk [MAX_SCHEDULES]");
            return ExitCode::from(2);
        }
    };
    let source = match std::fs::read_to_string(path) {
        Ok(source) => source,
        Err(e) => {
            eprintln!("explore_every: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let program = match rankcheck_instr::compile(&source, &[]) {
        Ok(program) => Arc::new(program),
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let exe = Executable::new(program.clone(), &Instrumentation::all(&program));
    let config = ExploreConfig {
        preemptions: 0,
        n_threads: 0,
        limits: Limits::default(),
        prune: true,
        finish_bound: false,
        max_schedules,
        max_memory: u64::MAX,
        jobs: 1,
    };
    let started = Instant::now();
    let explored = explore_every_schedule(&exe, &config, &|_| true);
    let bug = explored.bugs.first().map(|b| format!("{:?}", b.bug.kind));
    println!(
        "{} schedules, {} pruned, exhausted: {}, bug: {}, {:.2} s",
        explored.schedules,
        explored.pruned,
        explored.exhausted,
        bug.as_deref().unwrap_or("none"),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
