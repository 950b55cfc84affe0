//! Exhaustive search: every schedule with at most `c` preemptions placed
//! right after tracked accesses, for thread bounding's priority orders (the
//! paper's Algorithm 1, docs/ALGORITHMS.md, Exhaustive search: [`explore`]), or
//! every schedule at all ([`explore_every_schedule`]).
//!
//! Every schedule is the depth-first search of [`dfs`], the exploration
//! seam both front ends run through: the VM here, rt's executor in
//! rankcheck-rt's `explore`, each a [`dfs::Runner`] that tells the search
//! what every step touched ([`Touch`]: a [`Place`] read or written).
//!
//! Both of this module's explorations prune by a happens-before signature
//! over every access the VM logs, so the executable they run must observe
//! every site (see [`crate::Instrumentation::observing_all`]); a pruned
//! exploration finds every bug the unpruned one finds at the same bound.

mod bounded;
mod classify;
pub mod dfs;
mod footprint;
mod orders;
mod recorder;
mod signature;
mod unbounded;

use std::collections::{BTreeMap, HashSet};

use crate::executable::Executable;
use crate::id::ThreadId;
use crate::outcome::{Bug, Outcome};
use crate::vm::{Limits, VmBuffers};

pub use bounded::explore;
pub use classify::{classify, classify_steps, explore_round, var_subsets, Classification, Round};
pub use footprint::{Footprint, Place, Touch};
pub use orders::{
    all_orders, combinations, priority_orders, random_orders, ranked_vars, Order,
    MAX_ENUMERATED_FRAGMENTS,
};
pub use unbounded::explore_every_schedule;

/// What an exploration is bounded by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExploreConfig {
    /// The preemption bound `c`.
    pub preemptions: u32,
    /// Threads the priority orders rank (`n`). A run that creates more ends
    /// the exploration with [`Explored::more_threads`], to be redone with
    /// orders over that many.
    pub n_threads: usize,
    /// Limits of each execution.
    pub limits: Limits,
    /// Skip a work item whose state (happens-before signature), priorities
    /// and preemptions left were explored already for the same variables.
    pub prune: bool,
    /// Keep exploring the bound where the first bug appeared, to collect
    /// every failing work item of that bound (classification needs them).
    pub finish_bound: bool,
    /// Stop after this many schedules (the result is then not exhausted).
    pub max_schedules: u64,
    /// Stop when the queued work and pruning memory pass this many bytes.
    pub max_memory: u64,
    /// Worker threads that run work items; the result does not depend on
    /// their number.
    pub jobs: usize,
}

/// Why an exploration stopped before it was exhausted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `max_schedules` schedules ran.
    Schedules,
    /// The work queue and pruning memory passed `max_memory` (bytes held).
    Memory(u64),
    /// The monitor asked to stop (an interruption).
    Interrupted,
}

/// How far an exploration has come, told to its [`Monitor`] now and then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Schedules run.
    pub schedules: u64,
    /// Work items (or states) pruned.
    pub pruned: u64,
    /// Work items queued and not run yet.
    pub items_left: u64,
    /// The preemption bound being explored.
    pub bound: u32,
    /// Bytes the exploration holds.
    pub memory: u64,
}

/// Told the progress now and then; returns whether to go on.
pub type Monitor<'a> = dyn Fn(&Progress) -> bool + Sync + 'a;

/// A failing work item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundBug {
    /// The failure.
    pub bug: Bug,
    /// The thread chosen at each scheduling point: what replays it.
    pub schedule: Vec<ThreadId>,
    /// The priority order (empty for an unbounded exploration).
    pub order: Order,
    /// The tracked accesses (1-based counts) after which priorities changed.
    pub preemptions: Vec<u64>,
    /// The steps (1-based) those changes followed, for the trace.
    pub change_steps: Vec<u64>,
}

/// Counts of an exploration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explored {
    /// Schedules run.
    pub schedules: u64,
    /// Schedules run when the first bug appeared (1-based), if one did.
    pub schedules_to_first_bug: Option<u64>,
    /// Work items skipped because their state and priorities had been
    /// explored already.
    pub pruned: u64,
    /// Every failing work item (the first one only, unless
    /// `finish_bound`).
    pub bugs: Vec<FoundBug>,
    /// Whether every work item up to the bound ran: with no bug, a proof up
    /// to the bound for these orders and variables.
    pub exhausted: bool,
    /// The highest bound whose work items all ran without a bug: what is
    /// proved when the exploration stopped early.
    pub completed_bound: Option<u32>,
    /// Why it stopped early, if it did.
    pub stop: Option<Stop>,
    /// A run created this many threads, more than the orders rank.
    pub more_threads: Option<usize>,
}

/// Totals of exploring several variable sets in turn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetsExplored {
    /// Schedules run over all sets.
    pub schedules: u64,
    /// Schedules run when the first bug appeared, counting earlier sets.
    pub schedules_to_first_bug: Option<u64>,
    /// Work items pruned over all sets.
    pub pruned: u64,
    /// Sets explored to their bound without a bug.
    pub sets_exhausted: usize,
    /// Whether every set was explored to its bound without a bug.
    pub exhausted: bool,
    /// The failing set's index and its exploration.
    pub failing: Option<(usize, Explored)>,
    /// The set whose exploration stopped early, with the highest bound it
    /// completed, and why.
    pub stopped: Option<(usize, Option<u32>, Stop)>,
    /// A run created this many threads, more than the orders rank.
    pub more_threads: Option<usize>,
}

/// Which exploration [`explore_sets`] runs on each set.
#[derive(Clone, Copy, Debug)]
pub enum Search<'a> {
    /// Up to `config.preemptions` preemptions under these priority orders.
    Bounded(&'a [Order]),
    /// Every schedule ([`explore_every_schedule`]).
    Unbounded,
}

/// Explore `n_sets` variable sets in turn, set `i` run as `executable(i)`,
/// each with its own pruning memory (its signatures are over its own
/// tracked accesses), until a bug appears, `config.max_schedules`
/// schedules ran in all, or the exploration stops.
pub fn explore_sets(
    n_sets: usize,
    mut executable: impl FnMut(usize) -> Executable,
    search: Search<'_>,
    config: &ExploreConfig,
    monitor: &Monitor<'_>,
) -> SetsExplored {
    let mut totals = SetsExplored {
        exhausted: true,
        ..SetsExplored::default()
    };
    for index in 0..n_sets {
        let exe = executable(index);
        let budget = ExploreConfig {
            max_schedules: config.max_schedules.saturating_sub(totals.schedules),
            ..*config
        };
        let explored = match search {
            Search::Bounded(orders) => explore(&exe, orders, &budget, &mut HashSet::new(), monitor),
            Search::Unbounded => explore_every_schedule(&exe, &budget, monitor),
        };
        if let Some(first) = explored.schedules_to_first_bug {
            totals
                .schedules_to_first_bug
                .get_or_insert(totals.schedules + first);
        }
        totals.schedules += explored.schedules;
        totals.pruned += explored.pruned;
        if explored.more_threads.is_some() {
            totals.exhausted = false;
            totals.more_threads = explored.more_threads;
            break;
        }
        if !explored.bugs.is_empty() {
            totals.exhausted = false;
            totals.failing = Some((index, explored));
            break;
        }
        if let Some(stop) = explored.stop {
            totals.exhausted = false;
            totals.stopped = Some((index, explored.completed_bound, stop));
            break;
        }
        totals.sets_exhausted += 1;
    }
    totals
}

/// The thread bound of a bug found with `preemptions` (docs/ALGORITHMS.md, Thread
/// bounding): the fewest fragments `s` such that for some `s`-subset of the
/// `n + c` fragments and some order of it, every order of `orders` that
/// agrees with it fails (`failing(order)`), minus the `c` fragments that
/// preemptions add. `orders` must be every order of the fragments.
pub fn thread_bound(orders: &[Order], c: usize, failing: &dyn Fn(&Order) -> bool) -> Option<usize> {
    let fragments = orders.first()?.len();
    let fails: Vec<bool> = orders.iter().map(failing).collect();
    for size in (c + 2).max(2)..=fragments {
        let all: Vec<usize> = (0..fragments).collect();
        for subset in combinations(&all, size) {
            // Group the orders by how they rank the subset: a group all of
            // whose orders fail is such a relative order.
            let mut groups: BTreeMap<Vec<u32>, bool> = BTreeMap::new();
            for (order, &fail) in orders.iter().zip(&fails) {
                let ranks: Vec<i64> = subset.iter().map(|&i| order[i]).collect();
                let key = ranks
                    .iter()
                    .map(|p| ranks.iter().filter(|q| *q < p).count() as u32)
                    .collect();
                let all = groups.entry(key).or_insert(true);
                *all &= fail;
            }
            if groups.values().any(|&all| all) {
                return Some(size - c);
            }
        }
    }
    None
}

/// Run `exe` under `order` with preemptions after the given tracked
/// accesses; whether it fails.
pub fn fails_with(
    exe: &Executable,
    config: &ExploreConfig,
    order: &[i64],
    preemptions: &[u64],
) -> bool {
    let (outcome, ..) =
        bounded::run_item(exe, config, order, preemptions, false, VmBuffers::default());
    matches!(outcome, Outcome::Bug(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_bound_of_a_fixed_pair_order_is_two() {
        // Fails exactly when fragment 0 outranks fragment 1: a 2-thread
        // order at c = 0.
        let orders = all_orders(3);
        assert_eq!(thread_bound(&orders, 0, &|o: &Order| o[0] > o[1]), Some(2));
        // Fails when 0 and 1 both outrank 2: three fragments.
        assert_eq!(
            thread_bound(&orders, 0, &|o: &Order| o[0] > o[2] && o[1] > o[2]),
            Some(3)
        );
    }
}
