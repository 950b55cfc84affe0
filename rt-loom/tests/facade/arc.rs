//! `sync::Arc`: its reference count orders the value's drop after every
//! other thread's accesses through its clones (and only its orderings do:
//! std's `Arc`, or the same count with `Relaxed` decrements, leave a data
//! race), and loom's API around it behaves as loom's.

// The cells' data and the raw pointers are reached as loom's tests do.
#![allow(unsafe_code)]
// std's `Arc` of a cell is what the race test shows failing; loom's spawn
// asks for no `Send`.
#![allow(clippy::arc_with_non_send_sync)]

use std::ops::Deref;
use std::sync::atomic::Ordering::Relaxed as StdRelaxed;

use crate::loom;
use crate::support::panic_message;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use loom::sync::Arc;
use loom::thread;

/// A value whose drop writes its cell, as a channel's drop empties its
/// buffer (tokio's `mpsc::closing_tx`).
struct Slot(UnsafeCell<usize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.with_mut(|data| unsafe { *data = 0 });
    }
}

/// What the program below shares its `Slot` through.
trait Shared: Deref<Target = Slot> + Clone + 'static {
    fn new(slot: Slot) -> Self;
}

impl Shared for Arc<Slot> {
    fn new(slot: Slot) -> Self {
        Arc::new(slot)
    }
}

impl Shared for std::sync::Arc<Slot> {
    fn new(slot: Slot) -> Self {
        std::sync::Arc::new(slot)
    }
}

/// loom's `Arc` with its orderings removed: the same count, a rankcheck-rt
/// atomic, every operation `Relaxed`; the value drops with the last
/// (std) reference, as in loom's `Arc`.
struct RelaxedArc {
    count: std::sync::Arc<AtomicUsize>,
    value: std::sync::Arc<Slot>,
}

impl Shared for RelaxedArc {
    fn new(slot: Slot) -> Self {
        RelaxedArc {
            count: std::sync::Arc::new(AtomicUsize::new(1)),
            value: std::sync::Arc::new(slot),
        }
    }
}

impl Clone for RelaxedArc {
    fn clone(&self) -> Self {
        self.count.fetch_add(1, Relaxed);
        RelaxedArc {
            count: self.count.clone(),
            value: self.value.clone(),
        }
    }
}

impl Drop for RelaxedArc {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Relaxed);
    }
}

impl Deref for RelaxedArc {
    type Target = Slot;
    fn deref(&self) -> &Slot {
        &self.value
    }
}

/// The other thread writes the slot through its clone and drops it; the
/// main thread yields (a scheduling point, so that the other thread may
/// run first, which std's `Arc` would not otherwise allow) and drops its
/// own. When it drops last, the slot's drop writes the cell in the main
/// thread after the other thread's write.
fn write_then_drop<A: Shared>() {
    let slot = A::new(Slot(UnsafeCell::new(0)));
    let other = {
        let slot = slot.clone();
        thread::spawn(move || {
            slot.0.with_mut(|data| unsafe { *data = 1 });
            drop(slot);
        })
    };
    thread::yield_now();
    drop(slot);
    other.join().unwrap();
}

#[test]
fn the_last_drop_is_ordered_after_the_other_threads_accesses() {
    loom::model(write_then_drop::<Arc<Slot>>);
}

#[test]
fn without_the_counts_orderings_the_last_drop_races() {
    for (arc, report) in [
        (
            "std's Arc",
            panic_message(|| loom::model(write_then_drop::<std::sync::Arc<Slot>>)),
        ),
        (
            "a Relaxed count",
            panic_message(|| loom::model(write_then_drop::<RelaxedArc>)),
        ),
    ] {
        let report = report.unwrap_or_else(|| panic!("{arc}: no race reported"));
        assert!(
            report.contains("Causality violation")
                && report.contains("Concurrent write accesses to `UnsafeCell`"),
            "{arc}: {report}"
        );
    }
}

/// Counts the `Counted` values dropped in the execution running (one test
/// uses it).
static DROPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

struct Counted;

impl Drop for Counted {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, StdRelaxed);
    }
}

#[test]
fn counts_get_mut_try_unwrap_and_ptr_eq_are_loom_s() {
    loom::model(|| {
        let mut first = Arc::new(5);
        assert_eq!(Arc::strong_count(&first), 1);
        *Arc::get_mut(&mut first).expect("unique") += 1;
        let second = first.clone();
        assert_eq!(Arc::strong_count(&first), 2);
        assert!(Arc::ptr_eq(&first, &second));
        assert!(!Arc::ptr_eq(&first, &Arc::new(6)));
        assert_eq!(first, Arc::new(6), "compares values");
        assert!(Arc::get_mut(&mut first).is_none());
        let first = Arc::try_unwrap(first).expect_err("shared");
        drop(second);
        assert_eq!(Arc::try_unwrap(first), Ok(6));
    });
}

#[test]
fn a_raw_pointer_finds_its_count_again() {
    loom::model(|| {
        DROPPED.store(0, StdRelaxed);
        let arc = Arc::new(Counted);
        let kept = arc.clone();
        let raw = Arc::into_raw(arc);
        assert_eq!(raw, Arc::as_ptr(&kept));
        assert_eq!(Arc::strong_count(&kept), 2);
        unsafe { Arc::increment_strong_count(raw) };
        assert_eq!(Arc::strong_count(&kept), 3);
        let other = thread::spawn(move || unsafe {
            Arc::decrement_strong_count(raw);
            drop(Arc::from_raw(raw));
        });
        other.join().unwrap();
        assert_eq!(Arc::strong_count(&kept), 1);
        assert_eq!(DROPPED.load(StdRelaxed), 0);
        drop(kept);
        assert_eq!(DROPPED.load(StdRelaxed), 1);
    });
}

#[test]
fn from_raw_of_a_pointer_no_arc_gave_panics() {
    let message = panic_message(|| {
        loom::model(|| {
            let value = 1;
            drop(unsafe { Arc::from_raw(&value as *const i32) });
        })
    })
    .expect("fails");
    assert!(
        message.contains("is no pointer that `Arc::into_raw`"),
        "{message}"
    );
}

#[test]
fn an_unsized_value_comes_from_std_as_loom_s() {
    loom::model(|| {
        let calls = Arc::new(AtomicUsize::new(0));
        let call: Arc<dyn Fn() + Send + Sync> = {
            let calls = calls.clone();
            Arc::from_std(std::sync::Arc::new(move || {
                calls.fetch_add(1, Relaxed);
            }))
        };
        let other = {
            let call = call.clone();
            thread::spawn(move || {
                call();
            })
        };
        call();
        other.join().unwrap();
        assert_eq!(calls.load(Relaxed), 2);
        let bytes: Arc<[u8]> = Arc::from_std(std::sync::Arc::from(&[1, 2, 3][..]));
        assert_eq!(&bytes[..], [1, 2, 3]);
    });
    let shared = std::sync::Arc::new(1);
    let message = panic_message(|| {
        let shared = shared.clone();
        loom::model(move || drop(Arc::from_std(shared.clone())))
    })
    .expect("fails");
    assert!(message.contains("not unique"), "{message}");
}

#[test]
fn pin_default_from_and_formatting_are_std_s() {
    loom::model(|| {
        let pinned = Arc::pin(3);
        assert_eq!(*pinned, 3);
        assert_eq!(*Arc::<u8>::default(), 0);
        let from: Arc<&str> = Arc::from("text");
        assert_eq!(format!("{from} {from:?}"), "text \"text\"");
        let borrowed: &&str = std::borrow::Borrow::borrow(&from);
        assert_eq!(borrowed, from.as_ref());
    });
}
