//! The states a search has visited, kept in an arena so that the search
//! stack can name them by index: a state is stored once, and cloned only to
//! make its successors. Each state is hashed once, to a 64-bit key, and
//! compared in full only with the states of the same key, so memoization is
//! exact. Cloning and hashing whole machines is what the searches spend
//! most time on, hence the arena and the word-at-a-time hash below (each
//! halves a debug build's search time).

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};

/// Visited states, exactly.
pub struct Visited<S> {
    /// Every state, in the order first visited.
    states: Vec<S>,
    /// Indices into `states` by the hash of the state.
    by_key: HashMap<u64, Vec<usize>>,
}

impl<S: Hash + Eq> Visited<S> {
    /// No state visited.
    pub fn new() -> Visited<S> {
        Visited {
            states: Vec::new(),
            by_key: HashMap::new(),
        }
    }

    /// Records `state`: its index if it is new, `None` if it was already
    /// visited.
    pub fn insert(&mut self, state: S) -> Option<usize> {
        let key = BuildHasherDefault::<StateHasher>::default().hash_one(&state);
        let same_key = self.by_key.entry(key).or_default();
        if same_key.iter().any(|&index| self.states[index] == state) {
            return None;
        }
        same_key.push(self.states.len());
        self.states.push(state);
        Some(self.states.len() - 1)
    }

    /// The state of index `index`.
    pub fn get(&self, index: usize) -> &S {
        &self.states[index]
    }

    /// How many states were visited.
    pub fn len(&self) -> u64 {
        self.states.len() as u64
    }
}

/// A fast multiplicative hash of whole words (the "Fx" hash of rustc).
/// States of the same key are compared in full, so its quality only affects
/// speed; it takes whole integers at a time, where SipHash's byte loop is
/// slow in debug builds. It is deterministic: nothing depends on a seed.
#[derive(Default)]
struct StateHasher {
    /// The hash so far.
    hash: u64,
}

impl StateHasher {
    fn add(&mut self, word: u64) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.hash
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn write_i64(&mut self, n: i64) {
        self.add(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }
}
