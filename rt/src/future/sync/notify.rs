//! Notifying tasks, as `tokio::sync::Notify`: `notify_one` wakes the
//! longest waiter or, with none, stores one permit that the next
//! `notified` takes at once; `notify_waiters` wakes every waiter there is
//! (and every `Notified` made before it, polled or not) and stores
//! nothing.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::Mutex as StdMutex;
use std::task::{Context, Poll, Waker};

use rankcheck_engine::EventKind;

use crate::future::{awaits, lock};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op::{self, Site};
use crate::trace::Operation;

/// As `tokio::sync::Notify`: a variable, its notifications and polls
/// scheduling points.
pub struct Notify {
    handle: Handle,
    state: StdMutex<State>,
}

#[derive(Default)]
struct State {
    /// A `notify_one` no waiter took.
    permit: bool,
    /// `notify_waiters` calls so far.
    generation: u64,
    /// Polled `Notified`s, longest waiting first.
    waiters: VecDeque<Waiter>,
    next_id: u64,
}

struct Waiter {
    id: u64,
    /// Chosen by a `notify_one`.
    notified: bool,
    waker: Waker,
}

impl Notify {
    /// A new `Notify`: a new variable, known by this call's site.
    #[track_caller]
    pub fn new() -> Notify {
        Notify {
            handle: crate::future::create(
                ObjectKind::Notify,
                Location::caller(),
                SyncState::Memory,
            ),
            state: StdMutex::new(State::default()),
        }
    }

    /// A future that completes once notified (see the module).
    #[track_caller]
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            notify: self,
            generation: lock(&self.state).generation,
            id: None,
            done: false,
            site: Location::caller(),
        }
    }

    /// Wake the longest waiter, or store one permit: a scheduling point.
    #[track_caller]
    pub fn notify_one(&self) {
        let operation = Operation::Notify(self.handle.object, false);
        op::async_step(
            Some(&self.handle),
            EventKind::Signal,
            operation,
            Location::caller(),
        );
        self.pass_on();
    }

    /// Wake every waiter there is now; stores nothing. A scheduling point.
    #[track_caller]
    pub fn notify_waiters(&self) {
        let operation = Operation::Notify(self.handle.object, true);
        op::async_step(
            Some(&self.handle),
            EventKind::Broadcast,
            operation,
            Location::caller(),
        );
        let woken: Vec<Waker> = {
            let mut state = lock(&self.state);
            state.generation += 1;
            state.waiters.drain(..).map(|w| w.waker).collect()
        };
        for waker in woken {
            waker.wake();
        }
    }

    /// A `notify_one`'s effect, without its scheduling point.
    fn pass_on(&self) {
        let woken = {
            let mut state = lock(&self.state);
            match state.waiters.iter_mut().find(|w| !w.notified) {
                Some(waiter) => {
                    waiter.notified = true;
                    Some(waiter.waker.clone())
                }
                None => {
                    state.permit = true;
                    None
                }
            }
        };
        if let Some(waker) = woken {
            waker.wake();
        }
    }
}

impl Default for Notify {
    #[track_caller]
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notify").finish_non_exhaustive()
    }
}

/// As `tokio::sync::futures::Notified`: dropped after a `notify_one`
/// chose it, it passes the notification on, as tokio's.
pub struct Notified<'a> {
    notify: &'a Notify,
    /// The `notify_waiters` generation when it was made.
    generation: u64,
    id: Option<u64>,
    done: bool,
    site: Site,
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let handle = &this.notify.handle;
        let operation = Operation::Wait(handle.object);
        if this.done || !op::async_step(Some(handle), EventKind::Read, operation, this.site) {
            return if this.done {
                Poll::Ready(())
            } else {
                Poll::Pending
            };
        }
        let mut state = lock(&this.notify.state);
        let place = this
            .id
            .and_then(|id| state.waiters.iter().position(|w| w.id == id));
        let ready = state.generation > this.generation
            || place.is_some_and(|at| state.waiters[at].notified)
            || (place.is_none() && std::mem::take(&mut state.permit));
        if ready {
            if let Some(at) = place {
                state.waiters.remove(at);
            }
            this.done = true;
            return Poll::Ready(());
        }
        match place {
            Some(at) => state.waiters[at].waker.clone_from(cx.waker()),
            None => {
                let id = state.next_id;
                state.next_id += 1;
                state.waiters.push_back(Waiter {
                    id,
                    notified: false,
                    waker: cx.waker().clone(),
                });
                this.id = Some(id);
            }
        }
        drop(state);
        awaits(handle, "a notification of", this.site);
        Poll::Pending
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.filter(|_| !self.done) else {
            return;
        };
        let chosen = {
            let mut state = lock(&self.notify.state);
            match state.waiters.iter().position(|w| w.id == id) {
                Some(at) => state.waiters.remove(at).is_some_and(|w| w.notified),
                None => false,
            }
        };
        if chosen {
            self.notify.pass_on();
        }
    }
}
