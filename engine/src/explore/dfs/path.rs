//! The path of the depth-first search, as one run walks it: the front end
//! asks it for every choice ([`SearchPath::choose`], [`SearchPath::read`])
//! and tells it what every step touched ([`SearchPath::stepped`]); it
//! replays the path's choices, then adds new nodes, until the run has
//! nothing new left to add.

use std::collections::HashSet;

use crate::id::ThreadId;
use crate::scheduler::Point;

use super::super::footprint::{Place, Touch};
use super::super::signature::{Mixed, Signature};
use super::node::{backtrack, mark_cut, Node, Preemptions, ReadNode, ThreadNode};
use super::races::Races;
use super::spare::Spare;
use super::{Ending, Pruning, Settings};

/// The path of the search and how far the current run is along it.
///
/// Its `Default` is an empty path that prunes nothing: a placeholder for
/// a front end that must hold the search's path elsewhere while a run
/// goes (rt's executor takes its scheduler by value).
#[derive(Debug, Default)]
pub struct SearchPath {
    nodes: Vec<Node>,
    rules: Rules,
    /// The signatures of the states explored ([`Pruning::States`]).
    seen: HashSet<u64, Mixed>,
    /// The first node the current run chose anew (the one the last
    /// backtrack changed): the runs before already raced the steps before
    /// it, which a replay repeats.
    fresh_from: usize,
    run: RunState,
    /// The race analysis ([`Pruning::Dpor`]), with its buffers.
    races: Races,
    /// The room of dropped nodes, for new ones.
    spare: Spare,
}

/// What decides the choices, fixed for a search.
#[derive(Clone, Copy, Debug, Default)]
struct Rules {
    pruning: Pruning,
    preemption_bound: Option<u32>,
    spin_yields: Option<u32>,
    /// Whether a run with nothing new left stops there (else it goes on
    /// without preempting and adds nothing).
    stop_redundant: bool,
    /// Whether threads sleep (sleep sets). Under a preemption bound only
    /// behind a sibling whose subtree the bound did not cut: a cut may
    /// drop the order a sleep set counts on (DPOR-NOTES trap 1).
    sleep_sets: bool,
}

/// Where the current run is.
#[derive(Debug, Default)]
struct RunState {
    /// The schedule (from 1) this run is, if it counts as one.
    schedule: u64,
    /// The path's choices this run made so far.
    at: usize,
    /// Scheduling points passed.
    points: usize,
    /// The node of the run's last scheduling point, while the run walks
    /// the path or adds to it: its choice's step is the one running.
    last_node: Option<usize>,
    /// The run went past a point with nothing new to choose: the rest
    /// only reorders what ran already.
    redundant: bool,
    /// The run was asked to stop because it had nothing new left.
    stopped: bool,
    /// The scheduling point (from 1) where the run parted from the path's
    /// choices: a choice of another kind, or at another place, was asked
    /// there.
    parted: Option<usize>,
    /// Its happens-before signature so far ([`Pruning::States`]).
    signature: Signature,
    /// Each thread's yields so far (the spin-loop guard).
    yields: Vec<u32>,
}

/// How a run ended, as the search counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// It passed.
    Passed,
    /// It failed.
    Failed,
    /// It was stopped, having nothing new left: pruned, not a schedule.
    Pruned,
    /// It took other decisions than the runs before it on the same
    /// choices, at this scheduling point (from 1).
    Parted(usize),
}

impl SearchPath {
    /// A thread no scheduling point offers: the front end ends the run at
    /// the point it is chosen, and reports [`Ending::Cut`].
    pub const STOP: ThreadId = ThreadId(u32::MAX);

    /// An empty path searched by `settings`; `stop_redundant`: whether a
    /// run with nothing new left is stopped (see
    /// [`super::Runner::stops_cheaply`]).
    pub(super) fn new(settings: &Settings, stop_redundant: bool) -> SearchPath {
        SearchPath {
            rules: Rules {
                pruning: settings.pruning,
                preemption_bound: settings.preemption_bound,
                spin_yields: settings.spin_yields,
                stop_redundant,
                sleep_sets: settings.pruning.sleeps(),
            },
            ..SearchPath::default()
        }
    }

    /// A run starts from the start of the path; it is schedule `schedule`
    /// if it counts as one.
    pub(super) fn start(&mut self, schedule: u64) {
        // The signature's and yields' buffers stay, for the next run.
        let mut signature = std::mem::take(&mut self.run.signature);
        signature.clear();
        let mut yields = std::mem::take(&mut self.run.yields);
        yields.clear();
        self.run = RunState {
            schedule,
            signature,
            yields,
            ..RunState::default()
        };
    }

    /// The schedule (from 1) the current run is, if it counts as one: the
    /// number a front end gives the failing run it keeps.
    pub fn schedule(&self) -> u64 {
        self.run.schedule
    }

    /// The thread to run at `point`: the path's choice while the run
    /// replays it, then a new node's first untried thread, or once
    /// nothing new is left the running thread while it can go on (else
    /// the lowest), or [`SearchPath::STOP`].
    #[inline]
    pub fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        self.run.points += 1;
        let index = self.run.at;
        // Most points replay the path: that path is kept short, so that
        // it inlines into the front end's scheduler.
        if let (Some(Node::Thread(node)), None) = (self.nodes.get(index), self.run.parted) {
            // A thread the point does not offer ends the run, which the
            // front end reports as cut: the search then says it parted.
            let chosen = node.chosen;
            self.run.at += 1;
            self.run.last_node = Some(index);
            return chosen;
        }
        self.choose_off_path(point)
    }

    /// The thread to run at `point` when the path has no scheduling point
    /// there: a new node's, or the rest's.
    #[inline(never)]
    fn choose_off_path(&mut self, point: &Point<'_>) -> ThreadId {
        if self.run.parted.is_some() {
            return SearchPath::STOP;
        }
        let index = self.run.at;
        self.run.at += 1;
        if let Some(Node::Read(_)) = self.nodes.get(index) {
            return self.part();
        }
        if self.run.redundant {
            return without_preempting(point);
        }
        if self.rules.pruning == Pruning::States && !self.seen.insert(self.run.signature.value()) {
            return self.nothing_new(point);
        }
        let mut node = self.node_at(point);
        let bounded_reduction =
            self.rules.pruning == Pruning::Dpor && self.rules.preemption_bound.is_some();
        let first = if bounded_reduction {
            node.first_under_reduction()
        } else {
            node.untried_from(0)
        };
        match first {
            Some(first) => {
                node.take(first);
                if self.rules.pruning == Pruning::Dpor {
                    node.wanted = Some(self.spare.threads_of(node.chosen));
                }
                let chosen = node.chosen;
                self.nodes.push(Node::Thread(node));
                self.run.last_node = Some(self.nodes.len() - 1);
                chosen
            }
            // No thread that can run here is awake (or within the
            // preemption bound: the subtree of every choice above is then
            // cut).
            None => {
                if node.bound_skips() {
                    mark_cut(&mut self.nodes);
                }
                self.spare.keep(node);
                self.nothing_new(point)
            }
        }
    }

    /// The choice among `options` (more than one) the front end makes at
    /// the running step's access to `place` (under weak memory, which
    /// store a load of that atomic reads): the path's while the run
    /// replays it, then 0, a new node's first.
    pub fn read(&mut self, place: Place, options: usize) -> usize {
        if self.run.parted.is_some() {
            return 0;
        }
        let index = self.run.at;
        self.run.at += 1;
        match self.nodes.get(index) {
            Some(Node::Read(read)) if read.place == place => read.chosen.min(options - 1),
            // A replayed prefix that reads elsewhere, or where it
            // scheduled.
            Some(_) => {
                self.part();
                0
            }
            None if self.run.redundant => 0,
            None => {
                self.nodes.push(Node::Read(ReadNode {
                    place,
                    options,
                    chosen: 0,
                }));
                0
            }
        }
    }

    /// The step `thread` ran since the last choice (the last choice's)
    /// made `touches`: told before every scheduling point but the first
    /// (`thread` is then the point's last), and once the run ended.
    #[inline]
    pub fn stepped(&mut self, thread: ThreadId, touches: impl IntoIterator<Item = Touch>) {
        match self.rules.pruning {
            Pruning::States => self.run.signature.record(thread, touches),
            Pruning::SleepSets | Pruning::Dpor => {
                // Kept also without sleep sets: the races read them.
                if let Some(Node::Thread(node)) =
                    self.run.last_node.and_then(|i| self.nodes.get_mut(i))
                {
                    match &mut node.step {
                        Some(step) => step.assign(touches),
                        None => node.step = Some(self.spare.footprint(touches)),
                    }
                }
            }
            Pruning::None => {}
        }
    }

    /// The step `thread` ran ended with a yield (told after
    /// [`SearchPath::stepped`]): a thread that yielded more than the
    /// spin-loop guard allows is tried only when nothing else can run,
    /// and a yield is a state of its own for [`Pruning::States`].
    pub fn yielded(&mut self, thread: ThreadId) {
        if self.rules.pruning == Pruning::States {
            self.run.signature.record_yield(thread);
        }
        if self.rules.spin_yields.is_some() {
            let yields = &mut self.run.yields;
            if yields.len() <= thread.index() {
                yields.resize(thread.index() + 1, 0);
            }
            yields[thread.index()] += 1;
        }
    }

    /// How the run that ended with `ending` counts.
    pub(super) fn verdict(&self, ending: Ending) -> Verdict {
        match (self.run.parted, ending) {
            (Some(point), _) => Verdict::Parted(point),
            (None, Ending::Cut) if self.run.stopped => Verdict::Pruned,
            (None, Ending::Cut) => Verdict::Parted(self.run.points),
            (None, Ending::Passed) => Verdict::Passed,
            (None, Ending::Failed) => Verdict::Failed,
        }
    }

    /// Move on to the next schedule; `false` when every one was explored.
    pub(super) fn advance(&mut self) -> bool {
        if self.rules.pruning == Pruning::Dpor {
            let pending = self.pending_at_end();
            let bounded = self.rules.preemption_bound.is_some();
            let fresh_from = self.fresh_from;
            self.races
                .want_reversed(&mut self.nodes, &pending, bounded, fresh_from);
        }
        let more = backtrack(
            &mut self.nodes,
            self.rules.pruning.sleeps(),
            &mut self.spare,
        );
        self.fresh_from = self.nodes.len().saturating_sub(1);
        more
    }

    /// The path's last scheduling point (read choices may follow it).
    fn last_point(&self) -> Option<&ThreadNode> {
        self.nodes.iter().rev().find_map(Node::as_thread)
    }

    /// The threads that could still run when the run ended (a failure
    /// ends it before they finish), unless it went past a point with
    /// nothing new (their steps were then compared by the sleep sets).
    fn pending_at_end(&self) -> Vec<ThreadId> {
        if self.run.redundant {
            return Vec::new();
        }
        self.last_point().map_or_else(Vec::new, |node| {
            let others = node.enabled.iter().filter(|t| **t != node.chosen);
            others.copied().collect()
        })
    }

    /// Bytes the search holds, for the memory cap: about 9 a state seen
    /// (the key and a control byte) and the nodes.
    pub(super) fn bytes(&self) -> u64 {
        let nodes: usize = self
            .nodes
            .iter()
            .map(|node| match node {
                Node::Thread(node) => node.bytes(),
                Node::Read(_) => std::mem::size_of::<Node>(),
            })
            .sum();
        (self.seen.capacity() * 9 + nodes + self.spare.bytes()) as u64
    }

    /// The choices left to try on the path (for progress).
    pub(super) fn left(&self) -> u64 {
        self.nodes
            .iter()
            .map(|node| match node {
                Node::Thread(node) => node.left() as u64,
                Node::Read(read) => (read.options - read.chosen - 1) as u64,
            })
            .sum()
    }

    /// A new node at `point`, its choice not made yet, in the room of a
    /// dropped one.
    fn node_at(&mut self, point: &Point<'_>) -> Box<ThreadNode> {
        let sleep_sets = self.rules.sleep_sets;
        let bound = self.rules.preemption_bound;
        let mut node = self.spare.node();
        // Only sleep sets and a bound need the parent, which may be a few
        // read choices up.
        let parent = (sleep_sets || bound.is_some())
            .then(|| self.nodes.iter().rev().find_map(Node::as_thread))
            .flatten();
        if let Some(parent) = parent.filter(|_| sleep_sets) {
            let enabled = |t: ThreadId| point.is_enabled(t);
            parent.asleep_after(enabled, &mut node.asleep, &mut self.spare);
        }
        node.preemptions = Preemptions {
            made: parent.map_or(0, ThreadNode::preemptions_after),
            bound,
        };
        self.candidates(point, &mut node.enabled);
        node.cursor = 0;
        node.chosen = ThreadId(0);
        node.cut = false;
        node.running = point.last.filter(|t| point.is_enabled(*t));
        node
    }

    /// The threads a new node at `point` may choose, sorted: those that
    /// can run, less those past the spin-loop guard unless only they can.
    fn candidates(&self, point: &Point<'_>, candidates: &mut Vec<ThreadId>) {
        if let Some(most) = self.rules.spin_yields {
            let spinning = |t: &ThreadId| self.run.yields.get(t.index()).is_some_and(|&y| y > most);
            let awake = point.enabled.iter().copied().filter(|t| !spinning(t));
            candidates.extend(awake);
        }
        if candidates.is_empty() {
            candidates.extend_from_slice(point.enabled);
        }
        candidates.sort_unstable();
    }

    /// Nothing new is left from `point`: stop the run, or finish it
    /// without adding to the path (stopping would cost the front end
    /// more, in unwinding its threads, than finishing).
    fn nothing_new(&mut self, point: &Point<'_>) -> ThreadId {
        self.run.redundant = true;
        self.run.last_node = None;
        if self.rules.stop_redundant {
            self.run.stopped = true;
            SearchPath::STOP
        } else {
            without_preempting(point)
        }
    }

    /// The run parted from the path here: stop it.
    fn part(&mut self) -> ThreadId {
        self.run.parted.get_or_insert(self.run.points);
        SearchPath::STOP
    }
}

/// The choice of a run's rest that adds no node: the running thread while
/// it can go on, else the lowest that can run. Never a preemption, so a
/// thread that gives way in a spin loop lets the others finish, and the
/// run ends.
fn without_preempting(point: &Point<'_>) -> ThreadId {
    match point.last.filter(|t| point.is_enabled(*t)) {
        Some(running) => running,
        None => point
            .enabled
            .iter()
            .copied()
            .min()
            .unwrap_or(point.enabled[0]),
    }
}
