//! The weak memory benchmark (results/weak_memory.md): what
//! `MemoryModel::Weak` costs a SeqCst-only test in executions per second,
//! and the executions to the first bug on the lock-free programs with a
//! wrong ordering (rt/tests/weak_memory/programs.rs) under the default
//! strategy, PCTVB and random, each over 20 seeds. Run it in release:
//!
//!     cargo run --release -p rankcheck-rt --example weak_memory > results/weak_memory.csv
//!
//! It prints CSV rows (`throughput,...` and `first_bug,...`) on stdout.

use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use rankcheck::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use rankcheck::{Builder, MemoryModel, Strategy};
use rankcheck_rt as rankcheck;

#[path = "../tests/weak_memory/programs.rs"]
#[allow(dead_code)]
mod programs;

use programs::{flag_handoff, spsc_ring};

/// Rounds of the throughput comparison; the models alternate in each.
const ROUNDS: u32 = 8;

/// Runs of each throughput measurement.
const RUNS: u64 = 40_000;

/// Seeds of the executions to the first bug.
const SEEDS: u64 = 20;

/// The most runs a search for the first bug takes.
const MAX_RUNS: u64 = 200_000;

/// Executions per second of `program` under `model` (random strategy).
fn rate(model: MemoryModel, program: fn()) -> f64 {
    let builder = Builder::new()
        .memory_model(model)
        .strategy(Strategy::Random)
        .seed(1)
        .runs(RUNS);
    let started = Instant::now();
    builder.check(program);
    (RUNS + 20) as f64 / started.elapsed().as_secs_f64()
}

/// The executions (preparatory runs included) until `program` fails
/// under `strategy` and `seed`; `None` if it did not within `MAX_RUNS`.
fn first_bug(strategy: Strategy, seed: u64, program: fn()) -> Option<u64> {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        Builder::new()
            .memory_model(MemoryModel::Weak)
            .strategy(strategy)
            .seed(seed)
            .runs(MAX_RUNS)
            .no_shrink()
            .check(program);
    }));
    let payload = outcome.err()?;
    let report = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    let found = report.lines().find_map(|l| l.strip_prefix("found in "))?;
    let number = |text: &str| -> Option<u64> {
        text.split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    match found.strip_prefix("preparatory run ") {
        Some(rest) => number(rest),
        None => Some(20 + number(found.strip_prefix("run ")?)?),
    }
}

fn main() {
    panic::set_hook(Box::new(|_| {}));
    println!("kind,program,setting,round_or_seed,value");
    throughput();
    if std::env::var_os("WEAK_MEMORY_THROUGHPUT_ONLY").is_none() {
        first_bugs();
    }
}

/// Executions per second of correct programs under both models, the
/// models alternating within each round: SeqCst-only ones (the weak model
/// is never in use), and Release/Acquire ones (it is from their first
/// operation).
fn throughput() {
    let correct: [(&str, fn()); 4] = [
        ("flag-handoff-seqcst", || flag_handoff(SeqCst, SeqCst)),
        ("spsc-ring-seqcst", || spsc_ring(SeqCst, SeqCst)),
        ("flag-handoff-release-acquire", || {
            flag_handoff(Release, Acquire)
        }),
        ("spsc-ring-release-acquire", || spsc_ring(Release, Acquire)),
    ];
    for (name, program) in correct {
        for round in 1..=ROUNDS {
            for model in [MemoryModel::Sc, MemoryModel::Weak] {
                let rate = rate(model, program);
                println!("throughput,{name},{model:?},{round},{rate:.0}");
            }
        }
    }
}

/// Executions to the first bug of the programs with a wrong ordering.
fn first_bugs() {
    let buggy: [(&str, fn()); 2] = [
        ("spsc-ring-relaxed", || spsc_ring(Relaxed, Relaxed)),
        ("flag-handoff-relaxed", || flag_handoff(Relaxed, Relaxed)),
    ];
    for (name, program) in buggy {
        for strategy in [Strategy::Portfolio, Strategy::Pctvb, Strategy::Random] {
            for seed in 0..SEEDS {
                let found =
                    first_bug(strategy, seed, program).map_or("none".to_owned(), |n| n.to_string());
                println!("first_bug,{name},{},{seed},{found}", strategy.name());
            }
        }
    }
}
