//! loom's `future`: [`block_on`] is rankcheck-rt's (the calling thread
//! polls the future, and waits to be woken after each `Pending`), and
//! [`AtomicWaker`] keeps one task's waker.

use std::fmt;
use std::task::Waker;

pub use rankcheck_rt::future::block_on;
use rankcheck_rt::sync::Mutex;

/// A waker slot that a task registers in and other threads wake, as loom's
/// (and futures') `AtomicWaker`: a registration and a wake are each one
/// operation of a rankcheck-rt `Mutex` to the search, so the race between
/// them is explored as the lock-free original's.
#[derive(Default)]
pub struct AtomicWaker {
    waker: Mutex<Option<Waker>>,
}

impl AtomicWaker {
    /// An empty slot.
    #[track_caller]
    pub fn new() -> AtomicWaker {
        AtomicWaker {
            waker: Mutex::new(None),
        }
    }

    /// Keep `waker`, in place of the one kept.
    #[track_caller]
    pub fn register(&self, waker: Waker) {
        *self.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(waker);
    }

    /// Keep a clone of `waker`, unless the kept one wakes the same task.
    #[track_caller]
    pub fn register_by_ref(&self, waker: &Waker) {
        let mut slot = self.waker.lock().unwrap_or_else(|p| p.into_inner());
        if !slot.as_ref().is_some_and(|kept| kept.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }

    /// Wake the kept waker, if any, and empty the slot.
    #[track_caller]
    pub fn wake(&self) {
        if let Some(waker) = self.take_waker() {
            waker.wake();
        }
    }

    /// Take the kept waker out of the slot.
    #[track_caller]
    pub fn take_waker(&self) -> Option<Waker> {
        self.waker.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl fmt::Debug for AtomicWaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicWaker").finish_non_exhaustive()
    }
}
