//! The fair semaphore under the async locks and the bounded channel, as
//! tokio's `batch_semaphore`: permits are handed out first come, first
//! served (a waiter at the head that wants more than there are holds up
//! those behind it), and a released permit goes straight to the next
//! waiter, so a newcomer cannot take it first.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex as StdMutex;
use std::task::{Context, Poll, Waker};

use rankcheck_engine::{EventKind, ThreadId};

use crate::executor::{self, with};
use crate::object::{Handle, SyncState};
use crate::op::{self, Site};
use crate::trace::Operation;

use super::super::{awaits, lock};

/// A semaphore of one object of the run (a variable): the lock's, or the
/// channel's.
pub struct Permits {
    handle: Handle,
    state: StdMutex<State>,
    /// Whether the object is a mutex whose holder reports name
    /// (`SyncState::Mutex`).
    mutex: bool,
}

struct State {
    available: usize,
    closed: bool,
    /// Waiting, in arrival order; a granted one keeps its place until its
    /// future takes the permits.
    queue: VecDeque<Waiter>,
    next_id: u64,
}

struct Waiter {
    id: u64,
    wanted: usize,
    granted: bool,
    waker: Waker,
    thread: ThreadId,
}

/// How an acquisition ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// The permits are the caller's.
    Yes,
    /// The semaphore is closed.
    Closed,
    /// (A try only.) Not enough permits now.
    No,
}

/// One acquisition in progress: the state a future keeps between polls.
#[derive(Debug, Default)]
struct Ticket {
    id: Option<u64>,
}

/// Waiting in line for permits, a future; dropped while waiting, it
/// leaves the line (passing on permits granted to it meanwhile).
pub struct Acquire<'a> {
    permits: &'a Permits,
    wanted: usize,
    ticket: Ticket,
    /// The operation each poll is, as the trace shows it.
    operation: Operation,
    /// What a waiter awaits, as a deadlock's report says it.
    what: &'static str,
    site: Site,
}

impl Future for Acquire<'_> {
    type Output = Acquired;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Acquired> {
        let this = self.get_mut();
        let (wanted, operation, what, site) = (this.wanted, this.operation, this.what, this.site);
        this.permits
            .poll_acquire(&mut this.ticket, wanted, operation, what, site, cx)
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        self.permits.cancel(&mut self.ticket, self.wanted);
    }
}

impl Permits {
    /// `available` permits for `handle`'s object (`mutex`: its holder is
    /// reported).
    pub fn new(handle: Handle, available: usize, mutex: bool) -> Permits {
        Permits {
            handle,
            state: StdMutex::new(State {
                available,
                closed: false,
                queue: VecDeque::new(),
                next_id: 0,
            }),
            mutex,
        }
    }

    /// The object's handle.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Wait in line for `wanted` permits; each poll is `operation`, a
    /// waiter awaits `what` (see [`Acquire`]).
    pub fn acquire(
        &self,
        wanted: usize,
        operation: Operation,
        what: &'static str,
        site: Site,
    ) -> Acquire<'_> {
        Acquire {
            permits: self,
            wanted,
            ticket: Ticket::default(),
            operation,
            what,
            site,
        }
    }

    /// Poll for `wanted` permits (`ticket` keeps the place in the queue):
    /// a scheduling point (`operation`), then the permits, or a place in
    /// the queue (`what`: what the waiter awaits, for reports).
    fn poll_acquire(
        &self,
        ticket: &mut Ticket,
        wanted: usize,
        operation: Operation,
        what: &'static str,
        site: Site,
        cx: &mut Context<'_>,
    ) -> Poll<Acquired> {
        if !op::async_step(Some(&self.handle), EventKind::Lock, operation, site) {
            return Poll::Pending;
        }
        let mut state = lock(&self.state);
        let Some(id) = ticket.id else {
            if state.closed {
                return Poll::Ready(Acquired::Closed);
            }
            if state.queue.is_empty() && state.available >= wanted {
                state.available -= wanted;
                drop(state);
                self.held_by(crate::future::running_thread());
                return Poll::Ready(Acquired::Yes);
            }
            let id = state.next_id;
            state.next_id += 1;
            state.queue.push_back(Waiter {
                id,
                wanted,
                granted: false,
                waker: cx.waker().clone(),
                thread: crate::future::running_thread(),
            });
            ticket.id = Some(id);
            drop(state);
            awaits(&self.handle, what, site);
            return Poll::Pending;
        };
        let Some(at) = state.queue.iter().position(|w| w.id == id) else {
            unreachable!("invariant: a ticket's waiter is queued until it is done")
        };
        if state.queue[at].granted {
            state.queue.remove(at);
            ticket.id = None;
            return Poll::Ready(Acquired::Yes);
        }
        if state.closed {
            state.queue.remove(at);
            ticket.id = None;
            return Poll::Ready(Acquired::Closed);
        }
        state.queue[at].waker.clone_from(cx.waker());
        drop(state);
        awaits(&self.handle, what, site);
        Poll::Pending
    }

    /// Take `wanted` permits if they are there now and nobody waits: a
    /// scheduling point (`operation`); never waits.
    pub fn try_acquire(&self, wanted: usize, operation: Operation, site: Site) -> Acquired {
        op::async_step(Some(&self.handle), EventKind::Lock, operation, site);
        let mut state = lock(&self.state);
        if state.closed {
            return Acquired::Closed;
        }
        if state.queue.is_empty() && state.available >= wanted {
            state.available -= wanted;
            drop(state);
            if executor::active() {
                self.held_by(crate::future::running_thread());
            }
            return Acquired::Yes;
        }
        Acquired::No
    }

    /// A future holding `ticket` was dropped: it leaves the queue, and
    /// permits granted to it go to the next waiters.
    fn cancel(&self, ticket: &mut Ticket, wanted: usize) {
        let Some(id) = ticket.id.take() else {
            return;
        };
        let granted = {
            let mut state = lock(&self.state);
            let Some(at) = state.queue.iter().position(|w| w.id == id) else {
                return;
            };
            state.queue.remove(at).is_some_and(|w| w.granted)
        };
        if granted {
            self.add(wanted);
        }
    }

    /// Release `count` permits at a scheduling point (`operation`: an
    /// unlock).
    pub fn release(&self, count: usize, operation: Operation, site: Site) {
        op::async_step(Some(&self.handle), EventKind::Unlock, operation, site);
        self.add(count);
    }

    /// Add `count` permits, granting them to the waiters in order and
    /// waking those served; no scheduling point (the caller's operation
    /// is one).
    pub fn add(&self, count: usize) {
        let mut served = Vec::new();
        let holder = {
            let mut state = lock(&self.state);
            state.available += count;
            let mut holder = None;
            let mut available = state.available;
            for waiter in state.queue.iter_mut().filter(|w| !w.granted) {
                if waiter.wanted > available {
                    break;
                }
                available -= waiter.wanted;
                waiter.granted = true;
                holder = Some(waiter.thread);
                served.push(waiter.waker.clone());
            }
            state.available = available;
            holder
        };
        self.held_by_or_free(holder);
        for waker in served {
            waker.wake();
        }
    }

    /// Close it: every waiter's acquisition fails, and every later one.
    pub fn close(&self) {
        let waiting: Vec<Waker> = {
            let mut state = lock(&self.state);
            state.closed = true;
            state
                .queue
                .iter()
                .filter(|w| !w.granted)
                .map(|w| w.waker.clone())
                .collect()
        };
        for waker in waiting {
            waker.wake();
        }
    }

    /// Whether it is closed.
    pub fn is_closed(&self) -> bool {
        lock(&self.state).closed
    }

    /// Permits not handed out.
    pub fn available(&self) -> usize {
        lock(&self.state).available
    }

    /// For a mutex: `thread` holds it now (reports name it).
    fn held_by(&self, thread: ThreadId) {
        self.held_by_or_free(Some(thread));
    }

    /// For a mutex: `holder` holds it now, or it is free (`None`) unless
    /// permits are still out.
    fn held_by_or_free(&self, holder: Option<ThreadId>) {
        if !self.mutex || !executor::present() {
            return;
        }
        let free = holder.is_none() && lock(&self.state).available > 0;
        let object = self.handle.object;
        with(|ex| {
            if ex.id != self.handle.execution {
                return;
            }
            ex.touch(crate::footprint::Place::Everything, true);
            if let SyncState::Mutex { owner } = &mut ex.objects[object.index()].sync {
                if holder.is_some() || free {
                    *owner = holder;
                }
            }
        });
    }
}
