//! Which store a load reads, and whether a `compare_exchange_weak` fails
//! spuriously: the run's read choices. Only a load with more than one
//! readable store (or a weak compare-exchange that would succeed) is a
//! choice; its ordinal in the run names it, as the replay string does.
//! A choice is `back`: 0 reads the latest store in mo, `i` the `i`-th
//! before it (a weak compare-exchange: 1 fails spuriously).
//!
//! How a run decides (docs/ALGORITHMS.md, Weak memory):
//! - under priorities, at the change points the run diverted to stale
//!   reads: the load that is the tracked access a diverted change point
//!   follows reads a stale store, drawn uniformly among those allowed, so
//!   a stale read counts toward the depth as a priority change does;
//! - under the other strategies, each choice at a tracked atomic reads
//!   stale with probability [`STALE_CHANCE`];
//! - a replay takes the recorded choices, and exhaustive exploration
//!   enumerates them all.

use std::cell::RefCell;
use std::rc::Rc;

use super::spurious::SpuriousFailures;
use rankcheck_engine::search::run_seed;
use rankcheck_engine::VarId;

/// The chance that a choice at a tracked atomic reads stale under a
/// strategy without change points (random, POS, URW...).
pub const STALE_CHANCE: f64 = 0.2;

/// One choice a run made other than the latest store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReadChoice {
    /// The choice's ordinal among the run's choices (0-based).
    pub ordinal: u32,
    /// How many stores before the latest it read (1 and up).
    pub back: u32,
}

/// Something that picks every choice: exhaustive exploration.
pub trait ReadOracle {
    /// The choice among `options` (0: the latest) at an access to the
    /// atomic of variable `atomic`.
    fn choose(&mut self, atomic: VarId, options: usize) -> usize;
}

/// Where a run's choices come from.
#[derive(Clone, Default)]
pub enum ReadPolicy {
    /// Always the latest store: a sequentially consistent run.
    #[default]
    Latest,
    /// Stale with probability `chance` at tracked atomics, drawn from
    /// `seed`.
    Chance {
        /// The run's seed for them.
        seed: u64,
        /// The probability of a stale read.
        chance: f64,
    },
    /// Stale at the tracked accesses `points` (1-based counts, ascending,
    /// as the priority scheduler counts them), drawn from `seed`.
    Points {
        /// The run's seed for the store drawn.
        seed: u64,
        /// The tracked accesses where a load reads stale.
        points: Vec<u64>,
    },
    /// The choices of a recorded run, by ordinal, ascending.
    Replay(Vec<ReadChoice>),
    /// Every choice asked of an oracle.
    Oracle(Rc<RefCell<dyn ReadOracle>>),
}

impl std::fmt::Debug for ReadPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadPolicy::Latest => f.write_str("Latest"),
            ReadPolicy::Chance { chance, .. } => write!(f, "Chance({chance})"),
            ReadPolicy::Points { points, .. } => write!(f, "Points({points:?})"),
            ReadPolicy::Replay(choices) => write!(f, "Replay({choices:?})"),
            ReadPolicy::Oracle(_) => f.write_str("Oracle"),
        }
    }
}

/// A run's choices so far.
#[derive(Debug, Default)]
pub struct ReadChoices {
    policy: ReadPolicy,
    /// Choices so far.
    ordinal: u32,
    /// Those other than the latest, for the replay string.
    pub made: Vec<ReadChoice>,
    /// Which weak compare-exchanges may fail spuriously.
    spurious: SpuriousFailures,
    /// Whether a weak compare-exchange that would succeed is offered the
    /// spurious failure at all (a replay makes those it recorded).
    spurious_offered: bool,
}

impl ReadChoices {
    /// A run deciding by `policy`.
    pub fn new(policy: ReadPolicy) -> ReadChoices {
        ReadChoices {
            policy,
            ordinal: 0,
            made: Vec::new(),
            spurious: SpuriousFailures::default(),
            spurious_offered: true,
        }
    }

    /// The choices, offering weak compare-exchanges the spurious failure
    /// (`offered`), or letting each that would succeed succeed, as loom's.
    pub fn offering_spurious_failures(mut self, offered: bool) -> ReadChoices {
        self.spurious_offered = offered;
        self
    }

    /// Whether `thread`'s `compare_exchange_weak` of the atomic of
    /// variable `atomic` (object `object`), which would succeed, fails
    /// spuriously: a choice of two, unless it follows a spurious failure
    /// of the same thread and atomic or failures are not offered. A choice
    /// not offered still takes its ordinal, so that a run's replay string
    /// means the same under either setting.
    pub fn fails_spuriously(
        &mut self,
        thread: rankcheck_engine::ThreadId,
        object: usize,
        atomic: VarId,
        access: Option<u64>,
    ) -> bool {
        if !self.spurious.may_fail(thread, object) {
            return false;
        }
        let replayed = matches!(self.policy, ReadPolicy::Replay(_));
        let fails = if self.spurious_offered || replayed {
            self.decide(atomic, 2, access) == 1
        } else {
            self.ordinal += 1;
            false
        };
        if fails {
            self.spurious.failed(thread, object);
        }
        fails
    }

    /// A choice among `options` (more than one) at a load of the atomic of
    /// variable `atomic`; `access` is its tracked-access count if the
    /// atomic is tracked. The choice, 0 for the latest.
    pub fn decide(&mut self, atomic: VarId, options: usize, access: Option<u64>) -> usize {
        debug_assert!(options > 1, "invariant: a choice has options");
        let ordinal = self.ordinal;
        self.ordinal += 1;
        let stale = options - 1;
        let back = match &self.policy {
            ReadPolicy::Latest => 0,
            ReadPolicy::Chance { seed, chance } => match access {
                Some(_) if draw(*seed, ordinal, 0) < *chance => {
                    1 + (run_seed(*seed, u64::from(ordinal) << 1 | 1) % stale as u64) as usize
                }
                _ => 0,
            },
            ReadPolicy::Points { seed, points } => match access {
                Some(a) if points.binary_search(&a).is_ok() => {
                    1 + (run_seed(*seed, a) % stale as u64) as usize
                }
                _ => 0,
            },
            ReadPolicy::Replay(choices) => choices
                .binary_search_by_key(&ordinal, |c| c.ordinal)
                .map_or(0, |i| (choices[i].back as usize).min(stale)),
            ReadPolicy::Oracle(oracle) => oracle.borrow_mut().choose(atomic, options),
        };
        if back > 0 {
            self.made.push(ReadChoice {
                ordinal,
                back: back as u32,
            });
        }
        back
    }
}

/// A uniform draw in `[0, 1)` for choice `ordinal`.
fn draw(seed: u64, ordinal: u32, stream: u64) -> f64 {
    run_seed(seed, u64::from(ordinal) << 1 | stream) as f64 / u64::MAX as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_read_stale_only_at_their_tracked_accesses() {
        let mut choices = ReadChoices::new(ReadPolicy::Points {
            seed: 3,
            points: vec![5],
        });
        assert_eq!(choices.decide(VarId(0), 3, Some(4)), 0);
        assert!((1..3).contains(&choices.decide(VarId(0), 3, Some(5))));
        assert_eq!(choices.decide(VarId(0), 3, None), 0);
        assert_eq!(choices.made.len(), 1);
        assert_eq!(choices.made[0].ordinal, 1);
    }

    #[test]
    fn a_replay_makes_the_recorded_choices() {
        let recorded = vec![ReadChoice {
            ordinal: 1,
            back: 2,
        }];
        let mut choices = ReadChoices::new(ReadPolicy::Replay(recorded.clone()));
        assert_eq!(choices.decide(VarId(0), 3, None), 0);
        assert_eq!(choices.decide(VarId(0), 3, None), 2);
        assert_eq!(choices.made, recorded);
    }
}
