//! loom's `hint`.

/// A spin loop's hint, as loom's: a yield ([`crate::thread::yield_now`]),
/// so that the thread spun on gets to run.
#[track_caller]
pub fn spin_loop() {
    crate::thread::yield_now();
}

/// std's `unreachable_unchecked` as loom has it: reaching it panics (and
/// so fails the execution) rather than being undefined behaviour.
///
/// # Safety
/// None needed: it always panics. It is `unsafe` as std's is, so that
/// code written for std's compiles unchanged.
#[track_caller]
#[allow(unsafe_code)]
pub unsafe fn unreachable_unchecked() -> ! {
    unreachable!("unreachable_unchecked was reached!");
}
