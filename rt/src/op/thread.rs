//! Threads' own operations: spawn, join, yield, park and unpark, and the
//! end of a thread's body.

use rankcheck_engine::{EventKind, Pending, ThreadId};

use super::step::{block_then, enter, enter_with, sleep};
use super::Site;
use crate::executor::point::{event, leave};
use crate::executor::threads::{Status, Wait};
use crate::executor::{end_step, with, Execution};
use crate::footprint::Place;
use crate::trace::Operation;
use crate::wake::Woken;

/// Spawn a thread that runs `job`.
pub fn spawn(job: Box<dyn FnOnce()>, name: Option<String>, site: Site) -> ThreadId {
    spawn_as(job, name, false, site)
}

/// Spawn a thread (`task`: an async task, crate::future) that runs `job`.
pub fn spawn_as(job: Box<dyn FnOnce()>, name: Option<String>, task: bool, site: Site) -> ThreadId {
    let spawned = enter_with(
        || Pending::LOCAL,
        Operation::Spawn,
        site,
        |ex| {
            let running = ex.current;
            ex.touch(Place::Threads, true);
            let child = ex.add_thread(job, name, Some(running), task, site);
            ex.memory.spawn(running, child);
            if let Some(trace) = &mut ex.trace {
                trace.spawned(child);
            }
            // Where it was spawned: threads of one `spawn` call are one
            // kind to kind-weighted SURW.
            let mut spawned = event(EventKind::Spawn, None, false);
            spawned.loc = Some(ex.registry.spawn_site(site));
            end_step(ex, spawned);
            child
        },
    );
    spawned
        .unwrap_or_else(|| unreachable!("invariant: a thread spawns only while the execution runs"))
}

/// Wait for `thread` to finish.
pub fn join(thread: ThreadId, site: Site) {
    let operation = Operation::Join(thread);
    let finished = enter_with(
        || Pending::LOCAL,
        operation,
        site,
        |ex| {
            ex.touch(Place::End(thread), false);
            let finished = ex.threads.get(thread).status == Status::Finished;
            if finished {
                joined(ex, thread);
            }
            finished
        },
    );
    if finished == Some(false) {
        block_then(Wait::Join(thread), operation, site, None, |ex| {
            joined(ex, thread)
        });
    }
}

/// The running thread's join of the finished `thread` ends its step.
fn joined(ex: &mut Execution, thread: ThreadId) {
    ex.memory.join(ex.current, thread);
    end_step(ex, event(EventKind::Join, None, false));
}

/// Let another thread run: always a point (a spin loop's way out).
pub fn yield_now(site: Site) {
    yield_step(site, false);
}

/// Let another thread run and give way to it (`thread::give_way`): a
/// point at which the running thread does not run while another can
/// (crate::executor::give_way), after which its loads no longer read the
/// stores it read before (crate::memory::model).
pub fn give_way(site: Site) {
    yield_step(site, true);
}

/// A yield, giving way (`give_way`) or not.
fn yield_step(site: Site, give_way: bool) {
    enter_with(
        || Pending::LOCAL,
        Operation::Yield,
        site,
        |ex| {
            // What a test yields for is not known (it may be a change
            // the runtime does not see, as a std atomic's): every order of
            // the step after it with every other thread's is tried, as
            // after giving way (`Execution::give_way`).
            if give_way {
                ex.give_way();
            } else {
                ex.touch(Place::Everything, true);
            }
            end_step(ex, event(EventKind::Yield, None, false));
        },
    );
}

/// Park the running thread until its token is set (`thread::park`), or
/// with `timed` (`park_timeout`) until the timeout fires: it returns at
/// once, taking the token, if an unpark came first. It may also wake
/// spuriously ([`crate::wake`]). How it woke.
pub fn park(timed: bool, site: Site) -> Woken {
    if !enter(|| Pending::LOCAL, Operation::Park, site) {
        return Woken::Event;
    }
    let (has_token, early) = with(|ex| {
        ex.touch(Place::Token(ex.current), true);
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
        if woken == Woken::Event {
            ex.memory.park(running);
        }
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
    if !enter(|| Pending::LOCAL, Operation::Unpark(thread), site) {
        return;
    }
    with(|ex| {
        ex.touch(Place::Token(thread), true);
        ex.memory.unpark(ex.current, thread);
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
    enter_with(
        || Pending::LOCAL,
        Operation::Finish,
        site,
        |ex| {
            debug_assert_eq!(ex.current, thread, "invariant: a thread finishes itself");
            ex.touch(Place::End(thread), true);
            ex.threads.finish(thread);
            ex.threads.enable_blocked_on(Wait::Join(thread));
            if let Some(trace) = &mut ex.trace {
                trace.finished(thread);
            }
            leave(ex, event(EventKind::Finished, None, false));
        },
    );
}
