//! A channel for one value, as `tokio::sync::oneshot`: the receiver is a
//! future of the value, `Err` when the sender went without sending; a
//! send fails with the value when the receiver is closed or gone.

use std::fmt;
use std::future::{poll_fn, Future};
use std::panic::Location;
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{Context, Poll, Waker};

use rankcheck_engine::EventKind;

use crate::future::{awaits, lock};
use crate::object::{Handle, ObjectKind, SyncState};
use crate::op::{self, Site};
use crate::trace::Operation;

use error::{RecvError, TryRecvError};

/// The channel's errors, as `tokio::sync::oneshot::error`.
pub mod error {
    use std::fmt;

    /// The sender went without sending (`watch`: the sender is gone).
    #[derive(Debug, PartialEq, Eq, Clone)]
    pub struct RecvError(());

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "channel closed")
        }
    }

    impl std::error::Error for RecvError {}

    impl RecvError {
        pub(crate) fn closed() -> RecvError {
            RecvError(())
        }
    }

    /// A `try_recv` found no value.
    #[derive(Debug, PartialEq, Eq, Clone)]
    pub enum TryRecvError {
        /// Not sent yet.
        Empty,
        /// The sender went without sending (or the value was taken).
        Closed,
    }

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(f, "channel empty"),
                TryRecvError::Closed => write!(f, "channel closed"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

struct Inner<T> {
    handle: Handle,
    state: StdMutex<State<T>>,
}

struct State<T> {
    value: Option<T>,
    sender_gone: bool,
    receiver_gone: bool,
    receiver: Option<Waker>,
    sender: Option<Waker>,
}

/// As `tokio::sync::oneshot::Sender`.
pub struct Sender<T> {
    inner: Arc<Inner<T>>,
    site: Site,
}

/// As `tokio::sync::oneshot::Receiver`: a future of the value.
pub struct Receiver<T> {
    inner: Arc<Inner<T>>,
    site: Site,
}

/// A channel for one value: a new variable, known by this call's site.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let site = Location::caller();
    let inner = Arc::new(Inner {
        handle: crate::future::create(ObjectKind::Oneshot, site, SyncState::Memory),
        state: StdMutex::new(State {
            value: None,
            sender_gone: false,
            receiver_gone: false,
            receiver: None,
            sender: None,
        }),
    });
    let receiver = Receiver {
        inner: inner.clone(),
        site,
    };
    (Sender { inner, site }, receiver)
}

impl<T> Inner<T> {
    fn step(&self, kind: EventKind, operation: Operation, site: Site) -> bool {
        op::async_step(Some(&self.handle), kind, operation, site)
    }
}

impl<T> Sender<T> {
    /// Send `value`: `Err` with it when the receiver is closed or gone. A
    /// scheduling point.
    #[track_caller]
    pub fn send(self, value: T) -> Result<(), T> {
        let inner = &self.inner;
        inner.step(
            EventKind::Write,
            Operation::Send(inner.handle.object),
            Location::caller(),
        );
        let receiver = {
            let mut state = lock(&inner.state);
            if state.receiver_gone {
                return Err(value);
            }
            state.value = Some(value);
            state.sender_gone = true;
            state.receiver.take()
        };
        if let Some(receiver) = receiver {
            receiver.wake();
        }
        Ok(())
    }

    /// Whether the receiver is closed or gone; not a scheduling point.
    pub fn is_closed(&self) -> bool {
        lock(&self.inner.state).receiver_gone
    }

    /// Wait until the receiver is closed or gone.
    #[track_caller]
    pub fn closed(&mut self) -> impl Future<Output = ()> + '_ {
        let site = Location::caller();
        poll_fn(move |cx| {
            let inner = &self.inner;
            if !inner.step(EventKind::Read, Operation::Recv(inner.handle.object), site) {
                return Poll::Pending;
            }
            let mut state = lock(&inner.state);
            if state.receiver_gone {
                return Poll::Ready(());
            }
            state.sender = Some(cx.waker().clone());
            drop(state);
            awaits(&inner.handle, "its receiver's end on", site);
            Poll::Pending
        })
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let inner = &self.inner;
        if lock(&inner.state).sender_gone {
            return;
        }
        inner.step(
            EventKind::Write,
            Operation::Disconnect(inner.handle.object),
            self.site,
        );
        let receiver = {
            let mut state = lock(&inner.state);
            state.sender_gone = true;
            state.receiver.take()
        };
        if let Some(receiver) = receiver {
            receiver.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// The value if it was sent; never waits.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let inner = &self.inner;
        inner.step(
            EventKind::Write,
            Operation::Recv(inner.handle.object),
            Location::caller(),
        );
        let mut state = lock(&inner.state);
        match state.value.take() {
            Some(value) => Ok(value),
            None if state.sender_gone => Err(TryRecvError::Closed),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Close the channel: a later send fails; a value sent already can
    /// still be received. A scheduling point.
    #[track_caller]
    pub fn close(&mut self) {
        self.close_at(Location::caller());
    }

    fn close_at(&self, site: Site) {
        let inner = &self.inner;
        inner.step(
            EventKind::Write,
            Operation::Disconnect(inner.handle.object),
            site,
        );
        let sender = {
            let mut state = lock(&inner.state);
            state.receiver_gone = true;
            state.sender.take()
        };
        if let Some(sender) = sender {
            sender.wake();
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &self.inner;
        if !inner.step(
            EventKind::Write,
            Operation::Recv(inner.handle.object),
            self.site,
        ) {
            return Poll::Pending;
        }
        let mut state = lock(&inner.state);
        if let Some(value) = state.value.take() {
            return Poll::Ready(Ok(value));
        }
        if state.sender_gone {
            return Poll::Ready(Err(RecvError::closed()));
        }
        state.receiver = Some(cx.waker().clone());
        drop(state);
        awaits(&inner.handle, "to receive on", self.site);
        Poll::Pending
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let value = {
            let state = lock(&self.inner.state);
            if state.receiver_gone {
                return;
            }
            drop(state);
            self.close_at(self.site);
            lock(&self.inner.state).value.take()
        };
        drop(value);
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
