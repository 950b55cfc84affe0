//! Exhaustive, preemption-bounded search with variable and thread bounding:
//! the paper's Algorithm 1 (PAPER.md, Exhaustive search).
//!
//! For one set of tracked variables and a family of thread-bounding
//! priority orders, every schedule with at most `c` preemptions placed right
//! after tracked accesses is run, in increasing number of preemptions. A
//! state is the schedule prefix that reaches it: a work item is a priority
//! order and the tracked accesses after which the running thread's priority
//! changes, and running it replays from the initial state (stateless
//! search). While a schedule with `b` preemptions runs, every later tracked
//! access after which the running thread could go on queues a work item for
//! bound `b + 1`.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::id::{ThreadId, VarId};
use crate::outcome::{Bug, Outcome};
use crate::priority::{PriorityScheduler, PriorityScheme};
use crate::profile::{accessed_vars, Profile};
use crate::scheduler::{EventKind, Point, Scheduler};
use crate::vm::{Limits, Vm, VmBuffers};
use crate::Executable;

/// Distance between neighbouring priorities, as in [`PriorityScheduler`].
const SCALE: i64 = 1 << 20;

/// The most fragments whose priority orders are all enumerated: 7! = 5,040
/// orders. Beyond it, orders are sampled (Lemma 4.1).
pub const MAX_ENUMERATED_FRAGMENTS: usize = 7;

/// A thread-bounding priority order over `n + c` thread fragments: thread
/// `i` starts at `order[i]`, and the `j`-th preemption gives the running
/// thread `order[n + j]` (PAPER.md, Thread bounding). Higher runs first.
pub type Order = Vec<i64>;

/// Every order of `fragments` fragments, in lexicographic order.
pub fn all_orders(fragments: usize) -> Vec<Order> {
    let mut current: Vec<i64> = (1..=fragments as i64).collect();
    let mut orders = vec![current.clone()];
    // Next lexicographic permutation, until the last.
    loop {
        let Some(i) = (1..current.len())
            .rev()
            .find(|&i| current[i - 1] < current[i])
        else {
            return orders;
        };
        let pivot = i - 1;
        let Some(j) = (i..current.len())
            .rev()
            .find(|&j| current[j] > current[pivot])
        else {
            unreachable!("invariant: a successor exists right of the pivot")
        };
        current.swap(pivot, j);
        current[i..].reverse();
        orders.push(current.clone());
    }
}

/// `count` random orders of `fragments` fragments, from `seed`.
pub fn random_orders(fragments: usize, count: usize, seed: u64) -> Vec<Order> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut order: Vec<i64> = (1..=fragments as i64).collect();
            order.shuffle(&mut rng);
            order
        })
        .collect()
}

/// Every `size`-subset of `items`, in order: the variable sets exhaustive
/// search tries in turn.
pub fn combinations<T: Copy>(items: &[T], size: usize) -> Vec<Vec<T>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        for mut rest in combinations(&items[i + 1..], size - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

/// The variables exhaustive search chooses among, in the order it tries
/// them: those the preparatory runs accessed, the ones seen shared first
/// (PAPER.md, Exhaustive search), then by id.
pub fn ranked_vars(profile: &Profile) -> Vec<VarId> {
    let mut ranked = accessed_vars(profile);
    ranked.sort_by_key(|var| (!profile.vars[var.index()].shared(), *var));
    ranked
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
    /// Sets explored, the failing one included.
    pub sets_explored: usize,
    /// Whether every set was explored to its bound without a bug.
    pub exhausted: bool,
    /// The failing set's index and its exploration.
    pub failing: Option<(usize, Explored)>,
}

/// Explore `n_sets` variable sets in turn, set `i` run as `executable(i)`,
/// each with its own pruning memory (its signatures are over its own tracked
/// accesses), until a bug appears or `config.max_schedules` schedules ran in
/// all.
pub fn explore_sets(
    n_sets: usize,
    mut executable: impl FnMut(usize) -> Executable,
    orders: &[Order],
    config: &ExploreConfig,
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
        let explored = explore(&exe, orders, &budget, &mut BTreeSet::new());
        totals.sets_explored += 1;
        if let Some(first) = explored.schedules_to_first_bug {
            totals
                .schedules_to_first_bug
                .get_or_insert(totals.schedules + first);
        }
        totals.schedules += explored.schedules;
        totals.pruned += explored.pruned;
        if !explored.bugs.is_empty() {
            totals.exhausted = false;
            totals.failing = Some((index, explored));
            break;
        }
        if !explored.exhausted {
            totals.exhausted = false;
            break;
        }
    }
    totals
}

/// The priority orders of `n + c` fragments: every one when there are at
/// most [`MAX_ENUMERATED_FRAGMENTS`], else `sampled` random ones from
/// `seed` (the caller sizes the sample by Lemma 4.1). The flag says whether
/// they were enumerated.
pub fn priority_orders(
    n: usize,
    c: u32,
    sampled: impl FnOnce() -> usize,
    seed: u64,
) -> (Vec<Order>, bool) {
    let fragments = n + c as usize;
    if fragments <= MAX_ENUMERATED_FRAGMENTS {
        (all_orders(fragments), true)
    } else {
        (random_orders(fragments, sampled(), seed), false)
    }
}

/// What an exploration is bounded by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExploreConfig {
    /// The preemption bound `c`.
    pub preemptions: u32,
    /// Threads the priority orders rank (`n`, from the preparatory runs).
    pub n_threads: usize,
    /// Limits of each execution.
    pub limits: Limits,
    /// Skip a work item whose new preemption happens in a state whose
    /// happens-before relation over tracked accesses, with the same
    /// priorities and preemptions left, was explored already for the same
    /// variables.
    pub prune: bool,
    /// Keep exploring the bound where the first bug appeared, to collect
    /// every failing work item of that bound (classification needs them).
    pub finish_bound: bool,
    /// Stop after this many schedules (the result is then not exhausted).
    pub max_schedules: u64,
}

/// A failing work item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundBug {
    /// The failure.
    pub bug: Bug,
    /// The thread chosen at each scheduling point: what replays it.
    pub schedule: Vec<ThreadId>,
    /// The priority order.
    pub order: Order,
    /// The tracked accesses (1-based counts) after which priorities changed.
    pub preemptions: Vec<u64>,
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
}

/// A tracked access after which the running thread could have gone on:
/// where the next preemption may go.
#[derive(Clone, Debug)]
struct Candidate {
    /// The access (1-based count of tracked accesses).
    at: u64,
    /// The happens-before signature of the execution up to it.
    prefix: u64,
    /// The thread that made it.
    thread: ThreadId,
    /// Where every thread's priority comes from at that point. Sources,
    /// not values: work items that share a run differ in the values their
    /// orders give the fragments.
    sources: Vec<Source>,
}

/// Where a thread's priority comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// Fragment `i` of the priority order: the thread's initial priority
    /// (`i < n`) or a preemption's (`i >= n`).
    Fragment(usize),
    /// A value of its own: a thread the order does not rank, or one the
    /// spin-loop guard lowered.
    Fixed(i64),
}

/// Follows a [`PriorityScheduler`] and records where preemptions could go,
/// with the state there.
struct Recorder {
    inner: PriorityScheduler,
    /// Threads the order ranks.
    n: usize,
    /// The work item's preemptions, to follow which fragment each thread
    /// holds.
    preemptions: Vec<u64>,
    sources: Vec<Source>,
    accesses: u64,
    candidates: Vec<Candidate>,
    /// Per variable, a running hash of its accesses in order, each named by
    /// thread, per-thread index and whether it writes.
    var_hashes: BTreeMap<VarId, u64>,
    /// The combination of `var_hashes`, kept up to date.
    prefix: u64,
    /// Whether to record candidates at all: not at the last bound, whose
    /// work items have no successors.
    record: bool,
    per_thread: Vec<u32>,
}

impl Scheduler for Recorder {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        let Some(last) = point.last else {
            return self.inner.choose(point);
        };
        // Every step that ends at a variable (tracked accesses, and mutex
        // and condition operations whether tracked or not) is an access to
        // it; thread starts, spawns, joins and ends are accesses to one
        // pseudo-variable, which orders them all.
        let var = point.event.var.unwrap_or(VarId(u32::MAX));
        if point.event.tracked || point.event.var.is_none() || point.event.site.is_some() {
            if self.per_thread.len() <= last.index() {
                self.per_thread.resize(last.index() + 1, 0);
            }
            self.per_thread[last.index()] += 1;
            let write = point.event.kind != EventKind::Read;
            let entry = self.var_hashes.entry(var).or_insert(0);
            let old = *entry;
            let access = (u64::from(last.0) << 33)
                | (u64::from(self.per_thread[last.index()]) << 1)
                | u64::from(write);
            *entry = mix(old ^ mix(access));
            // The prefix signature combines the variables' hashes, each
            // keyed by its variable, so one access updates it in O(1).
            self.prefix ^= mix(old ^ u64::from(var.0)) ^ mix(*entry ^ u64::from(var.0));
        }
        if point.event.tracked {
            self.accesses += 1;
            // Follow the scheduler's change: the j-th preemption gives the
            // running thread fragment n + j.
            if let Some(j) = self.preemptions.iter().position(|&at| at == self.accesses) {
                self.source(last);
                self.sources[last.index()] = Source::Fragment(self.n + j);
            }
            if self.record && point.last_enabled() {
                let threads = point
                    .enabled
                    .iter()
                    .map(|t| t.index() + 1)
                    .max()
                    .unwrap_or(0)
                    .max(last.index() + 1);
                for t in 0..threads {
                    self.source(ThreadId(t as u32));
                }
                let sources = self.sources.clone();
                self.candidates.push(Candidate {
                    at: self.accesses,
                    prefix: self.prefix(),
                    thread: last,
                    sources,
                });
            }
        }
        self.inner.choose(point)
    }
}

impl Recorder {
    /// Make sure `thread` has a source, and notice a spin-loop lowering:
    /// the scheduler lowers below every fragment, to a value of its own.
    fn source(&mut self, thread: ThreadId) {
        let index = thread.index();
        while self.sources.len() <= index {
            let next = self.sources.len();
            let source = if next < self.n {
                Source::Fragment(next)
            } else {
                Source::Fixed(self.inner.priorities(next + 1)[next])
            };
            self.sources.push(source);
        }
        let current = self.inner.priorities(index + 1)[index];
        if current < 0 {
            self.sources[index] = Source::Fixed(current);
        }
    }

    /// The happens-before signature of the accesses so far: for each
    /// variable, the order of its accesses. Equal signatures mean equal
    /// orders of every pair of accesses to a variable, hence an equal
    /// happens-before relation and an equal state (the converse does not
    /// hold: reads between two writes may commute, so this prunes a little
    /// less than it could).
    fn prefix(&self) -> u64 {
        self.prefix
    }
}

/// A 64-bit mixing function (SplitMix64's finaliser): cheap, and spreads
/// every input bit over the output. Signatures are compared by value, so a
/// collision (about 2^-64 per pair) could prune a schedule wrongly; that is
/// the price of not storing whole access sequences.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key of a child work item for pruning: the state where its new
/// preemption happens (the prefix's happens-before signature) and
/// everything that decides what runs from there: every thread's priority
/// after the change, the priorities of the fragments still unused, in
/// relative order, and how many preemptions are left. Two children with
/// equal keys run identical futures, so only the first is explored.
fn child_key(candidate: &Candidate, order: &[i64], n: usize, used: usize) -> u64 {
    let value = |source: Source| match source {
        Source::Fragment(i) => order.get(i).map_or(0, |p| p * SCALE),
        Source::Fixed(p) => p,
    };
    let mut priorities: Vec<i64> = candidate.sources.iter().map(|&s| value(s)).collect();
    priorities[candidate.thread.index()] = value(Source::Fragment(n + used));
    priorities.extend(order.iter().skip(n + used + 1).map(|p| p * SCALE));
    let ranks: Vec<u32> = priorities
        .iter()
        .map(|p| priorities.iter().filter(|q| *q < p).count() as u32)
        .collect();
    let mut hasher = DefaultHasher::new();
    (candidate.prefix, ranks, order.len() - n - used).hash(&mut hasher);
    hasher.finish()
}

/// A work item as far as its run goes: the effective order and the
/// preemptions.
type ItemKey = (Vec<u32>, Vec<u64>);

/// The effective order of a work item with `b` preemptions: the ranks of
/// the first `n + b` entries, so that orders differing only in fragments
/// the item never uses count once.
fn effective(order: &[i64], used: usize) -> Vec<u32> {
    let prefix = &order[..used.min(order.len())];
    prefix
        .iter()
        .map(|p| prefix.iter().filter(|q| *q < p).count() as u32)
        .collect()
}

/// Run one work item.
fn run_item(
    exe: &Executable,
    config: &ExploreConfig,
    order: &[i64],
    preemptions: &[u64],
    record: bool,
    buffers: VmBuffers,
) -> (Outcome, Recorder, Vec<ThreadId>, VmBuffers) {
    let n = config.n_threads;
    let initial = order[..n.min(order.len())]
        .iter()
        .map(|p| p * SCALE)
        .collect();
    let changes = preemptions
        .iter()
        .zip(&order[n..])
        .map(|(&at, &p)| (at, p * SCALE))
        .collect();
    let top = (order.len() as i64 + 1) * SCALE;
    let inner = PriorityScheduler::with_order(
        Pcg64Mcg::seed_from_u64(0),
        PriorityScheme::ThreadBounded,
        initial,
        changes,
        (SCALE, top),
    );
    let mut recorder = Recorder {
        inner,
        n,
        preemptions: preemptions.to_vec(),
        sources: Vec::new(),
        accesses: 0,
        candidates: Vec::new(),
        var_hashes: BTreeMap::new(),
        prefix: 0,
        record,
        per_thread: Vec::new(),
    };
    let mut vm = Vm::with_buffers(exe, config.limits, buffers);
    let outcome = vm.run(&mut recorder);
    let schedule = vm.schedule().to_vec();
    (outcome, recorder, schedule, vm.into_buffers())
}

/// Explore `exe` (tracking the variables a search chose) under every order
/// of `orders` up to `config.preemptions` preemptions. `seen` holds the
/// happens-before signatures already explored for these variables.
pub fn explore(
    exe: &Executable,
    orders: &[Order],
    config: &ExploreConfig,
    seen: &mut BTreeSet<u64>,
) -> Explored {
    let mut result = Explored::default();
    let mut buffers = VmBuffers::default();
    let mut queue: Vec<(usize, Vec<u64>)> = (0..orders.len()).map(|i| (i, Vec::new())).collect();
    for bound in 0..=config.preemptions {
        let mut next = Vec::new();
        // Orders that agree on the fragments a work item uses give the same
        // schedule: run it once, but let every such order have successors,
        // which may use fragments where the orders differ. `None`: the
        // schedule failed or was pruned, so no successors.
        let mut ran: BTreeMap<ItemKey, Option<Vec<Candidate>>> = BTreeMap::new();
        for (index, preemptions) in queue {
            let order = &orders[index];
            let key = (
                effective(order, config.n_threads + preemptions.len()),
                preemptions.clone(),
            );
            let candidates = match ran.get(&key) {
                Some(candidates) => candidates.clone(),
                None => {
                    if result.schedules >= config.max_schedules {
                        return result;
                    }
                    let (outcome, recorder, schedule, back) = run_item(
                        exe,
                        config,
                        order,
                        &preemptions,
                        bound < config.preemptions,
                        buffers,
                    );
                    buffers = back;
                    result.schedules += 1;
                    let candidates = match outcome {
                        Outcome::Bug(bug) => {
                            result
                                .schedules_to_first_bug
                                .get_or_insert(result.schedules);
                            result.bugs.push(FoundBug {
                                bug,
                                schedule,
                                order: order.clone(),
                                preemptions: preemptions.clone(),
                            });
                            if !config.finish_bound {
                                return result;
                            }
                            None
                        }
                        Outcome::Pass { .. } => Some(recorder.candidates),
                        Outcome::Diverged { .. } => {
                            unreachable!("invariant: the explorer only chooses enabled threads")
                        }
                    };
                    ran.insert(key, candidates.clone());
                    candidates
                }
            };
            let Some(candidates) = candidates else {
                continue;
            };
            if bound < config.preemptions {
                let last = preemptions.last().copied().unwrap_or(0);
                for candidate in candidates.iter().filter(|c| c.at > last) {
                    if config.prune
                        && !seen.insert(child_key(
                            candidate,
                            order,
                            config.n_threads,
                            preemptions.len(),
                        ))
                    {
                        result.pruned += 1;
                        continue;
                    }
                    let mut longer = preemptions.clone();
                    longer.push(candidate.at);
                    next.push((index, longer));
                }
            }
        }
        if !result.bugs.is_empty() {
            return result;
        }
        if next.is_empty() {
            break;
        }
        queue = next;
    }
    result.exhausted = true;
    result
}

/// The thread bound of a bug found with `preemptions` (PAPER.md, Thread
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
            let mut groups: std::collections::BTreeMap<Vec<u32>, bool> =
                std::collections::BTreeMap::new();
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
    let (outcome, ..) = run_item(exe, config, order, preemptions, false, VmBuffers::default());
    matches!(outcome, Outcome::Bug(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_orders_are_every_permutation_once() {
        let orders = all_orders(4);
        assert_eq!(orders.len(), 24);
        let distinct: BTreeSet<_> = orders.iter().collect();
        assert_eq!(distinct.len(), 24);
        assert_eq!(orders[0], vec![1, 2, 3, 4]);
        assert_eq!(orders[23], vec![4, 3, 2, 1]);
    }

    #[test]
    fn combinations_are_binomial() {
        let five = [0, 1, 2, 3, 4];
        assert_eq!(combinations(&five, 2).len(), 10);
        assert_eq!(combinations(&five, 5), vec![vec![0, 1, 2, 3, 4]]);
        assert_eq!(combinations(&five, 0), vec![Vec::<i32>::new()]);
    }

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
