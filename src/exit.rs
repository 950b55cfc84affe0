//! The exit statuses every command uses (`docs/guide/src/exit-status.md`).

use std::process::ExitCode;

/// How a command ended, as its exit status says. Ordered by precedence
/// when several programs are checked: the worst one is the status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// 0: nothing failed, and the work asked for was done.
    Clean,
    /// 3: stopped before the end it aimed for, without a failure: an
    /// interruption, or an exploration that reached `--max-schedules` or
    /// `--max-memory`. What was done is reported, and holds.
    Incomplete,
    /// 1: a failure was found (or replayed).
    Failure,
    /// 2: a usage or input error.
    Usage,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> ExitCode {
        ExitCode::from(match status {
            Status::Clean => 0,
            Status::Failure => 1,
            Status::Usage => 2,
            Status::Incomplete => 3,
        })
    }
}
