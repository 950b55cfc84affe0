//! `rankcheck-bench`: benchmarks whose numbers go to `results/`.
//!
//! `corner` measures executions until the bug in corner_variable.rk for
//! PCT and PCTVB against shuttle's PCT (`results/corner_variable.*`);
//! `jobs` measures the speed-up of two workers (`results/jobs.*`);
//! `throughput` measures executions per second of the random scheduler on
//! the VM and, in the same run, of awslabs/shuttle's random scheduler on the
//! same programs written as shuttle tests (`bench/shuttle-baseline/`), and
//! writes raw rows to `results/throughput.csv` plus the ratios to
//! `results/throughput.md`. Rounds alternate between the two tools so that
//! machine noise hits both alike.

mod corner;
mod jobs;
mod table2;
mod table3;
mod throughput;
mod workload;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("throughput") => throughput::run(&args[1..]),
        Some("corner") => corner::run(&args[1..]),
        Some("jobs") => jobs::run(&args[1..]),
        Some("table2") => table2::run(&args[1..]),
        Some("table3") => table3::run(&args[1..]),
        _ => {
            eprintln!(
                "usage: rankcheck-bench throughput [--seconds S] [--rounds R] [--no-shuttle]"
            );
            eprintln!(
                "       rankcheck-bench table2 [--seconds S] [--rounds R] [--pairs P] [--seed N]"
            );
            eprintln!("       rankcheck-bench table3 [--cap N] [--all-cap N] [--no-examples]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
