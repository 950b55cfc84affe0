//! Differences from loom met by `rankcheck-bench historical`
//! (`results/historical.md`), each a minimal reproduction, kept as a
//! regression test once fixed.

use crate::loom;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, Ordering::Acquire, Ordering::Release};
use loom::sync::Arc;
use loom::thread;

/// A writer keeps its `MutPtr` past the Release store that publishes the
/// write, and drops it after (thingbuf's `Ref`: its `Drop` stores the
/// slot's state, then its `ptr: MutPtr` field drops). The reader that
/// Acquires the store then writes the cell. Nothing is written through
/// the pointer after the store, so C11 orders the two writes, and loom
/// passes (0.7.3, checked on this test; 0.5.6 has the same code): its
/// `MutPtr` drop re-checks the write with the writer's clock at its last
/// branch point, the store. rankcheck-rt ended the write at a new event
/// after the store, and reported "Concurrent write accesses to
/// `UnsafeCell` ... with no happens-before between them" (thingbuf 0.1.4
/// and its fixed 0.1.5 both failed so in preparatory run 1); an access now
/// ends at the thread's last event (`memory::cell_end`).
#[allow(unsafe_code)]
fn publish_then_drop_the_pointer() {
    let cell = Arc::new(UnsafeCell::new(0_usize));
    let ready = Arc::new(AtomicBool::new(false));
    let writer = {
        let (cell, ready) = (cell.clone(), ready.clone());
        thread::spawn(move || {
            let ptr = cell.get_mut();
            // SAFETY: no other thread reaches the cell before `ready`.
            unsafe { *ptr.deref() = 1 };
            ready.store(true, Release);
            drop(ptr);
        })
    };
    if ready.load(Acquire) {
        // SAFETY: the writer wrote before its Release store, read here.
        cell.with_mut(|data| unsafe { *data = 2 });
    }
    writer.join().unwrap();
}

#[test]
fn a_pointer_dropped_after_the_store_that_publishes_it_is_no_race() {
    loom::model(publish_then_drop_the_pointer);
}
