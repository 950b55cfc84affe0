//! A thread that gives way (`thread::give_way`, loom's yield) does not run
//! again while a thread that could run when it gave way has not taken a
//! step since, and can: it is hidden from the enabled set at those points,
//! and put back where it was after each choice, so that the enabled set's
//! order is as if nothing happened. A spin loop that gives way at each
//! turn therefore lets every other thread take a step between any two of
//! its turns (two spinners giving way alternate only once no other thread
//! can run), and its schedules are finite for an exhaustive search. A
//! thread is never hidden when it is the only one left to run.
//!
//! Under a current-thread runtime (`future::Flavor::CurrentThread`) the
//! others give way to the running thread at every point but a yield: one
//! task runs at a time, switching only where it returns `Pending` (it
//! blocks, or yields having woken itself) or ends ([`hide_others`]).

use rankcheck_engine::ThreadId;

use super::threads::Threads;

/// A thread that gave way, and the threads it still waits a step from.
#[derive(Clone, Debug)]
pub struct GaveWay {
    thread: ThreadId,
    owed: Vec<ThreadId>,
}

/// A thread hidden for one point, and its place in the enabled set.
pub struct Hidden {
    thread: ThreadId,
    at: u32,
}

/// The threads hidden at one point, in the order they were hidden.
#[derive(Default)]
pub struct HiddenSet(Vec<Hidden>);

impl HiddenSet {
    /// Whether `thread` is one of them.
    pub fn contains(&self, thread: ThreadId) -> bool {
        self.0.iter().any(|h| h.thread == thread)
    }

    /// Whether none is hidden.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Record the thread that gave way since the last point (it waits a step
/// from every other thread that can run now), then hide, oldest first,
/// each that still waits for a thread that can run and is not hidden.
#[inline(always)]
pub fn hide(threads: &mut Threads) -> HiddenSet {
    if let Some(thread) = threads.gave_way.take() {
        let owed = threads
            .enabled
            .iter()
            .copied()
            .filter(|t| *t != thread)
            .collect();
        threads.yielded.retain(|y| y.thread != thread);
        threads.yielded.push(GaveWay { thread, owed });
    }
    let mut hidden = HiddenSet::default();
    if threads.yielded.is_empty() {
        return hidden;
    }
    for i in 0..threads.yielded.len() {
        let GaveWay { thread, ref owed } = threads.yielded[i];
        let at = threads.position[thread.index()];
        let waits = owed
            .iter()
            .any(|t| threads.is_enabled(*t) && !hidden.contains(*t));
        if at == u32::MAX || !waits || threads.enabled.len() < 2 {
            continue;
        }
        threads.disable(thread);
        hidden.0.push(Hidden { thread, at });
    }
    hidden
}

/// Hide every enabled thread but `running`, for one point, after those
/// `hidden` already holds: the current-thread flavor's point where the
/// running task goes on without returning `Pending`.
#[inline(always)]
pub fn hide_others(threads: &mut Threads, running: ThreadId, hidden: &mut HiddenSet) {
    let others: Vec<ThreadId> = threads
        .enabled
        .iter()
        .copied()
        .filter(|t| *t != running)
        .collect();
    for thread in others {
        let at = threads.position[thread.index()];
        threads.disable(thread);
        hidden.0.push(Hidden { thread, at });
    }
}

/// Put the hidden threads back at their places, the last hidden first
/// (disabling one moved the last enabled thread to its place: that one
/// goes back to the end), and tell the next point they are enabled again
/// (a scheduler that keeps only enabled threads' entries, PCT's, may have
/// dropped theirs at this point).
pub fn restore(threads: &mut Threads, hidden: HiddenSet) {
    for Hidden { thread, at } in hidden.0.into_iter().rev() {
        threads.enabled.push(thread);
        let end = threads.enabled.len() - 1;
        threads.enabled.swap(at as usize, end);
        let moved = threads.enabled[end];
        threads.position[moved.index()] = end as u32;
        threads.position[thread.index()] = at;
        threads.newly_enabled.push(thread);
    }
}

/// `chosen` takes the next step: the threads that gave way no longer wait
/// for it, and it no longer waits for any.
#[inline(always)]
pub fn stepped(threads: &mut Threads, chosen: ThreadId) {
    if threads.yielded.is_empty() {
        return;
    }
    threads.yielded.retain_mut(|y| {
        y.owed.retain(|t| *t != chosen);
        y.thread != chosen && !y.owed.is_empty()
    });
}
