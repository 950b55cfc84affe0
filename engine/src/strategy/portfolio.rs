//! The portfolio: runs rotate through a fixed cycle of slots, each a
//! priority setting (with the per-run bound it earns) or a sampling
//! strategy (which claims none). Which strategy finds a bug first differs
//! from program to program by orders of magnitude (results/strategies.md);
//! a cycle that gives each its share finds every bug within a small factor
//! of the best strategy for it, and each setting's runs still earn their
//! guarantee, since a setting's run bound holds whatever ran before it.
//! [`Rotation`] says which slot runs run `i`, so that each setting's runs
//! can be counted.

use std::collections::BTreeMap;

use super::{PriorityStrategy, Sampling, SamplingScheduler, SamplingStrategy, Strategy, Tracked};
use crate::id::ThreadId;
use crate::priority::PriorityScheduler;
use crate::scheduler::{Point, Scheduler};

/// One place in the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A run of the priority setting with this index.
    Setting(usize),
    /// A run of a sampling strategy.
    Sampling(Sampling),
}

/// The cycle runs go through: run `i` takes slot `i % len`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotation {
    slots: Vec<Slot>,
}

impl Rotation {
    /// A cycle of `slots`.
    ///
    /// # Panics
    /// If `slots` is empty (invariant: a search has something to run).
    pub fn new(slots: Vec<Slot>) -> Rotation {
        assert!(!slots.is_empty(), "invariant: a rotation has a slot");
        Rotation { slots }
    }

    /// Each of `n` settings once, in order: a plain priority search.
    pub fn settings(n: usize) -> Rotation {
        Rotation::new((0..n.max(1)).map(Slot::Setting).collect())
    }

    /// The slots of one cycle.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The slot of run `run` (0-based).
    pub fn slot(&self, run: u64) -> Slot {
        self.slots[(run % self.slots.len() as u64) as usize]
    }

    /// How many of the runs `first..first + runs` take `slot`.
    pub fn runs_of(&self, slot: Slot, first: u64, runs: u64) -> u64 {
        let before = |end: u64| self.count_below(slot, end);
        before(first.saturating_add(runs)) - before(first)
    }

    /// How many of the runs `0..end` take `slot`.
    fn count_below(&self, slot: Slot, end: u64) -> u64 {
        let len = self.slots.len() as u64;
        let per_cycle = self.slots.iter().filter(|&&s| s == slot).count() as u64;
        let rest = (end % len) as usize;
        let partial = self.slots[..rest].iter().filter(|&&s| s == slot).count() as u64;
        (end / len) * per_cycle + partial
    }

    /// The fewest runs from run 0 in which setting `i` gets `needed[i]`
    /// runs, for every setting; `None` when a setting needs runs but has
    /// no slot, or the count overflows.
    pub fn runs_for(&self, needed: &[u64]) -> Option<u64> {
        let len = self.slots.len() as u64;
        let mut most = 0;
        for (setting, &want) in needed.iter().enumerate() {
            if want == 0 {
                continue;
            }
            let slot = Slot::Setting(setting);
            let per_cycle = self.slots.iter().filter(|&&s| s == slot).count() as u64;
            if per_cycle == 0 {
                return None;
            }
            // Whole cycles for all but the last of its runs, then the
            // position of its `r`-th slot in the next cycle.
            let cycles = (want - 1) / per_cycle;
            let r = ((want - 1) % per_cycle) as usize;
            let position = self
                .slots
                .iter()
                .enumerate()
                .filter(|(_, &s)| s == slot)
                .nth(r)
                .map(|(i, _)| i as u64)?;
            let end = cycles.checked_mul(len)?.checked_add(position + 1)?;
            most = most.max(end);
        }
        Some(most)
    }
}

/// Priority settings and sampling strategies in a fixed rotation.
#[derive(Clone, Debug)]
pub struct PortfolioStrategy {
    priority: PriorityStrategy,
    sampling: BTreeMap<Sampling, SamplingStrategy>,
    rotation: Rotation,
}

impl PortfolioStrategy {
    /// The rotation `rotation` over `priority`'s settings and the
    /// `sampling` strategies.
    ///
    /// # Panics
    /// If a slot names a setting `priority` lacks or a sampling strategy
    /// not given (invariant: the caller builds both from one list).
    pub fn new(
        priority: PriorityStrategy,
        sampling: Vec<SamplingStrategy>,
        rotation: Rotation,
    ) -> PortfolioStrategy {
        let sampling: BTreeMap<Sampling, SamplingStrategy> =
            sampling.into_iter().map(|s| (s.sampling(), s)).collect();
        for slot in rotation.slots() {
            match *slot {
                Slot::Setting(i) => assert!(
                    i < priority.settings().len(),
                    "invariant: a slot's setting exists"
                ),
                Slot::Sampling(s) => assert!(
                    sampling.contains_key(&s),
                    "invariant: a slot's sampling strategy is given"
                ),
            }
        }
        PortfolioStrategy {
            priority,
            sampling,
            rotation,
        }
    }

    /// The priority settings and their strategy.
    pub fn priority(&self) -> &PriorityStrategy {
        &self.priority
    }

    /// The rotation.
    pub fn rotation(&self) -> &Rotation {
        &self.rotation
    }

    /// The sampling strategies, in the order of their first slot.
    pub fn sampling(&self) -> Vec<&SamplingStrategy> {
        let mut seen = Vec::new();
        for slot in self.rotation.slots() {
            if let Slot::Sampling(s) = *slot {
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
        }
        seen.iter().map(|s| &self.sampling[s]).collect()
    }
}

/// The scheduler of one portfolio run.
#[derive(Clone, Debug)]
pub enum PortfolioScheduler {
    /// A priority setting's run.
    Priority(PriorityScheduler),
    /// A sampling strategy's run.
    Sampling(SamplingScheduler),
}

impl Scheduler for PortfolioScheduler {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        match self {
            PortfolioScheduler::Priority(s) => s.choose(point),
            PortfolioScheduler::Sampling(s) => s.choose(point),
        }
    }

    fn wants_pending(&self) -> bool {
        match self {
            PortfolioScheduler::Priority(s) => s.wants_pending(),
            PortfolioScheduler::Sampling(s) => s.wants_pending(),
        }
    }

    fn priority_mut(&mut self) -> Option<&mut PriorityScheduler> {
        match self {
            PortfolioScheduler::Priority(s) => Some(s),
            PortfolioScheduler::Sampling(_) => None,
        }
    }
}

impl Strategy for PortfolioStrategy {
    type Scheduler = PortfolioScheduler;

    fn prepare(&mut self, run: u64, seed: u64) -> (Tracked<'_>, PortfolioScheduler) {
        match self.rotation.slot(run) {
            Slot::Setting(setting) => {
                let (tracked, scheduler) = self.priority.prepare_setting(setting, seed);
                (tracked, PortfolioScheduler::Priority(scheduler))
            }
            Slot::Sampling(sampling) => {
                let Some(strategy) = self.sampling.get_mut(&sampling) else {
                    unreachable!("invariant: checked in PortfolioStrategy::new")
                };
                let (tracked, scheduler) = strategy.prepare(run, seed);
                (tracked, PortfolioScheduler::Sampling(scheduler))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rotation() -> Rotation {
        Rotation::new(vec![
            Slot::Sampling(Sampling::Surw),
            Slot::Setting(0),
            Slot::Sampling(Sampling::Pos),
            Slot::Setting(1),
            Slot::Sampling(Sampling::Pos),
        ])
    }

    #[test]
    fn runs_are_counted_per_slot_over_any_range() {
        let r = rotation();
        assert_eq!(r.runs_of(Slot::Setting(0), 0, 5), 1);
        assert_eq!(r.runs_of(Slot::Sampling(Sampling::Pos), 0, 5), 2);
        assert_eq!(r.runs_of(Slot::Setting(1), 0, 3), 0);
        assert_eq!(r.runs_of(Slot::Setting(1), 0, 4), 1);
        // Runs 7..=13: slots 2, 3, 4, 0, 1, 2, 3.
        assert_eq!(r.runs_of(Slot::Setting(1), 7, 7), 2);
        assert_eq!(r.runs_of(Slot::Setting(0), 7, 7), 1);
        let total: u64 = [
            Slot::Setting(0),
            Slot::Setting(1),
            Slot::Sampling(Sampling::Pos),
            Slot::Sampling(Sampling::Surw),
        ]
        .iter()
        .map(|&s| r.runs_of(s, 7, 1000))
        .sum();
        assert_eq!(total, 1000);
    }

    #[test]
    fn runs_for_is_the_first_run_count_giving_each_setting_its_runs() {
        let r = rotation();
        assert_eq!(r.runs_for(&[1, 0]), Some(2));
        assert_eq!(r.runs_for(&[0, 1]), Some(4));
        assert_eq!(r.runs_for(&[3, 2]), Some(12));
        for needed in [[5u64, 7], [1, 1], [10, 0]] {
            let n = r.runs_for(&needed).unwrap();
            for (i, &want) in needed.iter().enumerate() {
                assert!(r.runs_of(Slot::Setting(i), 0, n) >= want);
                if want > 0 {
                    let short = (0..needed.len())
                        .any(|j| r.runs_of(Slot::Setting(j), 0, n - 1) < needed[j]);
                    assert!(short, "{needed:?}: {n} is the fewest");
                }
            }
        }
        assert_eq!(r.runs_for(&[0, 0, 1]), None, "no slot for setting 2");
    }
}
