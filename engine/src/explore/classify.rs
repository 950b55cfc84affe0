//! Rounds of exploration, and classification: a bug's minimal preemption
//! bound `c` and variable bound `v` (docs/ALGORITHMS.md, bug
//! characteristics), found by raising (c, v) in the paper's order until the
//! bug appears.

use crate::executable::Executable;
use crate::id::VarId;
use crate::profile::Profile;

use super::orders::{combinations, ranked_vars, Order};
use super::{explore_sets, ExploreConfig, Monitor, Search, SetsExplored};

/// One exploration of every set at one bound, with the priority orders it
/// used and the number of threads they rank.
#[derive(Clone, Debug)]
pub struct Round {
    /// What the sets gave.
    pub result: SetsExplored,
    /// The orders (empty without a bound).
    pub orders: Vec<Order>,
    /// The configuration it ran under, `n_threads` grown as needed.
    pub config: ExploreConfig,
}

/// Explore `n_sets` sets (set `i` run as `executable(i)`) at `bound`
/// preemptions (`None`: every schedule), under `orders(n, c)`. When a run
/// creates more threads than the orders rank, the orders are made again
/// over that many and the round starts over, so that every thread's
/// priority is enumerated.
pub fn explore_round(
    n_sets: usize,
    mut executable: impl FnMut(usize) -> Executable,
    bound: Option<u32>,
    orders: &dyn Fn(usize, u32) -> Vec<Order>,
    base: &ExploreConfig,
    monitor: &Monitor<'_>,
) -> Round {
    let mut config = *base;
    config.preemptions = bound.unwrap_or(0);
    loop {
        let order_list = match bound {
            Some(c) => orders(config.n_threads, c),
            None => Vec::new(),
        };
        let search = match bound {
            Some(_) => Search::Bounded(&order_list),
            None => Search::Unbounded,
        };
        let result = explore_sets(n_sets, &mut executable, search, &config, monitor);
        match result.more_threads {
            Some(n) if bound.is_some() && n > config.n_threads => config.n_threads = n,
            _ => {
                return Round {
                    result,
                    orders: order_list,
                    config,
                }
            }
        }
    }
}

/// The `v`-subsets of the variables the preparatory runs accessed, those
/// seen shared first (docs/ALGORITHMS.md, Exhaustive search).
pub fn var_subsets(profile: &Profile, v: usize) -> Vec<Vec<VarId>> {
    let ranked = ranked_vars(profile);
    combinations(&ranked, v.min(ranked.len()))
        .into_iter()
        .map(|mut set| {
            set.sort_unstable();
            set
        })
        .collect()
}

/// The (c, v) pairs classification tries, in the paper's order: (0, 0),
/// then for each c every v from 1 to c (at most `accessed`).
pub fn classify_steps(max_c: u32, accessed: usize) -> Vec<(u32, usize)> {
    let mut steps = vec![(0, 0)];
    for c in 1..=max_c {
        steps.extend((1..=(c as usize).min(accessed)).map(|v| (c, v)));
    }
    steps
}

/// What classification found.
#[derive(Clone, Debug)]
pub struct Classification {
    /// The last (c, v) explored: the bug's minimal bounds when it was
    /// found there, else the highest tried.
    pub c: u32,
    /// See `c`.
    pub v: usize,
    /// The variable sets of that step.
    pub sets: Vec<Vec<VarId>>,
    /// That step's round (with the failing set, if any).
    pub round: Round,
    /// Schedules over every step.
    pub schedules: u64,
    /// Pruned work items over every step.
    pub pruned: u64,
    /// Schedules over every step when the first bug appeared.
    pub schedules_to_first_bug: Option<u64>,
}

/// Raise (c, v) in the paper's order up to `max_c` until a bug appears (or
/// an exploration stops early): each step explores every `v`-subset of the
/// accessed variables with at most `c` preemptions, collecting every
/// failing work item of the bound where the first bug appears.
/// `executable(vars)` tracks `vars` and observes every site.
pub fn classify(
    profile: &Profile,
    executable: &dyn Fn(&[VarId]) -> Executable,
    orders: &dyn Fn(usize, u32) -> Vec<Order>,
    base: &ExploreConfig,
    max_c: u32,
    monitor: &Monitor<'_>,
) -> Classification {
    let accessed = ranked_vars(profile).len();
    let mut schedules = 0;
    let mut pruned = 0;
    let mut first_bug = None;
    let mut config = ExploreConfig {
        finish_bound: true,
        ..*base
    };
    let mut last = None;
    for (c, v) in classify_steps(max_c, accessed) {
        let sets = var_subsets(profile, v);
        let round = explore_round(
            sets.len(),
            |i| executable(&sets[i]),
            Some(c),
            orders,
            &config,
            monitor,
        );
        // Later steps start from the threads this one found.
        config.n_threads = round.config.n_threads;
        if let Some(first) = round.result.schedules_to_first_bug {
            first_bug.get_or_insert(schedules + first);
        }
        schedules += round.result.schedules;
        pruned += round.result.pruned;
        let done = round.result.failing.is_some() || round.result.stopped.is_some();
        last = Some((c, v, sets, round));
        if done {
            break;
        }
    }
    let Some((c, v, sets, round)) = last else {
        unreachable!("invariant: classification has a first step")
    };
    Classification {
        c,
        v,
        sets,
        round,
        schedules,
        pruned,
        schedules_to_first_bug: first_bug,
    }
}
