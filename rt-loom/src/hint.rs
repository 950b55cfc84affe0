//! loom's `hint`.

/// A spin loop's hint, as loom's: a yield ([`crate::thread::yield_now`]),
/// so that the thread spun on gets to run.
#[track_caller]
pub fn spin_loop() {
    crate::thread::yield_now();
}
