//! The partial priority order over the threads' current fragments that an
//! execution has needed so far, for thread bounding's preemption count
//! (docs/LANGUAGE.md "Priorities, change points and preemptions").
//!
//! Every thread has exactly one current fragment at a time, so a fragment is
//! named by its thread. The relation is kept transitively closed: when a
//! fragment stops being current (its thread is cut at a change point, or
//! ends), its pairs are dropped, and every path that ran through it already
//! has a pair of its own between current fragments. That is all older
//! fragments matter for: a later constraint is cyclic exactly when the
//! closure over all fragments, old ones included, has the opposite pair.

use std::collections::BTreeSet;

/// A transitively closed "outranks" relation between threads' current
/// fragments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Order {
    /// `(high, low)`: `high`'s fragment outranks `low`'s. Closed under
    /// transitivity, never reflexive, never both `(a, b)` and `(b, a)`.
    pairs: BTreeSet<(u32, u32)>,
}

impl Order {
    /// Whether `high` may be given priority over every one of `others`
    /// without a cycle: none of them already outranks it.
    pub fn can_outrank(&self, high: u32, others: &[u32]) -> bool {
        others
            .iter()
            .all(|&low| low == high || !self.pairs.contains(&(low, high)))
    }

    /// Adds "`high` outranks each of `others`" and closes the relation.
    /// [`Order::can_outrank`] must hold.
    pub fn outrank(&mut self, high: u32, others: &[u32]) {
        for &low in others.iter().filter(|&&low| low != high) {
            self.add(high, low);
        }
    }

    /// Forgets `thread`'s current fragment: it was cut, so a new one with
    /// no constraints begins, or the thread ended.
    pub fn forget(&mut self, thread: u32) {
        self.pairs
            .retain(|&(high, low)| high != thread && low != thread);
    }

    fn add(&mut self, high: u32, low: u32) {
        if self.pairs.contains(&(high, low)) {
            return;
        }
        let above: Vec<u32> = std::iter::once(high)
            .chain(self.pairs.iter().filter(|p| p.1 == high).map(|p| p.0))
            .collect();
        let below: Vec<u32> = std::iter::once(low)
            .chain(self.pairs.iter().filter(|p| p.0 == low).map(|p| p.1))
            .collect();
        for &a in &above {
            for &b in &below {
                debug_assert!(a != b, "invariant: the order stays acyclic");
                self.pairs.insert((a, b));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outranking_is_transitive_and_refuses_cycles() {
        let mut order = Order::default();
        order.outrank(0, &[1]);
        order.outrank(1, &[2]);
        assert!(
            !order.can_outrank(2, &[0]),
            "0 > 1 > 2, so 2 > 0 is a cycle"
        );
        assert!(order.can_outrank(0, &[2]));
    }

    #[test]
    fn forgetting_a_fragment_keeps_the_paths_through_it() {
        let mut order = Order::default();
        order.outrank(0, &[1]);
        order.outrank(1, &[2]);
        order.forget(1);
        assert!(
            !order.can_outrank(2, &[0]),
            "0 > old 1 > 2 still orders 0 above 2"
        );
        assert!(
            order.can_outrank(1, &[0, 2]),
            "the new fragment of 1 is free"
        );
    }
}
