//! `timeout` and `timeout_at`, as tokio's: a future's output, or
//! `Elapsed` once the clock reaches the deadline first.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::{sleep, sleep_until, Instant, Sleep};

/// Run `future` until `duration` has passed on the clock, as
/// `tokio::time::timeout`: its output, or `Err(Elapsed)`. The future is
/// polled first at every poll, so a ready one wins even at the deadline.
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    Timeout {
        value: Box::pin(future.into_future()),
        delay: sleep(duration),
    }
}

/// Run `future` until the clock reaches `deadline`, as
/// `tokio::time::timeout_at`.
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout {
        value: Box::pin(future.into_future()),
        delay: sleep_until(deadline),
    }
}

/// `timeout`'s future, as `tokio::time::Timeout` (the future it bounds is
/// boxed, so `into_inner` needs it `Unpin`).
pub struct Timeout<T> {
    value: Pin<Box<T>>,
    delay: Sleep,
}

impl<T> Timeout<T> {
    /// The future inside.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The future inside, pinned.
    pub fn get_mut(&mut self) -> Pin<&mut T> {
        self.value.as_mut()
    }
}

impl<T: Unpin> Timeout<T> {
    /// The future inside, unwrapped.
    pub fn into_inner(self) -> T {
        *Pin::into_inner(self.value)
    }
}

impl<T: Future> Future for Timeout<T> {
    type Output = Result<T::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(output) = self.value.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        match self.delay.poll_deadline(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed(()))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> fmt::Debug for Timeout<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout")
            .field("delay", &self.delay)
            .finish_non_exhaustive()
    }
}

/// As `tokio::time::error::Elapsed`: the deadline passed first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elapsed(());

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for std::io::Error {
    fn from(_: Elapsed) -> std::io::Error {
        std::io::ErrorKind::TimedOut.into()
    }
}
