//! The complete test of the README and of the user guide
//! (`docs/guide/src/rust.md`), as it stands there: it must fail with a lost
//! increment, and its report is the guide's.

use rankcheck::{
    sync::atomic::{AtomicUsize, Ordering::SeqCst},
    sync::Arc,
    thread,
};
use rankcheck_rt as rankcheck;

/// A counter whose increment is a read then a write: two threads can lose one.
fn count_twice() -> usize {
    let hits = Arc::new(AtomicUsize::new(0));
    let bump = |hits: Arc<AtomicUsize>| {
        thread::spawn(move || {
            let seen = hits.load(SeqCst);
            hits.store(seen + 1, SeqCst);
        })
    };
    let (a, b) = (bump(hits.clone()), bump(hits.clone()));
    a.join().unwrap();
    b.join().unwrap();
    hits.load(SeqCst)
}

#[test]
fn the_readme_test_finds_the_lost_increment() {
    let report = super::panic_message(|| {
        rankcheck::Builder::new()
            .seed(1)
            .check(|| assert_eq!(count_twice(), 2, "an increment was lost"));
    })
    .expect("the lost increment is found");
    if std::env::var_os("RANKCHECK_SHOW_README").is_some() {
        println!("{report}");
    }
    assert!(
        report.starts_with("error[panic]: assertion `left == right` failed: an increment was lost"),
        "{report}"
    );
    assert!(
        report.contains("rankcheck::replay(test, \"rc4:"),
        "{report}"
    );
}
