//! `throughput`: executions per second of shuttle's random scheduler.

use crate::config::config;
use crate::program::Program;
use shuttle::scheduler::RandomScheduler;
use shuttle::Runner;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shortest calibration run that `measure` trusts to estimate the rate.
const CALIBRATION: Duration = Duration::from_millis(250);

/// What one timed run measured.
#[derive(Clone, Copy, Debug)]
pub struct Throughput {
    /// Executions that ran to their end.
    pub executions: u64,
    /// Wall time of the whole run, in seconds.
    pub seconds: f64,
}

impl Throughput {
    /// Executions per second.
    pub fn per_second(self) -> f64 {
        self.executions as f64 / self.seconds
    }
}

/// Runs `program` under `RandomScheduler` for about `duration` and counts the executions.
///
/// The measured run is one `Runner::run` whose `max_iterations` is set so that it lasts about
/// `duration`, as a user's long test would run; its wall time, runner setup included, and its
/// exact execution count give the rate. The iteration count comes from untimed calibration runs
/// (growing by 4x until one lasts `CALIBRATION`), which also warm the allocator and caches.
///
/// Why not shuttle's own time limit (`Config::max_time`)? A run it stops never tells
/// `RandomScheduler` that it is over, and the scheduler's drop then prints a bogus "failing
/// seed" message.
pub fn measure(program: Program, duration: Duration, seed: u64) -> Result<Throughput, String> {
    let mut iterations: u64 = 1000;
    let rate = loop {
        let calibration = timed_run(program, iterations, seed)?;
        if calibration.seconds >= CALIBRATION.as_secs_f64() {
            break calibration.per_second();
        }
        iterations *= 4;
    };
    let target = (rate * duration.as_secs_f64()).ceil().max(1.0) as u64;
    timed_run(program, target, seed)
}

/// One `Runner::run` of exactly `iterations` executions, timed, without calibration.
pub fn exactly(program: Program, iterations: u64, seed: u64) -> Result<Throughput, String> {
    timed_run(program, iterations, seed)
}

/// One `Runner::run` of `iterations` executions, timed. The count comes from a counter bumped
/// in the test body (an `std` atomic: no scheduling point) and is checked against both the count
/// `run` returns and the count asked for.
fn timed_run(program: Program, iterations: u64, seed: u64) -> Result<Throughput, String> {
    let max_iterations = usize::try_from(iterations)
        .map_err(|_| format!("{iterations} executions do not fit in a usize"))?;
    let runner = Runner::new(
        RandomScheduler::new_from_seed(seed, max_iterations),
        config(),
    );
    let counter = Arc::new(AtomicU64::new(0));
    let test = {
        let counter = Arc::clone(&counter);
        let body = program.test();
        move || {
            counter.fetch_add(1, Ordering::Relaxed);
            body();
        }
    };
    let start = Instant::now();
    let ran = runner.run(test);
    let seconds = start.elapsed().as_secs_f64();
    let executions = counter.load(Ordering::Relaxed);
    if executions != ran as u64 || executions != iterations {
        return Err(format!(
            "asked for {iterations} executions; the test body ran {executions} times and \
             shuttle reports {ran}"
        ));
    }
    Ok(Throughput {
        executions,
        seconds,
    })
}
