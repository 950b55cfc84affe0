//! loom 0.7.3's own test suite (`tests/*.rs`, MIT), run against the
//! rankcheck-loom facade.
//!
// loom's tests reach their cells' data through raw pointers.
#![allow(unsafe_code)]
// They share cells, which are not `Sync`, through `Arc`s: loom's spawn
// asks for no `Send`.
#![allow(clippy::arc_with_non_send_sync)]
mod arc;
mod atomic;
mod atomic_int;
mod atomic_relaxed;
mod condvar;
mod deadlock;
mod double_panic_in_drop;
mod fence;
mod futures;
mod litmus;
mod mpsc;
mod mutex;
mod rwlock;
mod rwlock_regression1;
mod smoke;
mod spec;
mod thread_api;
mod thread_local;
mod unsafe_cell;
mod yield_now;
extern crate rankcheck_loom as loom;
