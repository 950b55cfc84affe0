//! `cargo run --release -p rankcheck-instr --example explore_every -- PROGRAM.rk [MAX_SCHEDULES]`:
//! every schedule of a program (`rankcheck explore --preemptions
//! unbounded`, one variable set: every variable tracked), pruned as the
//! command prunes, linked with the engine and instr only: the quick way
//! to time the engine's depth-first search, or count its instructions
//! under callgrind. It prints the schedules run, the runs pruned, whether
//! the search was exhausted, and the first bug's kind, if any.

use std::process::ExitCode;
use std::time::Instant;

use rankcheck_engine::explore::{explore_every_schedule, ExploreConfig};
use rankcheck_engine::{Executable, Instrumentation, Limits};

#[path = "support/program.rs"]
mod program;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, cap) = match args.as_slice() {
        [path] => (path, Ok(u64::MAX)),
        [path, cap] => (path, program::count("explore_every", "MAX_SCHEDULES", cap)),
        _ => {
            eprintln!("usage: explore_every PROGRAM.rk [MAX_SCHEDULES]");
            return ExitCode::from(2);
        }
    };
    let (max_schedules, program) = match (cap, program::load("explore_every", path)) {
        (Ok(cap), Ok(program)) => (cap, program),
        (Err(status), _) | (_, Err(status)) => return status,
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
