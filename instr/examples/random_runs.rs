//! `cargo run --release -p rankcheck-instr --example random_runs -- PROGRAM.rk RUNS`:
//! a random search of RUNS executions (seed 1, one worker, failures
//! counted and the search going on), linked with the engine and instr
//! only. It builds in about a minute where the `rankcheck` binary takes
//! two, which makes it the quick way to count the VM's instructions under
//! callgrind (results/throughput_profile.md).

use std::process::ExitCode;

use rankcheck_engine::{search, Executables, Limits, RandomStrategy, SearchConfig};

#[path = "support/program.rs"]
mod program;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, runs] = args.as_slice() else {
        eprintln!("usage: random_runs PROGRAM.rk RUNS");
        return ExitCode::from(2);
    };
    let (runs, program) = match (
        program::count("random_runs", "RUNS", runs),
        program::load("random_runs", path),
    ) {
        (Ok(runs), Ok(program)) => (runs, program),
        (Err(status), _) | (_, Err(status)) => return status,
    };
    let config = SearchConfig {
        first_run: 0,
        runs,
        seed: 1,
        limits: Limits::default(),
        keep_going: true,
        jobs: 1,
    };
    let executables = Executables::every_variable(program);
    let result = search(&RandomStrategy::new(), &executables, &config, &|_| true);
    println!("{} runs, {} failed", result.runs, result.failures);
    ExitCode::SUCCESS
}
