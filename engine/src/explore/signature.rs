//! The happens-before signature of an execution prefix: for every variable,
//! the order of its accesses. Exhaustive search prunes a work item whose
//! state it has explored already, and two prefixes with equal signatures
//! reach equal states.
//!
//! Why equal signatures mean equal states: each access is named by its
//! thread and its index among that thread's accesses, so equal signatures
//! order every pair of accesses to a variable the same way. Then every read
//! reads the same write, so by induction over the prefix every thread runs
//! the same code with the same values and makes the same accesses. The
//! accesses are every one the VM logs (see [`crate::Vm::log_accesses`]):
//! tracked or not, inside `atomic` blocks and `await` conditions, mutex
//! and condition operations, allocations (which number objects) and the
//! thread table (`spawn`, `join`, a thread's end, which number and enable
//! threads). Variables are coarser than locations, which only adds
//! orderings; reads are ordered among themselves too, which prunes a little
//! less than possible and never wrongly. Yields are recorded per thread,
//! because the spin-loop guard counts them.

use std::collections::HashMap;

use crate::id::ThreadId;
use crate::scheduler::Access;

/// The key of the thread table in the signature.
const THREADS: u64 = u64::MAX;
/// Keys of per-thread yield counters start here.
const YIELDS: u64 = 1 << 40;

/// A running happens-before signature, updated in O(1) per access.
#[derive(Clone, Debug, Default)]
pub(super) struct Signature {
    /// Per variable (or pseudo-variable), a running hash of its accesses in
    /// order.
    per_var: HashMap<u64, u64>,
    /// How many accesses each thread has made.
    per_thread: Vec<u32>,
    /// The combination of `per_var`, kept up to date.
    value: u64,
}

impl Signature {
    /// Record the accesses `thread` made in one step.
    pub(super) fn record(&mut self, thread: ThreadId, accesses: &[Access]) {
        for access in accesses {
            let key = access.var.map_or(THREADS, |v| u64::from(v.0));
            self.add(thread, key, access.write);
        }
    }

    /// Record that `thread` yielded.
    pub(super) fn record_yield(&mut self, thread: ThreadId) {
        self.add(thread, YIELDS + u64::from(thread.0), true);
    }

    /// The signature so far.
    pub(super) fn value(&self) -> u64 {
        self.value
    }

    fn add(&mut self, thread: ThreadId, key: u64, write: bool) {
        let index = thread.index();
        if self.per_thread.len() <= index {
            self.per_thread.resize(index + 1, 0);
        }
        self.per_thread[index] += 1;
        let access = (u64::from(thread.0) << 33)
            | (u64::from(self.per_thread[index]) << 1)
            | u64::from(write);
        let entry = self.per_var.entry(key).or_insert(0);
        let old = *entry;
        *entry = mix(old ^ mix(access));
        // The signature combines the variables' hashes, each keyed by its
        // variable, so one access updates it in O(1).
        self.value ^= mix(old ^ mix(key)) ^ mix(*entry ^ mix(key));
    }
}

/// A 64-bit mixing function (SplitMix64's finaliser): cheap, and spreads
/// every input bit over the output. Signatures are compared by value, so a
/// collision (about 2^-64 per pair) could prune a schedule wrongly; that is
/// the price of not storing whole access sequences.
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::VarId;

    fn access(var: u32, write: bool) -> Access {
        Access {
            var: Some(VarId(var)),
            write,
        }
    }

    #[test]
    fn independent_accesses_commute_and_conflicting_ones_do_not() {
        let (a, b) = (ThreadId(0), ThreadId(1));
        let mut one = Signature::default();
        one.record(a, &[access(0, true)]);
        one.record(b, &[access(1, true)]);
        let mut other = Signature::default();
        other.record(b, &[access(1, true)]);
        other.record(a, &[access(0, true)]);
        assert_eq!(one.value(), other.value());

        let mut first = Signature::default();
        first.record(a, &[access(0, true)]);
        first.record(b, &[access(0, false)]);
        let mut second = Signature::default();
        second.record(b, &[access(0, false)]);
        second.record(a, &[access(0, true)]);
        assert_ne!(first.value(), second.value());
    }

    #[test]
    fn every_access_of_a_step_counts() {
        // An atomic block that writes two variables: both orders matter.
        let (a, b) = (ThreadId(0), ThreadId(1));
        let mut one = Signature::default();
        one.record(a, &[access(1, true), access(0, true)]);
        one.record(b, &[access(1, false)]);
        let mut other = Signature::default();
        other.record(a, &[access(0, true)]);
        other.record(b, &[access(1, false)]);
        assert_ne!(one.value(), other.value());
    }
}
