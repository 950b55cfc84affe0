//! The patch package is rankcheck-loom under loom's name: a dependency
//! that writes `loom::...` (macros included) builds and runs under
//! rankcheck's model.

use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;

loom::lazy_static! {
    static ref STARTED: AtomicUsize = AtomicUsize::new(0);
}

loom::thread_local! {
    static LOCAL: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

#[test]
fn a_correct_model_passes_under_the_loom_name() {
    loom::model(|| {
        STARTED.fetch_add(1, SeqCst);
        LOCAL.with(|l| l.set(l.get() + 1));
        let n = Arc::new(AtomicUsize::new(0));
        let other = {
            let n = n.clone();
            thread::spawn(move || n.fetch_add(1, SeqCst))
        };
        n.fetch_add(1, SeqCst);
        other.join().unwrap();
        assert_eq!(n.load(SeqCst), 2);
        assert_eq!(STARTED.load(SeqCst), 1, "lazy statics are per execution");
    });
}

#[test]
#[should_panic(expected = "lost update")]
fn a_lost_update_is_found_under_the_loom_name() {
    loom::model(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let other = {
            let n = n.clone();
            thread::spawn(move || {
                let seen = n.load(SeqCst);
                n.store(seen + 1, SeqCst);
            })
        };
        let seen = n.load(SeqCst);
        n.store(seen + 1, SeqCst);
        other.join().unwrap();
        assert_eq!(n.load(SeqCst), 2, "lost update");
    });
}
