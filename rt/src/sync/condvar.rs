//! A drop-in `std::sync::Condvar`. `notify_one` wakes one of the threads
//! waiting when it is called, the scheduler's choice; a notification with
//! no waiter is lost. A wait may wake spuriously and a timed wait may time
//! out, each a scheduling choice bounded per run (see `crate::wake`).

use std::fmt;
use std::panic::Location;
use std::sync::{LockResult, PoisonError};
use std::time::Duration;

use super::mutex::MutexGuard;
use crate::lazy::LazyHandle;
use crate::object::{ObjectKind, SyncState};
use crate::op;
use crate::wake::Woken;

/// As `std::sync::Condvar`.
pub struct Condvar {
    handle: LazyHandle,
}

/// As `std::sync::WaitTimeoutResult`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait timed out (a scheduling choice, never the clock).
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

impl Condvar {
    /// A new condition variable: a new variable, known by this call's site.
    #[track_caller]
    pub const fn new() -> Condvar {
        Condvar {
            handle: LazyHandle::new(
                ObjectKind::Condvar,
                Location::caller(),
                SyncState::Condvar {
                    waiters: Vec::new(),
                    generation: 0,
                    pending: Vec::new(),
                },
            ),
        }
    }

    /// Release the guard's mutex and wait until notified, then lock it
    /// again: a synchronisation operation. As std's, it may also return
    /// without a notification (a spurious wake-up, a scheduling choice:
    /// `Builder::spurious_wakeups`); `Err` when the mutex is poisoned.
    #[track_caller]
    pub fn wait<'a, T: ?Sized>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        self.wait_as(guard, false, Location::caller())
            .map(|(guard, _)| guard)
            .map_err(|poisoned| PoisonError::new(poisoned.into_inner().0))
    }

    /// Wait (`timed`: with a timeout), the guard back with how it woke.
    fn wait_as<'a, T: ?Sized>(
        &self,
        guard: MutexGuard<'a, T>,
        timed: bool,
        site: op::Site,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        let mutex = guard.release();
        let woken = op::wait(&self.handle.get(), &mutex.handle(), timed, site);
        let result = WaitTimeoutResult(woken == Woken::Timeout);
        match mutex.guard(site) {
            Ok(guard) => Ok((guard, result)),
            Err(poisoned) => Err(PoisonError::new((poisoned.into_inner(), result))),
        }
    }

    /// Wait while `condition` holds, as std's: it checks again after every
    /// wake-up, so a spurious one never returns.
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

    /// Wait until notified or the timeout fires, as std's: whether it
    /// fired is a scheduling choice (`Builder::timeouts`), and it fires
    /// whenever no other thread can run; the duration is not used. It may
    /// also wake spuriously, not timed out.
    #[track_caller]
    pub fn wait_timeout<'a, T: ?Sized>(
        &self,
        guard: MutexGuard<'a, T>,
        _timeout: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        self.wait_as(guard, true, Location::caller())
    }

    /// Wait while `condition` holds, until the timeout fires, as std's:
    /// timed out when it fired with the condition still true.
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        _timeout: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        let site = Location::caller();
        loop {
            if !condition(&mut *guard) {
                return Ok((guard, WaitTimeoutResult(false)));
            }
            let (next, result) = self.wait_as(guard, true, site)?;
            guard = next;
            if result.timed_out() {
                let timed_out = condition(&mut *guard);
                return Ok((guard, WaitTimeoutResult(timed_out)));
            }
        }
    }

    /// Wake one waiting thread, if any: which one is a scheduling choice
    /// (std promises no order).
    #[track_caller]
    pub fn notify_one(&self) {
        op::notify(&self.handle.get(), false, Location::caller());
    }

    /// Wake every waiting thread.
    #[track_caller]
    pub fn notify_all(&self) {
        op::notify(&self.handle.get(), true, Location::caller());
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
