//! Time, as `tokio::time`, on the run's virtual clock
//! (`rankcheck_rt::future::clock`): never the real clock's. The clock
//! reads the same at the start of every run and moves only when no task
//! can run (to the earliest timer's deadline, as tokio's paused clock
//! auto-advances when its runtime is idle) or when the test calls
//! [`advance`]; so a test never waits, and its times are those of tokio
//! with time paused, whether or not it pauses it (`start_paused`,
//! [`pause`]). Timers have tokio's millisecond resolution. A `sleep`, an
//! interval's tick and a `timeout` complete when the clock reaches their
//! deadline: a timeout fires only if the future it bounds is still
//! pending once every task that could have made it ready has run (and
//! timers of the same deadline race: their tasks are woken together and
//! the search orders them).
//!
//! Outside a run (a plain `#[test]`, a static), `Instant::now` reads the
//! real clock, as tokio's does outside a runtime; a timer polled there
//! panics, as tokio's does without its runtime. Not provided:
//! `Instant::{from_std, into_std}` (a virtual instant has no real
//! counterpart), `error::Error`.

mod instant;
mod interval;
mod sleep;
mod timeout;

pub use instant::Instant;
pub use interval::{interval, interval_at, Interval, MissedTickBehavior};
pub use sleep::{sleep, sleep_until, Sleep};
pub use std::time::Duration;
pub use timeout::{timeout, timeout_at, Timeout};

use rankcheck_rt::future::clock;

/// Time's errors, as `tokio::time::error`.
pub mod error {
    pub use super::timeout::Elapsed;
}

/// Pause time, as tokio's `time::pause` (`#[tokio::test(start_paused =
/// true)]` calls it first): the clock already moves only when no task can
/// run, so this only marks time paused, for [`advance`] and [`resume`].
///
/// # Panics
/// When time is already paused, as tokio's; outside a test run.
#[track_caller]
pub fn pause() {
    if clock::set_paused(true) {
        panic!("time is already frozen");
    }
}

/// Resume time, as tokio's `time::resume`: marks time not paused; the
/// clock still moves only when no task can run (see the module).
///
/// # Panics
/// When time is not paused, as tokio's; outside a test run.
#[track_caller]
pub fn resume() {
    if !clock::set_paused(false) {
        panic!("time is not frozen");
    }
}

/// Move the clock forward by `duration`, as tokio's `time::advance`: the
/// timers it reaches fire (their tasks woken), then the task yields, a
/// scheduling point.
///
/// # Panics
/// When time is not paused, as tokio's; outside a test run.
pub async fn advance(duration: Duration) {
    let paused = clock::set_paused(true);
    if !paused {
        clock::set_paused(false);
        panic!("time is not frozen");
    }
    clock::advance(duration);
    crate::task::yield_now().await;
}
