//! The operations of the replacement types, as the executor sees them:
//! each enters a scheduling point when one is due, does its bookkeeping
//! (who holds what, who can run), blocks when it must, and says whether it
//! ended the step (docs/LANGUAGE.md: a tracked access or any
//! synchronisation operation; a blocking one is a point at once).

use std::panic::Location;

use rankcheck_engine::{EventKind, Location as Place, Pending, ThreadId};

use crate::executor::point::{event, leave};
use crate::executor::threads::{Status, Wait};
use crate::executor::{self, end_step, schedule_here, suspend, with, Execution};
use crate::failure::FailureKind;
use crate::object::{Handle, ObjectId, SyncState};
use crate::trace::Operation;

/// Where in the caller's code an operation is.
pub type Site = &'static Location<'static>;

/// The pending operation on `handle`'s object, as POS sees it.
fn pending_on(handle: &Handle, write: bool, sync: bool) -> Pending {
    let index = handle.object.0;
    Pending {
        location: Some(if sync {
            Place::Mutex(index)
        } else {
            Place::Slot(index)
        }),
        var: Some(handle.var),
        write,
    }
}

/// Whether the running thread is unwinding: from a panic (the execution
/// fails with it) or because the execution is over. Its operations then
/// keep their bookkeeping and never switch.
fn unwinding() -> bool {
    std::thread::panicking() || !executor::active()
}

/// Start an operation: the point due before it, then the step limit.
/// Returns `false` when the execution is over and the operation must do
/// nothing but its own local effect.
fn enter(pending: Pending, operation: Operation, site: Site) -> bool {
    if unwinding() {
        return false;
    }
    schedule_here(pending);
    let (running, over) = with(|ex| {
        ex.operations += 1;
        if ex.operations > ex.max_steps() {
            let limit = ex.max_steps();
            ex.fail(
                FailureKind::StepLimit,
                format!("the run took more than {limit} operations: possible non-termination"),
                Some(site.into()),
            );
            return (ex.current, true);
        }
        if let Some(trace) = &mut ex.trace {
            trace.operation(ex.current, operation, site);
        }
        (ex.current, false)
    });
    if over {
        // The executor never resumes a thread of a failed execution: this
        // waits for the teardown to unwind it.
        suspend(running);
    }
    true
}

/// The running thread blocks on `wait`: a point at once; returns once it
/// is chosen again, which it is only when it can go on.
fn block(wait: Wait, operation: Operation, site: Site, var: Option<rankcheck_engine::VarId>) {
    let running = with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).status = Status::Blocked { wait, at: site };
        ex.threads.disable(running);
        if let Some(trace) = &mut ex.trace {
            trace.blocked(running);
        }
        leave(ex, event(EventKind::Blocked, var, false));
        running
    });
    suspend(running);
    with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).status = Status::Runnable;
        // Chosen again: completing the operation is this step's.
        if let Some(trace) = &mut ex.trace {
            trace.operation(running, operation, site);
        }
    });
}

/// Complete an operation on `handle`'s object by `attempt`, which does it
/// and returns its result, or returns `None` when it must wait: the running
/// thread then blocks on `wait` and tries again once it can go on.
fn until<T>(
    handle: &Handle,
    wait: Wait,
    operation: Operation,
    site: Site,
    mut attempt: impl FnMut(&mut Execution) -> Option<T>,
) -> T {
    loop {
        let done = with(|ex| {
            ex.check(handle);
            attempt(ex)
        });
        if let Some(done) = done {
            return done;
        }
        block(wait, operation, site, Some(handle.var));
    }
}

/// An access to plain memory (an atomic, a cell): a point after it only
/// when its variable is tracked.
pub fn access(handle: &Handle, write: bool, site: Site) {
    if !enter(
        pending_on(handle, write, false),
        Operation::access(handle, write),
        site,
    ) {
        return;
    }
    with(|ex| {
        ex.check(handle);
        if ex.is_tracked(handle.object) {
            let kind = if write {
                EventKind::Write
            } else {
                EventKind::Read
            };
            end_step(ex, event(kind, Some(handle.var), true));
        }
    });
}

/// Make an object of kind `kind` for the running thread.
pub fn create(kind: &'static str, site: Site, sync: SyncState) -> Handle {
    with(|ex| ex.create(kind, site, sync))
}

/// End a synchronisation operation on `handle`'s object: always a point,
/// a change point only when the object is tracked.
fn sync_done(ex: &mut Execution, kind: EventKind, handle: &Handle) {
    let tracked = ex.is_tracked(handle.object);
    end_step(ex, event(kind, Some(handle.var), tracked));
}

/// Lock a mutex; returns once the running thread holds it.
pub fn lock(handle: &Handle, site: Site) {
    if !enter(
        pending_on(handle, true, true),
        Operation::Lock(handle.object),
        site,
    ) {
        return;
    }
    let operation = Operation::Lock(handle.object);
    until(handle, Wait::Lock(handle.object), operation, site, |ex| {
        let running = ex.current;
        let SyncState::Mutex { owner } = &mut ex.objects[handle.object.index()].sync else {
            unreachable!("invariant: a mutex's object is a mutex")
        };
        if owner.is_some() {
            return None;
        }
        *owner = Some(running);
        refresh_waiters(ex, handle.object);
        sync_done(ex, EventKind::Lock, handle);
        Some(())
    });
}

/// Try to lock a mutex without blocking: whether it was taken.
pub fn try_lock(handle: &Handle, site: Site) -> bool {
    if !enter(
        pending_on(handle, true, true),
        Operation::Lock(handle.object),
        site,
    ) {
        return true;
    }
    with(|ex| {
        ex.check(handle);
        let running = ex.current;
        let SyncState::Mutex { owner } = &mut ex.objects[handle.object.index()].sync else {
            unreachable!("invariant: a mutex's object is a mutex")
        };
        let taken = owner.is_none();
        if taken {
            *owner = Some(running);
            refresh_waiters(ex, handle.object);
        }
        sync_done(
            ex,
            if taken {
                EventKind::Lock
            } else {
                EventKind::Read
            },
            handle,
        );
        taken
    })
}

/// Unlock a mutex the running thread holds.
pub fn unlock(handle: &Handle, site: Site) {
    release(handle, true, site, |sync| {
        if let SyncState::Mutex { owner } = sync {
            *owner = None;
        }
    });
}

/// Release a lock `handle` names (`write`: as a writer), with `clear`
/// undoing the holder's share of its state: the scheduler sees an
/// unlock, and the threads waiting for the lock look again.
fn release(handle: &Handle, write: bool, site: Site, clear: impl FnOnce(&mut SyncState)) {
    let live = enter(
        pending_on(handle, write, true),
        Operation::Unlock(handle.object),
        site,
    );
    if !executor::present() {
        return;
    }
    with(|ex| {
        if ex.id != handle.execution {
            return;
        }
        clear(&mut ex.objects[handle.object.index()].sync);
        refresh_waiters(ex, handle.object);
        if live {
            sync_done(ex, EventKind::Unlock, handle);
        }
    });
}

/// Take a read (`write == false`) or write lock of a `RwLock`.
pub fn rw_lock(handle: &Handle, write: bool, site: Site) {
    let operation = Operation::RwLock(handle.object, write);
    if !enter(pending_on(handle, write, true), operation, site) {
        return;
    }
    let wait = if write {
        Wait::WriteLock(handle.object)
    } else {
        Wait::ReadLock(handle.object)
    };
    until(handle, wait, operation, site, |ex| {
        let running = ex.current;
        let SyncState::RwLock { writer, readers } = &mut ex.objects[handle.object.index()].sync
        else {
            unreachable!("invariant: a RwLock's object is a RwLock")
        };
        let free = writer.is_none() && (!write || *readers == 0);
        if !free {
            return None;
        }
        if write {
            *writer = Some(running);
        } else {
            *readers += 1;
        }
        refresh_waiters(ex, handle.object);
        sync_done(ex, EventKind::Lock, handle);
        Some(())
    });
}

/// Release a read or write lock of a `RwLock`.
pub fn rw_unlock(handle: &Handle, write: bool, site: Site) {
    release(handle, write, site, |sync| {
        if let SyncState::RwLock { writer, readers } = sync {
            if write {
                *writer = None;
            } else {
                *readers = readers.saturating_sub(1);
            }
        }
    });
}

/// Release `mutex` and wait on `condvar` until notified, then take
/// `mutex` back.
pub fn wait(condvar: &Handle, mutex: &Handle, site: Site) {
    if !enter(
        pending_on(condvar, true, true),
        Operation::Wait(condvar.object),
        site,
    ) {
        return;
    }
    with(|ex| {
        ex.check(condvar);
        ex.check(mutex);
        let running = ex.current;
        if let SyncState::Mutex { owner } = &mut ex.objects[mutex.object.index()].sync {
            *owner = None;
        }
        refresh_waiters(ex, mutex.object);
        if let SyncState::Condvar { waiters } = &mut ex.objects[condvar.object.index()].sync {
            waiters.push(running);
        }
    });
    let wait = Wait::Condvar {
        condvar: condvar.object,
        mutex: mutex.object,
    };
    let running = with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).status = Status::Blocked { wait, at: site };
        ex.threads.disable(running);
        if let Some(trace) = &mut ex.trace {
            trace.blocked(running);
        }
        leave(ex, event(EventKind::Wait, Some(condvar.var), false));
        running
    });
    suspend(running);
    // Notified, and chosen when the mutex was free: take it back.
    with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).status = Status::Runnable;
        if let SyncState::Mutex { owner } = &mut ex.objects[mutex.object.index()].sync {
            *owner = Some(running);
        }
        refresh_waiters(ex, mutex.object);
        if let Some(trace) = &mut ex.trace {
            trace.operation(running, Operation::Woken(condvar.object), site);
        }
        sync_done(ex, EventKind::Woken, mutex);
    });
}

/// Wake the longest waiter of `condvar`, or all of them.
pub fn notify(condvar: &Handle, all: bool, site: Site) {
    if !enter(
        pending_on(condvar, true, true),
        Operation::Notify(condvar.object, all),
        site,
    ) {
        return;
    }
    with(|ex| {
        ex.check(condvar);
        let SyncState::Condvar { waiters } = &mut ex.objects[condvar.object.index()].sync else {
            unreachable!("invariant: a condvar's object is a condvar")
        };
        let woken: Vec<ThreadId> = if all {
            std::mem::take(waiters)
        } else if waiters.is_empty() {
            Vec::new()
        } else {
            vec![waiters.remove(0)]
        };
        for thread in woken {
            if let Status::Blocked {
                wait: Wait::Condvar { mutex, .. },
                at,
            } = ex.threads.get(thread).status
            {
                ex.threads.get_mut(thread).status = Status::Blocked {
                    wait: Wait::Lock(mutex),
                    at,
                };
                let free = mutex_free(ex, mutex);
                ex.threads.set_enabled(thread, free);
            }
        }
        let kind = if all {
            EventKind::Broadcast
        } else {
            EventKind::Signal
        };
        sync_done(ex, kind, condvar);
    });
}

/// Wait at a barrier: whether the running thread was the last to arrive
/// (std's leader).
pub fn barrier(handle: &Handle, site: Site) -> bool {
    if !enter(
        pending_on(handle, true, true),
        Operation::Barrier(handle.object),
        site,
    ) {
        return false;
    }
    let leader = with(|ex| {
        ex.check(handle);
        let running = ex.current;
        let SyncState::Barrier { parties, arrived } = &mut ex.objects[handle.object.index()].sync
        else {
            unreachable!("invariant: a barrier's object is a barrier")
        };
        if arrived.len() + 1 < *parties {
            arrived.push(running);
            return false;
        }
        let released = std::mem::take(arrived);
        for thread in released {
            ex.threads.get_mut(thread).status = Status::Runnable;
            ex.threads.enable(thread);
        }
        sync_done(ex, EventKind::Broadcast, handle);
        true
    });
    if !leader {
        block(
            Wait::Barrier(handle.object),
            Operation::Barrier(handle.object),
            site,
            Some(handle.var),
        );
        with(|ex| sync_done(ex, EventKind::Woken, handle));
    }
    leader
}

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
}

/// Send on a channel, blocking while a bounded one is full.
pub fn send(handle: &Handle, site: Site) -> Sent {
    let operation = Operation::Send(handle.object);
    if !enter(pending_on(handle, true, true), operation, site) {
        return Sent::Queued;
    }
    until(handle, Wait::Send(handle.object), operation, site, |ex| {
        let SyncState::Channel {
            queued,
            capacity,
            receiver,
            sent,
            ..
        } = &mut ex.objects[handle.object.index()].sync
        else {
            unreachable!("invariant: a channel's object is a channel")
        };
        if !*receiver {
            sync_done(ex, EventKind::Write, handle);
            return Some(Sent::Disconnected);
        }
        if capacity.is_some_and(|c| *queued >= c.max(1)) {
            return None;
        }
        *queued += 1;
        *sent += 1;
        let handoff = (*capacity == Some(0)).then_some(*sent);
        refresh_waiters(ex, handle.object);
        sync_done(ex, EventKind::Write, handle);
        Some(handoff.map_or(Sent::Queued, Sent::Waiting))
    })
}

/// Wait until a receiver took the `ticket`-th message of a rendezvous
/// channel: `true` once it did, `false` if the receiver is gone first (the
/// message was not delivered).
pub fn handoff(handle: &Handle, ticket: u64, site: Site) -> bool {
    let operation = Operation::Send(handle.object);
    if !enter(pending_on(handle, false, true), operation, site) {
        return true;
    }
    let wait = Wait::Handoff {
        channel: handle.object,
        ticket,
    };
    until(handle, wait, operation, site, |ex| {
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
}

/// Receive from a channel, blocking while it is empty (unless `blocking`
/// is false). The caller takes the message after [`Received::Message`].
pub fn recv(handle: &Handle, blocking: bool, site: Site) -> Received {
    let operation = Operation::Recv(handle.object);
    if !enter(pending_on(handle, true, true), operation, site) {
        return Received::Disconnected;
    }
    until(handle, Wait::Recv(handle.object), operation, site, |ex| {
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
        } else if blocking {
            return None;
        } else {
            Received::Empty
        };
        refresh_waiters(ex, handle.object);
        sync_done(ex, EventKind::Write, handle);
        Some(found)
    })
}

/// A sender was cloned (`+1`) or dropped (`-1`), or the receiver dropped
/// (`receiver_gone`). A drop that disconnects is a synchronisation
/// operation: it may wake a blocked thread.
pub fn channel_end(handle: &Handle, senders: isize, receiver_gone: bool, site: Site) {
    let wakes = senders < 0 || receiver_gone;
    let live = wakes
        && enter(
            pending_on(handle, true, true),
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

/// Spawn a thread that runs `job`.
pub fn spawn(job: Box<dyn FnOnce()>, name: Option<String>, site: Site) -> ThreadId {
    if !enter(Pending::LOCAL, Operation::Spawn, site) {
        unreachable!("invariant: a thread spawns only while the execution runs")
    }
    with(|ex| {
        let running = ex.current;
        let child = ex.add_thread(job, name, Some(running), site);
        if let Some(trace) = &mut ex.trace {
            trace.spawned(child);
        }
        end_step(ex, event(EventKind::Spawn, None, false));
        child
    })
}

/// Wait for `thread` to finish.
pub fn join(thread: ThreadId, site: Site) {
    if !enter(Pending::LOCAL, Operation::Join(thread), site) {
        return;
    }
    let finished = with(|ex| ex.threads.get(thread).status == Status::Finished);
    if !finished {
        block(Wait::Join(thread), Operation::Join(thread), site, None);
    }
    with(|ex| end_step(ex, event(EventKind::Join, None, false)));
}

/// Let another thread run: always a point (a spin loop's way out).
pub fn yield_now(site: Site) {
    if !enter(Pending::LOCAL, Operation::Yield, site) {
        return;
    }
    with(|ex| end_step(ex, event(EventKind::Yield, None, false)));
}

/// Park the running thread until its token is set (`thread::park`): it
/// returns at once, taking the token, if an unpark came first. No
/// spurious wakeup is ever made. Without `blocking` (`park_timeout`) it
/// never waits: the timeout may fire at any point, so returning at once is
/// one of the behaviours std allows; it is a scheduling point like a yield.
pub fn park(blocking: bool, site: Site) {
    if !enter(Pending::LOCAL, Operation::Park, site) {
        return;
    }
    let has_token = with(|ex| ex.threads.get(ex.current).unparked);
    if blocking && !has_token {
        block(Wait::Park, Operation::Park, site, None);
    }
    with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).unparked = false;
        let kind = if blocking {
            EventKind::Woken
        } else {
            EventKind::Yield
        };
        end_step(ex, event(kind, None, false));
    });
}

/// Set `thread`'s park token (`Thread::unpark`), waking it if it is
/// parked.
pub fn unpark(thread: ThreadId, site: Site) {
    if !enter(Pending::LOCAL, Operation::Unpark(thread), site) {
        return;
    }
    with(|ex| {
        let target = ex.threads.get_mut(thread);
        target.unparked = true;
        if matches!(
            target.status,
            Status::Blocked {
                wait: Wait::Park,
                ..
            }
        ) {
            ex.threads.enable(thread);
        }
        end_step(ex, event(EventKind::Signal, None, false));
    });
}

/// The running thread `thread` finished its body.
pub fn finish(thread: ThreadId) {
    let site = with(|ex| ex.threads.get(thread).site);
    if !enter(Pending::LOCAL, Operation::Finish, site) {
        return;
    }
    with(|ex| {
        debug_assert_eq!(ex.current, thread, "invariant: a thread finishes itself");
        ex.threads.get_mut(thread).status = Status::Finished;
        ex.threads.disable(thread);
        for joiner in ex.threads.blocked_on(|w| w == Wait::Join(thread)) {
            ex.threads.enable(joiner);
        }
        if let Some(trace) = &mut ex.trace {
            trace.finished(thread);
        }
        leave(ex, event(EventKind::Finished, None, false));
    });
}

/// Whether the mutex `object` is free.
fn mutex_free(ex: &Execution, object: ObjectId) -> bool {
    matches!(
        ex.objects[object.index()].sync,
        SyncState::Mutex { owner: None }
    )
}

/// After `object` changed: every thread blocked on it can run exactly when
/// its operation could complete now.
fn refresh_waiters(ex: &mut Execution, object: ObjectId) {
    for i in 0..ex.threads.all.len() {
        let Status::Blocked { wait, .. } = ex.threads.all[i].status else {
            continue;
        };
        let can = match wait {
            Wait::Lock(o) if o == object => mutex_free(ex, o),
            Wait::ReadLock(o) if o == object => {
                matches!(
                    ex.objects[o.index()].sync,
                    SyncState::RwLock { writer: None, .. }
                )
            }
            Wait::WriteLock(o) if o == object => matches!(
                ex.objects[o.index()].sync,
                SyncState::RwLock {
                    writer: None,
                    readers: 0
                }
            ),
            Wait::Recv(o) if o == object => matches!(
                ex.objects[o.index()].sync,
                SyncState::Channel { queued, senders, .. } if queued > 0 || senders == 0
            ),
            Wait::Send(o) if o == object => matches!(
                ex.objects[o.index()].sync,
                SyncState::Channel { queued, capacity, receiver, .. }
                    if !receiver || capacity.is_none_or(|c| queued < c.max(1))
            ),
            Wait::Handoff { channel, ticket } if channel == object => matches!(
                ex.objects[channel.index()].sync,
                SyncState::Channel { taken, receiver, .. } if !receiver || taken >= ticket
            ),
            _ => continue,
        };
        ex.threads
            .set_enabled(rankcheck_engine::ThreadId(i as u32), can);
    }
}

/// Whether a bounded channel is full now (a `try_send` that would block):
/// a rendezvous channel is full unless a receiver waits on it with nothing
/// queued.
pub fn channel_full(handle: &Handle) -> bool {
    with(|ex| {
        ex.check(handle);
        let object = handle.object;
        match ex.objects[object.index()].sync {
            SyncState::Channel {
                receiver: true,
                capacity: Some(0),
                queued,
                ..
            } => {
                queued > 0
                    || ex
                        .threads
                        .blocked_on(|w| w == Wait::Recv(object))
                        .is_empty()
            }
            SyncState::Channel {
                receiver: true,
                capacity: Some(c),
                queued,
                ..
            } => queued >= c,
            _ => false,
        }
    })
}
