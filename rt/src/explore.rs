//! Every schedule of a small test, depth first, what `rankcheck explore`
//! does for a `.rk` program, with sleep sets (Godefroid) in place of its
//! pruning. A run replays the choices of the path so far and then takes
//! the first thread that can run and is not asleep; the next run changes
//! the last choice that has an untried thread. An execution is a function
//! of its schedule, so the runs cover every schedule up to reordering
//! independent steps, which reaches every failure.
//!
//! Independence is read off the operation each thread is about to do
//! ([`Next`]): two memory accesses commute unless they touch the same
//! object and one writes; a memory access commutes with every other step;
//! an operation on a synchronisation object (which may touch another
//! object than it names: a wait releases its mutex) commutes with the
//! operations on threads (spawn, join, yield, park, a thread's end), and
//! never with another of its kind, nor do two operations on threads. What a
//! thread is about to do is trusted only once it ran and as long as it
//! could run at every point since: a new thread, or one that blocked and
//! was woken (from a condition variable it is about to take a mutex its
//! blocking operation did not name), is taken to conflict with everything.

use std::collections::BTreeSet;
use std::sync::Arc;

use rankcheck_engine::{Location as Place, Pending, Point, Scheduler, ThreadId};

use crate::executor::{RunConfig, Session, Tracking};
use crate::failure::{Failure, FailureKind};
use crate::wake::WakeChoices;

/// A failure [`explore`] reached: how it failed and where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reached {
    /// `"panic"`, `"deadlock"` or `"step-limit"`, as reports name them.
    pub kind: &'static str,
    /// The panic's message; for a deadlock and the step limit, what the
    /// report says.
    pub message: String,
    /// The file of the failing operation, as the compiler names it: the
    /// panic, the first blocked thread's blocking operation, or the
    /// operation past the step limit.
    pub file: Option<String>,
    /// Its line.
    pub line: Option<u32>,
    /// For a deadlock, the file and line of every blocked thread's
    /// blocking operation, sorted; empty otherwise.
    pub blocked: Vec<(String, u32)>,
}

/// What [`explore`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explored {
    /// The distinct failures of the schedules run.
    pub failures: BTreeSet<Reached>,
    /// The schedules run.
    pub schedules: u64,
    /// Whether those covered every schedule (up to the order of
    /// independent steps): `false` when `max_schedules` stopped the
    /// search first.
    pub complete: bool,
}

/// Run `test` under every schedule, every variable tracked, at most
/// `max_schedules` of them and `max_steps` operations each; the distinct
/// failures. No wait ends early: there are no spurious wake-ups, and a
/// timed wait times out only when no other thread can run. A schedule that only reorders independent steps of one
/// already run (accesses to different atomics or cells, a memory access
/// and a lock) is skipped. Meant for small tests: the schedules still grow
/// exponentially with their length.
///
/// # Panics
/// When the test is not a function of its schedule (it reads the clock,
/// `std::sync` or a value kept between runs): a replayed prefix then
/// offers other threads than the first time.
pub fn explore<F>(test: F, max_schedules: u64, max_steps: u64) -> Explored
where
    F: Fn() + Send + Sync + 'static,
{
    let test: crate::executor::Test = Arc::new(test);
    let mut session = Session::new();
    let mut failures = BTreeSet::new();
    let mut path: Vec<Node> = Vec::new();
    let mut schedules = 0;
    loop {
        if schedules == max_schedules {
            return Explored {
                failures,
                schedules,
                complete: false,
            };
        }
        let config = RunConfig {
            tracking: Tracking::All,
            max_steps,
            trace: false,
            // No wait ends early: the run is a function of its schedule.
            wakes: WakeChoices::Replay(Vec::new()),
        };
        let (result, dfs) = session.run(&test, Depth::new(path), config);
        schedules += 1;
        if let Some(failure) = result.failure {
            failures.insert(reached(&failure));
        }
        path = dfs.path;
        if !backtrack(&mut path) {
            return Explored {
                failures,
                schedules,
                complete: true,
            };
        }
    }
}

fn reached(failure: &Failure) -> Reached {
    if failure.kind == FailureKind::Diverged {
        panic!(
            "rankcheck::explore: the test took other decisions on the same schedule \
             (does it read the clock, use std::sync or keep a value between runs?)"
        );
    }
    let mut blocked: Vec<(String, u32)> = failure
        .blocked
        .iter()
        .map(|b| (b.at.file.clone(), b.at.line))
        .collect();
    blocked.sort_unstable();
    Reached {
        kind: failure.kind.name(),
        message: failure.message.clone(),
        file: failure.location.as_ref().map(|at| at.file.clone()),
        line: failure.location.as_ref().map(|at| at.line),
        blocked,
    }
}

/// A scheduling point on the path of the depth-first search.
struct Node {
    /// The threads that could run, sorted, with what each was about to do.
    enabled: Vec<(ThreadId, Next)>,
    /// The threads asleep here: exploring them would only reorder
    /// independent steps of schedules already run.
    asleep: Vec<(ThreadId, Next)>,
    /// The threads already explored from here.
    done: Vec<ThreadId>,
    /// The thread the current run takes here.
    chosen: ThreadId,
}

impl Node {
    /// The first thread that can run here, is not asleep and was not
    /// explored yet.
    fn untried(&self) -> Option<ThreadId> {
        self.enabled
            .iter()
            .map(|(t, _)| *t)
            .find(|t| !self.done.contains(t) && !self.asleep.iter().any(|(a, _)| a == t))
    }

    fn next(&self, thread: ThreadId) -> Next {
        self.enabled
            .iter()
            .find(|(t, _)| *t == thread)
            .map_or(Next::Unknown, |(_, n)| *n)
    }

    /// The sleep set after this node's choice: the threads asleep or
    /// explored here whose next step is independent of the choice's.
    fn asleep_after(&self) -> Vec<(ThreadId, Next)> {
        let step = self.next(self.chosen);
        let explored = self.done.iter().map(|t| (*t, self.next(*t)));
        self.asleep
            .iter()
            .copied()
            .chain(explored)
            .filter(|(t, n)| *t != self.chosen && n.commutes_with(step))
            .collect()
    }
}

/// What a thread's next step touches, as far as the search knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Not known: it conflicts with every step.
    Unknown,
    /// A synchronisation operation on an object (a mutex, a condition
    /// variable...).
    Sync,
    /// A synchronisation operation on no object of the registry (spawn,
    /// join, yield, park, a thread's end).
    Thread,
    /// An access to this object's memory.
    Memory {
        /// The object.
        object: u32,
        /// Whether it writes.
        write: bool,
    },
}

impl Next {
    /// What `pending` says a thread is about to do.
    fn of(pending: &Pending) -> Next {
        match pending.location {
            Some(Place::Slot(object)) => Next::Memory {
                object,
                write: pending.write,
            },
            Some(Place::Mutex(_) | Place::Cond(_)) => Next::Sync,
            // Not an object of the runtime's.
            Some(Place::Global(_)) => Next::Unknown,
            None => Next::Thread,
        }
    }

    /// Whether two threads' steps doing `self` and `other` commute (and
    /// neither enables or disables the other).
    fn commutes_with(self, other: Next) -> bool {
        match (self, other) {
            (Next::Unknown, _) | (_, Next::Unknown) => false,
            (
                Next::Memory {
                    object: a,
                    write: x,
                },
                Next::Memory {
                    object: b,
                    write: y,
                },
            ) => a != b || !(x || y),
            (Next::Memory { .. }, _) | (_, Next::Memory { .. }) => true,
            // A wait names its condition variable, not the mutex it
            // releases: synchronisation operations never commute.
            (Next::Sync, Next::Sync) | (Next::Thread, Next::Thread) => false,
            (Next::Sync, Next::Thread) | (Next::Thread, Next::Sync) => true,
        }
    }
}

/// Move the path to the next schedule: the last node with an untried
/// thread takes it, the nodes below it go. `false` when none is left.
fn backtrack(path: &mut Vec<Node>) -> bool {
    while let Some(node) = path.last_mut() {
        node.done.push(node.chosen);
        if let Some(next) = node.untried() {
            node.chosen = next;
            return true;
        }
        path.pop();
    }
    false
}

/// One run of the search: the path's choices, then new nodes, until every
/// thread that can run is asleep (the rest of the run only reorders what
/// ran already: it takes the first thread, and adds no node).
struct Depth {
    path: Vec<Node>,
    /// The threads whose pending operation is trusted: chosen before, and
    /// able to run at every point since.
    trusted: Vec<ThreadId>,
    /// The points passed.
    point: usize,
    /// Whether the run went past a point where every thread was asleep.
    redundant: bool,
}

impl Depth {
    fn new(path: Vec<Node>) -> Depth {
        Depth {
            path,
            trusted: Vec::new(),
            point: 0,
            redundant: false,
        }
    }
}

impl Depth {
    /// The choice at the `index`-th point: the path's, or a new node's.
    fn choice(&mut self, index: usize, point: &Point<'_>) -> ThreadId {
        if let Some(node) = self.path.get(index) {
            // A thread the point does not offer makes the run diverge,
            // which `reached` reports.
            return node.chosen;
        }
        if self.redundant {
            return point.enabled[0];
        }
        let mut enabled: Vec<(ThreadId, Next)> = point
            .enabled
            .iter()
            .map(|t| match (self.trusted.contains(t), point.pending(*t)) {
                (true, Some(pending)) => (*t, Next::of(pending)),
                _ => (*t, Next::Unknown),
            })
            .collect();
        enabled.sort_unstable_by_key(|(t, _)| *t);
        let asleep: Vec<(ThreadId, Next)> = match self.path.last() {
            None => Vec::new(),
            Some(parent) => parent
                .asleep_after()
                .into_iter()
                .filter(|(t, _)| point.is_enabled(*t))
                .collect(),
        };
        let mut node = Node {
            enabled,
            asleep,
            done: Vec::new(),
            chosen: ThreadId(0),
        };
        match node.untried() {
            Some(chosen) => {
                node.chosen = chosen;
                self.path.push(node);
                chosen
            }
            None => {
                // No thread that can run here is awake: the rest of the
                // run only reorders what ran already (ending it here would
                // cost more, in unwinding its threads, than finishing it).
                self.redundant = true;
                node.enabled[0].0
            }
        }
    }
}

impl Scheduler for Depth {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        let index = self.point;
        self.point += 1;
        self.trusted.retain(|t| point.is_enabled(*t));
        let chosen = self.choice(index, point);
        if !self.trusted.contains(&chosen) {
            self.trusted.push(chosen);
        }
        chosen
    }

    fn wants_pending(&self) -> bool {
        true
    }
}
