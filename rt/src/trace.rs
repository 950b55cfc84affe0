//! The interleaving of a failing run, as its rerun records it: one step per
//! scheduling point, each with its thread, the operation that ended it
//! (with the caller's source location) and every variable it touched.

use std::panic::Location;

use rankcheck_engine::{ThreadId, VarId};

use crate::object::{Handle, ObjectId};

/// An operation as the trace shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// A read or write of plain memory.
    Access {
        /// The object.
        object: ObjectId,
        /// Whether it wrote.
        write: bool,
    },
    /// A mutex lock (taken, or tried).
    Lock(ObjectId),
    /// A mutex or `RwLock` unlock.
    Unlock(ObjectId),
    /// A read (`false`) or write lock of a `RwLock`.
    RwLock(ObjectId, bool),
    /// A condition variable wait.
    Wait(ObjectId),
    /// Woken from a wait, the mutex taken back.
    Woken(ObjectId),
    /// A wait ended without its event: on a condition variable or a
    /// channel (`None`: a park), by a timeout or spuriously.
    Early {
        /// What it waited on.
        object: Option<ObjectId>,
        /// Whether a timeout (else a spurious wake-up).
        timeout: bool,
    },
    /// `notify_one` (`false`) or `notify_all`.
    Notify(ObjectId, bool),
    /// A barrier wait.
    Barrier(ObjectId),
    /// A channel send.
    Send(ObjectId),
    /// A channel receive.
    Recv(ObjectId),
    /// A channel end dropped.
    Disconnect(ObjectId),
    /// A thread spawned.
    Spawn,
    /// A join.
    Join(ThreadId),
    /// `yield_now`.
    Yield,
    /// `thread::park`.
    Park,
    /// `Thread::unpark` of a thread.
    Unpark(ThreadId),
    /// The end of the thread.
    Finish,
    /// A task's future returned `Pending`: it waits to be woken (or goes
    /// on at once when it was woken meanwhile).
    Pending,
    /// `JoinHandle::abort` of a task.
    Abort(ThreadId),
    /// An async timer (`sleep`, `timeout`, `interval`) fires.
    TimerFires,
}

impl Operation {
    /// A read or write of `handle`'s object.
    pub fn access(handle: &Handle, write: bool) -> Operation {
        Operation::Access {
            object: handle.object,
            write,
        }
    }

    /// A wait on `object` that ended as `woken` without its event.
    pub fn early(object: Option<ObjectId>, woken: crate::wake::Woken) -> Operation {
        Operation::Early {
            object,
            timeout: woken == crate::wake::Woken::Timeout,
        }
    }

    /// The object it touches, and whether it changes it.
    pub fn touches(self) -> Option<(ObjectId, bool)> {
        match self {
            Operation::Access { object, write } => Some((object, write)),
            Operation::RwLock(o, write) => Some((o, write)),
            Operation::Early { object, .. } => object.map(|o| (o, true)),
            Operation::Lock(o)
            | Operation::Unlock(o)
            | Operation::Wait(o)
            | Operation::Woken(o)
            | Operation::Notify(o, _)
            | Operation::Barrier(o)
            | Operation::Send(o)
            | Operation::Recv(o)
            | Operation::Disconnect(o) => Some((o, true)),
            Operation::Spawn
            | Operation::Join(_)
            | Operation::Yield
            | Operation::Park
            | Operation::Unpark(_)
            | Operation::Finish
            | Operation::Pending
            | Operation::Abort(_)
            | Operation::TimerFires => None,
        }
    }
}

/// One step of the trace.
#[derive(Clone, Debug)]
pub struct Step {
    /// The thread that ran.
    pub thread: ThreadId,
    /// Its operations, in order, with where each was called.
    pub operations: Vec<(Operation, &'static Location<'static>)>,
    /// Whether it ended with the thread blocking.
    pub blocked: bool,
    /// Whether it ended the thread.
    pub finished: bool,
    /// Whether it was chosen away from a thread that could have gone on.
    pub switched: bool,
}

/// The steps of a run.
#[derive(Clone, Debug, Default)]
pub struct TraceLog {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Threads spawned, in order: which step spawned each.
    pub spawned: Vec<ThreadId>,
}

impl TraceLog {
    /// `chosen` runs next, after `last` (still able to run: `last_enabled`).
    pub fn chosen(&mut self, chosen: ThreadId, last: Option<ThreadId>, last_enabled: bool) {
        self.steps.push(Step {
            thread: chosen,
            operations: Vec::new(),
            blocked: false,
            finished: false,
            switched: last_enabled && last != Some(chosen),
        });
    }

    /// `thread` did `operation` at `site`.
    pub fn operation(
        &mut self,
        thread: ThreadId,
        operation: Operation,
        site: &'static Location<'static>,
    ) {
        if let Some(step) = self.steps.last_mut().filter(|s| s.thread == thread) {
            step.operations.push((operation, site));
        }
    }

    /// `thread` blocked at its last operation.
    pub fn blocked(&mut self, thread: ThreadId) {
        if let Some(step) = self.steps.last_mut().filter(|s| s.thread == thread) {
            step.blocked = true;
        }
    }

    /// `thread` finished.
    pub fn finished(&mut self, thread: ThreadId) {
        if let Some(step) = self.steps.last_mut().filter(|s| s.thread == thread) {
            step.finished = true;
        }
    }

    /// A thread was spawned.
    pub fn spawned(&mut self, child: ThreadId) {
        self.spawned.push(child);
    }
}

/// The variables a step touched: each with whether it was read, written.
pub fn touched(step: &Step, var_of: impl Fn(ObjectId) -> VarId) -> Vec<(VarId, bool, bool)> {
    let mut out: Vec<(VarId, bool, bool)> = Vec::new();
    for (operation, _) in &step.operations {
        let Some((object, write)) = operation.touches() else {
            continue;
        };
        let var = var_of(object);
        match out.iter_mut().find(|(v, _, _)| *v == var) {
            Some(entry) => {
                entry.1 |= !write;
                entry.2 |= write;
            }
            None => out.push((var, !write, write)),
        }
    }
    out
}
