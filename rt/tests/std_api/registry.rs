//! The engine's registry of strategies through the Builder and the test
//! attribute: `test-lowest`, a strategy that exists only as one file of
//! the engine (`strategy/registered/test_lowest.rs`, compiled for tests),
//! runs by its name with no edit to rt, and an unknown name is refused
//! with the registered names.

use rankcheck::sync::atomic::{AtomicBool, Ordering::SeqCst};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

use crate::support::panic_message;

/// Fails whenever the test's own thread reads before the spawned one
/// writes: always under `test-lowest`, which runs the lowest thread (the
/// test's) for as long as it can.
fn read_before_write() {
    let written = Arc::new(AtomicBool::new(false));
    let writer = {
        let written = written.clone();
        thread::spawn(move || written.store(true, SeqCst))
    };
    assert!(written.load(SeqCst), "read before the write");
    writer.join().unwrap();
}

#[test]
fn the_builder_runs_a_strategy_registered_by_its_file_alone() {
    let strategy = Strategy::named("test-lowest").expect("registered for tests");
    assert_eq!(strategy.name(), "test-lowest");
    let guarantee = Builder::new().strategy(strategy).runs(3).seed(1).check(|| {
        let _ = thread::spawn(|| {}).join();
    });
    assert_eq!(guarantee.strategy, "test-lowest");
    for seed in [1, 2, 3] {
        let report = panic_message(|| {
            Builder::new()
                .strategy(strategy)
                .profile_runs(0)
                .runs(50)
                .seed(seed)
                .check(read_before_write);
        })
        .expect("the test's thread always reads first");
        assert!(report.contains("read before the write"), "{report}");
        let found = format!("found in run 1 of 1 (strategy test-lowest, seed {seed},");
        assert!(report.contains(&found), "{report}");
    }
}

#[rankcheck::test(runs = 20, seed = 5, profile_runs = 0, strategy = "test-lowest")]
#[should_panic(expected = "strategy test-lowest")]
fn the_attribute_runs_a_strategy_registered_by_its_file_alone() {
    read_before_write();
}

#[rankcheck::test(runs = 1, strategy = "fast")]
#[should_panic(
    expected = "#[rankcheck::test(strategy = \"fast\")]: unknown strategy `fast`: expected one of "
)]
fn the_attribute_refuses_an_unknown_strategy_with_the_registered_names() {}

#[test]
fn an_unknown_name_lists_every_registered_strategy() {
    let error = Strategy::named("fast").unwrap_err().to_string();
    for name in ["portfolio", "pctvb", "ksurw", "random", "test-lowest"] {
        assert!(error.contains(name), "{error}");
    }
    assert_eq!("urw".parse::<Strategy>(), Ok(Strategy::Urw));
}

#[test]
fn the_built_in_constants_are_registered_names() {
    for strategy in [
        Strategy::Portfolio,
        Strategy::Pctvb,
        Strategy::Pct,
        Strategy::Pos,
        Strategy::Wpos,
        Strategy::Swpos,
        Strategy::Urw,
        Strategy::Surw,
        Strategy::Ksurw,
        Strategy::Random,
    ] {
        assert_eq!(Strategy::named(strategy.name()), Ok(strategy));
    }
    assert_eq!(Strategy::default(), Strategy::Portfolio);
}
