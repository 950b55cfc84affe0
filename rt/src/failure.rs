//! How an execution fails: a panic in any thread, a deadlock, the step
//! limit; and what a report says about each.

use std::fmt;
use std::panic::Location;

use rankcheck_engine::ThreadId;

use crate::executor::threads::Wait;
use crate::executor::Execution;
use crate::var::short_file;

/// What kind of failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// A thread panicked (an assertion, an `unwrap`, an index out of
    /// bounds...).
    Panic,
    /// Some thread has not finished and none can run.
    Deadlock,
    /// The run took more operations than its limit: possible
    /// non-termination.
    StepLimit,
    /// A replay string's choice could not run: it belongs to another test.
    Diverged,
}

impl FailureKind {
    /// The name reports use, as the CLI's `error[KIND]`.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Deadlock => "deadlock",
            FailureKind::StepLimit => "step-limit",
            FailureKind::Diverged => "diverged",
        }
    }
}

/// A place in the test's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    /// The file, as the compiler names it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl From<&Location<'_>> for SourceLocation {
    fn from(location: &Location<'_>) -> SourceLocation {
        SourceLocation {
            file: location.file().to_owned(),
            line: location.line(),
            column: location.column(),
        }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A thread blocked at a deadlock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// Its name.
    pub thread: String,
    /// What it waits for, in words.
    pub waits_for: String,
    /// The operation that blocked it.
    pub at: SourceLocation,
    /// Its id in the run.
    pub id: ThreadId,
}

/// A failed execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind.
    pub kind: FailureKind,
    /// The panic's message, or what went wrong.
    pub message: String,
    /// Where: the panic, the first blocked operation, the last operation.
    pub location: Option<SourceLocation>,
    /// The failing thread (for a deadlock, the first blocked one).
    pub thread: String,
    /// For a deadlock: every blocked thread.
    pub blocked: Vec<Blocked>,
}

/// What `wait` waits for, in words, naming objects by their variables.
pub fn describe_wait(wait: Wait, waiting: ThreadId, ex: &Execution) -> String {
    let name = |object: crate::object::ObjectId| {
        let var = ex.objects[object.index()].var;
        ex.registry.name_of(var).to_owned()
    };
    match wait {
        Wait::Lock(m) => format!("waits for {} (held by {})", name(m), holder(ex, m, waiting)),
        Wait::ReadLock(m) => format!("waits to read-lock {}", name(m)),
        Wait::WriteLock(m) => format!("waits to write-lock {}", name(m)),
        Wait::Condvar {
            condvar,
            mutex,
            since,
            ..
        } if ex.objects[condvar.index()].sync.notified_since(since) => format!(
            "was notified on {}, waits for {} (held by {})",
            name(condvar),
            name(mutex),
            holder(ex, mutex, waiting)
        ),
        Wait::Condvar { condvar, .. } => format!("waits on {}, never notified", name(condvar)),
        Wait::Join(t) => format!("waits to join {}", ex.threads.name(t)),
        Wait::Park { .. } => "waits to be unparked (thread::park)".to_owned(),
        Wait::Barrier(b) => format!("waits at {}", name(b)),
        Wait::Recv { channel, .. } => format!("waits to receive on {}", name(channel)),
        Wait::Send(c) => format!("waits to send on {}", name(c)),
        Wait::Woken => crate::future::describe_wait(ex, waiting),
        Wait::Handoff { channel, .. } => {
            format!(
                "waits for a receiver to take its message on {}",
                name(channel)
            )
        }
    }
}

pub(crate) fn holder(ex: &Execution, mutex: crate::object::ObjectId, waiting: ThreadId) -> String {
    match ex.objects[mutex.index()].sync {
        crate::object::SyncState::Mutex { owner: Some(t) } if t == waiting => "itself".to_owned(),
        crate::object::SyncState::Mutex { owner: Some(t) } => ex.threads.name(t),
        _ => "nobody".to_owned(),
    }
}

impl Failure {
    /// The headline and location, as the CLI's report opens.
    pub fn head(&self) -> String {
        let mut out = format!("error[{}]: {}\n", self.kind.name(), self.message);
        if let (Some(at), false) = (&self.location, self.kind == FailureKind::Deadlock) {
            out.push_str(&format!(
                "   ┌─ {}\n   │ thread {} fails here ({}:{})\n",
                at,
                self.thread,
                short_file(&at.file),
                at.line
            ));
        }
        if let (Some(at), true) = (&self.location, self.kind == FailureKind::Deadlock) {
            out.push_str(&format!("   ┌─ {at}\n"));
        }
        for b in &self.blocked {
            out.push_str(&format!(
                "   │ thread {} {} at {}\n",
                b.thread, b.waits_for, b.at
            ));
        }
        out
    }
}
