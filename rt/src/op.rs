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
use crate::wake::Woken;

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
    sleep(wait, EventKind::Blocked, site, var);
    with(|ex| {
        // Chosen again: completing the operation is this step's.
        if let Some(trace) = &mut ex.trace {
            trace.operation(ex.current, operation, site);
        }
    });
}

/// The running thread blocks on `wait`, its step ending with `kind`: a
/// point at once (it can run at once if what it waits for is there).
/// Returns once it is chosen again, with what it was waiting for then (a
/// `notify_all` turns a condition variable's wait into its mutex's).
fn sleep(wait: Wait, kind: EventKind, site: Site, var: Option<rankcheck_engine::VarId>) -> Wait {
    let running = with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).status = Status::Blocked { wait, at: site };
        let can = can_go_on(ex, running, wait);
        ex.threads.set_enabled(running, can);
        if let Some(trace) = &mut ex.trace {
            trace.blocked(running);
        }
        leave(ex, event(kind, var, false));
        running
    });
    suspend(running);
    with(|ex| {
        let running = ex.current;
        let thread = ex.threads.get_mut(running);
        let Status::Blocked { wait, .. } = thread.status else {
            unreachable!("invariant: a blocked thread wakes blocked")
        };
        thread.status = Status::Runnable;
        wait
    })
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

/// Try to lock a mutex without blocking: whether it was taken. While the
/// thread unwinds from a panic (which the test may catch) it still decides
/// on the lock, with no scheduling point.
pub fn try_lock(handle: &Handle, site: Site) -> bool {
    let live = enter(
        pending_on(handle, true, true),
        Operation::Lock(handle.object),
        site,
    );
    if !live && !executor::active() {
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

/// Unlock a mutex the running thread holds; `data` lets go of the data
/// (the guard's own lock), after the unlock's scheduling point.
pub fn unlock(handle: &Handle, site: Site, data: impl FnOnce()) {
    release(handle, true, site, data, |sync| {
        if let SyncState::Mutex { owner } = sync {
            *owner = None;
        }
    });
}

/// Release a lock `handle` names (`write`: as a writer), with `clear`
/// undoing the holder's share of its state: the scheduler sees an
/// unlock, and the threads waiting for the lock look again. The holder
/// keeps the data (`data` lets it go) until its scheduling point is
/// passed: another thread chosen there finds the lock still held.
fn release(
    handle: &Handle,
    write: bool,
    site: Site,
    data: impl FnOnce(),
    clear: impl FnOnce(&mut SyncState),
) {
    let live = enter(
        pending_on(handle, write, true),
        Operation::Unlock(handle.object),
        site,
    );
    data();
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
        if !take_rw(ex, handle, write) {
            return None;
        }
        sync_done(ex, EventKind::Lock, handle);
        Some(())
    });
}

/// Give the running thread `handle`'s `RwLock` (`write`: to write) if it is
/// free for it now: whether it did.
fn take_rw(ex: &mut Execution, handle: &Handle, write: bool) -> bool {
    let running = ex.current;
    let SyncState::RwLock { writer, readers } = &mut ex.objects[handle.object.index()].sync else {
        unreachable!("invariant: a RwLock's object is a RwLock")
    };
    let free = writer.is_none() && (!write || *readers == 0);
    if free {
        if write {
            *writer = Some(running);
        } else {
            *readers += 1;
        }
        refresh_waiters(ex, handle.object);
    }
    free
}

/// Take a read (`write == false`) or write lock of a `RwLock` if it can
/// be had now, deciding at the operation's own scheduling point: whether
/// it was taken. Never blocks; while unwinding, as [`try_lock`].
pub fn try_rw_lock(handle: &Handle, write: bool, site: Site) -> bool {
    let operation = Operation::RwLock(handle.object, write);
    let live = enter(pending_on(handle, write, true), operation, site);
    if !live && !executor::active() {
        return true;
    }
    with(|ex| {
        ex.check(handle);
        let taken = take_rw(ex, handle, write);
        let kind = if taken {
            EventKind::Lock
        } else {
            EventKind::Read
        };
        sync_done(ex, kind, handle);
        taken
    })
}

/// Release a read or write lock of a `RwLock`; `data` lets go of the data
/// after the unlock's scheduling point.
pub fn rw_unlock(handle: &Handle, write: bool, site: Site, data: impl FnOnce()) {
    release(handle, write, site, data, |sync| {
        if let SyncState::RwLock { writer, readers } = sync {
            if write {
                *writer = None;
            } else {
                *readers = readers.saturating_sub(1);
            }
        }
    });
}

/// Release `mutex` and wait on `condvar` (`timed`: with a timeout) until
/// notified, woken spuriously or timed out, then take `mutex` back: how
/// the wait ended. An early end is decided as the wait begins ([`crate::wake`]):
/// the thread then waits for the mutex alone.
pub fn wait(condvar: &Handle, mutex: &Handle, timed: bool, site: Site) -> Woken {
    if !enter(
        pending_on(condvar, true, true),
        Operation::Wait(condvar.object),
        site,
    ) {
        return Woken::Event;
    }
    let (wait, early) = with(|ex| {
        ex.check(condvar);
        ex.check(mutex);
        let running = ex.current;
        if let SyncState::Mutex { owner } = &mut ex.objects[mutex.object.index()].sync {
            *owner = None;
        }
        refresh_waiters(ex, mutex.object);
        let early = ex.wakes.decide(timed);
        if early != Woken::Event {
            return (Wait::Lock(mutex.object), early);
        }
        let SyncState::Condvar {
            waiters,
            generation,
            ..
        } = &mut ex.objects[condvar.object.index()].sync
        else {
            unreachable!("invariant: a condvar's object is a condvar")
        };
        waiters.push(running);
        let wait = Wait::Condvar {
            condvar: condvar.object,
            mutex: mutex.object,
            since: *generation,
            timed,
        };
        (wait, early)
    });
    let woke_on = sleep(wait, EventKind::Wait, site, Some(condvar.var));
    // Chosen when the mutex was free: take it back.
    with(|ex| {
        let running = ex.current;
        let woken = match early {
            Woken::Event => take_notification(ex, condvar.object, woke_on),
            early => early,
        };
        if let SyncState::Mutex { owner } = &mut ex.objects[mutex.object.index()].sync {
            *owner = Some(running);
        }
        refresh_waiters(ex, mutex.object);
        if let Some(trace) = &mut ex.trace {
            let operation = match woken {
                Woken::Event => Operation::Woken(condvar.object),
                _ => Operation::early(Some(condvar.object), woken),
            };
            trace.operation(running, operation, site);
        }
        sync_done(ex, EventKind::Woken, mutex);
        woken
    })
}

/// The running thread, which waited on `condvar` and woke waiting for
/// `woke_on`, leaves the waiters: taking the oldest `notify_one` it may
/// take (a `notify_all` woke it already). Woken with none, its timeout
/// fired while no other thread could run.
fn take_notification(ex: &mut Execution, condvar: ObjectId, woke_on: Wait) -> Woken {
    let running = ex.current;
    let SyncState::Condvar {
        waiters, pending, ..
    } = &mut ex.objects[condvar.index()].sync
    else {
        unreachable!("invariant: a condvar's object is a condvar")
    };
    waiters.retain(|&t| t != running);
    let Wait::Condvar { since, .. } = woke_on else {
        return Woken::Event;
    };
    match pending.iter().position(|&g| g > since) {
        Some(i) => {
            pending.remove(i);
            refresh_waiters(ex, condvar);
            Woken::Event
        }
        None => ex.wakes.forced(),
    }
}

/// Notify `condvar`: `notify_all` wakes every waiter; `notify_one` leaves
/// a notification that one of the threads waiting now takes, the one the
/// scheduler runs first.
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
        let SyncState::Condvar {
            waiters,
            generation,
            pending,
        } = &mut ex.objects[condvar.object.index()].sync
        else {
            unreachable!("invariant: a condvar's object is a condvar")
        };
        *generation += 1;
        if all {
            pending.clear();
            for thread in std::mem::take(waiters) {
                wake_to_lock(ex, thread);
            }
        } else if !waiters.is_empty() {
            pending.push(*generation);
            refresh_waiters(ex, condvar.object);
        }
        let kind = if all {
            EventKind::Broadcast
        } else {
            EventKind::Signal
        };
        sync_done(ex, kind, condvar);
    });
}

/// `thread`, waiting on a condition variable, is notified: it now waits
/// for the mutex alone.
fn wake_to_lock(ex: &mut Execution, thread: ThreadId) {
    if let Status::Blocked {
        wait: Wait::Condvar { mutex, .. },
        at,
    } = ex.threads.get(thread).status
    {
        ex.threads.get_mut(thread).status = Status::Blocked {
            wait: Wait::Lock(mutex),
            at,
        };
        let free = ex.objects[mutex.index()].sync.mutex_free();
        ex.threads.set_enabled(thread, free);
    }
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
        // The released threads stay blocked until chosen: `sleep` wakes
        // them then.
        let released = std::mem::take(arrived);
        for thread in released {
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
    /// A `try_send` found no room.
    Full,
}

/// Send on a channel, blocking while a bounded one is full.
pub fn send(handle: &Handle, site: Site) -> Sent {
    let operation = Operation::Send(handle.object);
    if !enter(pending_on(handle, true, true), operation, site) {
        return Sent::Queued;
    }
    until(handle, Wait::Send(handle.object), operation, site, |ex| {
        offer(ex, handle, false)
    })
}

/// Send on a bounded channel if it has room at this operation's own
/// scheduling point (a rendezvous channel has room when its receiver
/// waits in `recv` with nothing queued); never blocks.
pub fn try_send(handle: &Handle, site: Site) -> Sent {
    let operation = Operation::Send(handle.object);
    if !enter(pending_on(handle, true, true), operation, site) {
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
        && !ex
            .threads
            .blocked_on(|w| matches!(w, Wait::Recv { channel, .. } if channel == object))
            .is_empty();
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
    if !enter(pending_on(handle, true, true), operation, site) {
        return Received::Disconnected;
    }
    let wait = Wait::Recv {
        channel: handle.object,
        timed: how == Receive::Timed,
    };
    let mut woke = false;
    until(handle, wait, operation, site, |ex| {
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
    spawn_as(job, name, false, site)
}

/// Spawn a thread (`task`: an async task, crate::future) that runs `job`.
pub fn spawn_as(job: Box<dyn FnOnce()>, name: Option<String>, task: bool, site: Site) -> ThreadId {
    if !enter(Pending::LOCAL, Operation::Spawn, site) {
        unreachable!("invariant: a thread spawns only while the execution runs")
    }
    with(|ex| {
        let running = ex.current;
        let child = ex.add_thread(job, name, Some(running), task, site);
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

/// Park the running thread until its token is set (`thread::park`), or
/// with `timed` (`park_timeout`) until the timeout fires: it returns at
/// once, taking the token, if an unpark came first. It may also wake
/// spuriously ([`crate::wake`]). How it woke.
pub fn park(timed: bool, site: Site) -> Woken {
    if !enter(Pending::LOCAL, Operation::Park, site) {
        return Woken::Event;
    }
    let (has_token, early) = with(|ex| {
        let has_token = ex.threads.get(ex.current).unparked;
        let early = if has_token {
            Woken::Event
        } else {
            ex.wakes.decide(timed)
        };
        (has_token, early)
    });
    let mut woken = early;
    if !has_token && early == Woken::Event {
        sleep(Wait::Park { timed }, EventKind::Blocked, site, None);
        woken = with(|ex| {
            if ex.threads.get(ex.current).unparked {
                Woken::Event
            } else {
                ex.wakes.forced()
            }
        });
    }
    with(|ex| {
        let running = ex.current;
        ex.threads.get_mut(running).unparked = false;
        if let (Some(trace), false) = (&mut ex.trace, woken == Woken::Event) {
            trace.operation(running, Operation::early(None, woken), site);
        }
        end_step(ex, event(EventKind::Woken, None, false));
    });
    woken
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
                wait: Wait::Park { .. },
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
        ex.threads.finish(thread);
        for joiner in ex.threads.blocked_on(|w| w == Wait::Join(thread)) {
            ex.threads.enable(joiner);
        }
        if let Some(trace) = &mut ex.trace {
            trace.finished(thread);
        }
        leave(ex, event(EventKind::Finished, None, false));
    });
}

/// After `object` changed: every thread blocked on it can run exactly when
/// its operation could complete now.
fn refresh_waiters(ex: &mut Execution, object: ObjectId) {
    for i in 0..ex.threads.all.len() {
        let Status::Blocked { wait, .. } = ex.threads.all[i].status else {
            continue;
        };
        if concerns(wait, object) {
            let thread = ThreadId(i as u32);
            let can = can_go_on(ex, thread, wait);
            ex.threads.set_enabled(thread, can);
        }
    }
}

/// Whether a thread blocked on `wait` looks again when `object` changes.
fn concerns(wait: Wait, object: ObjectId) -> bool {
    match wait {
        Wait::Lock(o) | Wait::ReadLock(o) | Wait::WriteLock(o) | Wait::Send(o) => o == object,
        Wait::Recv { channel, .. } | Wait::Handoff { channel, .. } => channel == object,
        Wait::Condvar { condvar, mutex, .. } => condvar == object || mutex == object,
        Wait::Join(_) | Wait::Park { .. } | Wait::Barrier(_) | Wait::Woken => false,
    }
}

/// Whether `thread`, blocked on `wait`, can go on now: what it waits for
/// came. Threads waiting to join or
/// at a barrier are woken by the thread's end and the last arrival.
fn can_go_on(ex: &Execution, thread: ThreadId, wait: Wait) -> bool {
    let sync = |o: ObjectId| &ex.objects[o.index()].sync;
    match wait {
        Wait::Lock(o) => sync(o).mutex_free(),
        Wait::ReadLock(o) => matches!(sync(o), SyncState::RwLock { writer: None, .. }),
        Wait::WriteLock(o) => matches!(
            sync(o),
            SyncState::RwLock {
                writer: None,
                readers: 0
            }
        ),
        Wait::Recv { channel, .. } => {
            matches!(
                sync(channel),
                SyncState::Channel { queued, senders, .. } if *queued > 0 || *senders == 0
            )
        }
        Wait::Send(o) => matches!(
            sync(o),
            SyncState::Channel { queued, capacity, receiver, .. }
                if !*receiver || capacity.is_none_or(|c| *queued < c.max(1))
        ),
        Wait::Handoff { channel, ticket } => matches!(
            sync(channel),
            SyncState::Channel { taken, receiver, .. } if !*receiver || *taken >= ticket
        ),
        Wait::Condvar {
            condvar,
            mutex,
            since,
            ..
        } => sync(mutex).mutex_free() && sync(condvar).notified_since(since),
        Wait::Park { .. } => ex.threads.get(thread).unparked,
        Wait::Join(t) => ex.threads.get(t).status == Status::Finished,
        Wait::Barrier(_) => false,
        Wait::Woken => ex.tasks.woken(thread),
    }
}

/// An operation of the async runtime (crate::future) on `handle`'s object
/// (`None`: on a task): a scheduling point before it, its step ended with
/// `kind`. `false` when the execution is over: do only the local effect.
pub fn async_step(
    handle: Option<&Handle>,
    kind: EventKind,
    operation: Operation,
    site: Site,
) -> bool {
    let pending = handle.map_or(Pending::LOCAL, |h| pending_on(h, true, true));
    if !enter(pending, operation, site) {
        return false;
    }
    with(|ex| match handle {
        Some(handle) => {
            ex.check(handle);
            sync_done(ex, kind, handle);
        }
        None => end_step(ex, event(kind, None, false)),
    });
    true
}

/// The running thread's future returned `Pending` (polled at `site`): it
/// goes on at once when its waker was woken meanwhile, else blocks until
/// it is, or, with a timer armed, until no other thread can run (time
/// passes: its timers fire). How it woke. What the future awaited is
/// forgotten then: the next poll registers it again.
pub fn await_wake(site: Site) -> Woken {
    if !enter(Pending::LOCAL, Operation::Pending, site) {
        return Woken::Event;
    }
    let blocked_at = with(|ex| {
        let running = ex.current;
        if ex.tasks.take_woken(running) {
            ex.tasks.polled(running);
            end_step(ex, event(EventKind::Yield, None, false));
            return None;
        }
        // Reported where the future last awaited one of the runtime's
        // types, when it did.
        let at = ex.tasks.polled_at(running).unwrap_or(site);
        if let Some(trace) = &mut ex.trace {
            trace.operation(running, Operation::Pending, at);
        }
        Some(at)
    });
    let Some(at) = blocked_at else {
        return Woken::Event;
    };
    sleep(Wait::Woken, EventKind::Blocked, at, None);
    with(|ex| {
        let running = ex.current;
        let (woken, operation) = if ex.tasks.take_woken(running) {
            (Woken::Event, Operation::Pending)
        } else {
            ex.tasks.time_passes(running);
            (ex.wakes.forced(), Operation::TimerFires)
        };
        ex.tasks.polled(running);
        if let Some(trace) = &mut ex.trace {
            trace.operation(running, operation, at);
        }
        end_step(ex, event(EventKind::Woken, None, false));
        woken
    })
}

/// Wake `thread`'s waker (made in execution `execution`): bookkeeping, no
/// scheduling point, so that a waker may be woken anywhere (in a drop, by
/// a waker kept past its run, which does nothing).
pub fn wake(execution: u64, thread: ThreadId) {
    executor::try_with(|ex| {
        if ex.id != execution || ex.aborting {
            return;
        }
        ex.tasks.wake(thread);
        if matches!(
            ex.threads.get(thread).status,
            Status::Blocked {
                wait: Wait::Woken,
                ..
            }
        ) {
            ex.threads.enable(thread);
        }
    });
}
