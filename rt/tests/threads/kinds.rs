//! Threads one `spawn` call started are one kind: kind-weighted SURW
//! (`Strategy::Ksurw`, a component of the default search) weighs them
//! together, as the command line's does for one `spawn` in a `.rk` program.

use rankcheck::sync::atomic::{AtomicI32, Ordering::SeqCst};
use rankcheck::sync::Arc;
use rankcheck::{thread, Builder, Strategy};
use rankcheck_rt as rankcheck;

/// Setters spawned by one call.
const SETTERS: usize = 19;

/// SCTBench's reorder: every setter writes `a = 1`, then `b = -1`; the
/// checker fails when it reads between some setter's two writes, before
/// any setter's second.
fn reorder() {
    let a = Arc::new(AtomicI32::new(0));
    let b = Arc::new(AtomicI32::new(0));
    let mut threads = Vec::new();
    for _ in 0..SETTERS {
        let (a, b) = (a.clone(), b.clone());
        threads.push(thread::spawn(move || {
            a.store(1, SeqCst);
            b.store(-1, SeqCst);
        }));
    }
    threads.push(thread::spawn(move || {
        let (x, y) = (a.load(SeqCst), b.load(SeqCst));
        assert!(
            (x == 0 && y == 0) || (x == 1 && y == -1),
            "a and b out of step"
        );
    }));
    for t in threads {
        t.join().unwrap();
    }
}

/// The checker's access to `b` has even odds against the 19 setters'
/// together, so each seed finds the bug within 40 runs (about 4 on
/// average, as on the command line; SURW, weighing the checker as one
/// thread in twenty, needs about 66).
#[test]
fn kind_weighted_surw_finds_reorder_in_a_few_runs() {
    for seed in 1..6 {
        let found = std::panic::catch_unwind(|| {
            Builder::new()
                .strategy(Strategy::Ksurw)
                .seed(seed)
                .runs(40)
                .no_shrink()
                .check(reorder)
        });
        let report = found.expect_err("a failure within 40 runs");
        let text = report.downcast_ref::<String>().map_or("", String::as_str);
        assert!(text.contains("a and b out of step"), "seed {seed}: {text}");
    }
}
