//! The scheduler shrinking replays with: a schedule reduced to its
//! decisions, the points where it did not do what a non-preemptive
//! scheduler would (keep the thread that ran, else the lowest-numbered
//! thread that can run).
//!
//! A decision is keyed by the thread that ran up to its point and how many
//! steps that thread had taken, not by the point's number: dropping one
//! decision shifts the points of every later one, but each thread's own
//! steps stay where they were, so the other decisions still apply where
//! they meant to.

use std::collections::BTreeMap;

use crate::id::{FewThreads, ThreadId};
use crate::scheduler::{Point, Scheduler};

/// The most threads able to run at a point whose alternatives are
/// recorded for the search to try.
pub const MAX_ALTERNATIVES: usize = 16;

/// Where a decision applies: after the `steps`-th step of `thread`, or at
/// the start (`thread` `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DecisionKey {
    /// The thread that ran up to the point.
    pub thread: Option<ThreadId>,
    /// How many steps it had taken by then.
    pub steps: u64,
}

/// The decisions of a schedule: at each key, the thread chosen.
pub type Decisions = BTreeMap<DecisionKey, ThreadId>;

/// What a guided run did at one scheduling point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointRecord {
    /// Its key.
    pub key: DecisionKey,
    /// The thread chosen.
    pub chosen: ThreadId,
    /// What the non-preemptive default would have chosen.
    pub default: ThreadId,
    /// Whether the thread that ran could have gone on: choosing another is
    /// then a preemption.
    pub last_enabled: bool,
    /// The threads that could run, by number (none recorded where more
    /// than [`MAX_ALTERNATIVES`] could).
    pub enabled: FewThreads,
    /// The threads that became able to run in the last step.
    pub newly_enabled: FewThreads,
}

impl PointRecord {
    /// Whether the choice was a preemption: a switch away from a thread
    /// that could have gone on, to one that could run before this point
    /// too. Running a thread that just became able to run (a child just
    /// spawned, a waiter just woken) is not one, as under priorities
    /// (docs/LANGUAGE.md, Priorities, change points and preemptions),
    /// where it may outrank the thread that made it runnable.
    pub fn preemptive(&self) -> bool {
        self.costs(self.chosen)
    }

    /// Whether choosing `thread` here is a preemption.
    pub fn costs(&self, thread: ThreadId) -> bool {
        self.last_enabled && thread != self.default && !self.newly_enabled.contains(&thread)
    }

    /// Whether another thread ran than the one that ran up to here.
    pub fn switch(&self) -> bool {
        self.key.thread.is_some_and(|t| t != self.chosen)
    }
}

/// What a guided run follows.
#[derive(Clone, Debug)]
enum Guide {
    /// A whole schedule, point by point (the default past its end).
    Schedule(Vec<ThreadId>),
    /// Decisions, the default elsewhere.
    Decisions(Decisions),
}

/// A scheduler that follows a schedule or a set of decisions, where the
/// thread asked for can run, and the non-preemptive default elsewhere; it
/// records what it did.
#[derive(Clone, Debug)]
pub struct Guided {
    guide: Guide,
    steps_of: Vec<u64>,
    records: Vec<PointRecord>,
    /// The first point (from 0) where the thread asked for could not run.
    refused: Option<usize>,
}

impl Guided {
    /// Follow `schedule`.
    pub fn schedule(schedule: &[ThreadId]) -> Guided {
        Guided::new(Guide::Schedule(schedule.to_vec()))
    }

    /// Follow `decisions`.
    pub fn decisions(decisions: Decisions) -> Guided {
        Guided::new(Guide::Decisions(decisions))
    }

    fn new(guide: Guide) -> Guided {
        Guided {
            guide,
            steps_of: Vec::new(),
            records: Vec::new(),
            refused: None,
        }
    }

    /// The first point (from 0) where the thread the guide asked for
    /// could not run, so that the default ran: for a schedule, where the
    /// run parted from the one it follows (its end is not such a point).
    pub fn refused_at(&self) -> Option<usize> {
        self.refused
    }

    /// What it did at every point, in order.
    pub fn records(&self) -> &[PointRecord] {
        &self.records
    }

    /// The schedule it took: the thread chosen at every point.
    pub fn taken(&self) -> Vec<ThreadId> {
        self.records.iter().map(|r| r.chosen).collect()
    }

    /// The decisions of the run it took: the points where it did not
    /// choose the default.
    pub fn taken_decisions(&self) -> Decisions {
        self.records
            .iter()
            .filter(|r| r.chosen != r.default)
            .map(|r| (r.key, r.chosen))
            .collect()
    }

    fn steps(&self, thread: ThreadId) -> u64 {
        self.steps_of.get(thread.index()).copied().unwrap_or(0)
    }
}

impl Scheduler for Guided {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        let key = DecisionKey {
            thread: point.last,
            steps: point.last.map_or(0, |t| self.steps(t)),
        };
        let last_enabled = point.last_enabled();
        let lowest = point.enabled.iter().copied().min();
        let default = match (point.last, lowest) {
            (Some(last), _) if last_enabled => last,
            (_, Some(lowest)) => lowest,
            _ => unreachable!("invariant: a scheduling point has an enabled thread"),
        };
        // The alternatives the search tries; a point with very many is
        // left alone (a program that spawns thousands of threads would
        // otherwise record millions of them).
        let mut enabled = if point.enabled.len() <= MAX_ALTERNATIVES {
            FewThreads::from_slice(point.enabled)
        } else {
            FewThreads::new()
        };
        enabled.sort_unstable();
        let asked = match &self.guide {
            Guide::Schedule(schedule) => schedule.get(self.records.len()).copied(),
            Guide::Decisions(decisions) => decisions.get(&key).copied(),
        };
        let chosen = asked.filter(|&t| point.is_enabled(t)).unwrap_or(default);
        if asked.is_some_and(|t| t != chosen) {
            self.refused.get_or_insert(self.records.len());
        }
        if self.steps_of.len() <= chosen.index() {
            self.steps_of.resize(chosen.index() + 1, 0);
        }
        self.steps_of[chosen.index()] += 1;
        self.records.push(PointRecord {
            key,
            chosen,
            default,
            last_enabled,
            enabled,
            newly_enabled: FewThreads::from_slice(point.newly_enabled),
        });
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::{positions, Event};

    /// A point after `last`'s step, `enabled` able to run, `newly` just
    /// made runnable.
    fn choose(g: &mut Guided, last: Option<u32>, enabled: &[u32], newly: &[u32]) -> ThreadId {
        let enabled: Vec<ThreadId> = enabled.iter().map(|&t| ThreadId(t)).collect();
        let newly: Vec<ThreadId> = newly.iter().map(|&t| ThreadId(t)).collect();
        let position = positions(&enabled, 4);
        let point = Point::new(
            last.map(ThreadId),
            Event::START,
            &enabled,
            &newly,
            &position,
        );
        g.choose(&point)
    }

    /// Decisions apply after the thread's own step count, whatever point
    /// number that is; elsewhere the running thread goes on; a switch to a
    /// thread just made runnable is not a preemption.
    #[test]
    fn decisions_are_keyed_by_the_running_threads_steps() {
        let key = DecisionKey {
            thread: Some(ThreadId(0)),
            steps: 2,
        };
        let mut g = Guided::decisions(Decisions::from([(key, ThreadId(1))]));
        assert_eq!(choose(&mut g, None, &[1, 0], &[0, 1]), ThreadId(0));
        assert_eq!(choose(&mut g, Some(0), &[0, 1], &[]), ThreadId(0));
        assert_eq!(choose(&mut g, Some(0), &[0, 1], &[]), ThreadId(1));
        assert_eq!(choose(&mut g, Some(1), &[0, 1, 2], &[2]), ThreadId(1));
        let preempted: Vec<bool> = g.records().iter().map(PointRecord::preemptive).collect();
        assert_eq!(preempted, [false, false, true, false]);
        assert!(!g.records()[3].costs(ThreadId(2)), "2 was just spawned");
        assert!(g.records()[3].costs(ThreadId(0)));
        assert_eq!(g.taken_decisions(), Decisions::from([(key, ThreadId(1))]));
    }

    /// A schedule is followed where its thread can run; the first point
    /// where it cannot is told (a run that parted from the one followed),
    /// and the default runs there and past the schedule's end.
    #[test]
    fn a_schedule_that_cannot_be_followed_says_where() {
        let schedule: Vec<ThreadId> = [0, 1, 1].map(ThreadId).to_vec();
        let mut g = Guided::schedule(&schedule);
        assert_eq!(choose(&mut g, None, &[0, 1], &[0, 1]), ThreadId(0));
        assert_eq!(choose(&mut g, Some(0), &[0, 1], &[]), ThreadId(1));
        assert_eq!(g.refused_at(), None);
        assert_eq!(choose(&mut g, Some(1), &[0], &[]), ThreadId(0));
        assert_eq!(choose(&mut g, Some(0), &[0, 1], &[1]), ThreadId(0));
        assert_eq!(g.refused_at(), Some(2), "past the end is not refused");
    }
}
