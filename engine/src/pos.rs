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

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::id::ThreadId;
use crate::scheduler::{Pending, Point, Scheduler};

/// Schedules by the priorities of the threads' next operations.
#[derive(Clone, Debug)]
pub struct PosScheduler {
    rng: Pcg64Mcg,
    /// The priority of each thread's next operation, by thread id; `None`
    /// until the thread is first seen enabled.
    priorities: Vec<Option<u64>>,
}

impl PosScheduler {
    /// A scheduler whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> PosScheduler {
        PosScheduler {
            rng: Pcg64Mcg::seed_from_u64(seed),
            priorities: Vec::new(),
        }
    }

    /// The priority of `thread`'s next operation, if it has one yet.
    pub fn priority(&self, thread: ThreadId) -> Option<u64> {
        self.priorities.get(thread.index()).copied().flatten()
    }

    /// `thread`'s priority, drawn now if it has none.
    fn priority_of(&mut self, thread: ThreadId) -> u64 {
        if self.priorities.len() <= thread.index() {
            self.priorities.resize(thread.index() + 1, None);
        }
        let rng = &mut self.rng;
        *self.priorities[thread.index()].get_or_insert_with(|| rng.random())
    }

    fn redraw(&mut self, thread: ThreadId) {
        let priority = self.rng.random();
        self.priorities[thread.index()] = Some(priority);
    }
}

impl Scheduler for PosScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        // Ties (two equal 64-bit draws) go to the lower thread id, so the
        // choice never depends on the enabled set's order.
        let mut best = point.enabled[0];
        let mut best_priority = self.priority_of(best);
        for &thread in &point.enabled[1..] {
            let priority = self.priority_of(thread);
            if (priority, std::cmp::Reverse(thread)) > (best_priority, std::cmp::Reverse(best)) {
                (best, best_priority) = (thread, priority);
            }
        }
        let chosen = point.pending(best).copied().unwrap_or(Pending::LOCAL);
        for &thread in point.enabled {
            let races = point
                .pending(thread)
                .is_some_and(|pending| pending.races_with(&chosen));
            if thread != best && races {
                self.redraw(thread);
            }
        }
        self.redraw(best);
        best
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
            let before: Vec<u64> = enabled.iter().map(|&t| pos.priority_of(t)).collect();
            let chosen = pos.choose(&point);
            let highest = (0..4).max_by_key(|&t| before[t]).unwrap();
            assert_eq!(
                chosen,
                ThreadId(highest as u32),
                "the highest priority runs"
            );
            let races = racing_with(highest);
            for t in 0..4 {
                let after = pos.priority(ThreadId(t as u32)).unwrap();
                let redrawn = t == highest || races[t];
                assert_eq!(
                    after != before[t],
                    redrawn,
                    "seed {seed}: thread {t} after thread {highest} ran"
                );
            }
        }
    }

    #[test]
    fn reads_do_not_race_with_reads_and_locations_must_match() {
        assert!(!read(0).races_with(&read(0)));
        assert!(read(0).races_with(&write(0)));
        assert!(!write(0).races_with(&write(1)));
        assert!(!Pending::LOCAL.races_with(&Pending::LOCAL));
    }
}
