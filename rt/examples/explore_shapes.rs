//! Schedules and time of `rankcheck::explore` on a few shapes of small
//! tests (rt/tests/examples/shapes.rs), for results/explore_rt.md. Run it
//! in release:
//!
//!     cargo run --release -p rankcheck-rt --example explore_shapes
//!
//! It prints a Markdown table row per shape: the schedules run, whether
//! the search completed within the budget, and the wall time. A search
//! cut by the budget (`MAX_SCHEDULES`) says so. With arguments, only the
//! shapes whose names contain one of them run (`-- "barrier n=4"`), to
//! count one shape's instructions under callgrind.

use std::time::Instant;

use rankcheck_rt as rankcheck;

#[path = "../tests/examples/shapes.rs"]
#[allow(dead_code)]
mod shapes;

/// The most schedules a shape may take.
const MAX_SCHEDULES: u64 = 2_000_000;

/// The most operations a schedule may take.
const MAX_STEPS: u64 = 10_000;

/// The shapes measured, by name.
const SHAPES: [(&str, fn()); 9] = [
    ("barrier n=3", || shapes::barrier(3, false)),
    ("barrier n=4", || shapes::barrier(4, false)),
    ("barrier n=5", || shapes::barrier(5, false)),
    ("channel ping-pong, 3 rounds", || {
        shapes::ping_pong(3, false)
    }),
    ("mutex+condvar producer/consumer, 3 items", || {
        shapes::producer_consumer(3, false)
    }),
    ("spawn/join tree, depth 1, fanout 3", || {
        shapes::spawn_tree(1, 3, false)
    }),
    ("spawn/join tree, depth 2, fanout 2", || {
        shapes::spawn_tree(2, 2, false)
    }),
    ("spawn/join of 4 independent threads", || {
        shapes::independent_threads(4)
    }),
    ("two threads, different atomics", shapes::different_atomics),
];

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let chosen = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    println!("| shape | schedules | complete | seconds |");
    println!("|---|---:|---|---:|");
    for (name, test) in SHAPES.into_iter().filter(|(name, _)| chosen(name)) {
        let started = Instant::now();
        let explored = rankcheck::explore(test, MAX_SCHEDULES, MAX_STEPS);
        println!(
            "| {name} | {} | {} | {:.2} |",
            explored.schedules,
            if explored.complete {
                "yes"
            } else {
                "no (budget)"
            },
            started.elapsed().as_secs_f64()
        );
    }
}
