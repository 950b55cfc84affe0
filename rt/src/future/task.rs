//! Tasks: each a thread of the test to the strategies, whose body polls its
//! future in a loop and, on `Pending`, waits to be woken (a wake that came
//! first is kept). `block_on` runs the same loop on the calling thread.

use std::any::Any;
use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, Location};
use std::pin::{pin, Pin};
use std::rc::Rc;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{Context, Poll, Wake, Waker};

use rankcheck_engine::{EventKind, ThreadId};

use crate::executor::foreign_wakes::ForeignWakes;
use crate::executor::threads::TaskFuture;
use crate::executor::{self, with};
use crate::op::{self, Site};
use crate::trace::Operation;

use super::lock;
use super::tasks::Awaited;

/// A thread's waker: waking it lets the thread's future be polled again.
/// Woken on an OS thread that does not run its execution (a `std::thread`
/// of the test), the wake is posted for the run to take.
struct ThreadWaker {
    execution: u64,
    thread: ThreadId,
    foreign: Arc<ForeignWakes>,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !op::wake(self.execution, self.thread) {
            self.foreign.post(self.execution, self.thread);
        }
    }
}

/// Poll a future on the running thread until it is ready (`poll` polls it
/// once), waiting to be woken after every `Pending` (`site`: where it is
/// polled, for reports); `None` once `aborted` says so, before a poll.
fn poll_loop<T>(
    mut poll: impl FnMut(&mut Context<'_>) -> Poll<T>,
    site: Site,
    aborted: impl Fn() -> bool,
) -> Option<T> {
    let (execution, thread) = executor::running();
    let foreign = with(|ex| ex.foreign.clone());
    let waker = Waker::from(Arc::new(ThreadWaker {
        execution,
        thread,
        foreign,
    }));
    let mut cx = Context::from_waker(&waker);
    loop {
        if aborted() {
            return None;
        }
        if let Poll::Ready(output) = poll(&mut cx) {
            return Some(output);
        }
        op::await_wake(site);
    }
}

/// One poll of the running task's future: the run waits for it to end
/// (`Threads::polling`). A poll that panics stays counted until the task
/// ends.
fn polled<T>(poll: impl FnOnce() -> Poll<T>) -> Poll<T> {
    let set = |polling| with(|ex| ex.threads.polling(ex.current, polling));
    set(true);
    let outcome = poll();
    set(false);
    outcome
}

/// A spawned task's future, on the heap and known to the execution
/// (`ThreadState::future`), so that the end of a run can drop it between
/// two polls without unwinding the task's stack (crate::executor's
/// teardown).
struct FutureSlot<F>(RefCell<Option<Pin<Box<F>>>>);

impl<F: Future> FutureSlot<F> {
    /// Poll the future once; `Pending` once it is gone (never, while the
    /// task runs: only the teardown takes it).
    fn poll(&self, cx: &mut Context<'_>) -> Poll<F::Output> {
        match self.0.borrow_mut().as_mut() {
            Some(future) => future.as_mut().poll(cx),
            None => Poll::Pending,
        }
    }
}

impl<F> TaskFuture for FutureSlot<F> {
    fn cancel(&self) -> bool {
        let Ok(mut future) = self.0.try_borrow_mut() else {
            return false;
        };
        let future = future.take();
        drop(future);
        true
    }
}

/// Run `future` to completion on the running thread (the test's, or any
/// thread of it), as `futures::executor::block_on`: between polls the
/// thread waits to be woken, and the other threads and tasks run.
#[track_caller]
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    poll_loop(|cx| future.as_mut().poll(cx), Location::caller(), || false)
        .unwrap_or_else(|| unreachable!("invariant: block_on is never aborted"))
}

/// Spawn a task that runs `future`, as `tokio::spawn`: a thread to the
/// strategies (named `task@LINE#k`), polled only when its waker is woken.
/// A synchronisation operation, a scheduling point. The task runs whether
/// or not the handle is kept; it is dropped unfinished when the test's
/// threads have all finished, as a runtime drops its tasks.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let site = Location::caller();
    let slot: Slot<F::Output> = Arc::new(StdMutex::new(TaskSlot::default()));
    let body = {
        let slot = slot.clone();
        move || {
            let aborted = || lock(&slot).aborted;
            let future = Rc::new(FutureSlot(RefCell::new(Some(Box::pin(future)))));
            with(|ex| {
                let running = ex.current;
                ex.threads.get_mut(running).future = Some(future.clone());
            });
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                poll_loop(|cx| polled(|| future.poll(cx)), site, aborted)
            }));
            // Done or panicked: the future goes now, as a runtime drops a
            // finished task's.
            if executor::active() {
                with(|ex| ex.threads.get_mut(ex.current).future = None);
            }
            drop(future);
            let result = match outcome {
                Ok(Some(output)) => Ok(output),
                Ok(None) => Err(JoinError::cancelled()),
                Err(payload) => Err(JoinError::panicked(executor::thread_panicked(payload))),
            };
            if executor::active() {
                with(|ex| {
                    let running = ex.current;
                    ex.touch(crate::footprint::Place::Everything, true);
                    ex.threads.exiting(running);
                });
            }
            let joiner = {
                let mut slot = lock(&slot);
                slot.result = Some(result);
                slot.joiner.take()
            };
            if let Some(joiner) = joiner {
                joiner.wake();
            }
        }
    };
    let thread = op::spawn_as(Box::new(body), None, true, site);
    JoinHandle {
        thread,
        execution: executor::running().0,
        site,
        slot,
    }
}

/// Let the other tasks and threads run, as `tokio::task::yield_now`: the
/// task wakes itself and returns `Pending` once, a scheduling point (a
/// yield, which the priority strategies treat as a thread's yield).
pub async fn yield_now() {
    YieldNow { yielded: false }.await;
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if std::mem::replace(&mut self.yielded, true) {
            return Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// What a task leaves for its handle.
struct TaskSlot<T> {
    /// Its result, until the handle takes it.
    result: Option<Result<T, JoinError>>,
    /// Whether the handle took it.
    taken: bool,
    /// Whether `abort` was called.
    aborted: bool,
    /// The waker of the handle's last poll.
    joiner: Option<Waker>,
}

impl<T> Default for TaskSlot<T> {
    fn default() -> TaskSlot<T> {
        TaskSlot {
            result: None,
            taken: false,
            aborted: false,
            joiner: None,
        }
    }
}

type Slot<T> = Arc<StdMutex<TaskSlot<T>>>;

/// An owned permission to await a task's result, as
/// `tokio::task::JoinHandle`: a future of `Result<T, JoinError>`.
/// Dropping it detaches the task, which still runs.
pub struct JoinHandle<T> {
    thread: ThreadId,
    execution: u64,
    site: Site,
    slot: Slot<T>,
}

impl<T> JoinHandle<T> {
    /// Cancel the task, as tokio's: it stops at its next `Pending` (or
    /// before its first poll), its future is dropped, and awaiting the
    /// handle gives a [`JoinError`] that `is_cancelled`. No effect on a
    /// finished task. A synchronisation operation, a scheduling point.
    #[track_caller]
    pub fn abort(&self) {
        abort_task(self.thread, self.execution, &*self.slot, Location::caller());
    }

    /// Whether the task finished (returned, panicked or was cancelled),
    /// as tokio's; not a scheduling point.
    pub fn is_finished(&self) -> bool {
        self.slot.finished()
    }
}

impl<T: Send + 'static> JoinHandle<T> {
    /// A handle that cancels the task without awaiting it, as tokio's
    /// `JoinHandle::abort_handle`.
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            thread: self.thread,
            execution: self.execution,
            slot: self.slot.clone(),
        }
    }
}

/// An owned permission to cancel a task, as `tokio::task::AbortHandle`:
/// it does not await the task, and dropping it does nothing.
#[derive(Clone)]
pub struct AbortHandle {
    thread: ThreadId,
    execution: u64,
    slot: Arc<dyn Abortable + Send + Sync>,
}

impl AbortHandle {
    /// Cancel the task, as [`JoinHandle::abort`].
    #[track_caller]
    pub fn abort(&self) {
        abort_task(self.thread, self.execution, &*self.slot, Location::caller());
    }

    /// Whether the task finished, as [`JoinHandle::is_finished`].
    pub fn is_finished(&self) -> bool {
        self.slot.finished()
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("task", &self.thread)
            .finish_non_exhaustive()
    }
}

/// Cancel `thread`'s task (of execution `execution`), whose slot is
/// `slot`: a scheduling point, then the slot marked and the task woken to
/// stop, unless it finished.
fn abort_task(thread: ThreadId, execution: u64, slot: &dyn Abortable, site: Site) {
    let operation = Operation::Abort(thread);
    op::async_step(None, EventKind::Signal, operation, site);
    if !slot.abort() {
        op::wake(execution, thread);
    }
}

/// A task's slot, whatever its output type, as an abort handle sees it.
trait Abortable {
    /// Mark the task aborted; whether it had finished.
    fn abort(&self) -> bool;
    /// Whether the task finished.
    fn finished(&self) -> bool;
}

impl<T> Abortable for StdMutex<TaskSlot<T>> {
    fn abort(&self) -> bool {
        let mut slot = lock(self);
        slot.aborted = true;
        slot.result.is_some() || slot.taken
    }

    fn finished(&self) -> bool {
        let slot = lock(self);
        slot.result.is_some() || slot.taken
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    /// A join: a synchronisation operation, a scheduling point (reported
    /// at the task's spawn site: a poll has no caller location).
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let operation = Operation::Join(self.thread);
        if !op::async_step(None, EventKind::Join, operation, self.site) {
            return Poll::Pending;
        }
        let mut slot = lock(&self.slot);
        if let Some(result) = slot.result.take() {
            slot.taken = true;
            drop(slot);
            if result.as_ref().is_err_and(JoinError::is_panic) {
                executor::panic_delivered(self.thread);
            }
            return Poll::Ready(result);
        }
        assert!(
            !slot.taken,
            "rankcheck: a JoinHandle polled after it completed"
        );
        slot.joiner = Some(cx.waker().clone());
        drop(slot);
        with(|ex| {
            let running = ex.current;
            ex.touch(crate::footprint::Place::Everything, true);
            ex.tasks
                .awaits(running, Awaited::Task(self.thread), self.site);
        });
        Poll::Pending
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("task", &self.thread)
            .finish_non_exhaustive()
    }
}

/// Why a task gave no result, as `tokio::task::JoinError`: it panicked
/// (the run fails with that panic unless the test takes the error from
/// the handle and goes on without panicking) or it was cancelled.
pub struct JoinError {
    repr: Repr,
}

enum Repr {
    Cancelled,
    /// The payload behind a mutex, so that the error is `Sync` (as
    /// tokio's, which an `anyhow::Error` needs) though a payload is only
    /// `Send`.
    Panic(StdMutex<Box<dyn Any + Send>>),
}

impl JoinError {
    fn cancelled() -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
        }
    }

    fn panicked(payload: Box<dyn Any + Send>) -> JoinError {
        JoinError {
            repr: Repr::Panic(StdMutex::new(payload)),
        }
    }

    /// Whether the task was cancelled (`JoinHandle::abort`).
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Whether the task panicked.
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic's payload.
    ///
    /// # Panics
    /// When the task was cancelled, as tokio's.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send> {
        self.try_into_panic()
            .unwrap_or_else(|_| panic!("`JoinError` reason is not a panic."))
    }

    /// The panic's payload, or the error back when the task was cancelled.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send>, JoinError> {
        match self.repr {
            Repr::Panic(payload) => Ok(payload
                .into_inner()
                .unwrap_or_else(|poisoned| poisoned.into_inner())),
            Repr::Cancelled => Err(self),
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(f, "task was cancelled"),
            Repr::Panic(payload) => {
                let payload = lock(payload);
                let message = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied());
                match message {
                    Some(message) => write!(f, "task panicked with message {message:?}"),
                    None => write!(f, "task panicked"),
                }
            }
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Cancelled => write!(f, "JoinError::Cancelled"),
            Repr::Panic(_) => write!(f, "JoinError::Panic(..)"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(error: JoinError) -> std::io::Error {
        let message = match &error.repr {
            Repr::Cancelled => "task was cancelled",
            Repr::Panic(_) => "task panicked",
        };
        std::io::Error::other(message)
    }
}
