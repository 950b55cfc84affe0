//! Async multi-producer, single-consumer channels, as
//! `tokio::sync::mpsc`: `channel(n)` holds at most `n` messages and a
//! `send` waits in line for room (a fair semaphore of `n` permits, as
//! tokio's); `unbounded_channel()` never waits. Once the receiver is
//! closed or dropped every send fails with its value, also one already
//! waiting for room; once every sender is gone, `recv` drains the queue,
//! then gives `None`.

use std::collections::VecDeque;
use std::fmt;
use std::future::{poll_fn, Future};
use std::panic::Location;
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{Context, Poll, Waker};

use rankcheck_engine::EventKind;

use super::permits::{Acquire, Acquired, Permits};
use crate::future::{awaits, lock};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op::{self, Site};
use crate::trace::Operation;

use error::{SendError, TryRecvError, TrySendError};

/// The channels' errors, as `tokio::sync::mpsc::error`.
pub mod error {
    use std::fmt;

    /// A send failed: the receiver is closed or gone; the value is back.
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    impl<T> fmt::Debug for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("SendError").finish_non_exhaustive()
        }
    }

    impl<T> fmt::Display for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "channel closed")
        }
    }

    impl<T> std::error::Error for SendError<T> {}

    /// A `try_send` failed; the value is back.
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub enum TrySendError<T> {
        /// No room now.
        Full(T),
        /// The receiver is closed or gone.
        Closed(T),
    }

    impl<T> fmt::Debug for TrySendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TrySendError::Full(_) => write!(f, "Full(..)"),
                TrySendError::Closed(_) => write!(f, "Closed(..)"),
            }
        }
    }

    impl<T> fmt::Display for TrySendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TrySendError::Full(_) => write!(f, "no available capacity"),
                TrySendError::Closed(_) => write!(f, "channel closed"),
            }
        }
    }

    impl<T> std::error::Error for TrySendError<T> {}

    /// A `try_recv` found nothing.
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum TryRecvError {
        /// Nothing queued now.
        Empty,
        /// Nothing queued and every sender gone.
        Disconnected,
    }

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(f, "receiving on an empty channel"),
                TryRecvError::Disconnected => write!(f, "receiving on a closed channel"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

/// A channel's shared state.
struct Chan<T> {
    handle: Handle,
    /// Room, for a bounded channel.
    room: Option<Permits>,
    /// The bound of a bounded channel.
    bound: Option<usize>,
    state: StdMutex<State<T>>,
}

struct State<T> {
    queue: VecDeque<T>,
    senders: usize,
    /// The receiver closed or dropped.
    closed: bool,
    receiver: Option<Waker>,
}

impl<T> Chan<T> {
    fn new(capacity: Option<usize>, site: Site) -> Arc<Chan<T>> {
        let handle = crate::future::create(ObjectKind::AsyncChannel, site, SyncState::Memory);
        Arc::new(Chan {
            handle,
            room: capacity.map(|c| Permits::new(handle, c, false)),
            bound: capacity,
            state: StdMutex::new(State {
                queue: VecDeque::new(),
                senders: 1,
                closed: false,
                receiver: None,
            }),
        })
    }

    /// A scheduling point of this channel: `operation`, its step ended by
    /// `kind`.
    fn step(&self, kind: EventKind, operation: Operation, site: Site) {
        op::async_step(Some(&self.handle), kind, operation, site);
    }

    /// Queue `value` (room taken already), waking the receiver; the value
    /// back if the receiver is closed.
    fn push(&self, value: T) -> Result<(), SendError<T>> {
        let receiver = {
            let mut state = lock(&self.state);
            if state.closed {
                return Err(SendError(value));
            }
            state.queue.push_back(value);
            state.receiver.take()
        };
        if let Some(receiver) = receiver {
            receiver.wake();
        }
        Ok(())
    }

    fn poll_recv(&self, cx: &mut Context<'_>, site: Site) -> Poll<Option<T>> {
        let operation = Operation::Recv(self.handle.object);
        if !op::async_step(Some(&self.handle), EventKind::Write, operation, site) {
            return Poll::Pending;
        }
        let mut state = lock(&self.state);
        if let Some(value) = state.queue.pop_front() {
            drop(state);
            if let Some(room) = &self.room {
                room.add(1);
            }
            return Poll::Ready(Some(value));
        }
        if state.senders == 0 || state.closed {
            return Poll::Ready(None);
        }
        state.receiver = Some(cx.waker().clone());
        drop(state);
        awaits(&self.handle, "to receive on", site);
        Poll::Pending
    }

    fn try_recv(&self, site: Site) -> Result<T, TryRecvError> {
        self.step(EventKind::Write, Operation::Recv(self.handle.object), site);
        let mut state = lock(&self.state);
        if let Some(value) = state.queue.pop_front() {
            drop(state);
            if let Some(room) = &self.room {
                room.add(1);
            }
            return Ok(value);
        }
        if state.senders == 0 || state.closed {
            return Err(TryRecvError::Disconnected);
        }
        Err(TryRecvError::Empty)
    }

    /// The receiver closes (`drop`: and goes, dropping what is queued):
    /// every send fails from now on, also those waiting for room.
    fn close(&self, dropped: bool, site: Site) {
        self.step(
            EventKind::Write,
            Operation::Disconnect(self.handle.object),
            site,
        );
        let queued = {
            let mut state = lock(&self.state);
            state.closed = true;
            if dropped {
                std::mem::take(&mut state.queue)
            } else {
                VecDeque::new()
            }
        };
        if let Some(room) = &self.room {
            room.close();
        }
        drop(queued);
    }

    fn add_sender(&self) {
        lock(&self.state).senders += 1;
    }

    /// A sender goes; the last one's going wakes the receiver.
    fn drop_sender(&self, site: Site) {
        let last = lock(&self.state).senders == 1;
        if last {
            self.step(
                EventKind::Write,
                Operation::Disconnect(self.handle.object),
                site,
            );
        }
        let receiver = {
            let mut state = lock(&self.state);
            state.senders -= 1;
            if state.senders == 0 {
                state.receiver.take()
            } else {
                None
            }
        };
        if let Some(receiver) = receiver {
            receiver.wake();
        }
    }
}

/// A bounded channel of room for `buffer` messages, as
/// `tokio::sync::mpsc::channel`: a new variable, known by this call's site.
///
/// # Panics
/// When `buffer` is 0, as tokio's.
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    let site = Location::caller();
    let chan = Chan::new(Some(buffer), site);
    let receiver = Receiver {
        chan: chan.clone(),
        site,
    };
    (Sender { chan, site }, receiver)
}

/// An unbounded channel, as `tokio::sync::mpsc::unbounded_channel`.
#[track_caller]
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let site = Location::caller();
    let chan = Chan::new(None, site);
    let receiver = UnboundedReceiver {
        chan: chan.clone(),
        site,
    };
    (UnboundedSender { chan, site }, receiver)
}

/// As `tokio::sync::mpsc::Sender`.
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
    site: Site,
}

/// As `tokio::sync::mpsc::Receiver`.
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
    site: Site,
}

/// As `tokio::sync::mpsc::UnboundedSender`.
pub struct UnboundedSender<T> {
    chan: Arc<Chan<T>>,
    site: Site,
}

/// As `tokio::sync::mpsc::UnboundedReceiver`.
pub struct UnboundedReceiver<T> {
    chan: Arc<Chan<T>>,
    site: Site,
}

impl<T> Sender<T> {
    /// Send `value`, waiting in line for room: `Err` with the value when
    /// the receiver is closed or gone, also while waiting.
    #[track_caller]
    pub fn send(&self, value: T) -> impl Future<Output = Result<(), SendError<T>>> + '_ {
        let chan = &*self.chan;
        let operation = Operation::Send(chan.handle.object);
        Send {
            chan,
            value: Some(value),
            room: room(chan).acquire(1, operation, "room to send on", Location::caller()),
        }
    }

    /// Send `value` if there is room now and nobody waits; never waits.
    #[track_caller]
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let chan = &self.chan;
        let operation = Operation::Send(chan.handle.object);
        match room(chan).try_acquire(1, operation, Location::caller()) {
            Acquired::Yes => chan.push(value).map_err(|e| TrySendError::Closed(e.0)),
            Acquired::No => Err(TrySendError::Full(value)),
            Acquired::Closed => Err(TrySendError::Closed(value)),
        }
    }

    /// Wait in line for room for one message, as tokio's `reserve`: a
    /// [`Permit`] to send it without waiting, or `Err` when the receiver
    /// is closed or gone, also while waiting.
    #[track_caller]
    pub fn reserve(&self) -> impl Future<Output = Result<Permit<'_, T>, SendError<()>>> + '_ {
        let chan = &*self.chan;
        let operation = Operation::Send(chan.handle.object);
        let acquire = room(chan).acquire(1, operation, "room to send on", Location::caller());
        async move {
            match acquire.await {
                Acquired::Yes => Ok(Permit { chan }),
                Acquired::Closed | Acquired::No => Err(SendError(())),
            }
        }
    }

    /// Room for one message if there is room now and nobody waits, as
    /// tokio's `try_reserve`; never waits.
    #[track_caller]
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        let chan = &*self.chan;
        let operation = Operation::Send(chan.handle.object);
        match room(chan).try_acquire(1, operation, Location::caller()) {
            Acquired::Yes => Ok(Permit { chan }),
            Acquired::No => Err(TrySendError::Full(())),
            Acquired::Closed => Err(TrySendError::Closed(())),
        }
    }

    /// Whether the receiver is closed or gone; not a scheduling point.
    pub fn is_closed(&self) -> bool {
        lock(&self.chan.state).closed
    }

    /// Room left now; not a scheduling point.
    pub fn capacity(&self) -> usize {
        room(&self.chan).available()
    }

    /// The channel's bound, as made; not a scheduling point.
    pub fn max_capacity(&self) -> usize {
        bound(&self.chan)
    }
}

/// Room reserved for one message, as `tokio::sync::mpsc::Permit`: `send`
/// uses it; dropped unused, it gives the room back.
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
}

impl<T> Permit<'_, T> {
    /// Send `value` in the reserved room, never waiting, as tokio's: it is
    /// queued even if the receiver closed since (it can still receive
    /// it), and dropped with the queue if the receiver is gone. A
    /// scheduling point.
    #[track_caller]
    pub fn send(self, value: T) {
        let chan = self.chan;
        std::mem::forget(self);
        chan.step(
            EventKind::Write,
            Operation::Send(chan.handle.object),
            Location::caller(),
        );
        let receiver = {
            let mut state = lock(&chan.state);
            state.queue.push_back(value);
            state.receiver.take()
        };
        if let Some(receiver) = receiver {
            receiver.wake();
        }
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        room(self.chan).add(1);
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").finish_non_exhaustive()
    }
}

impl<T> Receiver<T> {
    /// Room left now, as tokio's; not a scheduling point.
    pub fn capacity(&self) -> usize {
        room(&self.chan).available()
    }

    /// The channel's bound, as made; not a scheduling point.
    pub fn max_capacity(&self) -> usize {
        bound(&self.chan)
    }
}

fn bound<T>(chan: &Chan<T>) -> usize {
    chan.bound
        .unwrap_or_else(|| unreachable!("invariant: a bounded channel has a bound"))
}

fn room<T>(chan: &Chan<T>) -> &Permits {
    chan.room
        .as_ref()
        .unwrap_or_else(|| unreachable!("invariant: a bounded channel has room"))
}

/// `Sender::send`'s future: dropped while waiting for room, it leaves the
/// line (the value is dropped with it).
struct Send<'a, T> {
    chan: &'a Chan<T>,
    value: Option<T>,
    room: Acquire<'a>,
}

// Nothing is pinned through it: the value is moved out, never borrowed.
impl<T> Unpin for Send<'_, T> {}

impl<T> Future for Send<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Poll::Ready(acquired) = Pin::new(&mut this.room).poll(cx) else {
            return Poll::Pending;
        };
        let value = this
            .value
            .take()
            .unwrap_or_else(|| panic!("rankcheck: a send polled after it completed"));
        Poll::Ready(match acquired {
            Acquired::Yes => this.chan.push(value),
            Acquired::Closed | Acquired::No => Err(SendError(value)),
        })
    }
}

impl<T> UnboundedSender<T> {
    /// Queue `value`; `Err` with it when the receiver is closed or gone.
    /// A scheduling point.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let chan = &self.chan;
        chan.step(
            EventKind::Write,
            Operation::Send(chan.handle.object),
            Location::caller(),
        );
        chan.push(value)
    }

    /// Whether the receiver is closed or gone; not a scheduling point.
    pub fn is_closed(&self) -> bool {
        lock(&self.chan.state).closed
    }
}

/// The receiving half's methods, for both kinds of channel.
macro_rules! receiver {
    ($receiver:ident) => {
        impl<T> $receiver<T> {
            /// The next message; `None` once the queue is empty and every
            /// sender gone (or the receiver closed).
            #[track_caller]
            pub fn recv(&mut self) -> impl Future<Output = Option<T>> + '_ {
                let site = Location::caller();
                poll_fn(move |cx| self.chan.poll_recv(cx, site))
            }

            /// Poll for the next message, as tokio's `poll_recv`.
            pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
                self.chan.poll_recv(cx, self.site)
            }

            /// The next message if one is queued; never waits.
            #[track_caller]
            pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
                self.chan.try_recv(Location::caller())
            }

            /// Whether the channel is closed, as tokio's: the receiver
            /// closed it or every sender is gone. Not a scheduling point.
            pub fn is_closed(&self) -> bool {
                let state = lock(&self.chan.state);
                state.closed || state.senders == 0
            }

            /// How many messages are queued; not a scheduling point.
            pub fn len(&self) -> usize {
                lock(&self.chan.state).queue.len()
            }

            /// Whether no message is queued; not a scheduling point.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// Close the channel: sends fail from now on, what is queued
            /// can still be received. A scheduling point.
            #[track_caller]
            pub fn close(&mut self) {
                self.chan.close(false, Location::caller());
            }
        }

        impl<T> Drop for $receiver<T> {
            fn drop(&mut self) {
                self.chan.close(true, self.site);
            }
        }

        impl<T> fmt::Debug for $receiver<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($receiver))
                    .finish_non_exhaustive()
            }
        }
    };
}

/// The sending half's clone, drop and `Debug`, for both kinds.
macro_rules! sender {
    ($sender:ident) => {
        impl<T> Clone for $sender<T> {
            fn clone(&self) -> $sender<T> {
                self.chan.add_sender();
                $sender {
                    chan: self.chan.clone(),
                    site: self.site,
                }
            }
        }

        impl<T> Drop for $sender<T> {
            fn drop(&mut self) {
                self.chan.drop_sender(self.site);
            }
        }

        impl<T> fmt::Debug for $sender<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($sender)).finish_non_exhaustive()
            }
        }
    };
}

receiver!(Receiver);
receiver!(UnboundedReceiver);
sender!(Sender);
sender!(UnboundedSender);
