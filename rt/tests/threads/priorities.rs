//! The priority schedulers on programs that gave them trouble: one with no
//! shared variable (nowhere to place a change point), and a yielding spin
//! loop (a yield gives way at once).

use rankcheck::sync::atomic::{AtomicBool, Ordering};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

/// With no variable accessed, PCT has nowhere to place a change point:
/// only the thread order varies, which depth 1 explores; the search runs
/// instead of refusing.
#[test]
fn pct_runs_a_program_with_no_shared_variable() {
    let guarantee = Builder::new()
        .strategy(Strategy::Pct)
        .depth(2)
        .runs(100)
        .seed(2)
        .check(|| thread::spawn(|| {}).join().unwrap());
    assert_eq!(guarantee.runs, 100);
}

/// A thread waiting for a flag in a `yield_now` loop gives way at its
/// first yield, so the thread that sets the flag runs at once: every run
/// ends well within a step limit of 50 under the priority strategies.
#[test]
fn a_yielding_spin_loop_gives_way_at_once() {
    let spin = || {
        let flag = Arc::new(AtomicBool::new(false));
        let setter = {
            let flag = flag.clone();
            thread::spawn(move || flag.store(true, Ordering::SeqCst))
        };
        while !flag.load(Ordering::SeqCst) {
            thread::yield_now();
        }
        setter.join().unwrap();
    };
    for strategy in [Strategy::Pct, Strategy::Pctvb] {
        Builder::new()
            .strategy(strategy)
            .max_steps(50)
            .runs(300)
            .seed(4)
            .check(spin);
    }
}
