//! The blocking operations beyond locks: channels and parking.

#[path = "../support/mod.rs"]
mod support;

use rankcheck::sync::{Arc, Condvar, Mutex};
use rankcheck::thread::{self, JoinHandle};
use rankcheck_rt as rankcheck;

mod condvar;
mod park;
mod rendezvous;
mod timeouts;
mod try_send;

/// A flag under a mutex with its condition variable, and a thread that
/// sets the flag, then notifies one waiter (`all`: every waiter).
fn flag_setter(all: bool) -> (Arc<(Mutex<bool>, Condvar)>, JoinHandle<()>) {
    let shared = Arc::new((Mutex::new(false), Condvar::new()));
    let setter = {
        let shared = shared.clone();
        thread::spawn(move || {
            *shared.0.lock().unwrap() = true;
            if all {
                shared.1.notify_all();
            } else {
                shared.1.notify_one();
            }
        })
    };
    (shared, setter)
}
