//! `JoinSet`, as `tokio::task::JoinSet`: tasks spawned into a set and
//! joined in the order they finish.
//!
//! Each task's future is wrapped so that, when the task lets go of it
//! (it completed, panicked or was cancelled: a task drops its future as
//! it finishes), the task's key joins the set's queue of finished tasks
//! and the set's waker is woken. `join_next` takes the queue's first and
//! awaits its handle, so tasks are joined in the order the search
//! finished them, as tokio's set gives them in the order they completed.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::{spawn, spawn_blocking, AbortHandle, JoinError, JoinHandle};

/// A set of tasks, as `tokio::task::JoinSet`: dropping it aborts them.
pub struct JoinSet<T> {
    /// The tasks not yet joined, by key (spawn order).
    tasks: BTreeMap<u64, JoinHandle<T>>,
    /// The next task's key.
    next_key: u64,
    finished: Arc<Finished>,
}

/// The keys of the tasks that let go of their futures, in that order, and
/// the waker of the set's last poll. A std mutex held for bookkeeping
/// only, never across a scheduling point or a wake.
#[derive(Default)]
struct Finished {
    state: Mutex<FinishedState>,
}

#[derive(Default)]
struct FinishedState {
    keys: VecDeque<u64>,
    waker: Option<Waker>,
}

impl Finished {
    fn lock(&self) -> std::sync::MutexGuard<'_, FinishedState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A task's future in a set: its key joins the set's queue when it is
/// dropped.
struct Tracked<F> {
    future: Pin<Box<F>>,
    key: u64,
    finished: Arc<Finished>,
}

impl<F: Future> Future for Tracked<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.future.as_mut().poll(cx)
    }
}

impl<F> Drop for Tracked<F> {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.finished.lock();
            state.keys.push_back(self.key);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T: Send + 'static> JoinSet<T> {
    /// An empty set.
    pub fn new() -> JoinSet<T> {
        JoinSet {
            tasks: BTreeMap::new(),
            next_key: 0,
            finished: Arc::default(),
        }
    }

    /// How many tasks it holds (finished ones not yet joined included).
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Spawn `future` as a task of the set, as `tokio::spawn`.
    #[track_caller]
    pub fn spawn<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        let key = self.next_key;
        self.next_key += 1;
        let tracked = Tracked {
            future: Box::pin(future),
            key,
            finished: self.finished.clone(),
        };
        self.insert(key, spawn(tracked))
    }

    /// Run the blocking closure `work` as a task of the set, as
    /// [`spawn_blocking`].
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, work: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
    {
        let key = self.next_key;
        self.next_key += 1;
        let finished = self.finished.clone();
        // The closure's guard joins the queue when the task lets go of it.
        let guard = Tracked {
            future: Box::pin(std::future::ready(())),
            key,
            finished,
        };
        self.insert(
            key,
            spawn_blocking(move || {
                let output = work();
                drop(guard);
                output
            }),
        )
    }

    fn insert(&mut self, key: u64, handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        self.tasks.insert(key, handle);
        abort
    }

    /// Wait for a task of the set to finish: its result, in the order the
    /// tasks finished; `None` when the set is empty.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// A finished task's result if one is there now, never waiting.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        loop {
            let key = self.finished.lock().keys.front().copied()?;
            let Some(handle) = self.tasks.get_mut(&key) else {
                self.finished.lock().keys.pop_front();
                continue;
            };
            return match Pin::new(handle).poll(&mut cx) {
                Poll::Ready(result) => {
                    self.finished.lock().keys.pop_front();
                    self.tasks.remove(&key);
                    Some(result)
                }
                Poll::Pending => None,
            };
        }
    }

    /// Poll for the next task to finish, as tokio's `poll_join_next`.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        loop {
            if self.tasks.is_empty() {
                return Poll::Ready(None);
            }
            let front = {
                let mut state = self.finished.lock();
                let front = state.keys.front().copied();
                if front.is_none() {
                    state.waker = Some(cx.waker().clone());
                }
                front
            };
            let Some(key) = front else {
                return Poll::Pending;
            };
            // A key whose handle is gone: its task was detached.
            let Some(handle) = self.tasks.get_mut(&key) else {
                self.finished.lock().keys.pop_front();
                continue;
            };
            let Poll::Ready(result) = Pin::new(handle).poll(cx) else {
                return Poll::Pending;
            };
            self.finished.lock().keys.pop_front();
            self.tasks.remove(&key);
            return Poll::Ready(Some(result));
        }
    }

    /// Wait for every task to finish, their outputs in the order they
    /// finished, as tokio's `join_all`; a task's panic is resumed here.
    ///
    /// # Panics
    /// When a task panicked or was cancelled (as tokio's).
    pub async fn join_all(mut self) -> Vec<T> {
        let mut outputs = Vec::with_capacity(self.len());
        while let Some(result) = self.join_next().await {
            match result {
                Ok(output) => outputs.push(output),
                Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                Err(error) => panic!("{error}"),
            }
        }
        outputs
    }

    /// Abort every task of the set; they stay in it until joined.
    pub fn abort_all(&mut self) {
        for handle in self.tasks.values() {
            handle.abort();
        }
    }

    /// Remove every task from the set without aborting it.
    pub fn detach_all(&mut self) {
        self.tasks.clear();
        self.finished.lock().keys.clear();
    }

    /// Abort every task and wait for them all to finish, as tokio's
    /// `shutdown`.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }
}

impl<T: Send + 'static> Default for JoinSet<T> {
    fn default() -> JoinSet<T> {
        JoinSet::new()
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        for handle in self.tasks.values() {
            handle.abort();
        }
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet")
            .field("len", &self.tasks.len())
            .finish()
    }
}

impl<T, F> std::iter::FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> JoinSet<T> {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for future in iter {
            self.spawn(future);
        }
    }
}
