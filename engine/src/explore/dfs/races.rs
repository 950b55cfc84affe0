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

use super::super::footprint::Footprint;
use super::super::signature::Mixed;
use super::node::Node;

/// What the run did to one place: per thread, the positions among the
/// run's steps of its accesses and of its writes.
#[derive(Debug, Default)]
struct PlaceLog {
    accesses: Vec<Vec<usize>>,
    writes: Vec<Vec<usize>>,
}

impl PlaceLog {
    /// Empty, for `width` threads, keeping the lists' room.
    fn reset(&mut self, width: usize) {
        for lists in [&mut self.accesses, &mut self.writes] {
            lists.iter_mut().for_each(Vec::clear);
            lists.resize_with(width, Vec::new);
        }
    }
}

/// A race of the run: two steps, by position among its steps.
#[derive(Debug)]
struct Race {
    earlier: usize,
    later: usize,
}

/// The race analysis of the search's runs, one run at a time: it runs
/// after every run, so it keeps its buffers from one to the next.
#[derive(Debug, Default)]
pub(super) struct Races {
    /// The last run's happens-before.
    clocks: Clocks,
    /// Each step's point on the path (`usize::MAX`: a pending step) and
    /// thread.
    steps: Vec<(usize, ThreadId)>,
    /// The races whose later step is new.
    races: Vec<Race>,
    /// Room for [`Races::initials`].
    first: Vec<Option<usize>>,
    initials: Vec<ThreadId>,
}

impl Races {
    /// Mark, on the path `nodes` of the run that just ended, the threads
    /// that its races ask each point to explore: for a race, a thread that
    /// can start the reversed order there (Abdulla et al.'s source sets,
    /// POPL 2014: an initial of the steps not ordered after the earlier
    /// one, then the later one), unless the point explores one already.
    /// The `pending` threads could still run when the run ended: each is
    /// taken to have a step left that touches everything, so that a
    /// failure that ends a run early is raced with what they would have
    /// done.
    ///
    /// Under a preemption bound (`bounded`), every initial is asked for
    /// (the one a point explores already may be past the bound there,
    /// where another is not), and also at the last point before the
    /// race's where the run switched threads, where taking it may cost no
    /// preemption the race's point would.
    ///
    /// Only races whose later step is at or after the node `fresh_from`
    /// are new: the steps before it are a replay of the run before, whose
    /// races were asked for already.
    pub(super) fn want_reversed(
        &mut self,
        nodes: &mut [Node],
        pending: &[ThreadId],
        bounded: bool,
        fresh_from: usize,
    ) {
        self.analyse(nodes, pending, fresh_from);
        let switches = if bounded {
            self.last_switches()
        } else {
            Vec::new()
        };
        let races = std::mem::take(&mut self.races);
        for race in &races {
            self.initials(race);
            let (at, _) = self.steps[race.earlier];
            let later = self.steps[race.later].1;
            // Two pending steps race at no point.
            if let Some(Node::Thread(node)) = nodes.get_mut(at) {
                node.want_one_of(&self.initials, later, bounded);
            }
            let switch = switches.get(race.earlier).copied().flatten();
            if let Some(Node::Thread(node)) = switch.and_then(|s| nodes.get_mut(s)) {
                node.want_one_of(&self.initials, later, bounded);
            }
        }
        self.races = races;
    }

    /// The happens-before of the run whose path is `nodes`, with a last
    /// step of each `pending` thread (at no point: the run ended before
    /// it), and its races whose later step is at or after the node
    /// `fresh_from`.
    fn analyse(&mut self, nodes: &[Node], pending: &[ThreadId], fresh_from: usize) {
        const EVERYTHING: &Footprint = &Footprint::Everything;
        let ran = nodes.iter().enumerate().filter_map(|(at, node)| {
            let node = node.as_thread()?;
            let touched = node.step.as_ref().unwrap_or(EVERYTHING);
            Some((at, node.chosen, touched, Some(&node.enabled[..])))
        });
        let left = pending
            .iter()
            .map(|&thread| (usize::MAX, thread, EVERYTHING, None));
        let width = thread_count(nodes);
        let kept = self.replayed(nodes, fresh_from, width);
        if kept == 0 {
            self.clocks.reset(width);
        } else {
            self.clocks.rewind(kept);
        }
        self.steps.truncate(kept);
        self.races.clear();
        for (at, (node, thread, touched, enabled)) in ran.chain(left).enumerate().skip(kept) {
            if let Some(enabled) = enabled {
                self.clocks.meet(enabled, at);
            }
            let fresh = node >= fresh_from;
            let races = fresh.then_some(&mut self.races);
            self.clocks.step(at, thread, touched, races);
            self.steps.push((node, thread));
        }
    }

    /// How many of the last analysed run's steps the run on `nodes`
    /// replayed, before the node `fresh_from` where it chose anew: their
    /// happens-before is the same, so the analysis goes on from there.
    /// The last step before that node is not one of them: the new choice
    /// may be a read choice of that step, which then touched other
    /// places. None (0) when the threads' count changed or the steps
    /// differ (the path is another search's).
    fn replayed(&self, nodes: &[Node], fresh_from: usize, width: usize) -> usize {
        #[cfg(test)]
        if tests::FULL_ANALYSIS.with(std::cell::Cell::get) {
            return 0;
        }
        if width != self.clocks.width {
            return 0;
        }
        let before = self.steps.partition_point(|&(node, _)| node < fresh_from);
        let kept = before.saturating_sub(1);
        let same = self.steps[..kept].iter().all(|&(node, thread)| {
            let node = nodes.get(node).and_then(Node::as_thread);
            node.is_some_and(|node| node.chosen == thread)
        });
        if same {
            kept
        } else {
            0
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

    /// The threads that can start the race reversed, into
    /// `self.initials`: among the steps after the earlier one and not
    /// ordered after it, then the later one, each thread whose first such
    /// step is ordered after no other thread's first.
    fn initials(&mut self, race: &Race) {
        let (i, j) = (race.earlier, race.later);
        let earlier_thread = self.steps[i].1.index();
        let later_thread = self.steps[j].1.index();
        let clocks = &self.clocks;
        // A step that only found it must wait starts nothing: taken
        // earlier, the same operation may go on (a lock taken before the
        // other thread took it) and conflict. So only steps that touched
        // something count.
        self.first.clear();
        self.first
            .extend(clocks.any.iter().enumerate().map(|(r, positions)| {
                let k = *positions.get(positions.partition_point(|&p| p <= i))?;
                // The later step belongs to the reversed order even when
                // the run ordered it after the earlier one (through the
                // steps between).
                let later = r == later_thread && k == j;
                let unordered = k < j && clocks.clock(k)[earlier_thread] <= i as u32;
                (later || unordered).then_some(k)
            }));
        let first = &self.first;
        let knows_another = |r: usize, k: usize| {
            let clock = clocks.clock(k);
            first
                .iter()
                .enumerate()
                .any(|(s, ks)| s != r && ks.is_some_and(|ks| clock[s] > ks as u32))
        };
        self.initials.clear();
        self.initials
            .extend(first.iter().enumerate().filter_map(|(r, k)| {
                let k = (*k)?;
                (!knows_another(r, k)).then_some(ThreadId(r as u32))
            }));
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
#[derive(Debug, Default)]
struct Clocks {
    /// Threads: the clocks' width.
    width: usize,
    /// Each step's clock, one after the other.
    steps: Vec<u32>,
    /// Each thread's clock after its last step, one after the other.
    threads: Vec<u32>,
    /// Each place touched so far, by its key, as an index into `logs`.
    places: HashMap<u64, usize, Mixed>,
    /// The places' logs: the first `live` are this run's, the others
    /// room left by an earlier run.
    logs: Vec<PlaceLog>,
    live: usize,
    /// Per thread, its steps that touched anything.
    any: Vec<Vec<usize>>,
    /// Per thread, its steps that may have touched everything.
    everything: Vec<Vec<usize>>,
    /// Per thread, all its steps.
    own: Vec<Vec<usize>>,
    /// Per thread, the step before which it was first seen able to run
    /// ([`Clocks::meet`]; `usize::MAX`: not yet).
    met_at: Vec<usize>,
}

impl Clocks {
    /// No step yet, for `width` threads, keeping the buffers' room.
    fn reset(&mut self, width: usize) {
        self.width = width;
        self.steps.clear();
        self.threads.clear();
        self.threads.resize(width * width, 0);
        self.places.clear();
        self.live = 0;
        for lists in [&mut self.any, &mut self.everything, &mut self.own] {
            lists.iter_mut().for_each(Vec::clear);
            lists.resize_with(width, Vec::new);
        }
        self.met_at.clear();
        self.met_at.resize(width, usize::MAX);
    }

    /// Back to where the first `steps` steps left it: what later steps
    /// added is taken out, and each thread's clock is again that of its
    /// last step before, or the one it started with.
    fn rewind(&mut self, steps: usize) {
        let width = self.width;
        self.steps.truncate(steps * width);
        let cut = |list: &mut Vec<usize>| list.truncate(list.partition_point(|&p| p < steps));
        for lists in [&mut self.any, &mut self.everything, &mut self.own] {
            lists.iter_mut().for_each(cut);
        }
        for log in &mut self.logs[..self.live] {
            for lists in [&mut log.accesses, &mut log.writes] {
                lists.iter_mut().for_each(cut);
            }
        }
        for t in 0..width {
            let from = match self.own[t].last() {
                Some(&last) => Some(last),
                None if self.met_at[t] < steps => self.met_at[t].checked_sub(1),
                None => {
                    self.met_at[t] = usize::MAX;
                    None
                }
            };
            let row = &mut self.threads[t * width..(t + 1) * width];
            match from {
                Some(k) => row.copy_from_slice(&self.steps[k * width..(k + 1) * width]),
                None => row.fill(0),
            }
        }
    }

    /// Whether thread `t` was seen able to run, or ran (its clock is set;
    /// a thread not seen before its first step starts from nothing).
    fn started(&self, t: usize) -> bool {
        self.met_at[t] != usize::MAX || !self.own[t].is_empty()
    }

    /// Step `k`'s clock.
    fn clock(&self, k: usize) -> &[u32] {
        &self.steps[k * self.width..(k + 1) * self.width]
    }

    /// The threads that can run before step `at`: one seen for the first
    /// time starts with the clock of the step before (which made it able
    /// to run), or an empty one at the start.
    fn meet(&mut self, enabled: &[ThreadId], at: usize) {
        let width = self.width;
        for thread in enabled {
            let t = thread.index();
            if self.started(t) {
                continue;
            }
            self.met_at[t] = at;
            if let Some(before) = at.checked_sub(1) {
                let (steps, threads) = (&self.steps, &mut self.threads);
                threads[t * width..(t + 1) * width]
                    .copy_from_slice(&steps[before * width..(before + 1) * width]);
            }
        }
    }

    /// Step `at` of `thread` touched `touched`: its clock, and, into
    /// `races` when asked, the earlier steps it races with: every step of
    /// another thread that conflicts with it and that `thread` had not
    /// seen (not only the last: a lock taken, then released, races with
    /// another thread's taking it, though the release is between them).
    fn step(
        &mut self,
        at: usize,
        thread: ThreadId,
        touched: &Footprint,
        mut races: Option<&mut Vec<Race>>,
    ) {
        let width = self.width;
        let t = thread.index();
        // The step's clock starts as its thread's and takes in the last
        // conflicting step of each other thread.
        let row = self.steps.len();
        self.steps
            .extend_from_slice(&self.threads[t * width..(t + 1) * width]);
        let from = races.as_ref().map_or(0, |r| r.len());
        for u in (0..width).filter(|&u| u != t) {
            // What the thread had seen of `u` before this step.
            let unseen = self.threads[t * width + u] as usize;
            let mut last = None;
            self.for_conflicting(touched, u, |steps| {
                last = last.max(steps.last().copied());
                if let Some(races) = races.as_deref_mut() {
                    let from = steps.partition_point(|&p| p < unseen);
                    let later = at;
                    races.extend(steps[from..].iter().map(|&earlier| Race { earlier, later }));
                }
            });
            if let Some(last) = last {
                let (before, clock) = self.steps.split_at_mut(row);
                join(clock, &before[last * width..(last + 1) * width]);
            }
        }
        if let Some(races) = races {
            let new = &mut races[from..];
            new.sort_unstable_by_key(|race| race.earlier);
            let kept = dedup_earlier(new);
            races.truncate(from + kept);
        }
        self.steps[row + t] = at as u32 + 1;
        self.own[t].push(at);
        self.record(at, t, touched);
        let (threads, steps) = (&mut self.threads, &self.steps);
        threads[t * width..(t + 1) * width].copy_from_slice(&steps[row..]);
    }

    /// Calls `each` with thread `u`'s steps so far that conflict with a
    /// step touching `touched`, as lists in order.
    fn for_conflicting(&self, touched: &Footprint, u: usize, mut each: impl FnMut(&[usize])) {
        let places = match touched {
            Footprint::Everything => return each(&self.any[u]),
            Footprint::Places(places) => places,
        };
        each(&self.everything[u]);
        for (place, write) in places {
            if let Some(&log) = self.places.get(&place.key()) {
                let log = &self.logs[log];
                each(if *write {
                    &log.accesses[u]
                } else {
                    &log.writes[u]
                });
            }
        }
    }

    /// Step `at` of thread `t` touched `touched`.
    fn record(&mut self, at: usize, t: usize, touched: &Footprint) {
        let width = self.width;
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
                    let index = match self.places.get(&place.key()) {
                        Some(&index) => index,
                        None => self.new_log(place.key(), width),
                    };
                    let log = &mut self.logs[index];
                    log.accesses[t].push(at);
                    if *write {
                        log.writes[t].push(at);
                    }
                }
            }
        }
    }

    /// A log for the place keyed `key`, empty, for `width` threads: its
    /// index among the logs.
    fn new_log(&mut self, key: u64, width: usize) -> usize {
        if self.live == self.logs.len() {
            self.logs.push(PlaceLog::default());
        }
        let index = self.live;
        self.logs[index].reset(width);
        self.live += 1;
        self.places.insert(key, index);
        index
    }
}

/// Keep the first of each run of races with the same earlier step in the
/// sorted `races`: how many are kept, at the front.
fn dedup_earlier(races: &mut [Race]) -> usize {
    let mut kept = 0;
    for i in 0..races.len() {
        if kept == 0 || races[kept - 1].earlier != races[i].earlier {
            races.swap(kept, i);
            kept += 1;
        }
    }
    kept
}

/// `clock` joined with `other`, entry by entry.
fn join(clock: &mut [u32], other: &[u32]) {
    for (mine, theirs) in clock.iter_mut().zip(other) {
        *mine = (*mine).max(*theirs);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::Cell;

    thread_local! {
        /// Whether each run's analysis starts from the first step (the
        /// dfs tests compare the resumed analysis with it).
        pub(in super::super) static FULL_ANALYSIS: Cell<bool> = const { Cell::new(false) };
    }
}
