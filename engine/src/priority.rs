//! Priority scheduling: PCT's random priorities and change points
//! (Burckhardt et al., ASPLOS 2010), and thread bounding's permutation
//! priorities (the paper's Section 4; docs/ALGORITHMS.md, Thread bounding).
//!
//! And the spin-loop guard: a thread that yields more than `spin_yields`
//! times in a run is lowered, so that the thread it waits for can run
//! ([`SPIN_YIELDS`], 100, for `.rk`; 0 for rt, whose yields give way).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::id::{ThreadId, VarId};
use crate::scheduler::{EventKind, Point, Scheduler};

/// A thread that yields more often than this in one run is taken for a spin
/// loop and lowered, so that the thread it waits for can run (docs/LANGUAGE.md,
/// "a thread that yields more than 100 times"): the `.rk` default, where
/// `yield` is a scheduling point and nothing else. The Rust front end sets
/// 0 ([`PriorityScheduler::spin_yields`]): there `yield_now` is what spin
/// loops call, and a yield gives way at once.
pub const SPIN_YIELDS: u32 = 100;

/// Distance between neighbouring priorities, so that a thread the
/// preparatory runs did not see can be slotted in at random between them.
const SCALE: i64 = 1 << 20;

/// How initial priorities are drawn and what a change point does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorityScheme {
    /// PCT: threads get distinct priorities `d..d+n-1` in random order; the
    /// `i`-th change point drops the running thread to `i`, below every
    /// initial priority.
    Pct,
    /// Thread bounding: one random permutation `P_1..P_{n+c}` per run;
    /// thread `i` starts at `P_i` and the `i`-th change point gives the
    /// running thread `P_{n+i}`, which can land anywhere in the order.
    ThreadBounded,
}

impl PriorityScheme {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            PriorityScheme::Pct => "pct",
            PriorityScheme::ThreadBounded => "thread-bounded",
        }
    }
}

/// A change point that fired during a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppliedChange {
    /// Which change point (1-based).
    pub index: usize,
    /// The tracked access it followed (1-based count of tracked accesses).
    pub access: u64,
    /// The trace step (1-based) whose end it followed: the step in which
    /// `thread` made the access.
    pub step: u64,
    /// The thread whose priority changed.
    pub thread: ThreadId,
    /// The variable whose access it followed.
    pub var: Option<VarId>,
}

/// Schedules by priority: always the enabled thread of highest priority,
/// with priorities changed at chosen tracked accesses.
#[derive(Clone, Debug)]
pub struct PriorityScheduler {
    rng: Pcg64Mcg,
    scheme: PriorityScheme,
    /// Priorities of threads seen so far, by thread id.
    priorities: Vec<i64>,
    /// The initial priorities drawn for the threads the profile expects.
    initial: Vec<i64>,
    /// Range new, unexpected threads draw their priority from.
    unexpected: (i64, i64),
    /// Change points as 1-based tracked-access counts, ascending.
    change_points: Vec<u64>,
    /// The priority each change point gives, in the same order.
    change_values: Vec<i64>,
    next_change: usize,
    accesses: u64,
    yields: Vec<u32>,
    /// Yields after which a thread counts as spinning.
    spin_yields: u32,
    applied: Vec<AppliedChange>,
    /// Candidates for the next choice, highest priority (then lowest id)
    /// first. An entry is valid while its thread can run and still has that
    /// priority; stale ones are dropped when they reach the top. Every
    /// thread that becomes able to run, or changes priority, is pushed, so
    /// the valid top is the enabled thread of highest priority, found in
    /// O(log n) rather than by a scan of every enabled thread.
    ready: BinaryHeap<(i64, Reverse<ThreadId>)>,
}

impl PriorityScheduler {
    /// A scheduler for one run: `depth` is PCT's `d` (so `d-1` change
    /// points), `n_threads` the threads the profile expects, and `window`
    /// the tracked accesses among which change points are drawn uniformly
    /// (PCT's `k`, or `sum k_q` over the tracked variables for PCTVB).
    pub fn new(
        seed: u64,
        scheme: PriorityScheme,
        depth: u32,
        n_threads: usize,
        window: u64,
    ) -> PriorityScheduler {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let changes = depth.saturating_sub(1) as usize;
        let n = n_threads as i64;
        let d = i64::from(depth.max(1));
        let (initial, change_values, unexpected) = match scheme {
            PriorityScheme::Pct => {
                let mut order: Vec<i64> = (0..n).collect();
                order.shuffle(&mut rng);
                let initial = order.iter().map(|p| (d + p) * SCALE).collect();
                let changes = (1..=changes as i64).map(|i| i * SCALE).collect();
                (initial, changes, (d * SCALE, (d + n) * SCALE))
            }
            PriorityScheme::ThreadBounded => {
                let total = n + changes as i64;
                let mut order: Vec<i64> = (1..=total).collect();
                order.shuffle(&mut rng);
                let scaled: Vec<i64> = order.iter().map(|p| p * SCALE).collect();
                let initial = scaled[..n_threads].to_vec();
                let changes = scaled[n_threads..].to_vec();
                (initial, changes, (SCALE, (total + 1) * SCALE))
            }
        };
        let mut change_points: Vec<u64> = if window == 0 {
            Vec::new()
        } else {
            (0..changes).map(|_| rng.random_range(1..=window)).collect()
        };
        // Keep each point paired with its value: the i-th point drawn is the
        // i-th change, whatever order they fire in.
        let mut paired: Vec<(u64, i64)> = change_points
            .drain(..)
            .zip(change_values.iter().copied())
            .collect();
        paired.sort_by_key(|&(point, _)| point);
        PriorityScheduler::with_order(rng, scheme, initial, paired, unexpected)
    }

    /// A scheduler with given priorities: thread `i` starts at
    /// `initial[i]`, and after tracked access `changes[j].0` (1-based,
    /// ascending) the running thread gets priority `changes[j].1`. Threads
    /// beyond `initial` draw a priority from `rng` in `unexpected`.
    /// Exhaustive search enumerates these (docs/ALGORITHMS.md, Algorithm 1).
    pub fn with_order(
        rng: Pcg64Mcg,
        scheme: PriorityScheme,
        initial: Vec<i64>,
        changes: Vec<(u64, i64)>,
        unexpected: (i64, i64),
    ) -> PriorityScheduler {
        debug_assert!(
            changes.windows(2).all(|w| w[0].0 <= w[1].0),
            "change points ascending"
        );
        let (change_points, change_values) = changes.into_iter().unzip();
        PriorityScheduler {
            rng,
            scheme,
            priorities: Vec::new(),
            initial,
            unexpected,
            change_points,
            change_values,
            next_change: 0,
            accesses: 0,
            yields: Vec::new(),
            spin_yields: SPIN_YIELDS,
            applied: Vec::new(),
            ready: BinaryHeap::new(),
        }
    }

    /// Take a thread that yields more than `yields` times in the run for a
    /// spin loop: each further yield lowers it below every other thread
    /// (default [`SPIN_YIELDS`]; 0: every yield gives way at once, as
    /// PCT implementations for real code do, e.g. Coyote's and shuttle's).
    pub fn spin_yields(mut self, yields: u32) -> PriorityScheduler {
        self.spin_yields = yields;
        self
    }

    /// The change points that fired, in order.
    pub fn applied(&self) -> &[AppliedChange] {
        &self.applied
    }

    /// The change points drawn for this run, as 1-based tracked-access
    /// counts, ascending.
    pub fn change_points(&self) -> &[u64] {
        &self.change_points
    }

    /// Take out the change points `divert` picks (by their place in
    /// ascending order): they change no priority any more. Their
    /// tracked-access counts, ascending. The Rust front end's weak memory
    /// model turns them into stale reads, so that a stale read counts
    /// toward the depth as a priority change does.
    pub fn divert_change_points(&mut self, mut divert: impl FnMut(usize) -> bool) -> Vec<u64> {
        let mut diverted = Vec::new();
        let mut kept = 0;
        for i in 0..self.change_points.len() {
            if divert(i) {
                diverted.push(self.change_points[i]);
            } else {
                self.change_points[kept] = self.change_points[i];
                self.change_values[kept] = self.change_values[i];
                kept += 1;
            }
        }
        self.change_points.truncate(kept);
        self.change_values.truncate(kept);
        diverted
    }

    /// The priority scheme.
    pub fn scheme(&self) -> PriorityScheme {
        self.scheme
    }

    /// The current priority of every thread up to `threads`, assigning
    /// initial priorities to those not seen yet.
    pub fn priorities(&mut self, threads: usize) -> &[i64] {
        if threads > 0 {
            self.priority(ThreadId(threads as u32 - 1));
        }
        &self.priorities[..threads]
    }

    fn priority(&mut self, thread: ThreadId) -> i64 {
        let index = thread.index();
        while self.priorities.len() <= index {
            let next = self.priorities.len();
            let priority = match self.initial.get(next) {
                Some(&p) => p,
                // A thread the preparatory runs never saw: anywhere among
                // the others, at random.
                None => self.rng.random_range(self.unexpected.0..self.unexpected.1) + 1,
            };
            self.priorities.push(priority);
            self.yields.push(0);
        }
        self.priorities[index]
    }
}

impl Scheduler for PriorityScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(last) = point.last {
            self.priority(last);
            let before = self.priorities[last.index()];
            if point.event.tracked {
                self.accesses += 1;
                while self.change_points.get(self.next_change) == Some(&self.accesses) {
                    self.priorities[last.index()] = self.change_values[self.next_change];
                    self.next_change += 1;
                    self.applied.push(AppliedChange {
                        index: self.next_change,
                        access: self.accesses,
                        step: point.step,
                        thread: last,
                        var: point.event.var,
                    });
                }
            }
            if point.event.kind == EventKind::Yield {
                let yields = &mut self.yields[last.index()];
                *yields += 1;
                if *yields > self.spin_yields {
                    // Lower and lower: of two spinning threads, the one that
                    // spun more gives way.
                    self.priorities[last.index()] = -i64::from(*yields);
                }
            }
            let after = self.priorities[last.index()];
            if after != before {
                self.ready.push((after, Reverse(last)));
            }
        }
        for &thread in point.newly_enabled {
            let priority = self.priority(thread);
            self.ready.push((priority, Reverse(thread)));
        }
        loop {
            let Some(&(priority, Reverse(thread))) = self.ready.peek() else {
                unreachable!("invariant: every enabled thread has an entry")
            };
            if point.is_enabled(thread) && self.priorities[thread.index()] == priority {
                return thread;
            }
            self.ready.pop();
        }
    }

    fn priority_mut(&mut self) -> Option<&mut PriorityScheduler> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pct_priorities_are_a_permutation_above_the_change_values() {
        for seed in 0..50 {
            let s = PriorityScheduler::new(seed, PriorityScheme::Pct, 3, 4, 100);
            let mut initial = s.initial.clone();
            initial.sort_unstable();
            assert_eq!(initial, [3, 4, 5, 6].map(|p| p * SCALE));
            let mut changes = s.change_values.clone();
            changes.sort_unstable();
            assert_eq!(changes, [SCALE, 2 * SCALE]);
            assert_eq!(s.change_points.len(), 2);
            assert!(s.change_points.iter().all(|&c| (1..=100).contains(&c)));
            assert!(s.change_points.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn thread_bounded_priorities_are_one_permutation_of_n_plus_c() {
        for seed in 0..50 {
            let s = PriorityScheduler::new(seed, PriorityScheme::ThreadBounded, 3, 4, 10);
            let mut all: Vec<i64> = s.initial.iter().chain(&s.change_values).copied().collect();
            all.sort_unstable();
            assert_eq!(all, (1..=6).map(|p| p * SCALE).collect::<Vec<_>>());
        }
    }

    /// Two threads, 0 above 1; `yielder` yields at every point.
    fn first_yield_gives_way(spin_yields: u32, yields: u32) -> bool {
        use crate::scheduler::{positions, Event};
        let mut s = PriorityScheduler::with_order(
            Pcg64Mcg::seed_from_u64(1),
            PriorityScheme::Pct,
            vec![2 * SCALE, SCALE],
            Vec::new(),
            (SCALE, 3 * SCALE),
        )
        .spin_yields(spin_yields);
        let enabled = [ThreadId(0), ThreadId(1)];
        let position = positions(&enabled, 2);
        let start = Point::new(None, Event::START, &enabled, &enabled, &position);
        assert_eq!(s.choose(&start), ThreadId(0));
        let yielded = Event {
            kind: EventKind::Yield,
            ..Event::START
        };
        let mut chosen = ThreadId(0);
        for _ in 0..yields {
            let point = Point::new(Some(ThreadId(0)), yielded, &enabled, &[], &position);
            chosen = s.choose(&point);
            if chosen != ThreadId(0) {
                break;
            }
        }
        chosen == ThreadId(1)
    }

    #[test]
    fn a_yield_gives_way_after_the_spin_threshold() {
        assert!(!first_yield_gives_way(SPIN_YIELDS, SPIN_YIELDS));
        assert!(first_yield_gives_way(SPIN_YIELDS, SPIN_YIELDS + 1));
        assert!(first_yield_gives_way(0, 1));
    }

    #[test]
    fn diverted_change_points_leave_the_others_paired_with_their_values() {
        let mut s = PriorityScheduler::new(7, PriorityScheme::Pct, 4, 2, 100);
        let (points, values) = (s.change_points.clone(), s.change_values.clone());
        let diverted = s.divert_change_points(|i| i == 1);
        assert_eq!(diverted, [points[1]]);
        assert_eq!(s.change_points, [points[0], points[2]]);
        assert_eq!(s.change_values, [values[0], values[2]]);
    }

    #[test]
    fn depth_one_draws_no_change_points() {
        let s = PriorityScheduler::new(1, PriorityScheme::Pct, 1, 2, 10);
        assert!(s.change_points.is_empty());
    }
}
