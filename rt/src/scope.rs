//! Scoped threads, as `std::thread::scope`: threads that borrow from the
//! spawning thread's stack, all joined before `scope` returns.
//!
//! A scoped thread's body borrows for `'scope`, but the executor keeps
//! bodies as `'static` jobs; erasing that lifetime is this module's one
//! piece of unsafe code. It is sound because a scoped thread never outlives
//! the frame it borrows from, also when a run ends early:
//!
//! - `scope` returns, or lets a panic of its closure go on unwinding, only
//!   after every thread spawned in it finished (as std's);
//! - when a run fails elsewhere (a deadlock, the step limit, a panic
//!   nothing takes), the executor's teardown leaks what the stopped
//!   threads hold, frames included, so nothing borrowed is dropped; past
//!   its leak budget it drops bodies that never started, then unwinds the
//!   stopped threads newest first, so a scoped thread (always newer than
//!   the thread that spawned it) is unwound before the frames it borrows
//!   from.
#![allow(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::Mutex as StdMutex;

use crate::executor;
use crate::op;
use crate::thread::{JoinHandle, Result, Thread};

/// A scope to spawn scoped threads in, as `std::thread::Scope`.
pub struct Scope<'scope, 'env: 'scope> {
    /// The threads spawned in it, all joined at its end. Only the
    /// coroutines of one OS thread touch it, so the lock is never
    /// contended; it makes the scope `Sync`, as std's is.
    spawned: StdMutex<Vec<rankcheck_engine::ThreadId>>,
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

impl fmt::Debug for Scope<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

/// An owned permission to join a scoped thread, as
/// `std::thread::ScopedJoinHandle`.
pub struct ScopedJoinHandle<'scope, T> {
    inner: JoinHandle<T>,
    scope: PhantomData<&'scope ()>,
}

impl<T> fmt::Debug for ScopedJoinHandle<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopedJoinHandle").finish_non_exhaustive()
    }
}

impl<T> ScopedJoinHandle<'_, T> {
    /// Wait for the thread to finish and take what it returned: a
    /// synchronisation operation, a scheduling point.
    #[track_caller]
    pub fn join(self) -> Result<T> {
        self.inner.join_at(Location::caller())
    }

    /// The thread.
    pub fn thread(&self) -> &Thread {
        self.inner.thread()
    }

    /// Whether the thread finished.
    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}

/// Run `f` with a scope in which threads borrowing from the caller's stack
/// can be spawned, as `std::thread::scope`: every thread spawned in it is
/// joined before `scope` returns (each join a scheduling point). As std's,
/// a scoped thread's panic is its handle's `join`'s `Err`, and one that no
/// join took makes `scope` panic once all are joined; a panic in `f`
/// fails the run.
#[track_caller]
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
{
    let site = Location::caller();
    let scope = Scope {
        spawned: StdMutex::new(Vec::new()),
        scope: PhantomData,
        env: PhantomData,
    };
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| f(&scope)));
    if outcome.is_err() && !executor::active() {
        // The teardown unwinds this thread; the scoped ones went first.
        if let Err(payload) = outcome {
            panic::resume_unwind(payload);
        }
    }
    let spawned = std::mem::take(&mut *scope.spawned.lock().unwrap_or_else(|p| p.into_inner()));
    for &thread in &spawned {
        op::join(thread, site);
    }
    // As std's: the closure's panic goes on once all are joined, and a
    // scoped thread's panic that no join took is the scope's.
    let value = match outcome {
        Ok(value) => value,
        Err(payload) => panic::resume_unwind(payload),
    };
    let mut panicked = false;
    for thread in spawned {
        panicked |= executor::take_undelivered_panic(thread);
    }
    if panicked {
        panic!("a scoped thread panicked");
    }
    value
}

impl<'scope> Scope<'scope, '_> {
    /// Spawn a scoped thread, as `std::thread::Scope::spawn`: a
    /// synchronisation operation, a scheduling point.
    #[track_caller]
    pub fn spawn<F, T>(&'scope self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.spawn_named(f, None, Location::caller())
    }

    /// Spawn a scoped thread named `name` (`thread::Builder::spawn_scoped`).
    pub(crate) fn spawn_named<F, T>(
        &'scope self,
        f: F,
        name: Option<String>,
        site: op::Site,
    ) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let (job, result) = crate::thread::body::<'scope, F, T>(f);
        // SAFETY: the job borrows for 'scope; the module's doc says why it
        // never runs, nor is dropped, after 'scope ends: `scope` joins it
        // before returning, and a run that ends early drops unstarted jobs
        // and unwinds scoped threads before the spawning thread's frames.
        let job: Box<dyn FnOnce() + 'static> = unsafe {
            std::mem::transmute::<Box<dyn FnOnce() + 'scope>, Box<dyn FnOnce() + 'static>>(job)
        };
        let id = op::spawn(job, name, site);
        self.spawned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(id);
        ScopedJoinHandle {
            inner: JoinHandle::from_parts(id, result),
            scope: PhantomData,
        }
    }
}
