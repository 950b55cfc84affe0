//! The random scheduler: a uniformly random choice among the enabled threads
//! at every scheduling point. The baseline every user knows.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::id::ThreadId;
use crate::scheduler::{Point, Scheduler};

/// Chooses uniformly among the enabled threads, from a seeded generator.
#[derive(Clone, Debug)]
pub struct RandomScheduler {
    rng: Pcg64Mcg,
}

impl RandomScheduler {
    /// A scheduler whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> RandomScheduler {
        RandomScheduler {
            rng: Pcg64Mcg::seed_from_u64(seed),
        }
    }
}

impl Scheduler for RandomScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        match point.enabled {
            [only] => *only,
            enabled => enabled[self.rng.random_range(0..enabled.len())],
        }
    }
}
