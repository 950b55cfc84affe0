//! `Instant`, as `tokio::time::Instant`: a point on the run's virtual
//! clock.

use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::sync::OnceLock;
use std::time::Duration;

use rankcheck_rt::future::clock;

/// Where the clock's zero lies from the instants' origin: far enough that
/// an instant minus a few days does not underflow, as a real instant
/// (counted from the machine's boot) does not.
const BASE: Duration = Duration::from_secs(1 << 24);

/// A measurement of the run's virtual clock, as `tokio::time::Instant`:
/// opaque, ordered, and useful with `Duration` (see the module for how
/// the clock moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(Duration);

impl Instant {
    /// The clock now, as tokio's `Instant::now`; outside a test run, the
    /// real clock's time since the process first asked, as tokio's reads
    /// the real clock outside a runtime.
    pub fn now() -> Instant {
        let since = clock::now().unwrap_or_else(|| {
            static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
            ORIGIN.get_or_init(std::time::Instant::now).elapsed()
        });
        Instant(BASE + since)
    }

    /// An instant thirty years from now, as tokio's "far future".
    pub(crate) fn far_future() -> Instant {
        Instant::now() + Duration::from_secs(86_400 * 365 * 30)
    }

    /// The time since the run began, as the clock counts it.
    pub(crate) fn since_start(self) -> Duration {
        self.0.saturating_sub(BASE)
    }

    /// The time from `earlier` to this one, zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.saturating_duration_since(earlier)
    }

    /// The time from `earlier` to this one, `None` if `earlier` is later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.0.checked_sub(earlier.0)
    }

    /// The time from `earlier` to this one, zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// The time since this instant, on the clock.
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// This instant plus `duration`, `None` on overflow.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.0.checked_add(duration).map(Instant)
    }

    /// This instant minus `duration`, `None` before the clock's origin.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.0.checked_sub(duration).map(Instant)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, duration: Duration) -> Instant {
        self.checked_add(duration)
            .expect("overflow when adding duration to instant")
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, duration: Duration) {
        *self = *self + duration;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    fn sub(self, duration: Duration) -> Instant {
        self.checked_sub(duration)
            .expect("overflow when subtracting duration from instant")
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, duration: Duration) {
        *self = *self - duration;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;

    fn sub(self, earlier: Instant) -> Duration {
        self.saturating_duration_since(earlier)
    }
}
