//! The choices on the path of the depth-first search, and how the path
//! moves on to the next schedule.

use crate::id::{FewThreads, ThreadId};

use super::super::footprint::{Footprint, Place};
use super::spare::Spare;

/// A choice on the path.
#[derive(Debug)]
pub(super) enum Node {
    /// A scheduling point (boxed: a node is large, and the path and
    /// [`Spare`] move it as it comes and goes).
    Thread(Box<ThreadNode>),
    /// A front end's choice among values at one step (under weak memory,
    /// which store a load reads).
    Read(ReadNode),
}

impl Node {
    /// The scheduling point, if it is one.
    pub(super) fn as_thread(&self) -> Option<&ThreadNode> {
        match self {
            Node::Thread(node) => Some(node),
            Node::Read(_) => None,
        }
    }
}

/// A choice among values at an access to `place`: `chosen` of `options`
/// (0: the front end's default, the latest store). The place is what a
/// partial-order reduction would relate the choice to (the atomic whose
/// store a load reads); here a replay that makes its choice at another
/// place parted from the path.
#[derive(Debug)]
pub(super) struct ReadNode {
    pub(super) place: Place,
    pub(super) options: usize,
    pub(super) chosen: usize,
}

/// The preemptions of a run up to a point, and its bound.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Preemptions {
    /// Made before the point.
    pub(super) made: u32,
    /// The most a schedule may make (`None`: no bound).
    pub(super) bound: Option<u32>,
}

/// A scheduling point on the path.
#[derive(Debug)]
pub(super) struct ThreadNode {
    /// The threads the search may choose here, sorted: every thread that
    /// can run, or those the spin-loop guard leaves. They are tried in
    /// this order, so those before the current choice were tried or
    /// skipped.
    pub(super) enabled: Vec<ThreadId>,
    /// Where the current choice is in `enabled`.
    pub(super) cursor: usize,
    /// The thread the current run takes here: `enabled[cursor]`.
    pub(super) chosen: ThreadId,
    /// The threads asleep here, with what their step touches: exploring
    /// them would only reorder independent steps of schedules already run.
    pub(super) asleep: Vec<(ThreadId, Footprint)>,
    /// The threads already explored from here, with what their step
    /// touched (kept for sleep sets only).
    pub(super) done: Vec<(ThreadId, Footprint)>,
    /// Those of `done` whose subtree the preemption bound cut (a thread it
    /// could have run somewhere below was not run for the bound): they
    /// put no thread to sleep, since they did not run every order that a
    /// sleeping sibling counts on.
    pub(super) cut_short: Vec<ThreadId>,
    /// Whether the bound cut the subtree below the current choice.
    pub(super) cut: bool,
    /// What the current choice's step touched, once the run went past it
    /// and the front end told (a step it never told of counts as touching
    /// everything).
    pub(super) step: Option<Footprint>,
    /// The thread that ran up to here, if it could go on: another choice
    /// preempts it.
    pub(super) running: Option<ThreadId>,
    /// Under the partial-order reduction, the threads to explore from
    /// here (its backtrack set: the first choice, then those a race in a
    /// later run asked for); `None`: every thread that can run.
    pub(super) wanted: Option<Vec<ThreadId>>,
    /// The run's preemptions before this point.
    pub(super) preemptions: Preemptions,
}

impl ThreadNode {
    /// A node with nothing in it, for [`Spare`] to fill.
    pub(super) fn empty() -> ThreadNode {
        ThreadNode {
            enabled: Vec::new(),
            cursor: 0,
            chosen: ThreadId(0),
            asleep: Vec::new(),
            done: Vec::new(),
            cut_short: Vec::new(),
            cut: false,
            step: None,
            running: None,
            wanted: None,
            preemptions: Preemptions::default(),
        }
    }

    /// Take the thread at `cursor` of `enabled` here.
    pub(super) fn take(&mut self, cursor: usize) {
        self.cursor = cursor;
        self.chosen = self.enabled[cursor];
        self.cut = false;
    }

    /// Whether the bound keeps a thread from being explored here that
    /// would be otherwise: one that can run, is not asleep, not explored
    /// yet and (under the partial-order reduction) wanted.
    pub(super) fn bound_skips(&self) -> bool {
        if self.preemptions.bound.is_none() {
            return false;
        }
        self.enabled.iter().any(|&t| {
            let done = self.done.iter().any(|(d, _)| *d == t);
            self.to_try(t) && !done && !self.within_bound(t)
        })
    }

    /// Where in `enabled`, from `from` on, the first thread is that is
    /// not asleep, stays within the preemption bound and, under the
    /// partial-order reduction, is wanted and not explored yet (a race
    /// may want a thread before the cursor, so these are looked for from
    /// the start).
    pub(super) fn untried_from(&self, from: usize) -> Option<usize> {
        let from = if self.wanted.is_some() { 0 } else { from };
        self.enabled[from..]
            .iter()
            .position(|t| self.is_untried(*t))
            .map(|i| from + i)
    }

    /// The first choice of a new point under a bounded partial-order
    /// reduction: the running thread while it can go on, so that the
    /// schedules a race does not ask to change make no preemption (the
    /// bounded reduction counts on it, as loom's), else the first untried.
    pub(super) fn first_under_reduction(&self) -> Option<usize> {
        // A new point wants nothing yet: `is_untried` is asleep and bound.
        let running = self.running.filter(|r| self.is_untried(*r));
        match running.and_then(|r| self.enabled.iter().position(|t| *t == r)) {
            Some(at) => Some(at),
            None => self.untried_from(0),
        }
    }

    /// How many threads are left to try here (for progress).
    pub(super) fn left(&self) -> usize {
        let from = if self.wanted.is_some() {
            0
        } else {
            self.cursor + 1
        };
        self.enabled[from..]
            .iter()
            .filter(|t| self.is_untried(**t) && **t != self.chosen)
            .count()
    }

    /// Whether `thread` may still be tried here (see `untried_from`).
    fn is_untried(&self, thread: ThreadId) -> bool {
        self.to_try(thread) && self.within_bound(thread)
    }

    /// Whether `thread` would be tried here but for the bound: awake and,
    /// under the partial-order reduction, wanted and not explored yet.
    fn to_try(&self, thread: ThreadId) -> bool {
        let asleep = self.asleep.iter().any(|(a, _)| *a == thread);
        let wanted = match &self.wanted {
            None => true,
            Some(wanted) => {
                wanted.contains(&thread) && !self.done.iter().any(|(d, _)| *d == thread)
            }
        };
        wanted && !asleep
    }

    /// A race asks for one of `initials` to be explored from here
    /// (`preferred`, the race's later thread, if it is one): nothing when
    /// the point explores one already; else that thread, or, when it
    /// cannot run here (or none is known), every thread that can, which
    /// keeps the reduction sound when the front end's idea of who can run
    /// differs from the race's.
    /// With `every`, each initial is wanted (under a preemption bound).
    pub(super) fn want_one_of(&mut self, initials: &[ThreadId], preferred: ThreadId, every: bool) {
        let Some(wanted) = &self.wanted else {
            return;
        };
        let runnable = |q: &ThreadId| self.enabled.contains(q);
        let mut asked: FewThreads = if every {
            let all = initials.iter().chain([&preferred]);
            all.copied().filter(runnable).collect()
        } else if initials.iter().any(|q| wanted.contains(q)) {
            return;
        } else {
            let pick = if initials.contains(&preferred) {
                Some(preferred)
            } else {
                initials.first().copied()
            };
            pick.filter(runnable).into_iter().collect()
        };
        let cannot_run = asked.is_empty() || (every && !runnable(&preferred));
        if cannot_run {
            asked.extend_from_slice(&self.enabled);
        }
        if let Some(wanted) = &mut self.wanted {
            for q in asked {
                if !wanted.contains(&q) {
                    wanted.push(q);
                }
            }
        }
    }

    /// Whether choosing `thread` here preempts the running thread.
    fn preempts(&self, thread: ThreadId) -> bool {
        self.running.is_some_and(|r| r != thread)
    }

    /// Whether choosing `thread` here keeps the run within the bound.
    fn within_bound(&self, thread: ThreadId) -> bool {
        let Preemptions { made, bound } = self.preemptions;
        bound.is_none_or(|b| made + u32::from(self.preempts(thread)) <= b)
    }

    /// The preemptions made once this node's choice ran.
    pub(super) fn preemptions_after(&self) -> u32 {
        self.preemptions.made + u32::from(self.preempts(self.chosen))
    }

    /// The sleep set after this node's choice: the threads asleep or
    /// explored here (their subtree not cut by the bound) whose step is
    /// independent of the choice's, those `keep` keeps, copied into
    /// `into` in `spare`'s room.
    pub(super) fn asleep_after(
        &self,
        keep: impl Fn(ThreadId) -> bool,
        into: &mut Vec<(ThreadId, Footprint)>,
        spare: &mut Spare,
    ) {
        let Some(step) = &self.step else {
            return;
        };
        let chosen = self.chosen;
        let covered = self
            .done
            .iter()
            .filter(|(t, _)| !self.cut_short.contains(t));
        let asleep = self.asleep.iter().chain(covered);
        for (thread, footprint) in asleep {
            if *thread != chosen && keep(*thread) && footprint.commutes_with(step) {
                into.push((*thread, spare.copy(footprint)));
            }
        }
    }

    /// Bytes it holds, for the memory cap (an estimate: the footprints'
    /// places are not counted).
    pub(super) fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<(ThreadId, Footprint)>();
        std::mem::size_of::<Node>()
            + std::mem::size_of::<ThreadNode>()
            + 4 * self.enabled.capacity()
            + 4 * self.wanted.as_ref().map_or(0, Vec::capacity)
            + entry * (self.asleep.capacity() + self.done.capacity())
            + 4 * self.cut_short.capacity()
    }
}

/// Move `path` to the next schedule: the last node with an untried choice
/// takes it, the nodes below it go. `false` when none is left. With
/// `by_footprint` (sleep sets or the partial-order reduction, bounded or
/// not), each node keeps what its explored threads' steps touched, and a
/// node whose first choice touched nothing (it found that it must wait)
/// has no other: that step only moved its thread to where it waits, which
/// every schedule from there reaches too.
pub(super) fn backtrack(path: &mut Vec<Node>, by_footprint: bool, spare: &mut Spare) -> bool {
    while let Some(last) = path.last_mut() {
        match last {
            Node::Thread(node) => {
                let step = node.step.take().unwrap_or(Footprint::Everything);
                let stutters = by_footprint && step.is_empty();
                if by_footprint {
                    node.done.push((node.chosen, step));
                    if node.cut {
                        node.cut_short.push(node.chosen);
                    }
                }
                if let Some(next) = node.untried_from(node.cursor + 1).filter(|_| !stutters) {
                    node.take(next);
                    return true;
                }
                if node.bound_skips() {
                    let above = path.len() - 1;
                    mark_cut(&mut path[..above]);
                }
            }
            Node::Read(read) if read.chosen + 1 < read.options => {
                read.chosen += 1;
                return true;
            }
            Node::Read(_) => {}
        }
        if let Some(Node::Thread(node)) = path.pop() {
            spare.keep(node);
        }
    }
    false
}

/// The bound cut the subtree below the last of `path`'s nodes: so it did
/// for each of them (marked from the deepest up, to the first already
/// marked, above which every node is).
pub(super) fn mark_cut(path: &mut [Node]) {
    for node in path.iter_mut().rev() {
        if let Node::Thread(node) = node {
            if node.cut {
                return;
            }
            node.cut = true;
        }
    }
}
