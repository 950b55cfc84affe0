//! Tasks, as `tokio::task`: rankcheck-rt's tasks, with `spawn_blocking` a
//! task of one poll and `JoinSet` (`task/join_set.rs`).

mod join_set;

use std::future::Future;

pub use join_set::JoinSet;
pub use rankcheck_rt::future::{spawn, yield_now, AbortHandle, JoinError, JoinHandle};

/// Run the blocking closure `work` on a thread of its own, as
/// `tokio::task::spawn_blocking` runs it on the blocking pool: a task whose
/// single poll runs `work` to its end, so to the search it is a thread
/// like a blocking-pool thread, and the rankcheck-rt thread and sync
/// types it uses block it alone. (Blocking on std's own types blocks the
/// whole search, as everywhere under rankcheck-rt.)
#[track_caller]
pub fn spawn_blocking<F, R>(work: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn(Blocking(Some(work)))
}

/// `spawn_blocking`'s future: ready at its first poll.
struct Blocking<F>(Option<F>);

impl<F> Unpin for Blocking<F> {}

impl<F: FnOnce() -> R, R> Future for Blocking<F> {
    type Output = R;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<R> {
        let work = self
            .0
            .take()
            .expect("invariant: a blocking task is polled once");
        std::task::Poll::Ready(work())
    }
}
