//! loom 0.2's `sync::CausalCell`, as spmc 0.3.0 uses it: a cell written
//! under a lock passes; written by two threads with nothing ordering
//! them, it is a data race, as loom 0.2 reports it.

// SAFETY (every block): the value is a `u32` the cell owns, reached only
// inside its accessors.
#![allow(unsafe_code)]

use crate::loom;
use crate::support::panic_message;
use loom::sync::{Arc, CausalCell, Mutex};
use loom::thread;

/// Two threads write the cell, under `lock` when `locked`.
fn two_writers(locked: bool) {
    let cell = Arc::new(CausalCell::new(0_u32));
    let lock = Arc::new(Mutex::new(()));
    let other = {
        let (cell, lock) = (cell.clone(), lock.clone());
        thread::spawn(move || {
            let _held = locked.then(|| lock.lock().unwrap());
            cell.with_mut(|value| unsafe { *value += 1 });
        })
    };
    {
        let _held = locked.then(|| lock.lock().unwrap());
        cell.with_mut(|value| unsafe { *value += 1 });
    }
    other.join().unwrap();
    assert_eq!(cell.with(|value| unsafe { *value }), 2);
}

#[test]
fn a_causal_cell_written_under_a_lock_passes() {
    loom::model(|| two_writers(true));
}

#[test]
fn a_causal_cell_written_by_two_threads_unordered_is_a_data_race() {
    let report = panic_message(|| loom::model(|| two_writers(false))).expect("the model fails");
    assert!(report.contains("Causality violation"), "{report}");
}
