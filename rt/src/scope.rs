//! Scoped threads, as `std::thread::scope`: threads that borrow from the
//! spawning thread's stack, all joined before `scope` returns.
//!
//! A scoped thread's body borrows for `'scope`, but the executor keeps
//! bodies as `'static` jobs; erasing that lifetime is this module's one
//! piece of unsafe code. It is sound because a scoped thread never outlives
//! the frame it borrows from, also when a run ends early:
//!
//! - `scope` returns only after every thread spawned in it finished;
//! - a panic in the scope's closure fails the run, and `scope` then stops
//!   its thread right there (suspended, its frames and the borrowed data
//!   intact) instead of unwinding past the scope;
//! - the executor's teardown drops bodies that never started, then unwinds
//!   the stopped threads newest first, so a scoped thread (always newer
//!   than the thread that spawned it) is unwound before the frames it
//!   borrows from.
#![allow(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::{Arc, Mutex as StdMutex};

use crate::executor::{self, with};
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
/// joined before `scope` returns (each join a scheduling point). A panic
/// in `f` or in a scoped thread fails the run, as any panic does.
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
    let value = match outcome {
        Ok(value) => value,
        Err(payload) => stop_after_panic(payload),
    };
    let spawned = std::mem::take(&mut *scope.spawned.lock().unwrap_or_else(|p| p.into_inner()));
    for thread in spawned {
        op::join(thread, site);
    }
    value
}

/// `f` panicked while scoped threads may still borrow from the frames the
/// panic would unwind: fail the run with the panic, and stop this thread
/// here, its frames intact; the teardown unwinds the scoped threads first,
/// then this one.
fn stop_after_panic(payload: Box<dyn std::any::Any + Send>) -> ! {
    if !executor::active() {
        // Already winding down (the teardown unwinds this thread): go on.
        panic::resume_unwind(payload);
    }
    let running = with(|ex| ex.current);
    executor::fail_with_panic(running, payload.as_ref());
    executor::stop(running)
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
        let result = Arc::new(StdMutex::new(None));
        let slot = result.clone();
        let job: Box<dyn FnOnce() + 'scope> = Box::new(move || {
            let value = f();
            *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(value);
        });
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
