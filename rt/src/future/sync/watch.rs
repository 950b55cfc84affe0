//! A channel of one changing value, as `tokio::sync::watch`: the sender
//! replaces the value and bumps its version, every receiver sees the
//! latest, and `changed` waits for a version it has not seen.
//!
//! A `Ref` from `borrow` holds a std read lock of the value: a send while
//! one is held (across a scheduling point) is refused with a panic, where
//! a real runtime would block the sender until the `Ref` goes (tokio's
//! docs warn against holding it); so is a borrow while `send_modify`'s
//! closure runs.

use std::fmt;
use std::future::{poll_fn, Future};
use std::ops::Deref;
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex, RwLock as StdRwLock, RwLockReadGuard};
use std::task::{Poll, Waker};

use rankcheck_engine::EventKind;

use crate::future::{awaits, lock};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op::{self, Site};
use crate::trace::Operation;

use error::{RecvError, SendError};

/// The channel's errors, as `tokio::sync::watch::error` (the same shapes
/// as `mpsc`'s and `oneshot`'s).
pub mod error {
    pub use crate::future::sync::mpsc::error::SendError;
    pub use crate::future::sync::oneshot::error::RecvError;
}

struct Shared<T> {
    handle: Handle,
    value: StdRwLock<T>,
    state: StdMutex<State>,
}

struct State {
    version: u64,
    receivers: usize,
    sender_gone: bool,
    waiting: Vec<Waker>,
}

/// As `tokio::sync::watch::Sender`.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
    site: Site,
}

/// As `tokio::sync::watch::Receiver`.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version it saw last.
    seen: u64,
    site: Site,
}

/// As `tokio::sync::watch::Ref`: the value, read-locked.
pub struct Ref<'a, T> {
    value: RwLockReadGuard<'a, T>,
    changed: bool,
}

/// A channel holding `init`: a new variable, known by this call's site.
#[track_caller]
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let site = Location::caller();
    let shared = Arc::new(Shared {
        handle: crate::future::create(ObjectKind::Watch, site, SyncState::Memory),
        value: StdRwLock::new(init),
        state: StdMutex::new(State {
            version: 0,
            receivers: 1,
            sender_gone: false,
            waiting: Vec::new(),
        }),
    });
    let receiver = Receiver {
        shared: shared.clone(),
        seen: 0,
        site,
    };
    (Sender { shared, site }, receiver)
}

impl<T> Shared<T> {
    fn step(&self, kind: EventKind, operation: Operation, site: Site) -> bool {
        op::async_step(Some(&self.handle), kind, operation, site)
    }

    /// Read the value: an access (a point when tracked).
    fn borrow(&self, changed: bool, site: Site) -> Ref<'_, T> {
        op::access(&self.handle, false, site);
        Ref {
            value: self.value.try_read().unwrap_or_else(|_| {
                panic!(
                    "rankcheck: a watch value borrowed while send_modify's closure changes it; \
                     the closure must not reach a scheduling point"
                )
            }),
            changed,
        }
    }

    /// Replace the value by `modify`, a new version, waking every waiter.
    fn modify<R>(&self, modify: impl FnOnce(&mut T) -> R) -> R {
        let result = {
            let mut value = self.value.try_write().unwrap_or_else(|_| {
                panic!(
                    "rankcheck: a watch value changed while a watch::Ref of it is held; \
                     drop the Ref before the next scheduling point (a runtime would block \
                     the sender)"
                )
            });
            modify(&mut value)
        };
        let waiting = {
            let mut state = lock(&self.state);
            state.version += 1;
            std::mem::take(&mut state.waiting)
        };
        for waker in waiting {
            waker.wake();
        }
        result
    }
}

impl<T> Sender<T> {
    /// Replace the value and notify the receivers: `Err` with the value
    /// when every receiver is gone. A scheduling point.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let shared = &self.shared;
        shared.step(
            EventKind::Write,
            Operation::Send(shared.handle.object),
            Location::caller(),
        );
        if lock(&shared.state).receivers == 0 {
            return Err(SendError(value));
        }
        shared.modify(|old| *old = value);
        Ok(())
    }

    /// Replace the value whether or not anyone receives; the old one back.
    #[track_caller]
    pub fn send_replace(&self, value: T) -> T {
        let shared = &self.shared;
        shared.step(
            EventKind::Write,
            Operation::Send(shared.handle.object),
            Location::caller(),
        );
        shared.modify(|old| std::mem::replace(old, value))
    }

    /// Change the value in place and notify the receivers.
    #[track_caller]
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        let shared = &self.shared;
        shared.step(
            EventKind::Write,
            Operation::Send(shared.handle.object),
            Location::caller(),
        );
        shared.modify(modify);
    }

    /// The value now.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        self.shared.borrow(false, Location::caller())
    }

    /// A new receiver, which has seen the value now.
    pub fn subscribe(&self) -> Receiver<T> {
        let seen = {
            let mut state = lock(&self.shared.state);
            state.receivers += 1;
            state.version
        };
        Receiver {
            shared: self.shared.clone(),
            seen,
            site: self.site,
        }
    }

    /// How many receivers there are; not a scheduling point.
    pub fn receiver_count(&self) -> usize {
        lock(&self.shared.state).receivers
    }

    /// Whether every receiver is gone; not a scheduling point.
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let shared = &self.shared;
        shared.step(
            EventKind::Write,
            Operation::Disconnect(shared.handle.object),
            self.site,
        );
        let waiting = {
            let mut state = lock(&shared.state);
            state.sender_gone = true;
            std::mem::take(&mut state.waiting)
        };
        for waker in waiting {
            waker.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// Wait for a version this receiver has not seen, and mark it seen;
    /// `Err` once the sender is gone (with nothing unseen).
    #[track_caller]
    pub fn changed(&mut self) -> impl Future<Output = Result<(), RecvError>> + '_ {
        let site = Location::caller();
        poll_fn(move |cx| {
            let shared = &self.shared;
            if !shared.step(
                EventKind::Write,
                Operation::Recv(shared.handle.object),
                site,
            ) {
                return Poll::Pending;
            }
            let mut state = lock(&shared.state);
            if state.version > self.seen {
                self.seen = state.version;
                return Poll::Ready(Ok(()));
            }
            if state.sender_gone {
                return Poll::Ready(Err(RecvError::closed()));
            }
            state.waiting.push(cx.waker().clone());
            drop(state);
            awaits(&shared.handle, "a change of", site);
            Poll::Pending
        })
    }

    /// The value now, not marking it seen.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        let changed = lock(&self.shared.state).version > self.seen;
        self.shared.borrow(changed, Location::caller())
    }

    /// The value now, marking it seen.
    #[track_caller]
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let version = lock(&self.shared.state).version;
        let changed = version > self.seen;
        self.seen = version;
        self.shared.borrow(changed, Location::caller())
    }

    /// Whether there is a version this receiver has not seen; `Err` once
    /// the sender is gone. An access (a point when tracked).
    #[track_caller]
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        op::access(&self.shared.handle, false, Location::caller());
        let state = lock(&self.shared.state);
        if state.sender_gone {
            return Err(RecvError::closed());
        }
        Ok(state.version > self.seen)
    }

    /// Mark the value now as seen.
    pub fn mark_unchanged(&mut self) {
        self.seen = lock(&self.shared.state).version;
    }

    /// Mark the value now as not seen.
    pub fn mark_changed(&mut self) {
        self.seen = lock(&self.shared.state).version.saturating_sub(1);
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Receiver<T> {
        lock(&self.shared.state).receivers += 1;
        Receiver {
            shared: self.shared.clone(),
            seen: self.seen,
            site: self.site,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let last = lock(&self.shared.state).receivers == 1;
        if last {
            let shared = &self.shared;
            shared.step(
                EventKind::Write,
                Operation::Disconnect(shared.handle.object),
                self.site,
            );
        }
        lock(&self.shared.state).receivers -= 1;
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> Ref<'_, T> {
    /// Whether the value was unseen by the receiver when borrowed.
    pub fn has_changed(&self) -> bool {
        self.changed
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
