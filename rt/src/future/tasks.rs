//! The async side of each thread of one execution: whether its waker was
//! woken since it was last polled, what its future last awaited (for a
//! deadlock's report), and its armed timers (a task with one waits with a
//! timeout: when no thread can run, time passes and its timers fire).

use rankcheck_engine::ThreadId;

use super::clock::Clock;
use super::Flavor;
use crate::executor::threads::Status;
use crate::executor::Execution;
use crate::object::{ObjectId, SyncState};
use crate::op::Site;
use crate::var::short_file;

/// What a task's future waits for, as its last poll left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Awaited {
    /// An object of the async runtime, with what it wants of it
    /// (`"to lock"`, `"to receive on"`).
    Object(ObjectId, &'static str),
    /// The end of another task (its `JoinHandle`).
    Task(ThreadId),
}

/// One thread's async state.
#[derive(Clone, Copy, Debug, Default)]
struct TaskState {
    /// Its waker was woken since its future last returned `Pending`.
    woken: bool,
    /// What its future awaited at its last poll, and where.
    awaiting: Option<(Awaited, Site)>,
    /// Timers armed by its futures and not fired or dropped.
    timers: u32,
    /// How many times time passed for it (its armed timers fired).
    epoch: u64,
}

/// The async state of every thread of an execution, by [`ThreadId`], and
/// the run's clock.
#[derive(Debug, Default)]
pub struct Tasks {
    all: Vec<TaskState>,
    /// The run's virtual clock and its timers.
    pub clock: Clock,
    /// How the run's runtime shares its thread among tasks.
    pub flavor: Flavor,
}

impl Tasks {
    /// Forget every thread's state and the clock, for the next run
    /// (keeping the memory).
    pub fn clear(&mut self) {
        self.all.clear();
        self.clock.clear();
        self.flavor = Flavor::default();
    }

    fn get(&self, thread: ThreadId) -> TaskState {
        self.all.get(thread.index()).copied().unwrap_or_default()
    }

    fn get_mut(&mut self, thread: ThreadId) -> &mut TaskState {
        if self.all.len() <= thread.index() {
            self.all.resize(thread.index() + 1, TaskState::default());
        }
        &mut self.all[thread.index()]
    }

    /// Whether `thread`'s waker was woken since its last `Pending`.
    pub fn woken(&self, thread: ThreadId) -> bool {
        self.get(thread).woken
    }

    /// Whether `thread`'s waker was woken; clears it.
    pub fn take_woken(&mut self, thread: ThreadId) -> bool {
        std::mem::take(&mut self.get_mut(thread).woken)
    }

    /// `thread`'s waker is woken.
    pub fn wake(&mut self, thread: ThreadId) {
        self.get_mut(thread).woken = true;
    }

    /// `thread` goes on after its future's `Pending`: what it awaits is
    /// what its next poll registers.
    pub fn polled(&mut self, thread: ThreadId) {
        self.get_mut(thread).awaiting = None;
    }

    /// `thread`'s future awaits `awaited`, polled at `site`.
    pub fn awaits(&mut self, thread: ThreadId, awaited: Awaited, site: Site) {
        self.get_mut(thread).awaiting = Some((awaited, site));
    }

    /// Where `thread`'s future last awaited something of the runtime's.
    pub fn polled_at(&self, thread: ThreadId) -> Option<Site> {
        self.get(thread).awaiting.map(|(_, site)| site)
    }

    /// Whether `thread` has a timer armed: its wait has a timeout.
    pub fn timed(&self, thread: ThreadId) -> bool {
        self.get(thread).timers > 0
    }

    /// A timer of `thread` is armed (`true`) or fired or dropped.
    pub fn arm(&mut self, thread: ThreadId, armed: bool) {
        let state = self.get_mut(thread);
        if armed {
            state.timers += 1;
        } else {
            state.timers = state.timers.saturating_sub(1);
        }
    }

    /// How many times time passed for `thread`.
    pub fn epoch(&self, thread: ThreadId) -> u64 {
        self.get(thread).epoch
    }

    /// No thread could run and `thread` waited with a timer: time passes
    /// for it, its armed timers fire.
    pub fn time_passes(&mut self, thread: ThreadId) {
        self.get_mut(thread).epoch += 1;
    }
}

/// What a thread blocked waiting to be woken waits for, in words:
/// `waits to be woken; last polled at lock.rs:27 (awaits to lock
/// Mutex@12:16, held by task@20#1)`.
pub fn describe_wait(ex: &Execution, waiting: ThreadId) -> String {
    let at = match ex.threads.get(waiting).status {
        Status::Blocked { at, .. } => format!("{}:{}", short_file(at.file()), at.line()),
        _ => String::new(),
    };
    let head = format!("waits to be woken; last polled at {at}");
    match ex.tasks.get(waiting).awaiting {
        None => head,
        Some((Awaited::Task(task), _)) => {
            format!("{head} (awaits the end of {})", ex.threads.name(task))
        }
        Some((Awaited::Object(object, what), _)) => {
            let name = ex.registry.name_of(ex.objects[object.index()].var);
            match ex.objects[object.index()].sync {
                SyncState::Mutex { .. } => format!(
                    "{head} (awaits {what} {name}, held by {})",
                    crate::failure::holder(ex, object, waiting)
                ),
                _ => format!("{head} (awaits {what} {name})"),
            }
        }
    }
}
