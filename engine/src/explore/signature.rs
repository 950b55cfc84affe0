//! The happens-before signature of an execution prefix: for every variable
//! (every [`super::Place`]), the order of its accesses. Exhaustive search prunes a work item whose
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
use std::hash::{BuildHasherDefault, Hasher};

use crate::id::ThreadId;

use super::footprint::Touch;

/// Keys of per-thread yield counters start here (between the variables'
/// keys and the other places', [`super::Place::key`]).
const YIELDS: u64 = 1 << 40;

/// A running happens-before signature, updated in O(1) per access.
#[derive(Clone, Debug, Default)]
pub(super) struct Signature {
    /// Per variable (or pseudo-variable), a running hash of its accesses in
    /// order.
    per_var: HashMap<u64, u64, Mixed>,
    /// How many accesses each thread has made.
    per_thread: Vec<u32>,
    /// The combination of `per_var`, kept up to date.
    value: u64,
}

impl Signature {
    /// Record the touches `thread` made in one step.
    pub(super) fn record(&mut self, thread: ThreadId, touches: impl IntoIterator<Item = Touch>) {
        for touch in touches {
            self.add(thread, touch.place.key(), touch.write);
        }
    }

    /// Record that `thread` yielded.
    pub(super) fn record_yield(&mut self, thread: ThreadId) {
        self.add(thread, YIELDS + u64::from(thread.0), true);
    }

    /// Back to the empty prefix, keeping the buffers.
    pub(super) fn clear(&mut self) {
        self.per_var.clear();
        self.per_thread.clear();
        self.value = 0;
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

/// Hashes the `u64` keys of the explorations' maps (places, signatures)
/// by [`mix`]: no adversary chooses them, and SipHash, the default, cost
/// more than the rest of recording an access.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = mix(self.0 ^ u64::from(byte));
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = mix(self.0 ^ key);
    }
}

/// Maps and sets keyed by `u64`s hashed by [`MixHasher`].
pub(super) type Mixed = BuildHasherDefault<MixHasher>;

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
    use crate::explore::Place;

    fn access(var: u32, write: bool) -> Touch {
        Touch {
            place: Place::Memory(var),
            write,
        }
    }

    #[test]
    fn independent_accesses_commute_and_conflicting_ones_do_not() {
        let (a, b) = (ThreadId(0), ThreadId(1));
        let mut one = Signature::default();
        one.record(a, [access(0, true)]);
        one.record(b, [access(1, true)]);
        let mut other = Signature::default();
        other.record(b, [access(1, true)]);
        other.record(a, [access(0, true)]);
        assert_eq!(one.value(), other.value());

        let mut first = Signature::default();
        first.record(a, [access(0, true)]);
        first.record(b, [access(0, false)]);
        let mut second = Signature::default();
        second.record(b, [access(0, false)]);
        second.record(a, [access(0, true)]);
        assert_ne!(first.value(), second.value());
    }

    #[test]
    fn every_access_of_a_step_counts() {
        // An atomic block that writes two variables: both orders matter.
        let (a, b) = (ThreadId(0), ThreadId(1));
        let mut one = Signature::default();
        one.record(a, [access(1, true), access(0, true)]);
        one.record(b, [access(1, false)]);
        let mut other = Signature::default();
        other.record(a, [access(0, true)]);
        other.record(b, [access(1, false)]);
        assert_ne!(one.value(), other.value());
    }
}
