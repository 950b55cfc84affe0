//! Drop-in replacements for `std::thread`: threads of a test run, each a
//! coroutine the scheduler switches between.

use std::fmt;
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex};

use crate::executor::{self, with};
use crate::footprint::Place;
pub use crate::local::{AccessError, LocalKey};
use crate::op;
pub use crate::scope::{scope, Scope, ScopedJoinHandle};
pub use give_way::give_way;
pub use spawn_local::spawn_local;

mod give_way;
mod spawn_local;

/// A thread's result, as `std::thread::Result`: `join` returns `Err` with
/// the panic's payload when the thread panicked, as std's. The run fails
/// with that panic unless the test takes it from `join` and goes on
/// without panicking itself.
pub type Result<T> = std::thread::Result<T>;

/// A thread's identifier within one run, as `std::thread::ThreadId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadId(rankcheck_engine::ThreadId);

/// A handle to a thread, as `std::thread::Thread`.
#[derive(Clone, Debug)]
pub struct Thread {
    id: ThreadId,
    name: Option<String>,
}

impl Thread {
    /// The thread's identifier.
    pub fn id(&self) -> ThreadId {
        self.id
    }

    /// Set the thread's park token, waking it if it is parked, as
    /// `std::thread::Thread::unpark`: a synchronisation operation, a
    /// scheduling point.
    #[track_caller]
    pub fn unpark(&self) {
        op::unpark(self.id.0, Location::caller());
    }

    /// The thread's name, as std's: the name given to [`Builder::name`],
    /// `main` for the test's own thread, else `None`. (Reports call a
    /// thread `NAME#k` or `thread@LINE#k`, numbered to tell apart threads
    /// of one name.)
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The handle of thread `id` of the running execution.
    fn of(id: rankcheck_engine::ThreadId) -> Thread {
        with(|ex| Thread {
            id: ThreadId(id),
            name: ex.threads.given_name(id),
        })
    }
}

/// An owned permission to join a thread, as `std::thread::JoinHandle`.
pub struct JoinHandle<T> {
    id: ThreadId,
    /// Made when asked for: most handles are only joined.
    thread: std::sync::OnceLock<Thread>,
    result: Slot<T>,
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("thread", &self.id)
            .finish_non_exhaustive()
    }
}

impl<T> JoinHandle<T> {
    /// Wait for the thread to finish and take what it returned: a
    /// synchronisation operation, a scheduling point.
    #[track_caller]
    pub fn join(self) -> Result<T> {
        self.join_at(Location::caller())
    }

    /// A handle to the thread `id` whose body leaves its result in
    /// `result`.
    pub(crate) fn from_parts(id: rankcheck_engine::ThreadId, result: Slot<T>) -> JoinHandle<T> {
        JoinHandle {
            id: ThreadId(id),
            thread: std::sync::OnceLock::new(),
            result,
        }
    }

    /// `join`, called at `site`.
    pub(crate) fn join_at(self, site: op::Site) -> Result<T> {
        op::join(self.id.0, site);
        let value = self
            .result
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        match value {
            Some(Ok(value)) => Ok(value),
            Some(Err(payload)) => {
                executor::panic_delivered(self.id.0);
                Err(payload)
            }
            // Only reachable while the execution unwinds after a failure.
            None => Err(Box::new("rankcheck: the thread did not finish")),
        }
    }

    /// The thread.
    pub fn thread(&self) -> &Thread {
        self.thread.get_or_init(|| Thread::of(self.id.0))
    }

    /// Whether the thread finished.
    pub fn is_finished(&self) -> bool {
        with(|ex| {
            ex.touch(Place::End(self.id.0), false);
            ex.threads.get(self.id.0).status == executor::threads::Status::Finished
        })
    }
}

/// Spawn a thread of the test, as `std::thread::spawn`: a synchronisation
/// operation, a scheduling point.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_named(f, None, Location::caller())
}

fn spawn_named<F, T>(f: F, name: Option<String>, site: op::Site) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (job, result) = body(f);
    let id = op::spawn(job, name, site);
    JoinHandle::from_parts(id, result)
}

/// Where a thread's body leaves its result for `join`.
pub(crate) type Slot<T> = Arc<StdMutex<Option<Result<T>>>>;

/// The body a thread runs for `f`, and where it leaves `f`'s result: a
/// panic is the result, for `join` to deliver. (`'a`: a scoped thread's
/// body borrows. Nothing here needs `Send`: every thread of a test runs on
/// its one OS thread; the public spawns ask for it as std's do, but
/// [`spawn_local`].)
pub(crate) fn body<'a, F, T>(f: F) -> (Box<dyn FnOnce() + 'a>, Slot<T>)
where
    F: FnOnce() -> T + 'a,
    T: 'a,
{
    let result: Slot<T> = Arc::new(StdMutex::new(None));
    let slot = result.clone();
    let job = Box::new(move || {
        let value = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .map_err(executor::thread_panicked);
        *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(value);
    });
    (job, result)
}

/// Thread factory, as `std::thread::Builder`: only the name is used.
#[derive(Debug, Default)]
pub struct Builder {
    name: Option<String>,
}

impl Builder {
    /// A builder with no name.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Name the thread: [`Thread::name`] returns it, reports call it
    /// `NAME#k`.
    pub fn name(mut self, name: String) -> Builder {
        self.name = Some(name);
        self
    }

    /// Accepted and ignored: every thread runs on a coroutine stack.
    pub fn stack_size(self, _size: usize) -> Builder {
        self
    }

    /// Spawn the thread; never fails.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> std::io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        Ok(spawn_named(f, self.name, Location::caller()))
    }

    /// Spawn a scoped thread in `scope`, as std's; never fails.
    #[track_caller]
    pub fn spawn_scoped<'scope, 'env, F, T>(
        self,
        scope: &'scope Scope<'scope, 'env>,
        f: F,
    ) -> std::io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        Ok(scope.spawn_named(f, self.name, Location::caller()))
    }
}

/// Let another thread run, as `std::thread::yield_now`: a scheduling point.
/// A spin loop must call it (or block): otherwise a scheduler that keeps the
/// spinning thread running never lets the thread it waits for go on, and
/// the run ends at the step limit. Under the priority strategies a yield
/// gives way at once: the thread drops below every other.
#[track_caller]
pub fn yield_now() {
    op::yield_now(Location::caller());
}

/// Sleeping is yielding: time does not pass in a test run.
#[track_caller]
pub fn sleep(_duration: std::time::Duration) {
    op::yield_now(Location::caller());
}

/// Block until the running thread's park token is set, then take it, as
/// `std::thread::park`; returns at once if an unpark came first. As std's,
/// it may also return without an unpark (a spurious wake-up, a scheduling
/// choice: `Builder::spurious_wakeups`).
#[track_caller]
pub fn park() {
    op::park(false, Location::caller());
}

/// As `std::thread::park_timeout`: takes the park token if it is set, and
/// otherwise blocks until an unpark or the timeout. Whether the timeout
/// fires is a scheduling choice (`Builder::timeouts`), and it fires
/// whenever no other thread can run; the duration is not used.
#[track_caller]
pub fn park_timeout(_timeout: std::time::Duration) {
    op::park(true, Location::caller());
}

/// The running thread, as `std::thread::current`.
pub fn current() -> Thread {
    Thread::of(with(|ex| ex.current))
}
