//! How an execution fails: the public [`Failure`] a test compares, and the
//! internal [`Fault`] a thread raises before its id is attached.

/// The kinds of failure of docs/LANGUAGE.md "Failures".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// An `assert` was false.
    Assert,
    /// A run-time error.
    Error,
    /// Some thread has not finished and no thread can run.
    Deadlock,
    /// The execution took more operations than its limit.
    StepLimit,
}

/// One failure, located as docs/LANGUAGE.md and the VM locate it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Failure {
    /// What went wrong.
    pub kind: Kind,
    /// The failing thread; for a deadlock the lowest-id blocked thread.
    pub thread: u32,
    /// 1-based line of the failing statement or expression; for a deadlock
    /// the line of [`Failure::thread`]'s blocking operation.
    pub line: u32,
    /// The assert's message, for an assert that has one.
    pub message: Option<String>,
    /// For a deadlock, every unfinished thread with the line of its blocking
    /// operation, sorted; empty otherwise.
    pub blocked: Vec<(u32, u32)>,
}

impl Failure {
    /// A step-limit failure found at a scheduling point, before `thread`'s
    /// step: it has no line (0).
    pub fn step_limit(thread: u32) -> Failure {
        Failure {
            kind: Kind::StepLimit,
            thread,
            line: 0,
            message: None,
            blocked: Vec::new(),
        }
    }
}

/// A failure raised by a thread, before the thread's id is known to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// 1-based line of the failing statement or expression.
    pub line: u32,
}

/// What a [`Fault`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A false `assert`, with its message.
    Assert(Option<String>),
    /// A run-time error, with a description for people debugging the
    /// reference (the comparison with the VM does not use it).
    Error(String),
    /// The operation limit was reached.
    StepLimit,
}

impl Fault {
    /// A run-time error at `line`.
    pub fn error(line: u32, reason: impl Into<String>) -> Fault {
        Fault {
            kind: FaultKind::Error(reason.into()),
            line,
        }
    }

    /// The public failure, raised by `thread`.
    pub fn into_failure(self, thread: u32) -> Failure {
        let (kind, message) = match self.kind {
            FaultKind::Assert(message) => (Kind::Assert, message),
            FaultKind::Error(_) => (Kind::Error, None),
            FaultKind::StepLimit => (Kind::StepLimit, None),
        };
        Failure {
            kind,
            thread,
            line: self.line,
            message,
            blocked: Vec::new(),
        }
    }
}
