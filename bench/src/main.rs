//! `rankcheck-bench`: benchmarks whose numbers go to `results/`.
//!
//! `scaling` measures memory over a million executions and the cost of
//! growing thread counts (`results/scaling.*`);
//!
//! `strategies` compares every search strategy on the corpus
//! (`results/strategies.*`), and `cycle` chooses the default's cycle from
//! those measurements (`results/cycle.md`);
//!
//! `figures` rebuilds every SVG of `results/` from its CSV;
//!
//! `corner` measures executions until the bug in corner_variable.rk for
//! PCT and PCTVB against shuttle's PCT (`results/corner_variable.*`);
//! `jobs` measures the speed-up of two workers (`results/jobs.*`);
//! `shrink` measures failing schedules before and after shrinking on the
//! corpus (`results/shrink.*`);
//! `nightly` measures a night in two shards against one, and a night's
//! checkpoints against a plain search (`results/nightly.*`);
//! `throughput` measures executions per second of the random scheduler on
//! the VM and, in the same run, of awslabs/shuttle's random scheduler on the
//! same programs written as shuttle tests (`bench/shuttle-baseline/`), and
//! writes raw rows to `results/throughput.csv` plus the ratios to
//! `results/throughput.md`. Rounds alternate between the two tools so that
//! machine noise hits both alike;
//! `crates` runs published crates' own loom tests under real loom and
//! under rankcheck-loom by a dependency rename (`bench/crates/corpus.toml`,
//! `results/crates.*`); `historical` runs published concurrency bugs,
//! each the version before its fix with the fix's loom regression test,
//! under loom and rankcheck (`bench/crates/historical.toml`,
//! `results/historical.*`).
//!
//! The strategy corpus is `bench/corpus/` (and, in
//! `bench/corpus/scaled/`, the families whose `-D` constants `strategies`
//! sweeps); `baseline.rs` measures throughput against an earlier commit's
//! binary in the same run. `bench/shuttle-baseline/` is a Cargo project of
//! its own that measures awslabs/shuttle (threads, and async tasks with
//! `shuttle::future`: `async_vs_shuttle.sh`), kept out of the workspace as
//! `fuzz/` (cargo-fuzz targets) is. The crate depends on rankcheck-instr,
//! -engine, -stats, -plot and -history, and runs the `rankcheck` binary.

mod baseline;
mod cli;
mod corner;
mod crates;
mod cycle;
mod figures;
mod jobs;
mod nightly;
mod scaling;
mod shrink;
mod strategies;
mod table2;
mod table3;
mod throughput;
mod workload;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Throughput(args) => throughput::run(args),
        Command::Corner(args) => corner::run(args),
        Command::Jobs(args) => jobs::run(args),
        Command::Shrink(args) => shrink::run(args),
        Command::Table2(args) => table2::run(args),
        Command::Table3(args) => table3::run(args),
        Command::Scaling(args) => scaling::run(args),
        Command::Strategies(args) => strategies::run(args),
        Command::Cycle(args) => cycle::run(args),
        Command::Figures => figures::run(),
        Command::Nightly(args) => nightly::run(args),
        Command::Crates(args) => crates::run(args),
        Command::Historical(args) => crates::historical::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
