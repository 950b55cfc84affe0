//! The benchmark programs, each a shuttle test written to match a `.rk` file in `shared/examples/`.
//!
//! Every shared global of the `.rk` program is a `shuttle::sync::atomic::AtomicI64` used with
//! `SeqCst`, so that each read and each write is one scheduling point, as each is one step in
//! our engine; `x = x + 1` is a `load` then a `store`, never `fetch_add`, because in `.rk` it is
//! two steps and another thread may run between them.
//!
//! The `.rk` programs `fig02_c1v1` and `corner_variable` have no `main`: their threads are the
//! program's initial threads. A shuttle test has exactly one initial task, the test closure, so
//! here that closure spawns the threads (in source order) and joins them. That adds a main task
//! and its spawns, joins and exit, which shuttle schedules like any other step: see the README
//! for the step counts.

/// The message of the assertion in `corner_variable.rk`, which a found bug must carry.
pub const CORNER_VARIABLE_MESSAGE: &str = "cold changed between two reads";

/// `N` in `locked_counter_ok.rk`: the increments each of the three workers makes.
pub const LOCKED_COUNTER_TIMES: i64 = 3;

/// Increments each of the three threads of the mutex counter makes (issue 20: 3 threads x 5).
pub const MUTEX_COUNTER_TIMES: i64 = 5;

/// Yields each of the three tasks of the async program makes (issue 23: task switches).
pub const ASYNC_YIELDS: i64 = 5;

/// Whether a program checks its assertion or only makes the reads that feed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assertion {
    /// The assertion is checked: an execution that violates it fails.
    Checked,
    /// The reads are made but not compared, so that every execution runs to its end (used to
    /// count steps; the scheduling points are the same, since `assert` is not one).
    Skipped,
}

/// A benchmark program, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// `fig02_c1v1.rk` without its assertion.
    Fig02NoAssert,
    /// `locked_counter_ok.rk`, whose assertion never fails.
    LockedCounter,
    /// `locked_counter_ok.rk` written the idiomatic Rust way, the counter inside a
    /// `Mutex<i64>`: its read and write are no scheduling points, so fewer steps than the
    /// `.rk` program. Not the baseline; here to show what that choice costs.
    LockedCounterInner,
    /// Issue 20's mutex counter: three threads, five increments each of a `Mutex<i64>`.
    MutexCounter,
    /// Issue 20's two-thread atomic flag/data handoff.
    FlagHandoff,
    /// Issue 23's async task switches: three tasks, each five increments then a yield.
    AsyncYields,
    /// `corner_variable.rk` with `HOT = hot`.
    CornerVariable {
        /// The `.rk` constant `HOT`: each thread's increments of `hot`.
        hot: u32,
        /// Whether `assert(x == y, ...)` is checked.
        assertion: Assertion,
    },
}

impl Program {
    /// The program's name in CSV rows.
    pub fn name(self) -> &'static str {
        match self {
            Program::Fig02NoAssert => "fig02-noassert",
            Program::LockedCounter => "locked-counter",
            Program::LockedCounterInner => "locked-counter-inner",
            Program::MutexCounter => "mutex-counter",
            Program::FlagHandoff => "flag-handoff",
            Program::AsyncYields => "async-yields",
            Program::CornerVariable { .. } => "corner-variable",
        }
    }

    /// The shuttle test body: one call is one execution of the program.
    pub fn test(self) -> impl Fn() + Send + Sync + 'static {
        move || on_shuttle::run(self)
    }

    /// The same body on rankcheck-rt's types.
    pub fn rt_test(self) -> impl Fn() + Send + Sync + 'static {
        move || on_rankcheck::run(self)
    }
}

/// The bodies on shuttle's types.
mod on_shuttle {
    use super::{
        Assertion, Program, ASYNC_YIELDS, CORNER_VARIABLE_MESSAGE, LOCKED_COUNTER_TIMES,
        MUTEX_COUNTER_TIMES,
    };
    use shuttle::future;
    use shuttle::sync::atomic::{AtomicI64, Ordering::SeqCst};
    use shuttle::sync::Mutex;
    use shuttle::thread;
    use std::hint::black_box;
    use std::sync::Arc;

    include!("bodies.rs");
}

/// The very same bodies on rankcheck-rt's types (the `cfg` import swap a
/// user would make): both tools run identical Rust programs.
mod on_rankcheck {
    use super::{
        Assertion, Program, ASYNC_YIELDS, CORNER_VARIABLE_MESSAGE, LOCKED_COUNTER_TIMES,
        MUTEX_COUNTER_TIMES,
    };
    use rankcheck_rt::future;
    use rankcheck_rt::sync::atomic::{AtomicI64, Ordering::SeqCst};
    use rankcheck_rt::sync::{Arc, Mutex};
    use rankcheck_rt::thread;
    use std::hint::black_box;

    include!("bodies.rs");
}
