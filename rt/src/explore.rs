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
//!
//! Under weak memory ([`explore_memory`]) every read choice (which store a
//! load reads, whether a `compare_exchange_weak` fails spuriously) is a
//! node of the same path, and two memory accesses commute only when both
//! load (which store a load may read depends on what ran before it, also
//! on other atomics): every read of every schedule is enumerated, up to
//! reordering loads.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

use rankcheck_engine::{Location as Place, Pending, Point, Scheduler, ThreadId};

use crate::executor::{RunConfig, Session, Tracking};
use crate::failure::{Failure, FailureKind};
use crate::memory::choice::{ReadOracle, ReadPolicy};
use crate::memory::MemoryModel;
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
    explore_memory(test, max_schedules, max_steps, MemoryModel::Sc)
}

/// As [`explore`], under the memory model `model`: under
/// [`MemoryModel::Weak`] every read choice the model allows is explored
/// too, so the failures are those of every outcome the model reaches (a
/// litmus test's outcome set, when the test fails with its outcome).
///
/// # Panics
/// As [`explore`].
pub fn explore_memory<F>(
    test: F,
    max_schedules: u64,
    max_steps: u64,
    model: MemoryModel,
) -> Explored
where
    F: Fn() + Send + Sync + 'static,
{
    let test: crate::executor::Test = Arc::new(test);
    let mut session = Session::new();
    let mut failures = BTreeSet::new();
    let walk = Rc::new(RefCell::new(Walk::default()));
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
            memory: model,
            reads: ReadPolicy::Oracle(Rc::new(RefCell::new(Reads(walk.clone())))),
        };
        walk.borrow_mut().start();
        let depth = Depth::new(walk.clone(), model == MemoryModel::Weak);
        session
            .run(&test, depth, config)
            .0
            .failure
            .map(|f| failures.insert(reached(&f)));
        schedules += 1;
        if !backtrack(&mut walk.borrow_mut().path) {
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

/// A choice on the path of the depth-first search.
enum Node {
    /// A scheduling point.
    Thread(ThreadNode),
    /// A read choice under weak memory: `chosen` of `options` (0: the
    /// latest store).
    Read {
        /// The choices there are.
        options: usize,
        /// The one the current run takes.
        chosen: usize,
    },
}

/// A scheduling point on the path of the depth-first search.
struct ThreadNode {
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

impl ThreadNode {
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
    /// What `pending` says a thread is about to do (`weak`: under weak
    /// memory, where which stores a load may read depends on what ran
    /// before it on every atomic, through happens-before and the SeqCst
    /// order: every access is taken to touch one object, so that only two
    /// loads commute).
    fn of(pending: &Pending, weak: bool) -> Next {
        match pending.location {
            Some(Place::Slot(_)) if weak => Next::Memory {
                object: u32::MAX,
                write: pending.write,
            },
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
    while let Some(last) = path.last_mut() {
        match last {
            Node::Thread(node) => {
                node.done.push(node.chosen);
                if let Some(next) = node.untried() {
                    node.chosen = next;
                    return true;
                }
            }
            Node::Read { options, chosen } if *chosen + 1 < *options => {
                *chosen += 1;
                return true;
            }
            Node::Read { .. } => {}
        }
        path.pop();
    }
    false
}

/// The path of the search and how far the current run is along it,
/// shared by its scheduler and its read choices.
#[derive(Default)]
struct Walk {
    path: Vec<Node>,
    /// The choices the current run made so far.
    at: usize,
    /// Whether the run went past a point where every thread was asleep.
    redundant: bool,
}

impl Walk {
    /// A run starts along the path.
    fn start(&mut self) {
        self.at = 0;
        self.redundant = false;
    }
}

/// The read choices of a run of the search.
struct Reads(Rc<RefCell<Walk>>);

impl ReadOracle for Reads {
    fn choose(&mut self, options: usize) -> usize {
        let mut walk = self.0.borrow_mut();
        let index = walk.at;
        walk.at += 1;
        match walk.path.get(index) {
            Some(Node::Read { chosen, .. }) => *chosen.min(&(options - 1)),
            // A replayed prefix that reads where it scheduled: the test is
            // not a function of its choices; the scheduler reports it.
            Some(Node::Thread(_)) => 0,
            None if walk.redundant => 0,
            None => {
                walk.path.push(Node::Read { options, chosen: 0 });
                0
            }
        }
    }
}

/// One run of the search: the path's choices, then new nodes, until every
/// thread that can run is asleep (the rest of the run only reorders what
/// ran already: it takes the first thread, and adds no node).
struct Depth {
    walk: Rc<RefCell<Walk>>,
    /// The threads whose pending operation is trusted: chosen before, and
    /// able to run at every point since.
    trusted: Vec<ThreadId>,
    /// Whether memory is weak: memory accesses then conflict with every
    /// step.
    weak: bool,
}

impl Depth {
    fn new(walk: Rc<RefCell<Walk>>, weak: bool) -> Depth {
        Depth {
            walk,
            trusted: Vec::new(),
            weak,
        }
    }
}

impl Depth {
    /// The choice at the `index`-th point: the path's, or a new node's.
    fn choice(&mut self, point: &Point<'_>) -> ThreadId {
        let mut walk = self.walk.borrow_mut();
        let index = walk.at;
        walk.at += 1;
        match walk.path.get(index) {
            // A thread the point does not offer makes the run diverge,
            // which `reached` reports.
            Some(Node::Thread(node)) => return node.chosen,
            // A read choice where the run schedules: it diverged.
            Some(Node::Read { .. }) => return ThreadId(u32::MAX),
            None => {}
        }
        if walk.redundant {
            return point.enabled[0];
        }
        let mut enabled: Vec<(ThreadId, Next)> = point
            .enabled
            .iter()
            .map(|t| match (self.trusted.contains(t), point.pending(*t)) {
                (true, Some(pending)) => (*t, Next::of(pending, self.weak)),
                _ => (*t, Next::Unknown),
            })
            .collect();
        enabled.sort_unstable_by_key(|(t, _)| *t);
        let parent = walk.path.iter().rev().find_map(|n| match n {
            Node::Thread(node) => Some(node),
            Node::Read { .. } => None,
        });
        let asleep: Vec<(ThreadId, Next)> = match parent {
            None => Vec::new(),
            Some(parent) => parent
                .asleep_after()
                .into_iter()
                .filter(|(t, _)| point.is_enabled(*t))
                .collect(),
        };
        let mut node = ThreadNode {
            enabled,
            asleep,
            done: Vec::new(),
            chosen: ThreadId(0),
        };
        match node.untried() {
            Some(chosen) => {
                node.chosen = chosen;
                walk.path.push(Node::Thread(node));
                chosen
            }
            None => {
                // No thread that can run here is awake: the rest of the
                // run only reorders what ran already (ending it here would
                // cost more, in unwinding its threads, than finishing it).
                walk.redundant = true;
                node.enabled[0].0
            }
        }
    }
}

impl Scheduler for Depth {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        self.trusted.retain(|t| point.is_enabled(*t));
        let chosen = self.choice(point);
        if !self.trusted.contains(&chosen) {
            self.trusted.push(chosen);
        }
        chosen
    }

    fn wants_pending(&self) -> bool {
        true
    }
}
