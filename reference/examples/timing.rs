//! Measures the reference's searches on generated programs: the time per
//! program of `reachable_failures` and of `min_preemptions` (up to c = 3),
//! as percentiles over a fixed sample, and how the outcomes are spread. A tool for sizing the generator, not
//! a test: `cargo run -p rankcheck-reference --example timing [--release]
//! [N] [print]` (print writes the programs too).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rankcheck_generate as generate;
use rankcheck_reference::{Budget, Kind, Reference};

const BUDGET: Budget = Budget {
    max_states: 10_000_000,
    max_ops_per_execution: 100_000,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(300);
    let print = args.iter().any(|arg| arg == "print");
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = generate::program();
    let (mut reach, mut bound) = (Vec::new(), Vec::new());
    let mut outcomes: BTreeMap<(BTreeSet<Kind>, Option<u32>), usize> = BTreeMap::new();
    for _ in 0..count {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let source = tree.current();
        if print {
            println!("{source}\n----");
        }
        let Ok(program) = Reference::new(&source, &[]) else {
            println!("refused:\n{source}");
            continue;
        };
        let start = Instant::now();
        let failures = program.reachable_failures(&BUDGET);
        reach.push(start.elapsed());
        let start = Instant::now();
        let found = program.min_preemptions(3, &BUDGET);
        bound.push(start.elapsed());
        if print {
            println!("{failures:?}\n{found:?}\n====");
        }
        let kinds = failures
            .iter()
            .flatten()
            .map(|failure| failure.kind)
            .collect();
        let c = found.ok().flatten().map(|(c, _)| c);
        *outcomes.entry((kinds, c)).or_default() += 1;
    }
    report("reachable_failures", &mut reach);
    report("min_preemptions(3)", &mut bound);
    for ((kinds, c), n) in outcomes {
        let c = c.map_or("-".to_string(), |c| c.to_string());
        println!("{n:5} programs: failures {kinds:?}, c = {c}");
    }
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    let mean = times.iter().sum::<Duration>() / times.len().max(1) as u32;
    println!(
        "{what}: {} programs, mean {mean:.2?}, median {:.2?}, p90 {:.2?}, p99 {:.2?}, max {:.2?}",
        times.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    );
}
