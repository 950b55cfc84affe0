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

    /// Whether some thread's entry here is set and at most its entry in
    /// `view` or in `also` (when given): an event of this clock's the view
    /// has seen. Written over the arrays, without iterators: the memory
    /// model asks it of every kept store at every load.
    pub fn any_seen(&self, view: &VectorClock, also: Option<&VectorClock>) -> bool {
        let sees = |t: usize, own: u32| {
            let seen = view.get(t).max(also.map_or(0, |c| c.get(t)));
            own != 0 && own <= seen
        };
        for t in 0..INLINE {
            if sees(t, self.inline[t]) {
                return true;
            }
        }
        let mut spilled = self.spilled.iter().enumerate();
        spilled.any(|(i, &own)| sees(INLINE + i, own))
    }

    /// The first thread whose entry here is past its entry in `now`: an
    /// event of this clock's that `now` has not seen.
    pub fn first_ahead_of(&self, now: &VectorClock) -> Option<usize> {
        let inline = (0..INLINE).find(|&t| self.inline[t] > now.inline[t]);
        inline.or_else(|| {
            let mut spilled = self.spilled.iter().enumerate();
            spilled.find_map(|(i, &own)| (own > now.get(INLINE + i)).then_some(INLINE + i))
        })
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
        assert_eq!((a.get(1), a.get(3), a.get(12)), (1, 0, 0));
        let mut view = VectorClock::default();
        assert!(!a.any_seen(&view, None), "an empty view has seen nothing");
        view.set(11, 2);
        assert!(a.any_seen(&view, None), "a spilled entry seen");
        let mut other = VectorClock::default();
        other.set(2, 9);
        assert!(a.any_seen(&VectorClock::default(), Some(&other)));
        assert_eq!(a.first_ahead_of(&other), Some(0));
        assert_eq!(a.first_ahead_of(&a), None);
        let mut most = a.clone();
        most.set(11, 1);
        assert_eq!(a.first_ahead_of(&most), Some(11), "a spilled entry ahead");
    }
}
