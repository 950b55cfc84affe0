//! The same measurements on rankcheck-rt: executions per second of its
//! random strategy, and executions until its PCTVB finds the corner
//! variable's bug.

use crate::program::{Assertion, Program, CORNER_VARIABLE_MESSAGE};
use crate::throughput::Throughput;
use rankcheck_rt::{Builder, Strategy, Vars};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// Runs `program` under rankcheck-rt's random strategy for about
/// `duration`: the count comes from calibration runs as for shuttle. No
/// preparatory runs, so every execution counted is a random one.
pub fn throughput(program: Program, duration: Duration, seed: u64) -> Result<Throughput, String> {
    let mut runs: u64 = 1000;
    let rate = loop {
        let calibration = timed(program, runs, seed)?;
        if calibration.seconds >= 0.25 {
            break calibration.per_second();
        }
        runs *= 4;
    };
    let target = (rate * duration.as_secs_f64()).ceil().max(1.0) as u64;
    timed(program, target, seed)
}

/// Exactly `runs` executions, timed, without calibration.
pub fn exactly(program: Program, runs: u64, seed: u64) -> Result<Throughput, String> {
    timed(program, runs, seed)
}

fn timed(program: Program, runs: u64, seed: u64) -> Result<Throughput, String> {
    let builder = Builder::new()
        .strategy(Strategy::Random)
        .profile_runs(0)
        .runs(runs)
        .seed(seed);
    let start = Instant::now();
    let guarantee = builder.check(program.rt_test());
    let seconds = start.elapsed().as_secs_f64();
    if guarantee.runs != runs {
        return Err(format!(
            "asked for {runs} runs, rankcheck-rt ran {}",
            guarantee.runs
        ));
    }
    Ok(Throughput {
        executions: runs,
        seconds,
    })
}

/// Executions (preparatory runs included) until rankcheck-rt's PCTVB at
/// depth `depth` over `vars` variables fails corner_variable at `hot`, or
/// `None` within `cap` runs.
pub fn until_bug(
    hot: u32,
    depth: u32,
    vars: usize,
    seed: u64,
    cap: u64,
) -> Result<Option<u64>, String> {
    let program = Program::CornerVariable {
        hot,
        assertion: Assertion::Checked,
    };
    let profile_runs = 20;
    let builder = Builder::new()
        .seed(seed)
        .depth(depth)
        .vars(Vars::Count(vars))
        .profile_runs(profile_runs)
        .runs(cap);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| builder.check(program.rt_test())));
    let Err(payload) = outcome else {
        return Ok(None);
    };
    let report = payload
        .downcast_ref::<String>()
        .cloned()
        .ok_or("rankcheck-rt panicked without a report")?;
    if !report.contains(CORNER_VARIABLE_MESSAGE) {
        return Err(format!("an unexpected failure:\n{report}"));
    }
    let found = report
        .lines()
        .find_map(|l| l.strip_prefix("found in "))
        .ok_or("the report has no `found in` line")?;
    let number = |text: &str| -> Result<u64, String> {
        text.split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| format!("cannot read the run of `{found}`"))
    };
    Ok(Some(match found.strip_prefix("preparatory run ") {
        Some(rest) => number(rest)?,
        None => profile_runs + number(found.trim_start_matches("run "))?,
    }))
}
