//! Partial order sampling (POS; Yuan, Yang and Gu, "Partial Order Aware
//! Concurrency Sampling", CAV 2018), the default strategy of the Fray
//! tester.
//!
//! Every enabled thread's next visible operation carries a random
//! priority, and the operation of highest priority runs. After it runs,
//! the operations that race with it (the same location, at least one of
//! them a write; any two operations on one mutex or condition variable)
//! draw new priorities, and so does the next operation of the thread that
//! ran. Redrawing at races is what makes POS sample partial orders far more
//! evenly than a random walk: operations that commute keep their relative
//! order, so only orders that differ in a race are told apart.
//!
//! Sticky POS keeps a thread's priority for its next operation with a
//! probability drawn once per run: see [`PosScheduler::sticky`].

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::id::ThreadId;
use crate::scheduler::{Pending, Point, Scheduler};
use crate::walk::{bump, done_of, EventCounts};

/// Schedules by the priorities of the threads' next operations.
#[derive(Clone, Debug)]
pub struct PosScheduler {
    rng: Pcg64Mcg,
    /// The priority of each thread's next operation, by thread id; `None`
    /// until the thread is first seen enabled.
    priorities: Vec<Option<f64>>,
    /// Weighted POS: each thread's remaining steps, and the steps taken.
    weights: Option<Arc<EventCounts>>,
    done: Vec<f64>,
    /// The chance that the thread that ran keeps its priority for its next
    /// operation (0 in POS: it always draws a new one).
    stickiness: f64,
}

impl PosScheduler {
    /// A scheduler whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> PosScheduler {
        PosScheduler {
            rng: Pcg64Mcg::seed_from_u64(seed),
            priorities: Vec::new(),
            weights: None,
            done: Vec::new(),
            stickiness: 0.0,
        }
    }

    /// Weighted POS: a priority is drawn as `U^(1/w)` for a thread with
    /// `w` steps left by `counts` (its unspawned children's included), so
    /// that among operations whose priorities are all drawn afresh the
    /// one that runs is picked in proportion to the steps its thread has
    /// left, as URW picks threads ([`crate::walk`]; Efraimidis and
    /// Spirakis's weighted sampling); races redraw priorities as in POS.
    pub fn weighted(seed: u64, counts: Arc<EventCounts>) -> PosScheduler {
        PosScheduler {
            weights: Some(counts),
            ..PosScheduler::new(seed)
        }
    }

    /// Sticky weighted POS: weighted POS in which, after a thread's
    /// operation runs, its next operation keeps the thread's priority with
    /// probability `s`, drawn uniformly once per run, and draws a new one
    /// otherwise; the operations racing with it redraw as in POS. At `s`
    /// near 0 this is weighted POS, which interleaves threads finely; near
    /// 1 a thread runs until a race re-ranks it, so whole threads run in a
    /// random order, as in PCT with no change point (bugs that need only
    /// an order of threads, which fine interleaving rarely produces).
    /// Drawing `s` per run spreads the runs over that range.
    pub fn sticky(seed: u64, counts: Arc<EventCounts>) -> PosScheduler {
        let mut scheduler = PosScheduler::weighted(seed, counts);
        scheduler.stickiness = scheduler.rng.random::<f64>();
        scheduler
    }

    /// The priority of `thread`'s next operation, if it has one yet.
    pub fn priority(&self, thread: ThreadId) -> Option<f64> {
        self.priorities.get(thread.index()).copied().flatten()
    }

    /// `thread`'s priority, drawn now if it has none.
    fn priority_of(&mut self, thread: ThreadId, threads: usize) -> f64 {
        match self.priorities.get(thread.index()).copied().flatten() {
            Some(priority) => priority,
            None => self.redraw(thread, threads),
        }
    }

    /// A new priority for `thread`: `ln(U) / w`, which orders threads as
    /// `U^(1/w)` does (`w = 1` unweighted).
    fn redraw(&mut self, thread: ThreadId, threads: usize) -> f64 {
        let weight = self.weights.as_ref().map_or(1.0, |counts| {
            counts
                .remaining(thread, done_of(&self.done, thread), threads)
                .max(1.0)
        });
        // `1 - U` lies in (0, 1]: its logarithm is finite.
        let priority = (1.0 - self.rng.random::<f64>()).ln() / weight;
        if self.priorities.len() <= thread.index() {
            self.priorities.resize(thread.index() + 1, None);
        }
        self.priorities[thread.index()] = Some(priority);
        priority
    }
}

impl PosScheduler {
    /// Take note of the step that ended at `point` (weighted POS counts
    /// each thread's steps). Call at every point before the others.
    pub fn observe(&mut self, point: &Point<'_>) {
        if let (Some(last), Some(_)) = (point.last, &self.weights) {
            bump(&mut self.done, last);
        }
    }

    /// The thread of `candidates` (enabled threads, at least one) whose
    /// next operation has the highest priority. Ties go to the lower
    /// thread id, so the choice never depends on the enabled set's order.
    pub fn highest(&mut self, point: &Point<'_>, candidates: &[ThreadId]) -> ThreadId {
        let mut best = candidates[0];
        let mut best_priority = self.priority_of(best, point.threads);
        for &thread in &candidates[1..] {
            let priority = self.priority_of(thread, point.threads);
            let higher = priority
                .total_cmp(&best_priority)
                .then(best.cmp(&thread))
                .is_gt();
            if higher {
                (best, best_priority) = (thread, priority);
            }
        }
        best
    }

    /// `chosen` runs its next operation: the enabled threads whose next
    /// operations race with it draw new priorities, and its own next
    /// operation will draw one once it is known (unless it sticks).
    pub fn ran(&mut self, point: &Point<'_>, chosen: ThreadId) {
        let operation = point.pending(chosen).copied().unwrap_or(Pending::LOCAL);
        for &thread in point.enabled {
            let races = point
                .pending(thread)
                .is_some_and(|pending| pending.races_with(&operation));
            if thread != chosen && races {
                self.redraw(thread, point.threads);
            }
        }
        if self.stickiness > 0.0 && self.rng.random::<f64>() < self.stickiness {
            return;
        }
        if let Some(priority) = self.priorities.get_mut(chosen.index()) {
            *priority = None;
        }
    }
}

impl Scheduler for PosScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        self.observe(point);
        let chosen = self.highest(point, point.enabled);
        self.ran(point, chosen);
        chosen
    }

    fn wants_pending(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::VarId;
    use crate::scheduler::{positions, Event, Location};

    fn write(slot: u32) -> Pending {
        Pending {
            location: Some(Location::Slot(slot)),
            var: Some(VarId(0)),
            write: true,
        }
    }

    fn read(slot: u32) -> Pending {
        Pending {
            write: false,
            ..write(slot)
        }
    }

    /// Threads 0..4 about to: read x, write x, read x, write y. Whichever
    /// runs, exactly the operations racing with its own draw again.
    #[test]
    fn the_operations_racing_with_the_chosen_one_draw_new_priorities() {
        let enabled: Vec<ThreadId> = (0..4).map(ThreadId).collect();
        let position = positions(&enabled, 4);
        let pending = [read(0), write(0), read(0), write(1)];
        let racing_with = |chosen: usize| -> Vec<bool> {
            (0..4)
                .map(|t| t != chosen && pending[t].races_with(&pending[chosen]))
                .collect()
        };
        for seed in 0..64 {
            let mut pos = PosScheduler::new(seed);
            let mut point = Point::new(None, Event::START, &enabled, &enabled, &position);
            point.pending = &pending;
            let before: Vec<f64> = enabled.iter().map(|&t| pos.priority_of(t, 4)).collect();
            let chosen = pos.choose(&point);
            let highest = (0..4)
                .max_by(|&a, &b| before[a].total_cmp(&before[b]))
                .unwrap();
            assert_eq!(
                chosen,
                ThreadId(highest as u32),
                "the highest priority runs"
            );
            let races = racing_with(highest);
            for t in 0..4 {
                let after = pos.priority(ThreadId(t as u32));
                if t == highest {
                    assert_eq!(after, None, "seed {seed}: the next operation draws anew");
                    continue;
                }
                assert_eq!(
                    after != Some(before[t]),
                    races[t],
                    "seed {seed}: thread {t} after thread {highest} ran"
                );
            }
        }
    }

    /// Sticky POS: the thread that ran keeps its priority with the run's
    /// stickiness (always at 1, never at 0); the operations racing with
    /// its operation draw new ones whatever the stickiness.
    #[test]
    fn a_sticky_thread_keeps_its_priority_and_racing_operations_redraw() {
        let enabled: Vec<ThreadId> = (0..3).map(ThreadId).collect();
        let position = positions(&enabled, 3);
        // Thread 0 writes x, thread 1 reads x (races), thread 2 writes y.
        let pending = [write(0), read(0), write(1)];
        for seed in 0..64 {
            for stickiness in [0.0, 1.0] {
                let mut pos = PosScheduler::sticky(seed, Arc::default());
                pos.stickiness = stickiness;
                let mut point = Point::new(None, Event::START, &enabled, &enabled, &position);
                point.pending = &pending;
                let before: Vec<f64> = enabled.iter().map(|&t| pos.priority_of(t, 3)).collect();
                let chosen = pos.choose(&point).index();
                let after: Vec<Option<f64>> = enabled.iter().map(|&t| pos.priority(t)).collect();
                let kept = if stickiness == 1.0 {
                    Some(before[chosen])
                } else {
                    None
                };
                assert_eq!(after[chosen], kept, "seed {seed}, stickiness {stickiness}");
                for t in (0..3).filter(|&t| t != chosen) {
                    let races = pending[t].races_with(&pending[chosen]);
                    assert_eq!(
                        after[t] != Some(before[t]),
                        races,
                        "seed {seed}: thread {t}"
                    );
                }
            }
        }
    }

    /// Each run draws its stickiness afresh, uniformly.
    #[test]
    fn the_stickiness_is_drawn_per_run() {
        let draws: Vec<f64> = (0..1000)
            .map(|seed| PosScheduler::sticky(seed, Arc::default()).stickiness)
            .collect();
        assert!(draws.iter().all(|s| (0.0..1.0).contains(s)));
        let below_half = draws.iter().filter(|&&s| s < 0.5).count();
        assert!(
            (400..600).contains(&below_half),
            "{below_half} of 1000 below 1/2"
        );
    }

    #[test]
    fn reads_do_not_race_with_reads_and_locations_must_match() {
        assert!(!read(0).races_with(&read(0)));
        assert!(read(0).races_with(&write(0)));
        assert!(!write(0).races_with(&write(1)));
        assert!(!Pending::LOCAL.races_with(&Pending::LOCAL));
    }
}
