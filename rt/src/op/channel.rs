//! Channels: sends (blocking on a full bounded channel, handing off on a
//! rendezvous one), receives, and the ends coming and going.

use rankcheck_engine::EventKind;

use super::step::{enter, pending_on, sync_done, until};
use super::waiters::refresh_waiters;
use super::Site;
use crate::executor::threads::Wait;
use crate::executor::{self, with, Execution};
use crate::footprint::Place;
use crate::object::{Handle, SyncState};
use crate::trace::Operation;
use crate::wake::Woken;

/// What a send did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    /// The message is queued: the caller queues it.
    Queued,
    /// The receiver is gone.
    Disconnected,
    /// On a rendezvous channel, the message is the channel's `n`-th: the
    /// caller queues it, then waits in [`handoff`] for a receiver to take
    /// it.
    Waiting(u64),
    /// A `try_send` found no room.
    Full,
}

/// Send on a channel, blocking while a bounded one is full.
pub fn send(handle: &Handle, site: Site) -> Sent {
    let operation = Operation::Send(handle.object);
    let wait = Wait::Send(handle.object);
    until(handle, true, wait, operation, site, |ex| {
        offer(ex, handle, false)
    })
    .unwrap_or(Sent::Queued)
}

/// Send on a bounded channel if it has room at this operation's own
/// scheduling point (a rendezvous channel has room when its receiver
/// waits in `recv` with nothing queued); never blocks.
pub fn try_send(handle: &Handle, site: Site) -> Sent {
    let operation = Operation::Send(handle.object);
    if !enter(|| pending_on(handle, true, true), operation, site) {
        return Sent::Queued;
    }
    with(|ex| {
        ex.check(handle);
        offer(ex, handle, true).unwrap_or_else(|| unreachable!("invariant: a try is answered"))
    })
}

/// Queue a message on `handle`'s channel if it has room: what the send
/// did, or `None` when a blocking send must wait (`trying`: `Full`).
fn offer(ex: &mut Execution, handle: &Handle, trying: bool) -> Option<Sent> {
    let object = handle.object;
    let rendezvous = matches!(
        ex.objects[object.index()].sync,
        SyncState::Channel {
            capacity: Some(0),
            ..
        }
    );
    let receiving = trying
        && rendezvous
        && ex
            .threads
            .any_blocked_on(|w| matches!(w, Wait::Recv { channel, .. } if channel == object));
    let SyncState::Channel {
        queued,
        capacity,
        receiver,
        sent,
        ..
    } = &mut ex.objects[object.index()].sync
    else {
        unreachable!("invariant: a channel's object is a channel")
    };
    if !*receiver {
        sync_done(ex, EventKind::Write, handle);
        return Some(Sent::Disconnected);
    }
    let room = match *capacity {
        None => true,
        Some(0) if trying => *queued == 0 && receiving,
        Some(c) => *queued < c.max(1),
    };
    if !room {
        if !trying {
            return None;
        }
        sync_done(ex, EventKind::Read, handle);
        return Some(Sent::Full);
    }
    *queued += 1;
    *sent += 1;
    // A try goes ahead on a rendezvous channel only for a waiting
    // receiver, which takes the message: no handoff to wait for.
    let handoff = (rendezvous && !trying).then_some(*sent);
    refresh_waiters(ex, object);
    sync_done(ex, EventKind::Write, handle);
    Some(handoff.map_or(Sent::Queued, Sent::Waiting))
}

/// Wait until a receiver took the `ticket`-th message of a rendezvous
/// channel: `true` once it did, `false` if the receiver is gone first (the
/// message was not delivered).
pub fn handoff(handle: &Handle, ticket: u64, site: Site) -> bool {
    let operation = Operation::Send(handle.object);
    let wait = Wait::Handoff {
        channel: handle.object,
        ticket,
    };
    until(handle, false, wait, operation, site, |ex| {
        let SyncState::Channel {
            taken, receiver, ..
        } = ex.objects[handle.object.index()].sync
        else {
            unreachable!("invariant: a channel's object is a channel")
        };
        let done = taken >= ticket;
        if !done && receiver {
            return None;
        }
        sync_done(ex, EventKind::Read, handle);
        Some(done)
    })
    .unwrap_or(true)
}

/// What a receive found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// A message is there to take.
    Message,
    /// The channel is empty and every sender is gone.
    Disconnected,
    /// The channel is empty (only without blocking).
    Empty,
    /// The timeout fired first (only with one).
    Timeout,
}

/// How a receive waits for a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receive {
    /// Until one comes (`recv`).
    Blocking,
    /// Not at all (`try_recv`).
    Trying,
    /// Until one comes or the timeout fires (`recv_timeout`), which is a
    /// scheduling choice ([`crate::wake`]).
    Timed,
}

/// Receive from a channel as `how` says. The caller takes the message
/// after [`Received::Message`].
pub fn recv(handle: &Handle, how: Receive, site: Site) -> Received {
    let operation = Operation::Recv(handle.object);
    let wait = Wait::Recv {
        channel: handle.object,
        timed: how == Receive::Timed,
    };
    let mut woke = false;
    until(handle, true, wait, operation, site, |ex| {
        let SyncState::Channel {
            queued,
            senders,
            taken,
            ..
        } = &mut ex.objects[handle.object.index()].sync
        else {
            unreachable!("invariant: a channel's object is a channel")
        };
        let found = if *queued > 0 {
            *queued -= 1;
            *taken += 1;
            Received::Message
        } else if *senders == 0 {
            Received::Disconnected
        } else if how == Receive::Trying {
            Received::Empty
        } else if how == Receive::Timed && timed_out(ex, &mut woke) {
            if let Some(trace) = &mut ex.trace {
                let early = Operation::early(Some(handle.object), Woken::Timeout);
                trace.operation(ex.current, early, site);
            }
            Received::Timeout
        } else {
            return None;
        };
        refresh_waiters(ex, handle.object);
        sync_done(ex, EventKind::Write, handle);
        Some(found)
    })
    .unwrap_or(Received::Disconnected)
}

/// A timed receive found nothing: whether its timeout fires now, decided
/// as it begins ([`crate::wake`]), or, once it `woke` from waiting with nothing,
/// because no other thread could run.
fn timed_out(ex: &mut Execution, woke: &mut bool) -> bool {
    if std::mem::replace(woke, true) {
        ex.wakes.forced();
        return true;
    }
    ex.wakes.decide(true) == Woken::Timeout
}

/// A sender was cloned (`+1`) or dropped (`-1`), or the receiver dropped
/// (`receiver_gone`). A drop that disconnects is a synchronisation
/// operation: it may wake a blocked thread.
pub fn channel_end(handle: &Handle, senders: isize, receiver_gone: bool, site: Site) {
    let wakes = senders < 0 || receiver_gone;
    let live = wakes
        && enter(
            || pending_on(handle, true, true),
            Operation::Disconnect(handle.object),
            site,
        );
    if !executor::present() {
        return;
    }
    with(|ex| {
        if ex.id != handle.execution {
            return;
        }
        // A clone changes the channel with no scheduling point of its own.
        ex.touch(Place::Object(handle.var.0), true);
        if let SyncState::Channel {
            senders: count,
            receiver,
            ..
        } = &mut ex.objects[handle.object.index()].sync
        {
            *count = count.saturating_add_signed(senders);
            if receiver_gone {
                *receiver = false;
            }
        }
        refresh_waiters(ex, handle.object);
        if live {
            sync_done(ex, EventKind::Write, handle);
        }
    });
}
