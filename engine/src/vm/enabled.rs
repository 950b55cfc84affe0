//! The threads that can run, kept up to date as threads block, wake and
//! end, so that a scheduling point costs the same with ten threads as with
//! ten thousand (no rescan of every thread).

use crate::id::ThreadId;

/// Marks a thread that is not in the set.
pub(crate) const ABSENT: u32 = u32::MAX;

/// A set of threads with O(1) insertion, removal and membership, and the
/// list of threads inserted since it was last asked.
#[derive(Clone, Debug, Default)]
pub(crate) struct EnabledSet {
    /// The members, in no particular (but deterministic) order.
    list: Vec<ThreadId>,
    /// `position[t]`: `t`'s index in `list`, or [`ABSENT`]. One entry per
    /// thread of the execution.
    position: Vec<u32>,
    /// Threads inserted since [`EnabledSet::clear_newly`].
    newly: Vec<ThreadId>,
}

impl EnabledSet {
    /// Forget every thread.
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.position.clear();
        self.newly.clear();
    }

    /// Make room for the next thread id (threads are created in id order).
    pub(crate) fn add_thread(&mut self) {
        self.position.push(ABSENT);
    }

    /// Add `thread`; nothing if it is there already.
    #[inline]
    pub(crate) fn insert(&mut self, thread: ThreadId) {
        let slot = &mut self.position[thread.index()];
        if *slot == ABSENT {
            *slot = self.list.len() as u32;
            self.list.push(thread);
            self.newly.push(thread);
        }
    }

    /// Remove `thread`; nothing if it is not there.
    #[inline(always)]
    pub(crate) fn remove(&mut self, thread: ThreadId) {
        let at = self.position[thread.index()];
        if at == ABSENT {
            return;
        }
        self.position[thread.index()] = ABSENT;
        self.list.swap_remove(at as usize);
        if let Some(&moved) = self.list.get(at as usize) {
            self.position[moved.index()] = at;
        }
    }

    /// Whether `thread` is in the set.
    #[inline]
    pub(crate) fn contains(&self, thread: ThreadId) -> bool {
        self.position
            .get(thread.index())
            .is_some_and(|&p| p != ABSENT)
    }

    /// Whether no thread can run.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The members.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[ThreadId] {
        &self.list
    }

    /// Every thread's position, for [`crate::Point::is_enabled`].
    #[inline]
    pub(crate) fn positions(&self) -> &[u32] {
        &self.position
    }

    /// The threads inserted since the last [`EnabledSet::clear_newly`].
    #[inline]
    pub(crate) fn newly(&self) -> &[ThreadId] {
        &self.newly
    }

    /// Start a new list of inserted threads.
    #[inline]
    pub(crate) fn clear_newly(&mut self) {
        self.newly.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_keep_positions_right() {
        let mut set = EnabledSet::default();
        for _ in 0..4 {
            set.add_thread();
        }
        for t in 0..4 {
            set.insert(ThreadId(t));
        }
        set.insert(ThreadId(2));
        set.remove(ThreadId(0));
        set.remove(ThreadId(0));
        assert!(!set.contains(ThreadId(0)));
        for t in 1..4 {
            assert!(set.contains(ThreadId(t)));
            let at = set.positions()[t as usize] as usize;
            assert_eq!(set.as_slice()[at], ThreadId(t));
        }
        assert_eq!(set.as_slice().len(), 3);
        assert_eq!(set.newly().len(), 4);
        set.clear_newly();
        set.insert(ThreadId(0));
        assert_eq!(set.newly(), &[ThreadId(0)]);
    }
}
