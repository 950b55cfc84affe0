//! What the rt test binaries share.

use std::panic::{self, AssertUnwindSafe};

/// The message a closure panicked with (`None`: it returned).
pub fn panic_message(f: impl FnOnce()) -> Option<String> {
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    outcome.err().map(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    })
}

/// Two threads increment a counter with a load and a store: an update can
/// be lost, and the test then fails with "lost update".
#[allow(dead_code)]
pub fn lost_update() {
    use rankcheck_rt::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use rankcheck_rt::sync::Arc;
    let hits = Arc::new(AtomicUsize::new(0));
    let other = {
        let hits = hits.clone();
        rankcheck_rt::thread::spawn(move || {
            let seen = hits.load(SeqCst);
            hits.store(seen + 1, SeqCst);
        })
    };
    let seen = hits.load(SeqCst);
    hits.store(seen + 1, SeqCst);
    other.join().unwrap();
    assert_eq!(hits.load(SeqCst), 2, "lost update");
}
