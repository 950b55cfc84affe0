//! loom's `thread`: rankcheck-rt's threads, spawned without `Send` bounds
//! as loom's are (rankcheck-rt's `spawn_local`: every thread of a model
//! runs on its test's OS thread), and loom's yield (rankcheck-rt's
//! `give_way`).
//! The main thread is unnamed, as loom's.

use std::fmt;

pub use rankcheck_rt::thread::{park, AccessError, LocalKey, ThreadId};
pub use std::thread::panicking;

use crate::run;

/// A handle to a thread, as loom's `Thread`.
#[derive(Clone, Debug)]
pub struct Thread(rankcheck_rt::thread::Thread);

impl Thread {
    /// The thread's identifier.
    pub fn id(&self) -> ThreadId {
        self.0.id()
    }

    /// The name given to [`Builder::name`]; `None` for the model's main
    /// thread and unnamed threads, as loom's.
    pub fn name(&self) -> Option<&str> {
        if run::is_main(self.0.id()) {
            return None;
        }
        self.0.name()
    }

    /// Set the thread's park token, waking it if it parked.
    #[track_caller]
    pub fn unpark(&self) {
        self.0.unpark();
    }
}

/// An owned permission to join a thread, as loom's `JoinHandle`.
pub struct JoinHandle<T> {
    inner: rankcheck_rt::thread::JoinHandle<T>,
    thread: Thread,
}

impl<T> JoinHandle<T> {
    fn of(inner: rankcheck_rt::thread::JoinHandle<T>) -> JoinHandle<T> {
        let thread = Thread(inner.thread().clone());
        JoinHandle { inner, thread }
    }

    /// Wait for the thread to finish and take what it returned (`Err`:
    /// its panic).
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        self.inner.join()
    }

    /// The thread.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("thread", &self.thread)
            .finish_non_exhaustive()
    }
}

/// Spawn a thread of the model, as loom's `spawn`: no `Send` bound.
///
/// # Panics
/// When the execution would run more than `model::Builder::max_threads`
/// threads, as loom's.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    run::spawning();
    JoinHandle::of(rankcheck_rt::thread::spawn_local(f))
}

/// The running thread.
pub fn current() -> Thread {
    Thread(rankcheck_rt::thread::current())
}

/// A thread factory, as loom's `Builder`: the name is used, the stack
/// size accepted (every thread runs on a coroutine stack).
#[derive(Debug, Default)]
pub struct Builder {
    inner: rankcheck_rt::thread::Builder,
}

impl Builder {
    /// A builder with no name.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Name the thread.
    pub fn name(self, name: String) -> Builder {
        Builder {
            inner: self.inner.name(name),
        }
    }

    /// Accepted; the coroutine's stack is the runtime's.
    pub fn stack_size(self, size: usize) -> Builder {
        Builder {
            inner: self.inner.stack_size(size),
        }
    }

    /// Spawn the thread; never fails.
    ///
    /// # Panics
    /// As [`spawn`].
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> std::io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        run::spawning();
        self.inner.spawn(f).map(JoinHandle::of)
    }
}

/// Let another thread run, as loom's `yield_now`: the thread does not run
/// again until another has taken a step (or none can), and then reads no
/// store it read before the yield where a newer one exists, so that a spin
/// loop advances (rankcheck-rt's `thread::give_way`).
#[track_caller]
pub fn yield_now() {
    rankcheck_rt::thread::give_way();
}
