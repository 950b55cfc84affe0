//! The random scheduler: a uniformly random choice among the enabled threads
//! at every scheduling point. The baseline every user knows.

use rand::{Rng, RngCore, SeedableRng};
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
    #[inline]
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        match point.enabled {
            [only] => *only,
            enabled => enabled[below(&mut self.rng, enabled.len())],
        }
    }

    /// A single enabled thread is chosen without a draw.
    fn silent_when_alone(&self) -> bool {
        true
    }
}

/// A uniform draw from `0..n` (`n > 0`), the very number rand's
/// `rng.random_range(0..n)` gives from the same state, so that a seed keeps
/// its schedules. rand draws a `usize` range that fits in 32 bits as a
/// `u32` by Canon's method (one 32-bit draw widened by `n`, and a second
/// draw only when the first lands in the last `n` values of its range);
/// written out here so that it inlines into the scheduling loop instead of
/// costing a call at every point with a choice.
#[inline(always)]
fn below(rng: &mut Pcg64Mcg, n: usize) -> usize {
    let Ok(range) = u32::try_from(n) else {
        return rng.random_range(0..n);
    };
    let wide = u64::from(rng.next_u32()) * u64::from(range);
    let (mut result, low) = ((wide >> 32) as u32, wide as u32);
    if low > range.wrapping_neg() {
        let next_high = ((u64::from(rng.next_u32()) * u64::from(range)) >> 32) as u32;
        result += u32::from(low.checked_add(next_high).is_none());
    }
    result as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `below` must draw what rand draws, or a seed would change its
    /// schedules: compared on small ranges (every thread count a program
    /// has) and on ranges large enough that the second draw happens.
    #[test]
    fn below_draws_what_rand_draws() {
        let ranges = (1..=64usize)
            .chain([1000, 10_000, (1 << 31) + 7, u32::MAX as usize - 3])
            .chain([u32::MAX as usize, u32::MAX as usize + 9]);
        for n in ranges {
            for seed in 0..50 {
                let mut ours = Pcg64Mcg::seed_from_u64(seed);
                let mut theirs = Pcg64Mcg::seed_from_u64(seed);
                for _ in 0..200 {
                    assert_eq!(below(&mut ours, n), theirs.random_range(0..n), "n = {n}");
                }
            }
        }
    }
}
