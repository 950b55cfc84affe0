//! What one execution ends with: a pass, or a bug with what it needs for a
//! report.

use crate::id::{ThreadId, VarId};
use crate::span::Span;

/// How an execution ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every thread finished and nothing failed.
    Pass {
        /// Scheduling points passed.
        steps: u64,
    },
    /// The execution failed.
    Bug(Bug),
    /// The scheduler chose a thread that could not run: a replayed schedule
    /// that does not fit the program.
    Diverged {
        /// The scheduling point where it happened.
        step: u64,
        /// The thread asked for.
        wanted: ThreadId,
        /// The threads that could have run.
        enabled: Vec<ThreadId>,
    },
}

/// The kinds of failure (docs/LANGUAGE.md, Failures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BugKind {
    /// An `assert` was false.
    Assert,
    /// A run-time error: wrong type, overflow, division by zero, null or
    /// out-of-bounds access, unlock of a mutex not held, blocking inside
    /// `atomic`, call stack or heap exhausted.
    Error,
    /// Some thread has not finished and none can run.
    Deadlock,
    /// The execution took more steps than its limit: possible
    /// non-termination, reported apart from the other kinds.
    StepLimit,
}

impl BugKind {
    /// The name used in reports, JSON and example headers.
    pub fn name(self) -> &'static str {
        match self {
            BugKind::Assert => "assert",
            BugKind::Error => "error",
            BugKind::Deadlock => "deadlock",
            BugKind::StepLimit => "step-limit",
        }
    }
}

/// A failed execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bug {
    /// What kind of failure.
    pub kind: BugKind,
    /// The assertion's message, the error's description, or a summary.
    pub message: String,
    /// Where it happened: the assertion, the failing expression, or for a
    /// deadlock the first blocked thread's blocking operation.
    pub span: Span,
    /// The thread that failed (for a deadlock, the first blocked thread).
    pub thread: ThreadId,
    /// That thread's name.
    pub thread_name: String,
    /// For a deadlock: every thread that has not finished and what it waits
    /// on.
    pub blocked: Vec<BlockedThread>,
    /// Scheduling points passed before the failure.
    pub steps: u64,
}

/// A thread stuck in a deadlock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedThread {
    /// The thread.
    pub thread: ThreadId,
    /// Its name.
    pub name: String,
    /// What it waits on.
    pub waits_on: WaitsOn,
    /// The blocking operation.
    pub span: Span,
}

/// What a blocked thread waits on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitsOn {
    /// A mutex, and the thread holding it (possibly itself).
    Mutex {
        /// The mutex's variable.
        var: VarId,
        /// Its name.
        name: String,
        /// Who holds it.
        holder: Option<(ThreadId, String)>,
    },
    /// A signal on a condition variable.
    Cond {
        /// The condition variable's variable.
        var: VarId,
        /// Its name.
        name: String,
    },
    /// Another thread's end.
    Join {
        /// The thread joined.
        thread: ThreadId,
        /// Its name.
        name: String,
    },
    /// An `await` condition that is false.
    Await,
}

impl std::fmt::Display for WaitsOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WaitsOn::Mutex {
                name,
                holder: Some((_, holder)),
                ..
            } => {
                write!(f, "mutex `{name}`, held by {holder}")
            }
            WaitsOn::Mutex {
                name, holder: None, ..
            } => write!(f, "mutex `{name}`"),
            WaitsOn::Cond { name, .. } => write!(f, "a signal on `{name}`"),
            WaitsOn::Join { name, .. } => write!(f, "thread {name} to finish"),
            WaitsOn::Await => write!(f, "its `await` condition to become true"),
        }
    }
}
