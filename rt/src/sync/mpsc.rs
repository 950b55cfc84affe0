//! Drop-in `std::sync::mpsc` channels. Every send and receive is a
//! synchronisation operation on the channel's variable. On a rendezvous
//! channel (`sync_channel(0)`) a send returns once a receiver took the
//! message: the sender queues it, then waits for the handoff.

use std::collections::VecDeque;
use std::fmt;
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex, PoisonError};

pub use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};

use crate::object::{Handle, ObjectKind, SyncState};
use crate::op::{self, Receive, Received, Sent};

struct Shared<T> {
    handle: Handle,
    /// Where the channel was made: a drop has no caller location, so a
    /// disconnection is reported there.
    site: op::Site,
    queue: StdMutex<VecDeque<T>>,
}

impl<T> Shared<T> {
    fn push(&self, value: T) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(value);
    }

    fn pop_last(&self) -> Option<T> {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_back()
    }

    fn pop(&self) -> Option<T> {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }
}

/// As `std::sync::mpsc::Sender`.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// As `std::sync::mpsc::SyncSender`.
pub struct SyncSender<T> {
    inner: Sender<T>,
}

/// As `std::sync::mpsc::Receiver`.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

fn make<T>(capacity: Option<usize>, site: op::Site) -> (Sender<T>, Receiver<T>) {
    let handle = op::create(
        ObjectKind::Channel,
        site,
        SyncState::Channel {
            queued: 0,
            capacity,
            senders: 1,
            receiver: true,
            sent: 0,
            taken: 0,
        },
    );
    let shared = Arc::new(Shared {
        handle,
        site,
        queue: StdMutex::new(VecDeque::new()),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

/// An unbounded channel: a new variable, known by this call's site.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    make(None, Location::caller())
}

/// A channel of at most `bound` messages (`0` runs as `1`).
#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    let (inner, receiver) = make(Some(bound), Location::caller());
    (SyncSender { inner }, receiver)
}

impl<T> Sender<T> {
    /// Send `value`; an error when the receiver is gone.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let site = Location::caller();
        let ticket = match op::send(&self.shared.handle, site) {
            Sent::Disconnected => return Err(SendError(value)),
            Sent::Queued | Sent::Full => None,
            Sent::Waiting(ticket) => Some(ticket),
        };
        self.shared.push(value);
        match ticket {
            Some(ticket) if !op::handoff(&self.shared.handle, ticket, site) => {
                // The receiver went away first: at most one message waits on
                // a rendezvous channel, and it is this one.
                let value = self.shared.pop_last();
                Err(SendError(value.expect("invariant: the message waits")))
            }
            _ => Ok(()),
        }
    }
}

impl<T> Clone for Sender<T> {
    #[track_caller]
    fn clone(&self) -> Sender<T> {
        op::channel_end(&self.shared.handle, 1, false, Location::caller());
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        op::channel_end(&self.shared.handle, -1, false, self.shared.site);
    }
}

impl<T> SyncSender<T> {
    /// Send `value`, blocking while the channel is full.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.inner.send(value)
    }

    /// Send `value` if the channel has room at this operation's
    /// scheduling point, else `Full`; never blocks. On a rendezvous
    /// channel there is room only for a receiver waiting in `recv`.
    #[track_caller]
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let shared = &self.inner.shared;
        match op::try_send(&shared.handle, Location::caller()) {
            Sent::Full => Err(TrySendError::Full(value)),
            Sent::Disconnected => Err(TrySendError::Disconnected(value)),
            Sent::Queued | Sent::Waiting(_) => {
                shared.push(value);
                Ok(())
            }
        }
    }
}

impl<T> Clone for SyncSender<T> {
    #[track_caller]
    fn clone(&self) -> SyncSender<T> {
        SyncSender {
            inner: self.inner.clone(),
        }
    }
}

impl<T> Receiver<T> {
    /// Receive a message, blocking while the channel is empty; an error
    /// once it is empty and every sender is gone.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        match op::recv(&self.shared.handle, Receive::Blocking, Location::caller()) {
            Received::Message => self.shared.pop().ok_or(RecvError),
            _ => Err(RecvError),
        }
    }

    /// Receive a message, blocking while the channel is empty until the
    /// timeout fires, as std's: whether it fires is a scheduling choice
    /// (`Builder::timeouts`), and it fires whenever no other thread can
    /// run; the duration is not used.
    #[track_caller]
    pub fn recv_timeout(&self, _timeout: std::time::Duration) -> Result<T, RecvTimeoutError> {
        match op::recv(&self.shared.handle, Receive::Timed, Location::caller()) {
            Received::Message => self.shared.pop().ok_or(RecvTimeoutError::Timeout),
            Received::Timeout | Received::Empty => Err(RecvTimeoutError::Timeout),
            Received::Disconnected => Err(RecvTimeoutError::Disconnected),
        }
    }

    /// Receive a message if one is there.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        match op::recv(&self.shared.handle, Receive::Trying, Location::caller()) {
            Received::Message => self.shared.pop().ok_or(TryRecvError::Empty),
            Received::Empty | Received::Timeout => Err(TryRecvError::Empty),
            Received::Disconnected => Err(TryRecvError::Disconnected),
        }
    }

    /// The messages, until every sender is gone.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { receiver: self }
    }

    /// The messages waiting now, without blocking: each `next` is a
    /// `try_recv`, and the iterator ends at the first that gets none.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { receiver: self }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        op::channel_end(&self.shared.handle, 0, true, self.shared.site);
    }
}

/// As `std::sync::mpsc::Iter`.
pub struct Iter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.receiver.recv().ok()
    }
}

/// As `std::sync::mpsc::TryIter`.
pub struct TryIter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.receiver.try_recv().ok()
    }
}

/// As `std::sync::mpsc::IntoIter`: the messages, until every sender is
/// gone, the receiver owned.
pub struct IntoIter<T> {
    receiver: Receiver<T>,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.receiver.recv().ok()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    fn into_iter(self) -> IntoIter<T> {
        IntoIter { receiver: self }
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for SyncSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncSender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
