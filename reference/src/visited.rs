//! The set of states a search has visited. Each state is hashed once, to a
//! 64-bit key, and compared in full only with the states of the same key:
//! memoization stays exact, and growing the set never hashes a state again
//! (hashing whole machines is what the searches spend most time on).

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hash};

/// Visited states, exactly.
pub struct Visited<S> {
    /// States by the hash of their content.
    buckets: HashMap<u64, Vec<S>>,
    /// How many states in all.
    len: u64,
}

impl<S: Hash + Eq + Clone> Visited<S> {
    /// No state visited.
    pub fn new() -> Visited<S> {
        Visited {
            buckets: HashMap::new(),
            len: 0,
        }
    }

    /// Records `state`; false if it was already visited.
    pub fn insert(&mut self, state: &S) -> bool {
        // Fixed keys, so a state's key does not depend on the process;
        // nothing depends on the order of the buckets anyway.
        let key = BuildHasherDefault::<DefaultHasher>::default().hash_one(state);
        let bucket = self.buckets.entry(key).or_default();
        if bucket.contains(state) {
            return false;
        }
        bucket.push(state.clone());
        self.len += 1;
        true
    }

    /// How many states were visited.
    pub fn len(&self) -> u64 {
        self.len
    }
}
