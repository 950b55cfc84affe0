//! Following a work item's run: which tracked accesses could take the next
//! preemption, and the key that says when two such places lead to the same
//! future (so that only one is explored).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::id::ThreadId;
use crate::priority::PriorityScheduler;
use crate::scheduler::{EventKind, Point, Scheduler};

use super::footprint::Touch;
use super::signature::Signature;

/// Distance between neighbouring priorities, as in [`PriorityScheduler`].
pub(super) const SCALE: i64 = 1 << 20;

/// A tracked access after which the running thread could have gone on:
/// where the next preemption may go.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    /// The access (1-based count of tracked accesses).
    pub(super) at: u64,
    /// The happens-before signature of the execution up to it.
    pub(super) prefix: u64,
    /// The thread that made it.
    pub(super) thread: ThreadId,
    /// Where every thread created so far gets its priority. Sources, not
    /// values: work items that share a run differ in the values their
    /// orders give the fragments.
    pub(super) sources: Vec<Source>,
}

/// Where a thread's priority comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// Fragment `i` of the priority order: the thread's initial priority
    /// (`i < n`) or a preemption's (`i >= n`).
    Fragment(usize),
    /// A value of its own: a thread the spin-loop guard lowered.
    Fixed(i64),
}

/// Follows a [`PriorityScheduler`] and records where preemptions could go,
/// with the state there.
pub(super) struct Recorder {
    pub(super) inner: PriorityScheduler,
    /// Threads the order ranks.
    n: usize,
    /// The work item's preemptions, to follow which fragment each thread
    /// holds.
    preemptions: Vec<u64>,
    sources: Vec<Source>,
    accesses: u64,
    pub(super) candidates: Vec<Candidate>,
    signature: Signature,
    /// Whether to record candidates at all: not at the last bound, whose
    /// work items have no successors.
    record: bool,
}

impl Recorder {
    /// Follow `inner`, which runs a work item with `preemptions` over `n`
    /// ranked threads.
    pub(super) fn new(
        inner: PriorityScheduler,
        n: usize,
        preemptions: &[u64],
        record: bool,
    ) -> Recorder {
        Recorder {
            inner,
            n,
            preemptions: preemptions.to_vec(),
            sources: Vec::new(),
            accesses: 0,
            candidates: Vec::new(),
            signature: Signature::default(),
            record,
        }
    }

    /// Make sure `thread` has a source, and notice a spin-loop lowering:
    /// the scheduler lowers below every fragment, to a value of its own.
    fn source(&mut self, thread: ThreadId) {
        let index = thread.index();
        while self.sources.len() <= index {
            self.sources.push(Source::Fragment(self.sources.len()));
        }
        let current = self.inner.priorities(index + 1)[index];
        if current < 0 {
            self.sources[index] = Source::Fixed(current);
        }
    }
}

impl Scheduler for Recorder {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        if let Some(last) = point.last {
            self.signature
                .record(last, point.accesses.iter().map(Touch::from));
            if point.event.kind == EventKind::Yield {
                self.signature.record_yield(last);
            }
            if point.event.tracked {
                self.accesses += 1;
                // Follow the scheduler's change: the j-th preemption gives
                // the running thread fragment n + j.
                if let Some(j) = self.preemptions.iter().position(|&at| at == self.accesses) {
                    self.source(last);
                    self.sources[last.index()] = Source::Fragment(self.n + j);
                }
                if self.record && point.last_enabled() {
                    for t in 0..point.threads {
                        self.source(ThreadId(t as u32));
                    }
                    self.candidates.push(Candidate {
                        at: self.accesses,
                        prefix: self.signature.value(),
                        thread: last,
                        sources: self.sources.clone(),
                    });
                }
            }
        }
        self.inner.choose(point)
    }
}

/// The key of a child work item for pruning: the state where its new
/// preemption happens (the prefix's happens-before signature) and
/// everything that decides what runs from there: the priority of every
/// thread after the change, of the threads the order ranks that do not
/// exist yet, and of the change fragments still unused, as ranks; and how
/// many preemptions are left. Two children with equal keys run identical
/// futures, so only the first is explored.
pub(super) fn child_key(
    candidate: &Candidate,
    order: &[i64],
    n: usize,
    used: usize,
    bound: usize,
) -> u64 {
    let value = |source: Source| match source {
        Source::Fragment(i) => order.get(i).map_or(0, |p| p * SCALE),
        Source::Fixed(p) => p,
    };
    let mut priorities: Vec<i64> = candidate.sources.iter().map(|&s| value(s)).collect();
    priorities[candidate.thread.index()] = value(Source::Fragment(n + used));
    // Threads not created yet will start at their own fragments.
    for fragment in candidate.sources.len()..n {
        priorities.push(value(Source::Fragment(fragment)));
    }
    priorities.extend(order.iter().skip(n + used + 1).map(|p| p * SCALE));
    let ranks: Vec<u32> = priorities
        .iter()
        .map(|p| priorities.iter().filter(|q| *q < p).count() as u32)
        .collect();
    let left = bound - used - 1;
    let mut hasher = DefaultHasher::new();
    (candidate.prefix, ranks, left).hash(&mut hasher);
    hasher.finish()
}
