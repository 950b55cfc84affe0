//! A thread that gives way (`thread::give_way`, loom's yield) does not run
//! at the next scheduling point while another thread can: it is hidden
//! from the enabled set for that one point, and put back where it was
//! after the choice, so that the enabled set's order is as if nothing
//! happened. A spin loop that gives way at each turn therefore lets
//! another thread take a step between any two of its turns, and its
//! schedules are finite for an exhaustive search.

use rankcheck_engine::ThreadId;

use super::threads::Threads;

/// A thread hidden for one point, and its place in the enabled set.
pub struct Hidden {
    thread: ThreadId,
    at: u32,
}

impl Hidden {
    /// Whether `thread` is the hidden one.
    pub fn is(&self, thread: ThreadId) -> bool {
        self.thread == thread
    }
}

/// Hide the thread that gave way since the last point, if another thread
/// can run.
#[inline(always)]
pub fn hide(threads: &mut Threads) -> Option<Hidden> {
    let thread = threads.gave_way.take()?;
    let at = threads.position[thread.index()];
    if at == u32::MAX || threads.enabled.len() < 2 {
        return None;
    }
    threads.disable(thread);
    Some(Hidden { thread, at })
}

/// Put the hidden thread back at its place (disabling it moved the last
/// enabled thread there: that one goes back to the end), and tell the
/// next point it is enabled again (a scheduler that keeps only enabled
/// threads' entries, PCT's, may have dropped its entry at this point).
pub fn restore(threads: &mut Threads, hidden: Hidden) {
    let Hidden { thread, at } = hidden;
    threads.enabled.push(thread);
    let end = threads.enabled.len() - 1;
    threads.enabled.swap(at as usize, end);
    let moved = threads.enabled[end];
    threads.position[moved.index()] = end as u32;
    threads.position[thread.index()] = at;
    threads.newly_enabled.push(thread);
}
