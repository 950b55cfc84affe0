//! A drop-in `std::sync::Condvar`. `notify_one` wakes the thread that has
//! waited longest; a notification with no waiter is lost; there are no
//! spurious wakeups (docs/LANGUAGE.md, `wait` and `signal`).

use std::fmt;
use std::panic::Location;
use std::sync::LockResult;
use std::time::Duration;

use super::mutex::MutexGuard;
use crate::object::{Handle, SyncState};
use crate::op;

/// As `std::sync::Condvar`.
pub struct Condvar {
    handle: Handle,
}

/// As `std::sync::WaitTimeoutResult`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait timed out: never, time does not pass in a run.
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

impl Condvar {
    /// A new condition variable: a new variable, known by this call's site.
    #[track_caller]
    pub fn new() -> Condvar {
        Condvar {
            handle: op::create(
                "Condvar",
                Location::caller(),
                SyncState::Condvar {
                    waiters: Vec::new(),
                },
            ),
        }
    }

    /// Release the guard's mutex and wait until notified, then lock it
    /// again: a synchronisation operation.
    #[track_caller]
    pub fn wait<'a, T: ?Sized>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let site = Location::caller();
        let mutex = guard.release();
        op::wait(&self.handle, mutex.handle(), site);
        mutex.guard(site)
    }

    /// Wait while `condition` holds, as std's.
    #[track_caller]
    pub fn wait_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// A wait that never times out: time does not pass in a run, so this
    /// is [`Condvar::wait`].
    #[track_caller]
    pub fn wait_timeout<'a, T: ?Sized>(
        &self,
        guard: MutexGuard<'a, T>,
        _timeout: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        let guard = self
            .wait(guard)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok((guard, WaitTimeoutResult(false)))
    }

    /// Wake the thread that has waited longest, if any.
    #[track_caller]
    pub fn notify_one(&self) {
        op::notify(&self.handle, false, Location::caller());
    }

    /// Wake every waiting thread.
    #[track_caller]
    pub fn notify_all(&self) {
        op::notify(&self.handle, true, Location::caller());
    }
}

impl Default for Condvar {
    #[track_caller]
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}
