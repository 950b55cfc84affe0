//! `sleep`, `sleep_until` and `Sleep`, as tokio's: a future that
//! completes once the run's clock reaches its deadline.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use rankcheck_rt::future::clock::Timer;

use super::Instant;

/// Wait until `duration` has passed on the clock, as `tokio::time::sleep`
/// (a deadline too far to represent sleeps for ever).
pub fn sleep(duration: Duration) -> Sleep {
    let deadline = Instant::now()
        .checked_add(duration)
        .unwrap_or_else(Instant::far_future);
    sleep_until(deadline)
}

/// Wait until the clock reaches `deadline`, as `tokio::time::sleep_until`.
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep {
        deadline,
        timer: Timer::new(),
        registered: false,
    }
}

/// `sleep`'s future, as `tokio::time::Sleep`: `Unpin` here, which code
/// written for tokio's (pinned with `tokio::pin!` or `Box::pin`) does not
/// notice.
pub struct Sleep {
    deadline: Instant,
    timer: Timer,
    /// Whether it was polled since made or reset (tokio's `is_elapsed`
    /// is false until then).
    registered: bool,
}

impl Sleep {
    /// The instant it completes at.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether its deadline has passed, as tokio's: once it was polled
    /// and the clock reached the deadline.
    pub fn is_elapsed(&self) -> bool {
        self.registered && Instant::now() >= self.deadline
    }

    /// Complete at `deadline` instead, as tokio's `reset`: a task that
    /// awaits it is woken then (at once if it has passed), whether or not
    /// it polls it again first.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let this = self.get_mut();
        this.deadline = deadline;
        this.registered = true;
        this.timer.reset(deadline.since_start());
    }

    /// Poll it (its deadline as the clock counts it).
    pub(crate) fn poll_deadline(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.registered = true;
        self.timer.poll_until(self.deadline.since_start(), cx)
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.get_mut().poll_deadline(cx)
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}
