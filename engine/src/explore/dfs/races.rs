//! The races of a run, for the dynamic partial-order reduction
//! ([`super::Pruning::Dpor`]): after each run, every pair of steps of two
//! threads that touched a common place (one writing it) and that the
//! run's happens-before did not already order asks the point before the
//! earlier step to explore a thread that starts the other order
//! (`ThreadNode::want_one_of`). Flanagan and Godefroid's dynamic
//! partial-order reduction (POPL 2005) with source sets (Abdulla, Aronis,
//! Jonsson and Sagonas, POPL 2014), on the steps that ran rather than on
//! each thread's pending one, which a front end knows only once it ran it.
//!
//! Happens-before is program order and the order of conflicting steps,
//! kept as vector clocks over the run's steps. A step of thread `t` races
//! with every conflicting step of another thread that `t` had not seen
//! before it (that step's clock is not in `t`'s): a superset of the
//! immediate races, so the reduction may explore more than it needs,
//! never less. Every one, not only the last: an operation that only found
//! it must wait touches nothing in rt, so a lock taken and released by
//! one thread races with another's later taking of it only directly. A
//! thread's clock starts, when it first can run, with the clock of the
//! step that made it able to (its spawn); it takes no clock from a step
//! that later wakes it, so that two lock acquisitions with the unlock
//! between them still race (the second thread may take the lock first).
//!
//! Checked against the unreduced search: on random programs, the same
//! happens-before classes and exactly one schedule per class when runs
//! are stopped, also under preemption bounds (`dfs::tests`); in rt, the
//! same failures and outcomes (rt/tests/examples/explore_counts.rs), the
//! weak-memory litmus suite, the ported shuttle and loom suites, and
//! crossfront's differential (results/explore_rt.md).

use std::collections::HashMap;

use crate::id::ThreadId;

use super::super::footprint::{Footprint, Place};
use super::node::Node;

/// What the run did to one place: per thread, the positions among the
/// run's steps of its accesses and of its writes.
struct PlaceLog {
    accesses: Vec<Vec<usize>>,
    writes: Vec<Vec<usize>>,
}

/// One step of the run: its point on the path, its thread, what it
/// touched.
struct Step<'a> {
    node: usize,
    thread: ThreadId,
    touched: &'a Footprint,
}

/// A race of the run: two steps, by position among its steps.
struct Race {
    earlier: usize,
    later: usize,
}

/// The run's steps, their happens-before and their races.
struct Run {
    /// Each step's point on the path and thread.
    steps: Vec<(usize, ThreadId)>,
    /// Each step's clock.
    clocks: Vec<Vec<u32>>,
    /// Per thread, the positions of its steps that touched something.
    by_thread: Vec<Vec<usize>>,
    races: Vec<Race>,
}

/// Mark, on the path `nodes` of the run that just ended, the threads that
/// its races ask each point to explore: for a race, a thread that can
/// start the reversed order there (Abdulla et al.'s source sets, POPL
/// 2014: an initial of the steps not ordered after the earlier one, then
/// the later one), unless the point explores one already. The
/// `pending` threads could still run when the run ended: each is taken to
/// have a step left that touches everything, so that a failure that ends
/// a run early is raced with what they would have done.
///
/// Under a preemption bound (`bounded`), every initial is asked for (the
/// one a point explores already may be past the bound there, where
/// another is not), and also at the last point before the race's where
/// the run switched threads, where taking it may cost no preemption the
/// race's point would.
///
/// Only races whose later step is at or after the node `fresh_from` are
/// new: the steps before it are a replay of the run before, whose races
/// were asked for already.
pub(super) fn want_reversed(
    nodes: &mut [Node],
    pending: &[ThreadId],
    bounded: bool,
    fresh_from: usize,
) {
    let run = Run::of(nodes, pending);
    let switches = if bounded {
        run.last_switches()
    } else {
        Vec::new()
    };
    let fresh = run
        .races
        .iter()
        .filter(|race| run.steps[race.later].0 >= fresh_from);
    for race in fresh {
        let initials = run.initials(race);
        let (at, _) = run.steps[race.earlier];
        let later = run.steps[race.later].1;
        // Two pending steps race at no point.
        if let Some(Node::Thread(node)) = nodes.get_mut(at) {
            node.want_one_of(&initials, later, bounded);
        }
        let switch = switches.get(race.earlier).copied().flatten();
        if let Some(Node::Thread(node)) = switch.and_then(|s| nodes.get_mut(s)) {
            node.want_one_of(&initials, later, bounded);
        }
    }
}

impl Run {
    /// The run whose path is `nodes`, with a last step of each `pending`
    /// thread (at no point: the run ended before it).
    fn of(nodes: &[Node], pending: &[ThreadId]) -> Run {
        const EVERYTHING: &Footprint = &Footprint::Everything;
        let mut steps: Vec<Step<'_>> = nodes
            .iter()
            .enumerate()
            .filter_map(|(node, n)| {
                n.as_thread().map(|t| Step {
                    node,
                    thread: t.chosen,
                    touched: t.step.as_ref().unwrap_or(EVERYTHING),
                })
            })
            .collect();
        steps.extend(pending.iter().map(|&thread| Step {
            node: usize::MAX,
            thread,
            touched: EVERYTHING,
        }));
        let threads = thread_count(nodes);
        let mut clocks = Clocks::new(threads);
        let mut races = Vec::new();
        let mut by_thread = vec![Vec::new(); threads];
        for (at, step) in steps.iter().enumerate() {
            if let Some(Node::Thread(node)) = nodes.get(step.node) {
                clocks.meet(&node.enabled, at);
            }
            for earlier in clocks.step(at, step.thread, step.touched) {
                races.push(Race { earlier, later: at });
            }
            // A step that only found it must wait starts nothing: taken
            // earlier, the same operation may go on (a lock taken before
            // the other thread took it) and conflict.
            if !step.touched.is_empty() {
                by_thread[step.thread.index()].push(at);
            }
        }
        Run {
            steps: steps.iter().map(|s| (s.node, s.thread)).collect(),
            clocks: clocks.steps,
            by_thread,
            races,
        }
    }

    /// Per step, the point of the last step before it whose thread is not
    /// the one of the step before that (a switch), else of the first step.
    fn last_switches(&self) -> Vec<Option<usize>> {
        let mut last = None;
        let mut switches = Vec::with_capacity(self.steps.len());
        for (at, &(node, thread)) in self.steps.iter().enumerate() {
            switches.push(last);
            let switched = at == 0 || self.steps[at - 1].1 != thread;
            if switched && node != usize::MAX {
                last = Some(node);
            }
        }
        switches
    }

    /// The threads that can start the race reversed: among the steps
    /// after the earlier one and not ordered after it, then the later
    /// one, each thread whose first such step is ordered after no other
    /// thread's first.
    fn initials(&self, race: &Race) -> Vec<ThreadId> {
        let (i, j) = (race.earlier, race.later);
        let earlier_thread = self.steps[i].1.index();
        let later_thread = self.steps[j].1.index();
        let first: Vec<Option<usize>> = self
            .by_thread
            .iter()
            .enumerate()
            .map(|(r, positions)| {
                let k = *positions.get(positions.partition_point(|&p| p <= i))?;
                // The later step belongs to the reversed order even when
                // the run ordered it after the earlier one (through the
                // steps between).
                let later = r == later_thread && k == j;
                let unordered = k < j && self.clocks[k][earlier_thread] <= i as u32;
                (later || unordered).then_some(k)
            })
            .collect();
        let knows_another = |r: usize, k: usize| {
            first
                .iter()
                .enumerate()
                .any(|(s, ks)| s != r && ks.is_some_and(|ks| self.clocks[k][s] > ks as u32))
        };
        first
            .iter()
            .enumerate()
            .filter_map(|(r, k)| {
                let k = (*k)?;
                (!knows_another(r, k)).then_some(ThreadId(r as u32))
            })
            .collect()
    }
}

/// One more than the highest thread id the path names.
fn thread_count(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .filter_map(Node::as_thread)
        .filter_map(|t| t.enabled.iter().chain([&t.chosen]).max())
        .max()
        .map_or(0, |t| t.index() + 1)
}

/// The run's happens-before so far, as vector clocks: entry `u` of a
/// clock is one more than the position of the last step of thread `u` it
/// has seen (0: none).
struct Clocks {
    /// Each step's clock.
    steps: Vec<Vec<u32>>,
    /// Each thread's clock after its last step; `None` until it first
    /// could run.
    threads: Vec<Option<Vec<u32>>>,
    places: HashMap<Place, PlaceLog>,
    /// Per thread, its steps that touched anything.
    any: Vec<Vec<usize>>,
    /// Per thread, its steps that may have touched everything.
    everything: Vec<Vec<usize>>,
}

impl Clocks {
    fn new(threads: usize) -> Clocks {
        Clocks {
            steps: Vec::new(),
            threads: vec![None; threads],
            places: HashMap::new(),
            any: vec![Vec::new(); threads],
            everything: vec![Vec::new(); threads],
        }
    }

    /// The threads that can run before step `at`: one seen for the first
    /// time starts with the clock of the step before (which made it able
    /// to run), or an empty one at the start.
    fn meet(&mut self, enabled: &[ThreadId], at: usize) {
        let width = self.threads.len();
        for thread in enabled {
            let clock = &mut self.threads[thread.index()];
            if clock.is_none() {
                *clock = Some(match at.checked_sub(1) {
                    Some(before) => self.steps[before].clone(),
                    None => vec![0; width],
                });
            }
        }
    }

    /// Step `at` of `thread` touched `touched`: its clock, and the
    /// earlier steps it races with: every step of another thread that
    /// conflicts with it and that `thread` had not seen (not only the
    /// last: a lock taken, then released, races with another thread's
    /// taking it, though the release is between them).
    fn step(&mut self, at: usize, thread: ThreadId, touched: &Footprint) -> Vec<usize> {
        let width = self.threads.len();
        let t = thread.index();
        let seen = self.threads[t].take().unwrap_or_else(|| vec![0; width]);
        let mut clock = seen.clone();
        let mut races = Vec::new();
        for u in (0..width).filter(|&u| u != t) {
            let unseen = seen[u] as usize;
            let mut last = None;
            for steps in self.conflicting(touched, u) {
                last = last.max(steps.last().copied());
                let from = steps.partition_point(|&p| p < unseen);
                races.extend_from_slice(&steps[from..]);
            }
            if let Some(last) = last {
                join(&mut clock, &self.steps[last]);
            }
        }
        races.sort_unstable();
        races.dedup();
        clock[t] = at as u32 + 1;
        self.record(at, t, touched);
        self.threads[t] = Some(clock.clone());
        self.steps.push(clock);
        races
    }

    /// Thread `u`'s steps so far that conflict with a step touching
    /// `touched`, as lists in order.
    fn conflicting<'a>(&'a self, touched: &'a Footprint, u: usize) -> Vec<&'a [usize]> {
        let places = match touched {
            Footprint::Everything => return vec![&self.any[u]],
            Footprint::Places(places) => places,
        };
        let mut lists = vec![self.everything[u].as_slice()];
        for (place, write) in places {
            if let Some(log) = self.places.get(place) {
                let steps = if *write {
                    &log.accesses[u]
                } else {
                    &log.writes[u]
                };
                lists.push(steps);
            }
        }
        lists
    }

    /// Step `at` of thread `t` touched `touched`.
    fn record(&mut self, at: usize, t: usize, touched: &Footprint) {
        let width = self.threads.len();
        match touched {
            Footprint::Everything => {
                self.everything[t].push(at);
                self.any[t].push(at);
            }
            Footprint::Places(places) => {
                if !places.is_empty() {
                    self.any[t].push(at);
                }
                for (place, write) in places {
                    let log = self.places.entry(*place).or_insert_with(|| PlaceLog {
                        accesses: vec![Vec::new(); width],
                        writes: vec![Vec::new(); width],
                    });
                    log.accesses[t].push(at);
                    if *write {
                        log.writes[t].push(at);
                    }
                }
            }
        }
    }
}

/// `clock` joined with `other`, entry by entry.
fn join(clock: &mut [u32], other: &[u32]) {
    for (mine, theirs) in clock.iter_mut().zip(other) {
        *mine = (*mine).max(*theirs);
    }
}
