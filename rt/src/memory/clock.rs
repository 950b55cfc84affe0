//! Vector clocks: for each thread, how far into its history another
//! thread's view reaches. `a` happens before an event of thread `t` at
//! stamp `s` exactly when `a`'s clock has `clock[t] >= s`.

/// A vector clock, indexed by thread; missing entries are 0 (nothing of
/// that thread seen).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VectorClock(Vec<u32>);

impl VectorClock {
    /// Thread `thread`'s entry.
    pub fn get(&self, thread: usize) -> u32 {
        self.0.get(thread).copied().unwrap_or(0)
    }

    /// Set thread `thread`'s entry.
    pub fn set(&mut self, thread: usize, stamp: u32) {
        if self.0.len() <= thread {
            self.0.resize(thread + 1, 0);
        }
        self.0[thread] = stamp;
    }

    /// Advance `thread`'s own entry: a new event of it. The new stamp.
    pub fn tick(&mut self, thread: usize) -> u32 {
        let next = self.get(thread) + 1;
        self.set(thread, next);
        next
    }

    /// The pointwise maximum with `other`: everything `other` saw is seen.
    pub fn join(&mut self, other: &VectorClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// The entries, by thread.
    pub fn entries(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.0.iter().copied().enumerate().filter(|(_, s)| *s > 0)
    }

    /// Forget everything (keeping the memory).
    pub fn clear(&mut self) {
        self.0.clear();
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
        a.join(&b);
        assert_eq!((a.get(0), a.get(1), a.get(2)), (3, 0, 5));
        assert_eq!(a.tick(1), 1);
    }
}
