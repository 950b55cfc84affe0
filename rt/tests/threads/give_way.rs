//! `thread::give_way`, loom's yield: a spin loop that gives way is
//! explored to its end (every schedule, every read), and so is one that
//! only yields, which gives way once its loads keep reading one value (a
//! loop that waits for what no thread will do still reaches the step
//! limit); and every strategy runs it.

use rankcheck::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use rankcheck::sync::Arc;
use rankcheck::{thread, MemoryModel, Strategy};
use rankcheck_rt as rankcheck;

/// A thread raises a flag; the main thread spins on it with `spin`.
fn spin_on_a_flag(spin: fn()) -> impl Fn() + Send + Sync + 'static {
    move || {
        let flag = Arc::new(AtomicUsize::new(0));
        let setter = {
            let flag = flag.clone();
            thread::spawn(move || flag.store(1, Relaxed))
        };
        while flag.load(Relaxed) == 0 {
            spin();
        }
        setter.join().unwrap();
    }
}

#[test]
fn a_spin_loop_that_gives_way_is_explored_to_its_end() {
    for model in [MemoryModel::Sc, MemoryModel::Weak] {
        let explored =
            rankcheck::explore_memory(spin_on_a_flag(thread::give_way), 10_000, 1_000, model);
        assert!(explored.complete, "{model:?}: cut");
        assert!(explored.failures.is_empty(), "{model:?}: {explored:?}");
    }
}

#[test]
fn a_spin_loop_that_only_yields_gives_way_once_it_spins() {
    // Its loads read one value from one place: past a few, the thread
    // gives way (rt/src/memory/spin.rs), so the setter runs.
    for model in [MemoryModel::Sc, MemoryModel::Weak] {
        let explored =
            rankcheck::explore_memory(spin_on_a_flag(thread::yield_now), 10_000, 1_000, model);
        assert!(explored.complete, "{model:?}: cut");
        assert!(explored.failures.is_empty(), "{model:?}: {explored:?}");
    }
}

#[test]
fn a_spin_loop_that_waits_for_nothing_reaches_the_step_limit() {
    // Giving way lets others run, but no one is left to raise the flag.
    let explored = rankcheck::explore(
        || {
            let flag = AtomicUsize::new(0);
            while flag.load(Relaxed) == 0 {
                thread::yield_now();
            }
        },
        100,
        200,
    );
    assert!(
        explored.failures.iter().any(|f| f.kind == "step-limit"),
        "{explored:?}"
    );
}

#[test]
fn every_strategy_runs_a_loop_that_gives_way() {
    for strategy in [
        Strategy::Pct,
        Strategy::Pos,
        Strategy::Random,
        Strategy::Portfolio,
    ] {
        rankcheck::Builder::new()
            .strategy(strategy)
            .memory_model(MemoryModel::Weak)
            .runs(200)
            .seed(2)
            .max_steps(1_000)
            .check(spin_on_a_flag(thread::give_way));
    }
}

#[test]
fn the_default_search_passes_a_spin_loop_without_a_yield() {
    // `std::hint::spin_loop` is no scheduling point: the loop's loads are
    // the only ones, and the spin rule gives way there, even where the
    // flag is not tracked (a run that tracks no variable).
    rankcheck::Builder::new()
        .runs(2_000)
        .seed(3)
        .check(spin_on_a_flag(std::hint::spin_loop));
}
