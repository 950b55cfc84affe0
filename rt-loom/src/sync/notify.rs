//! loom's `Notify`: one waiter blocks until notified; a notify with no
//! waiter is kept for the next wait. Built from rankcheck-rt's `Mutex` and
//! `Condvar`, so its operations are theirs to the search (and a wait never
//! returns without a notify: loom's may once, spuriously).

use rankcheck_rt::sync::{Condvar, Mutex};

/// A one-waiter notification, as loom's `sync::Notify`.
#[derive(Debug, Default)]
pub struct Notify {
    /// A notification not consumed yet, and whether a thread waits.
    state: Mutex<State>,
    woken: Condvar,
}

#[derive(Debug, Default)]
struct State {
    notified: bool,
    waiting: bool,
}

impl Notify {
    /// A notify with no notification kept.
    #[track_caller]
    pub fn new() -> Notify {
        Notify {
            state: Mutex::new(State::default()),
            woken: Condvar::new(),
        }
    }

    /// Notify the waiter, or keep the notification for the next wait.
    #[track_caller]
    pub fn notify(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.notified = true;
        drop(state);
        self.woken.notify_one();
    }

    /// Wait until notified, consuming the notification.
    ///
    /// # Panics
    /// When another thread waits already, as loom's.
    #[track_caller]
    pub fn wait(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        assert!(!state.waiting, "only a single thread may wait on `Notify`");
        state.waiting = true;
        while !state.notified {
            state = self.woken.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        state.notified = false;
        state.waiting = false;
    }
}
