//! `interval`, `interval_at` and `Interval`, as tokio's: ticks on the
//! run's clock, a period apart, with tokio's `MissedTickBehavior`.

use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::{sleep_until, Instant, Sleep};

/// Ticks every `period`, the first at once, as `tokio::time::interval`.
///
/// # Panics
/// When `period` is zero, as tokio's.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    interval_at(Instant::now(), period)
}

/// Ticks every `period` from `start`, as `tokio::time::interval_at`.
///
/// # Panics
/// When `period` is zero, as tokio's.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    Interval {
        delay: sleep_until(start),
        period,
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// What an interval does when a tick is late by more than 5 ms, as
/// `tokio::time::MissedTickBehavior`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Tick as fast as possible until caught up (the default).
    #[default]
    Burst,
    /// The next tick a period after the late one.
    Delay,
    /// Skip the missed ticks: the next on the original schedule.
    Skip,
}

impl MissedTickBehavior {
    /// The next deadline after a tick due at `timeout` came at `now`
    /// (tokio's `next_timeout`).
    fn next_timeout(self, timeout: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => timeout + period,
            MissedTickBehavior::Delay => now + period,
            MissedTickBehavior::Skip => {
                let late = (now - timeout).as_nanos() % period.as_nanos();
                let late = u64::try_from(late)
                    .expect("too much time has elapsed since the interval was supposed to tick");
                now + period - Duration::from_nanos(late)
            }
        }
    }
}

/// As `tokio::time::Interval`.
#[derive(Debug)]
pub struct Interval {
    delay: Sleep,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    /// The next tick: the instant it was due.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Poll for the next tick, as tokio's `poll_tick`.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        if self.delay.poll_deadline(cx).is_pending() {
            return Poll::Pending;
        }
        let timeout = self.delay.deadline();
        let now = Instant::now();
        let next = if now > timeout + Duration::from_millis(5) {
            self.missed_tick_behavior
                .next_timeout(timeout, now, self.period)
        } else {
            timeout
                .checked_add(self.period)
                .unwrap_or_else(Instant::far_future)
        };
        self.reset_at(next);
        Poll::Ready(timeout)
    }

    /// The next tick a period from now.
    pub fn reset(&mut self) {
        self.reset_at(Instant::now() + self.period);
    }

    /// The next tick at once.
    pub fn reset_immediately(&mut self) {
        self.reset_at(Instant::now());
    }

    /// The next tick `after` from now.
    pub fn reset_after(&mut self, after: Duration) {
        self.reset_at(Instant::now() + after);
    }

    /// The next tick at `deadline`.
    pub fn reset_at(&mut self, deadline: Instant) {
        Pin::new(&mut self.delay).reset(deadline);
    }

    /// What it does with missed ticks.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Set what it does with missed ticks.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }
}
