//! Vector clocks: for each thread, how far into its history another
//! thread's view reaches. `a` happens before an event of thread `t` at
//! stamp `s` exactly when `a`'s clock has `clock[t] >= s`.
//!
//! The first [`INLINE`] threads' entries are kept inline, so that the
//! clocks of a small test (every store has two) cost no allocation.

/// Threads whose entries a clock keeps inline.
const INLINE: usize = 8;

/// A vector clock, indexed by thread; missing entries are 0 (nothing of
/// that thread seen).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VectorClock {
    inline: [u32; INLINE],
    /// Entries of threads `INLINE` and up.
    spilled: Vec<u32>,
}

impl VectorClock {
    /// Thread `thread`'s entry.
    pub fn get(&self, thread: usize) -> u32 {
        match thread.checked_sub(INLINE) {
            None => self.inline[thread],
            Some(i) => self.spilled.get(i).copied().unwrap_or(0),
        }
    }

    /// Set thread `thread`'s entry.
    pub fn set(&mut self, thread: usize, stamp: u32) {
        match thread.checked_sub(INLINE) {
            None => self.inline[thread] = stamp,
            Some(i) => {
                if self.spilled.len() <= i {
                    self.spilled.resize(i + 1, 0);
                }
                self.spilled[i] = stamp;
            }
        }
    }

    /// Advance `thread`'s own entry: a new event of it. The new stamp.
    pub fn tick(&mut self, thread: usize) -> u32 {
        let next = self.get(thread) + 1;
        self.set(thread, next);
        next
    }

    /// The pointwise maximum with `other`: everything `other` saw is seen.
    pub fn join(&mut self, other: &VectorClock) {
        for (mine, theirs) in self.inline.iter_mut().zip(&other.inline) {
            *mine = (*mine).max(*theirs);
        }
        if self.spilled.len() < other.spilled.len() {
            self.spilled.resize(other.spilled.len(), 0);
        }
        for (mine, theirs) in self.spilled.iter_mut().zip(&other.spilled) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// The entries, by thread.
    pub fn entries(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.inline
            .iter()
            .chain(&self.spilled)
            .copied()
            .enumerate()
            .filter(|(_, s)| *s > 0)
    }

    /// Forget everything (keeping the memory).
    pub fn clear(&mut self) {
        self.inline = [0; INLINE];
        self.spilled.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::VectorClock;

    #[test]
    fn join_is_the_pointwise_maximum() {
        let mut a = VectorClock::default();
        a.set(0, 3);
        let mut b = VectorClock::default();
        b.set(0, 1);
        b.set(2, 5);
        b.set(11, 2);
        a.join(&b);
        assert_eq!((a.get(0), a.get(1), a.get(2), a.get(11)), (3, 0, 5, 2));
        assert_eq!(a.tick(1), 1);
        let entries: Vec<(usize, u32)> = a.entries().collect();
        assert_eq!(entries, [(0, 3), (1, 1), (2, 5), (11, 2)]);
    }
}
