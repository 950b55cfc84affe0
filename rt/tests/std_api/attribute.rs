//! `#[rankcheck::test]`: a test function whose body is the check's
//! closure, with the builder's options.

use rankcheck::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use rankcheck::sync::Arc;
use rankcheck::thread;
use rankcheck_rt as rankcheck;

#[rankcheck::test(runs = 200, seed = 7, strategy = "pctvb", depth = 2, vars = 1)]
fn a_correct_program_passes() {
    let hits = Arc::new(AtomicUsize::new(0));
    let other = {
        let hits = hits.clone();
        thread::spawn(move || hits.fetch_add(1, SeqCst))
    };
    hits.fetch_add(1, SeqCst);
    other.join().unwrap();
    assert_eq!(hits.load(SeqCst), 2);
}

#[rankcheck::test(runs = 1000, seed = 3, strategy = "random")]
#[should_panic(expected = "lost update")]
fn a_bug_fails_the_test_with_the_report() {
    crate::support::lost_update();
}

#[rankcheck::test(
    time = "1s",
    vars = "all",
    priorities = "thread-bounded",
    confidence = 0.9,
    max_steps = 10000,
    profile_runs = 5,
    max_runs = 50,
    crate = "rankcheck_rt"
)]
fn every_builder_option_is_taken() {
    let _ = thread::spawn(|| {}).join();
}
