//! Time, as `tokio::time`, never the clock's: a `sleep` and an
//! interval's tick are yields (a scheduling point each; the durations are
//! not used), and whether a `timeout` fires is a scheduling choice, as a
//! timed wait's is for threads (crate::wake): decided when its future
//! first waits, drawn from the run's seed within `Builder::timeouts`, and
//! made whenever no thread can run (its deadline would then pass). Both
//! outcomes are explored: the future finishing first, the timeout firing
//! first.

use std::fmt;
use std::future::Future;
use std::ops::Add;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use rankcheck_engine::ThreadId;

use super::yield_now;
use crate::executor::{self, with};
use crate::op::Site;
use crate::trace::Operation;
use crate::wake::Woken;

/// A point in a test's time, which only intervals keep: their start plus
/// the ticks' periods. Never the clock's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(Duration);

impl Instant {
    /// The time from `earlier` to this one (zero if it is later).
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, duration: Duration) -> Instant {
        Instant(self.0 + duration)
    }
}

/// Wait for `duration`, as `tokio::time::sleep`: a yield (a scheduling
/// point); the duration is not used.
pub fn sleep(duration: Duration) -> impl Future<Output = ()> {
    let _ = duration;
    yield_now()
}

/// As `tokio::time::error::Elapsed`: the timeout fired first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elapsed(());

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

/// Run `future` with a timeout, as `tokio::time::timeout`: its output, or
/// `Err(Elapsed)` when the timeout fires first, a scheduling choice (see
/// the module); the duration is not used.
#[track_caller]
pub fn timeout<F: Future>(duration: Duration, future: F) -> Timeout<F> {
    let _ = duration;
    Timeout {
        future: Box::pin(future),
        timer: Timer::Unarmed,
        site: Location::caller(),
    }
}

/// `timeout`'s future.
pub struct Timeout<F> {
    future: Pin<Box<F>>,
    timer: Timer,
    site: Site,
}

/// A timeout's deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    /// Not waited for yet.
    Unarmed,
    /// Waited for by `thread` (of execution `execution`) since time had
    /// passed `epoch` times for it: it fires when time passes again.
    Armed {
        execution: u64,
        thread: ThreadId,
        epoch: u64,
    },
    /// Fired.
    Fired,
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(output) = self.future.as_mut().poll(cx) {
            self.disarm();
            return Poll::Ready(Ok(output));
        }
        if !executor::active() {
            return Poll::Pending;
        }
        let site = self.site;
        match self.timer {
            Timer::Fired => return Poll::Ready(Err(Elapsed(()))),
            Timer::Unarmed => {
                self.timer = with(|ex| {
                    let thread = ex.current;
                    ex.touch(crate::footprint::Place::Everything, true);
                    if ex.wakes.decide(true) == Woken::Timeout {
                        if let Some(trace) = &mut ex.trace {
                            trace.operation(thread, Operation::TimerFires, site);
                        }
                        return Timer::Fired;
                    }
                    ex.tasks.arm(thread, true);
                    Timer::Armed {
                        execution: ex.id,
                        thread,
                        epoch: ex.tasks.epoch(thread),
                    }
                });
                if self.timer == Timer::Fired {
                    // The future gets one more poll, as tokio's does before
                    // it looks at the deadline.
                    cx.waker().wake_by_ref();
                }
            }
            Timer::Armed { thread, epoch, .. } => {
                if with(|ex| ex.tasks.epoch(thread)) > epoch {
                    self.disarm();
                    self.timer = Timer::Fired;
                    return Poll::Ready(Err(Elapsed(())));
                }
            }
        }
        Poll::Pending
    }
}

impl<F> Timeout<F> {
    /// An armed timer no longer counts for its thread.
    fn disarm(&mut self) {
        let Timer::Armed {
            execution, thread, ..
        } = self.timer
        else {
            return;
        };
        self.timer = Timer::Unarmed;
        if executor::present() {
            with(|ex| {
                if ex.id == execution {
                    ex.touch(crate::footprint::Place::Everything, true);
                    ex.tasks.arm(thread, false);
                }
            });
        }
    }

    /// The future inside.
    pub fn get_ref(&self) -> &F {
        &self.future
    }
}

impl<F> Drop for Timeout<F> {
    fn drop(&mut self) {
        self.disarm();
    }
}

impl<F> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout").finish_non_exhaustive()
    }
}

/// Ticks every `period`, as `tokio::time::interval`: the first tick
/// completes at once, each later one is a yield.
///
/// # Panics
/// When `period` is zero, as tokio's.
pub fn interval(period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    Interval {
        next: Instant::default(),
        period,
        ticked: false,
    }
}

/// As `tokio::time::Interval`.
#[derive(Debug)]
pub struct Interval {
    next: Instant,
    period: Duration,
    ticked: bool,
}

impl Interval {
    /// The next tick: its instant (the start plus the periods so far).
    pub async fn tick(&mut self) -> Instant {
        if std::mem::replace(&mut self.ticked, true) {
            yield_now().await;
        }
        let now = self.next;
        self.next = now + self.period;
        now
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// The next tick completes at once.
    pub fn reset(&mut self) {
        self.ticked = false;
    }
}
